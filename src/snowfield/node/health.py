"""Health checks as avalanchego runs them: registered checks, periodic runs, tag filters."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snowfield.errors import InvalidParams
from snowfield.rpc.service import ServiceDispatcher

Check = Callable[[], Any]  # returns the message; raises to fail
APPLICATION_TAG = "application"
NEVER = "0001-01-01T00:00:00Z"


class CheckFailed(Exception):
    """Raised by a check; `details` becomes the result's message."""

    def __init__(self, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.details = details


@dataclass(slots=True)
class _Result:
    message: Any = None
    error: str | None = "not yet run"
    timestamp_ns: int | None = None
    duration_ns: int = 0
    contiguous_failures: int = 0
    first_failure_ns: int | None = None


@dataclass(slots=True)
class _Registered:
    check: Check
    tags: frozenset[str]
    result: _Result = field(default_factory=_Result)


class HealthChecker:
    """One namespace of checks (health or readiness); `run_all` refreshes every result."""

    def __init__(self, fmt_time: Callable[[int], str]) -> None:
        self._checks: dict[str, _Registered] = {}
        self._fmt = fmt_time

    def register(self, name: str, check: Check, tags: Iterable[str] = (APPLICATION_TAG,)) -> None:
        self._checks[name] = _Registered(check, frozenset(tags))

    def run_all(self) -> None:
        for entry in self._checks.values():
            _run(entry)

    def report(self, tags: Iterable[str] = ()) -> dict[str, Any]:
        wanted = set(tags)
        checks = {
            name: self._render(entry.result)
            for name, entry in self._checks.items()
            if not wanted or APPLICATION_TAG in entry.tags or entry.tags & wanted
        }
        healthy = all("error" not in c for c in checks.values())
        return {"checks": checks, "healthy": healthy}

    def _render(self, r: _Result) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if r.message is not None:
            out["message"] = r.message
        if r.error is not None:
            out["error"] = r.error
        out["timestamp"] = NEVER if r.timestamp_ns is None else self._fmt(r.timestamp_ns)
        out["duration"] = r.duration_ns
        if r.contiguous_failures:
            out["contiguousFailures"] = r.contiguous_failures
        if r.first_failure_ns is not None:
            out["timeOfFirstFailure"] = self._fmt(r.first_failure_ns)
        return out


def _run(entry: _Registered) -> None:
    started = time.time_ns()
    clock = time.perf_counter_ns()
    try:
        message, error = entry.check(), None
    except CheckFailed as exc:
        message, error = exc.details, str(exc)
    except Exception as exc:  # a broken check reports itself as failing, never crashes
        message, error = None, f"{type(exc).__name__}: {exc}"
    r = entry.result
    was_failing = r.error is not None and r.timestamp_ns is not None
    r.message = message
    r.error = error
    r.timestamp_ns = started
    r.duration_ns = time.perf_counter_ns() - clock
    if error is None:
        r.contiguous_failures = 0
        r.first_failure_ns = None
    else:
        r.contiguous_failures += 1
        if not was_failing:
            r.first_failure_ns = started


class HealthService:
    """The node's three namespaces, refreshed every `frequency` seconds."""

    def __init__(self, fmt_time: Callable[[int], str], frequency: float) -> None:
        self.health = HealthChecker(fmt_time)
        self.readiness = HealthChecker(fmt_time)
        self.frequency = frequency
        self._task: asyncio.Task[None] | None = None

    def liveness(self) -> dict[str, Any]:
        return {"checks": {}, "healthy": True}

    def refresh(self) -> None:
        self.readiness.run_all()
        self.health.run_all()

    async def start(self) -> None:
        self.refresh()
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.frequency)
            await asyncio.to_thread(self.refresh)


def chain_health(last_height: int, last_id: str) -> dict[str, Any]:
    """A hosted chain's check message as avalanchego's consensus engine reports it: its last
    accepted block, none processing, and every peer connected."""
    return {
        "engine": {
            "consensus": {
                "lastAcceptedHeight": last_height,
                "lastAcceptedID": last_id,
                "longestProcessingBlock": "0s",
                "processingBlocks": 0,
            },
            "vm": None,
        },
        "networking": {"percentConnected": 1.0},
    }


def register_node_checks(service: HealthService, data_dir: Path | None, min_disk: int) -> None:
    """The node's own checks beside its chains': network, router, database, disk space (at
    least `min_disk` bytes free) and bootstrapping."""

    def disk_check() -> dict[str, Any]:
        usage = shutil.disk_usage(data_dir or Path.cwd())
        details = {
            "availableDiskBytes": usage.free,
            "availableDiskPercentage": usage.free * 100 // usage.total,
        }
        if usage.free < min_disk:
            raise CheckFailed(
                f"remaining available disk space ({usage.free}) is below minimum required "
                f"available space ({min_disk})",
                details,
            )
        return details

    def database_check() -> None:
        if data_dir is not None and not data_dir.exists():
            raise CheckFailed(f"data directory {data_dir} is missing")

    health = service.health
    health.register(
        "network",
        lambda: {
            "connectedPeers": 0,
            "sendFailRate": 0,
            "timeSinceLastMsgReceived": "0s",
            "timeSinceLastMsgSent": "0s",
        },
    )
    health.register("router", lambda: {"longestRunningRequest": "0s", "outstandingRequests": 0})
    health.register("database", database_check)
    health.register("diskspace", disk_check)
    health.register("bootstrapped", lambda: [])
    service.readiness.register("bootstrapped", lambda: [])


def health_service(service: HealthService) -> ServiceDispatcher:
    """health.* at /ext/health: the three namespaces, filtered by tags."""
    return ServiceDispatcher(
        {
            "health.health": lambda p: service.health.report(_tags(p)),
            "health.readiness": lambda p: service.readiness.report(_tags(p)),
            "health.liveness": lambda p: service.liveness(),
        }
    )


def _tags(params: dict[str, Any]) -> list[str]:
    tags = params.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise InvalidParams("tags must be an array of strings")
    return tags
