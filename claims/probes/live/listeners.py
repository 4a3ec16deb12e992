"""Which local addresses a TCP port is listening on, read from /proc/net/tcp and tcp6.

Reading the kernel's socket tables answers "does the server bind 127.0.0.1 or
0.0.0.0?" without sending a packet to any other address. Linux only; elsewhere
:class:`~claims.probes.errors.PrerequisiteMissing`.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from claims.probes.errors import InputError, PrerequisiteMissing

__all__ = [
    "Listener",
    "listeners",
    "listening_pid",
    "owner_environment",
    "owner_pid",
    "parse_proc_net",
    "process_listeners",
    "socket_inodes",
]

_LISTEN = "0A"  # TCP_LISTEN in the kernel's state column
PROC_NET = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))


@dataclass(frozen=True)
class Listener:
    """One listening socket: its local address (text), port and socket inode."""

    address: str
    port: int
    inode: int

    @property
    def is_loopback(self) -> bool:
        return ipaddress.ip_address(self.address).is_loopback

    @property
    def is_wildcard(self) -> bool:
        return ipaddress.ip_address(self.address).is_unspecified


def _address(hex_addr: str, path: str) -> str:
    try:
        raw = bytes.fromhex(hex_addr)
    except ValueError:
        raise InputError(f"bad address {hex_addr!r}", path=path, field="local_address") from None
    if len(raw) not in (4, 16):
        raise InputError(f"address of {len(raw)} bytes", path=path, field="local_address")
    # The kernel prints each 32-bit word in host (little-endian) order.
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words))


def parse_proc_net(text: str, path: str = "/proc/net/tcp") -> list[Listener]:
    """The listening sockets in one /proc/net/tcp{,6} table."""
    found: list[Listener] = []
    for number, line in enumerate(text.splitlines()[1:], start=2):
        cols = line.split()
        if len(cols) < 10:
            continue
        if cols[3] != _LISTEN:
            continue
        local = cols[1]
        if ":" not in local:
            raise InputError(f"line {number}: local address {local!r}", path=path)
        hex_addr, hex_port = local.rsplit(":", 1)
        try:
            port, inode = int(hex_port, 16), int(cols[9])
        except ValueError:
            raise InputError(f"line {number}: unreadable port or inode", path=path) from None
        found.append(Listener(_address(hex_addr, path), port, inode))
    return found


def listeners(port: int | None, tables: tuple[Path, ...] = PROC_NET) -> list[Listener]:
    """Every local address listening on ``port`` (IPv4 and IPv6; None: on any port)."""
    readable = [t for t in tables if t.is_file()]
    if not readable:
        raise PrerequisiteMissing("no /proc/net/tcp: listening addresses are read on Linux only")
    out: list[Listener] = []
    for table in readable:
        out.extend(s for s in parse_proc_net(table.read_text(), str(table))
                   if port is None or s.port == port)
    return out


def owner_environment(inode: int, names: tuple[str, ...]) -> dict[str, str] | None:
    """Selected environment variables of the process owning socket ``inode``.

    None when the owner cannot be found or read (another user's process needs
    root); that is an answer, not an error.
    """
    pid = owner_pid(inode)
    if pid is None:
        return None
    try:
        raw = (Path("/proc") / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    items = raw.decode("utf-8", "replace").split("\0")
    env = dict(item.split("=", 1) for item in items if "=" in item)
    return {k: env[k] for k in names if k in env}


def socket_inodes(pid: int, proc: Path = Path("/proc")) -> set[int]:
    """The inodes of the sockets process ``pid`` holds open (its fd links ``socket:[N]``).

    An fd closed while it is read, or a process that cannot be read, gives fewer or none:
    the set is what could be seen.
    """
    found: set[int] = set()
    try:
        fds = list((proc / str(pid) / "fd").iterdir())
    except OSError:
        return found
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:[") and target.endswith("]") and target[8:-1].isdigit():
            found.add(int(target[8:-1]))
    return found


def process_listeners(pid: int, port: int | None, tables: tuple[Path, ...] = PROC_NET,
                      proc: Path = Path("/proc")) -> list[Listener]:
    """The sockets listening on ``port`` (None: on any port) that process ``pid`` holds
    open (not another's)."""
    held = socket_inodes(pid, proc)
    return [s for s in listeners(port, tables) if s.inode in held]


def owner_pid(inode: int) -> int | None:
    """The pid of the process holding socket ``inode`` open (None if none is readable).

    Another user's process cannot be read without root; that is an answer, not an error.
    """
    target = f"socket:[{inode}]"
    for pid_dir in Path("/proc").iterdir():
        if not pid_dir.name.isdigit():
            continue
        try:
            fds = list((pid_dir / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == target:
                    return int(pid_dir.name)
            except OSError:
                continue
    return None


def listening_pid(port: int, tables: tuple[Path, ...] = PROC_NET) -> int | None:
    """The pid owning a socket that listens on ``port`` (None if none is readable here)."""
    for sock in listeners(port, tables):
        pid = owner_pid(sock.inode)
        if pid is not None:
            return pid
    return None
