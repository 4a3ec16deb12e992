"""Which host names mean this machine: the loopback names and addresses.

One rule for three questions: which hosts every test may connect to (the socket
guard's allowed hosts, :mod:`claims.tiers`), whether an ``--ollama-host`` is off
this machine (:mod:`claims.plugin.options`), and whether a server's sockets and
processes can be read from this machine's /proc (:mod:`claims.plugin.serve`, the
listening-address claims). Imported by the plugin's options in every pytest run,
so it imports nothing at module level.
"""

from __future__ import annotations

__all__ = ["LOOPBACK_HOSTS", "is_loopback"]

# The names the socket guard allows every test (pytest-socket compares the host
# a test connects to with these literally, so they are spelt as tests write them).
LOOPBACK_HOSTS: tuple[str, ...] = ("127.0.0.1", "::1", "localhost")


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` names this machine: ``localhost`` (and ``*.localhost``) or a
    loopback address (127.0.0.0/8, ``::1``); a bracketed IPv6 literal counts too.

    Any other name counts as another machine, even one that resolves to loopback:
    only its resolver knows, and nothing here asks it.
    """
    import ipaddress

    if not host:
        return False
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
