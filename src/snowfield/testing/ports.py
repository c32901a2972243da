"""Loopback ports for test servers: a free one for a child process, a bound socket for an
in-process server."""

from __future__ import annotations

import random
import socket
from pathlib import Path


def free_port() -> int:
    """A loopback port free now, for a child process to bind. It is drawn from below the
    kernel's ephemeral range: a port in that range can be taken, before the child binds it, by
    any outgoing connection the kernel gives it to (CI saw it). In-process servers bind their
    own socket instead (`listening_socket`)."""
    low = _ephemeral_low()
    for _ in range(64):
        port = random.randrange(max(1024, low - 20_000), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (Linux's default where unreadable)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def listening_socket(port: int = 0) -> socket.socket:
    """A socket bound at 127.0.0.1 (a free port unless given), to hand to uvicorn, so no other
    process can take the port between choosing it and serving on it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return sock
