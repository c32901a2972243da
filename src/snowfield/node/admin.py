"""The admin API of a chain: profiles written under the node's profile directory, log level,
VM configuration."""

from __future__ import annotations

import cProfile
import logging
import sys
import tempfile
import threading
import traceback
import tracemalloc
from dataclasses import asdict
from pathlib import Path
from typing import Any

from snowfield.config import NetworkSettings
from snowfield.errors import Conflict, InvalidParams, NotFound
from snowfield.rpc.service import ServiceHandler, named_handlers, wire_name

log = logging.getLogger("snowfield.node")

LEVELS = {
    "trace": 5,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "fatal": logging.CRITICAL,
    "crit": logging.CRITICAL,
    "off": logging.CRITICAL + 10,
    "verbo": 5,
}


class Admin:
    """Profiling and logging controls; files are cpu.profile, mem.profile, lock.profile."""

    def __init__(self, directory: Path | None, vm_config: dict[str, Any]) -> None:
        self._directory = directory
        self.temporary = False
        self.vm_config = vm_config
        self._cpu: cProfile.Profile | None = None

    @property
    def directory(self) -> Path:
        """Where profiles go: under the data dir, or a temporary folder for in-memory nodes."""
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="snowfield-profiles-"))
            self.temporary = True
            log.info("profiles are written to %s", self._directory)
        return self._directory

    @wire_name("admin.startCPUProfiler")
    def start_cpu_profiler(self, _: dict[str, Any]) -> dict[str, Any]:
        if self._cpu is not None:
            raise Conflict("cpu profiler already running")
        self._cpu = cProfile.Profile()
        self._cpu.enable()
        return {}

    @wire_name("admin.stopCPUProfiler")
    def stop_cpu_profiler(self, _: dict[str, Any]) -> dict[str, Any]:
        if self._cpu is None:
            raise NotFound("cpu profiler doesn't exist")
        self._cpu.disable()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._cpu.dump_stats(str(self.directory / "cpu.profile"))
        self._cpu = None
        return {}

    @wire_name("admin.memoryProfile")
    def memory_profile(self, _: dict[str, Any]) -> dict[str, Any]:
        started_here = not tracemalloc.is_tracing()
        if started_here:
            tracemalloc.start()
        snapshot = tracemalloc.take_snapshot()
        if started_here:
            tracemalloc.stop()
        self.directory.mkdir(parents=True, exist_ok=True)
        snapshot.dump(str(self.directory / "mem.profile"))
        return {}

    @wire_name("admin.lockProfile")
    def lock_profile(self, _: dict[str, Any]) -> dict[str, Any]:
        # Python has no mutex profiler: the closest useful view is where every thread waits.
        frames = sys._current_frames()
        lines = []
        for thread in threading.enumerate():
            frame = frames.get(thread.ident or -1)
            lines.append(f"--- thread {thread.name} ({thread.ident})\n")
            if frame is not None:
                lines.extend(traceback.format_stack(frame))
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "lock.profile").write_text("".join(lines))
        return {}

    @wire_name("admin.setLogLevel")
    def set_log_level(self, params: dict[str, Any]) -> dict[str, Any]:
        level = params.get("level")
        if not isinstance(level, str) or level.lower() not in LEVELS:
            raise InvalidParams(f"failed to parse log level: unknown level {level!r}")
        logging.getLogger("snowfield").setLevel(LEVELS[level.lower()])
        return {}

    @wire_name("admin.getVMConfig")
    def get_vm_config(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"config": self.vm_config}

    def handlers(self) -> dict[str, ServiceHandler]:
        return named_handlers(self)

    def aliases(self) -> dict[str, str]:
        """The documented underscore names map onto the dotted names the server uses."""
        return {name.replace(".", "_", 1): name for name in self.handlers()}


def vm_config(settings: NetworkSettings) -> dict[str, Any]:
    """The settings as admin.getVMConfig reports them (paths as text, the mnemonic left out)."""
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(settings).items()}
    config.pop("mnemonic", None)
    config["chain_id"] = settings.c_chain_id  # the one in force: the network's unless given
    return config
