"""Throwaway PostgreSQL clusters for tests of the scale path: a primary made with initdb on a
free loopback port, and a streaming replica of it made with pg_basebackup. The shared server at
127.0.0.1:5432 allows no replication connections, so the tests bring their own primary."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from snowfield.testing import free_port

INITDB = shutil.which("initdb") or "/usr/local/bin/initdb"
PG_CTL = shutil.which("pg_ctl") or "/usr/local/bin/pg_ctl"
PG_BASEBACKUP = "/usr/bin/pg_basebackup"


@dataclass
class Cluster:
    data: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres?connect_timeout=2"

    def start(self) -> None:
        # No fsync (a throwaway cluster), but commits flushed as they happen (the default
        # synchronous_commit): with it off, a commit's WAL waited for the WAL writer's next
        # round (wal_writer_delay, 200 ms) before the walsender could stream it to the
        # replica, a delay of this set-up's, not of the read path the tests measure.
        _run(
            PG_CTL, "-D", str(self.data), "-l", str(self.data / "server.log"), "-w", "-t", "60",
            "-o", f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data}"
            " -c fsync=off -c full_page_writes=off",
            "start",
        )  # fmt: skip

    def stop(self) -> None:
        _run(PG_CTL, "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)


def _as_postgres() -> dict[str, object]:
    """initdb and the server refuse root: run them as the postgres user when we are root."""
    if os.geteuid() != 0:
        return {}
    entry = pwd.getpwnam("postgres")
    return {"user": entry.pw_uid, "group": entry.pw_gid}


def _run(*argv: str, check: bool = True) -> None:
    subprocess.run(
        argv,
        check=check,
        capture_output=True,
        timeout=120,
        **_as_postgres(),  # type: ignore[arg-type]
    )


def _own(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.chown(path, entry.pw_uid, entry.pw_gid)
    path.chmod(0o700)


@contextlib.contextmanager
def primary_and_replica() -> Iterator[tuple[Cluster, Cluster]]:
    """A primary (trust auth, replication allowed on loopback) and its hot standby, in a
    directory of their own under /tmp (the postgres user cannot enter pytest's), removed after."""
    root = Path(tempfile.mkdtemp(prefix="snowfield-pg-"))
    _own(root)
    primary = Cluster(root / "primary", free_port())
    replica = Cluster(root / "replica", free_port())
    _run(INITDB, "-D", str(primary.data), "-U", "postgres", "--auth=trust", "--no-sync")
    primary.start()
    try:
        _own(replica.data)
        _run(
            PG_BASEBACKUP, "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
            "-D", str(replica.data), "-R", "-X", "stream", "--no-sync",
        )  # fmt: skip
        replica.start()
        try:
            yield primary, replica
        finally:
            replica.stop()
    finally:
        primary.stop()
        shutil.rmtree(root, ignore_errors=True)
