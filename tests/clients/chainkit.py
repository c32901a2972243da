"""The official data client (@avalanche-sdk/chainkit from npm, unmodified) as tests drive it:
a list of calls against our data and metrics servers, each validated by the client's own
models (a body the client refuses comes back as a ResponseValidationError).

Two things stand between the client and our servers, both through its documented HTTPClient
options: its hosts are mapped to ours and its `x-glacier-api-key` header is also sent as the
spec's `x-service-api-key`; and NFT metadata's `indexStatus`, which the spec spells in lower
case against the client's upper-case enum, is upper-cased on the way in (`Result.translated`
counts them, so a test can tell the spec's spelling was on the wire)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from snowfield.testing import run_node_script

DRIVER = (Path(__file__).parent / "chainkit.mjs").read_text()


@dataclass(frozen=True, slots=True)
class Call:
    fn: str  # the client's path, e.g. "data.evm.blocks.get"
    args: dict[str, Any] | None = None
    pages: str | None = None  # "all": follow nextPageToken through the client's iterator


@dataclass(frozen=True, slots=True)
class Result:
    ok: bool
    value: Any = None
    pages: list[Any] = field(default_factory=list)
    error: dict[str, Any] = field(default_factory=dict)
    translated: int = 0  # indexStatus values handed to the client in its upper case

    def unwrap(self) -> Any:
        """The parsed body; fails the test with the client's complaint otherwise."""
        assert self.ok, f"the client refused the answer: {self.error}"
        return self.value

    def all_pages(self) -> list[Any]:
        assert self.ok, f"the client refused the answer: {self.error}"
        return self.pages


def drive(
    calls: list[Call],
    *,
    data: str,
    metrics: str | None = None,
    api_key: str | None = None,
    chain_id: str = "43112",
    network: str = "testnet",
    timeout: float = 180,
) -> list[Result]:
    """Runs `calls` in one Node.js process, in order; one Result per call."""
    plan = {
        "data": data,
        "metrics": metrics or data,
        "apiKey": api_key,
        "chainId": chain_id,
        "network": network,
        "calls": [{"fn": c.fn, "args": c.args, "pages": c.pages} for c in calls],
    }
    out = run_node_script(
        DRIVER, orjson.dumps(plan).decode(), packages=("@avalanche-sdk/chainkit",), timeout=timeout
    )
    return [Result(**r) for r in orjson.loads(out)]
