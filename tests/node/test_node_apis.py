"""The node's own APIs: index (containers), health (GET and JSON-RPC), admin, metrics."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import rlp
from eth_utils import keccak
from web3 import Web3

from snowfield.formats.cb58 import decode_cb58
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.proposervm import StatelessBlock, parse
from snowfield.testing import RunningNode, serve_devnet
from tests.helpers import labels, prometheus_samples

DEV0 = Web3.to_checksum_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")


def service(url: str, method: str, params: Any = None) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    response = httpx.post(url, json=body, timeout=30)
    assert response.status_code == 200
    reply: dict[str, Any] = response.json()
    return reply


def test_index_serves_every_block_as_a_container(devnet: RunningNode, w3: Web3) -> None:
    url = devnet.base + "/ext/index/C/block"
    for _ in range(3):
        w3.eth.wait_for_transaction_receipt(
            w3.eth.send_transaction({"from": DEV0, "to": DEV0, "value": 1})
        )
    head = w3.eth.block_number
    last = service(url, "index.getLastAccepted", {"encoding": "hex"})["result"]
    assert last["index"] == str(head - 1) and last["encoding"] == "hex"
    raw = decode_hex(last["bytes"])
    block = parse(raw)
    assert isinstance(block, StatelessBlock)
    assert hashlib.sha256(raw[: len(raw) - 4]).digest() == decode_cb58(last["id"])
    header = rlp.decode(block.inner_block)[0]
    assert keccak(rlp.encode(header)) == bytes(w3.eth.get_block(head)["hash"])
    first = service(url, "index.getContainerByIndex", {"index": 0, "encoding": "hex"})["result"]
    assert first["index"] == "0"
    by_id = service(url, "index.getContainerByID", {"id": last["id"]})["result"]
    assert by_id == last
    assert service(url, "index.getIndex", {"id": last["id"]})["result"] == {"index": last["index"]}
    assert service(url, "index.isAccepted", {"id": last["id"]})["result"] == {"isAccepted": True}
    assert service(url, "index.isAccepted", {"id": "11111111111111111111111111111111LpoYY"})[
        "result"
    ] == {"isAccepted": False}
    # Chained: each container's parent is the previous container.
    second = service(url, "index.getContainerByIndex", {"index": "1"})["result"]
    assert parse(decode_hex(second["bytes"])).parent_id.raw == decode_cb58(first["id"])


def test_index_range_rules(devnet: RunningNode) -> None:
    url = devnet.base + "/ext/index/C/block"
    last = int(service(url, "index.getLastAccepted")["result"]["index"])
    full = service(url, "index.getContainerRange", {"startIndex": 0, "numToFetch": 1024})["result"]
    assert [c["index"] for c in full] == [str(i) for i in range(last + 1)]
    assert (
        service(url, "index.getContainerRange", {"startIndex": 0, "numToFetch": 0})["result"]
        is None
    )
    err = service(url, "index.getContainerRange", {"startIndex": 0, "numToFetch": 1025})["error"]
    assert err["code"] == -32000 and "1025" in err["message"] and err["data"] is None
    err = service(url, "index.getContainerRange", {"startIndex": last + 1, "numToFetch": 1})[
        "error"
    ]
    assert err["message"] == f"start index ({last + 1}) > last accepted index ({last})"
    err = service(url, "index.getContainerByIndex", {"index": last + 5})["error"]
    assert err["message"] == f"no container at index {last + 5}"
    assert (
        service(url, "index.getContainerByID", {"id": "11111111111111111111111111111111LpoYY"})[
            "error"
        ]["message"]
        == "not found"
    )
    assert (
        service(url, "index.getLastAccepted", {"encoding": "json"})["error"]["message"]
        == "unsupported encoding in method"
    )
    # json.Uint64 takes ASCII decimal digits within 64 bits; anything else is an unmarshal error.
    for bad in ("²", "9" * 5000, str(2**64)):
        err = service(url, "index.getContainerByIndex", {"index": bad})["error"]
        assert err["code"] == -32000 and err["message"].startswith("couldn't unmarshal")
    assert service(url, "index.nope")["error"]["message"] == 'rpc: can\'t find method "index.Nope"'
    assert httpx.get(url).status_code == 405
    assert httpx.post(url, content=b"{}", headers={"content-type": "text/plain"}).status_code == 415


def test_health_get_and_rpc(devnet: RunningNode) -> None:
    report = httpx.get(devnet.base + "/ext/health").json()
    assert report["healthy"] is True
    assert {"C", "network", "database", "diskspace", "bootstrapped", "router"} <= set(
        report["checks"]
    )
    chain = report["checks"]["C"]["message"]["engine"]["consensus"]
    assert isinstance(chain["lastAcceptedHeight"], int)
    assert httpx.get(devnet.base + "/ext/health/health").json()["healthy"] is True
    assert httpx.get(devnet.base + "/ext/health/liveness").json() == {"checks": {}, "healthy": True}
    assert set(httpx.get(devnet.base + "/ext/health/readiness").json()["checks"]) == {
        "bootstrapped"
    }
    tagged = httpx.get(devnet.base + "/ext/health", params={"tag": "no-such-subnet"}).json()
    assert "C" not in tagged["checks"] and "network" in tagged["checks"]
    primary = httpx.get(
        devnet.base + "/ext/health", params={"tag": "11111111111111111111111111111111LpoYY"}
    ).json()
    assert "C" in primary["checks"]
    reply = service(devnet.base + "/ext/health", "health.health", {"tags": ["x"]})["result"]
    assert "C" not in reply["checks"]
    assert service(devnet.base + "/ext/health", "health.liveness")["result"]["healthy"] is True


@pytest.fixture(scope="module")
def sick() -> Iterator[RunningNode]:
    with serve_devnet(health_min_disk_bytes=1 << 62, health_check_frequency=0.2) as running:
        yield running


def test_unhealthy_node_answers_503(sick: RunningNode) -> None:
    response = httpx.get(sick.base + "/ext/health")
    assert response.status_code == 503
    disk = response.json()["checks"]["diskspace"]
    assert "below minimum required" in disk["error"] and disk["contiguousFailures"] >= 1
    assert "timeOfFirstFailure" in disk
    assert httpx.get(sick.base + "/ext/health/liveness").status_code == 200


def test_admin_profiles_and_log_level(devnet: RunningNode) -> None:
    url = devnet.base + "/ext/bc/C/admin"
    assert service(url, "admin.startCPUProfiler")["result"] == {}
    assert (
        service(url, "admin.startCPUProfiler")["error"]["message"] == "cpu profiler already running"
    )
    assert service(url, "admin_stopCPUProfiler")["result"] == {}
    assert service(url, "admin.stopCPUProfiler")["error"]["message"] == "cpu profiler doesn't exist"
    assert service(url, "admin.memoryProfile")["result"] == {}
    assert service(url, "admin_lockProfile")["result"] == {}
    profiles = devnet.node.admin.directory
    assert {p.name for p in profiles.iterdir()} >= {"cpu.profile", "mem.profile", "lock.profile"}
    assert service(url, "admin.setLogLevel", {"level": "debug"})["result"] == {}
    assert (
        "failed to parse log level"
        in service(url, "admin.setLogLevel", {"level": "loud"})["error"]["message"]
    )
    config = service(url, "admin.getVMConfig")["result"]["config"]
    assert config["chain_id"] == 43112 and "mnemonic" not in config
    assert (
        service(url, "admin")["error"]["message"]
        == 'rpc: service/method request ill-formed: "admin"'
    )


def test_metrics_endpoint(devnet: RunningNode) -> None:
    httpx.post(devnet.rpc, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"})
    samples = prometheus_samples(httpx.get(devnet.base + "/ext/metrics").text)
    assert samples[("snowfield_rpc_calls_total", labels(method="eth_chainId"))] >= 1
    assert samples[("snowfield_chain_height", labels())] >= 0
    assert ("snowfield_mempool_size", labels()) in samples
