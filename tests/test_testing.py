"""The test servers themselves: a port chosen for a child process may be taken before the child
binds it (CI saw it), and the child must then come up elsewhere rather than fail the test."""

from __future__ import annotations

from pathlib import Path

import httpx

from snowfield.testing import DevnetProcess, listening_socket


def test_a_devnet_process_whose_port_was_taken_moves_to_a_free_one(tmp_path: Path) -> None:
    with listening_socket() as held:
        held.listen()
        taken = int(held.getsockname()[1])
        node = DevnetProcess(tmp_path / "data", taken)
        node.start(timeout=60)
        try:
            assert node.port != taken
            live = httpx.get(f"{node.base}/ext/health/liveness", timeout=5)
            assert live.status_code == 200
        finally:
            node.stop()
