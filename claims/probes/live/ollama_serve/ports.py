"""Loopback ports for private servers.

The port is chosen the way Ollama's own integration tests do (``FindPort`` in
``integration/utils_test.go``): bind port 0, read the number, release it. A
process may take it before the server binds; the server then exits with
"address already in use" and the suite tries another (:class:`~.errors.PortInUse`).
"""

from __future__ import annotations

import socket

__all__ = ["free_port", "port_is_free"]


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on at ``host`` just now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether ``host:port`` can be bound now (nothing listens there)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # As Go's net.Listen does: a port in TIME_WAIT is free to listen on.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True
