"""The demo contracts' compiled artifacts (built from contracts/ by `make contracts`) and
ABI encoding of their calls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from eth_abi import encode

from snowfield.crypto.hashing import keccak


@dataclass(frozen=True, slots=True)
class Artifact:
    name: str
    abi: list[dict[str, Any]]
    bytecode: bytes
    deployed_bytecode: bytes

    def deploy_data(self, *args: Any) -> bytes:
        """Creation code followed by the ABI-encoded constructor arguments."""
        ctor = next((item for item in self.abi if item["type"] == "constructor"), None)
        types = [i["type"] for i in ctor["inputs"]] if ctor else []
        return self.bytecode + (encode(types, list(args)) if types else b"")


@cache
def load(name: str) -> Artifact:
    text = resources.files("snowfield.workload").joinpath(f"artifacts/{name}.json").read_text()
    data = json.loads(text)
    return Artifact(
        name=name,
        abi=data["abi"],
        bytecode=bytes.fromhex(data["bytecode"][2:]),
        deployed_bytecode=bytes.fromhex(data["deployedBytecode"][2:]),
    )


def selector(signature: str) -> bytes:
    return keccak(signature.encode())[:4]


def call_data(signature: str, *args: Any) -> bytes:
    """`transfer(address,uint256)`, args → selector ‖ ABI-encoded args."""
    inner = signature[signature.index("(") + 1 : -1]
    types = _split_types(inner)
    return selector(signature) + (encode(types, list(args)) if types else b"")


def event_topic(signature: str) -> bytes:
    return keccak(signature.encode())


def _split_types(inner: str) -> list[str]:
    types, depth, current = [], 0, ""
    for char in inner:
        if char == "," and depth == 0:
            types.append(current)
            current = ""
            continue
        depth += char == "("
        depth -= char == ")"
        current += char
    if current:
        types.append(current)
    return types
