"""claims.probes.live.loopback: which hosts are this machine (the guard's and the host's rule)."""

from __future__ import annotations

import pytest

from claims.probes.live.loopback import LOOPBACK_HOSTS, is_loopback


def test_every_name_the_socket_guard_allows_is_this_machine():
    assert LOOPBACK_HOSTS  # the guard allows at least the loopback itself
    assert all(is_loopback(host) for host in LOOPBACK_HOSTS)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1", True), ("::1", True), ("[::1]", True),
     ("localhost", True), ("LocalHost", True), ("spark.localhost", True),
     ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("spark.lan", False),
     ("localhost.example", False), ("", False), (None, False)],
)
def test_only_loopback_addresses_and_localhost_names_are_this_machine(host, loopback):
    # A bind-all address is not an address to reach; a name that is not *.localhost
    # may resolve anywhere, so it is another machine.
    assert is_loopback(host) is loopback
