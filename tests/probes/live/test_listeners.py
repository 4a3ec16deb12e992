"""claims.probes.live.listeners: which local addresses a TCP port listens on, from /proc/net.

Sockets are opened by the test itself (loopback, the IPv6 wildcard), so the
kernel's own tables are read; the parser's edge cases use lines of the format
the kernel prints (copied from this machine's /proc/net/tcp).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from claims.probes.errors import InputError, PrerequisiteMissing
from claims.probes.live.listeners import (
    PROC_NET,
    Listener,
    listeners,
    listening_pid,
    owner_environment,
    owner_pid,
    parse_proc_net,
    process_listeners,
    socket_inodes,
)

LINUX = PROC_NET[0].is_file()
needs_proc = pytest.mark.skipif(not LINUX, reason="/proc/net/tcp is Linux's")

HEADER = ("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
          "timeout inode\n")
# 127.0.0.1:37573 listening, inode 272956 (as the kernel prints it: each 32-bit word
# little-endian, the port big-endian hex).
LISTENING = ("   0: 0100007F:92C5 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0"
             "        0 272956 1 0000000051cd6eeb 100 0 0 10 0\n")
ESTABLISHED = LISTENING.replace(" 0A ", " 01 ").replace("272956", "272957")
V6_HEADER = ("  sl  local_address                         remote_address                        "
             "st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n")
# [::1]:8080 listening: ::1 is the word 00000001 written little-endian as 01000000.
V6_LOOPBACK = ("   0: 00000000000000000000000001000000:1F90 "
               "00000000000000000000000000000000:0000 0A "
               "00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0\n")


def test_a_kernel_line_reads_as_address_port_and_inode():
    (found,) = parse_proc_net(HEADER + LISTENING + ESTABLISHED)
    assert found == Listener("127.0.0.1", 37573, 272956)
    assert found.is_loopback and not found.is_wildcard


def test_ipv6_words_are_reordered_like_ipv4():
    (found,) = parse_proc_net(V6_HEADER + V6_LOOPBACK, "/proc/net/tcp6")
    assert found == Listener("::1", 8080, 4242)
    assert found.is_loopback


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (LISTENING.replace("0100007F:92C5", "0100007Z:92C5"), "bad address '0100007Z'"),
        (LISTENING.replace("0100007F:92C5", "01007F:92C5"), "address of 3 bytes"),
        (LISTENING.replace("0100007F:92C5", "0100007F92C5"), "line 2: local address"),
        (LISTENING.replace("272956", "inode?"), "line 2: unreadable port or inode"),
    ],
)
def test_a_garbled_table_is_an_input_error_naming_the_table(line, problem):
    with pytest.raises(InputError, match=problem) as info:
        parse_proc_net(HEADER + line, "/x/tcp")
    assert "/x/tcp" in str(info.value)


def test_short_lines_and_other_states_are_not_listeners():
    assert parse_proc_net(HEADER + "   1: 0100007F:92C5\n" + ESTABLISHED) == []


def test_without_proc_net_it_is_a_missing_prerequisite(tmp_path):
    with pytest.raises(PrerequisiteMissing, match="Linux only"):
        listeners(80, (tmp_path / "tcp", tmp_path / "tcp6"))


@needs_proc
def test_a_socket_this_process_opened_is_found_with_its_owner():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        (found,) = listeners(port)
        assert (found.address, found.port) == ("127.0.0.1", port) and found.is_loopback
        assert owner_pid(found.inode) == os.getpid()
        assert listening_pid(port) == os.getpid()
    assert listeners(port) == []  # closed: no longer listening
    assert listening_pid(port) is None


@needs_proc
def test_the_ipv6_wildcard_is_seen_as_wildcard():
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
        try:
            s.bind(("::", 0))
        except OSError as exc:
            pytest.skip(f"cannot bind the IPv6 wildcard here: {exc}")
        s.listen()
        port = s.getsockname()[1]
        (found,) = listeners(port)
        assert found.address == "::" and found.is_wildcard and not found.is_loopback


@needs_proc
@pytest.mark.slow
def test_the_owners_environment_is_read_from_its_process():
    """Another process listens with a variable of its own; its value is read back."""
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import socket, sys\n"
         "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
         "print(s.getsockname()[1], flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "CLAIMS_LISTENER_PROBE": "from the child"},
    )
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        (found,) = listeners(port)
        assert owner_pid(found.inode) == child.pid
        env = owner_environment(found.inode, ("CLAIMS_LISTENER_PROBE", "NOT_SET_ANYWHERE"))
        assert env == {"CLAIMS_LISTENER_PROBE": "from the child"}
    finally:
        child.kill()
        child.wait(timeout=10)


def test_a_socket_nobody_holds_has_no_owner():
    # Inode 0 is never a socket's; the scan reads every /proc/<pid>/fd it may and finds none.
    assert owner_pid(0) is None
    assert owner_environment(0, ("PATH",)) is None



@needs_proc
def test_a_process_listeners_are_its_own_sockets_on_that_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as mine, \
            socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
        mine.bind(("127.0.0.1", 0))
        mine.listen()
        port = mine.getsockname()[1]
        (found,) = process_listeners(os.getpid(), port)
        assert (found.address, found.port) == ("127.0.0.1", port)
        assert found.inode in socket_inodes(os.getpid())
        other.bind(("127.0.0.1", 0))  # held, but not listening on that port
        assert process_listeners(os.getpid(), other.getsockname()[1]) == []


def test_socket_inodes_reads_the_fd_links_and_skips_the_rest(tmp_path):
    fd = tmp_path / "42" / "fd"
    fd.mkdir(parents=True)
    (fd / "3").symlink_to("socket:[272956]")
    (fd / "4").symlink_to("/dev/null")
    (fd / "5").symlink_to("socket:[not-a-number]")
    (fd / "6").symlink_to("pipe:[99]")
    assert socket_inodes(42, proc=tmp_path) == {272956}
    assert socket_inodes(43, proc=tmp_path) == set()  # no such process: nothing seen
