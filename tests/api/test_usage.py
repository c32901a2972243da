"""Usage: the request log against the requests a test made (apiLogs, apiUsageMetrics), the RPC
pair's empty series, and who may read what."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import httpx

from snowfield.store.database import Database
from snowfield.store.keys import create_key
from tests.api.conftest import (
    ALICE,
    BLOCKCHAIN_ID,
    CHAIN,
    api_client,
    assert_error,
    assert_matches,
    walk,
)

HEADER = "x-service-api-key"
TXS = f"/v1/chains/{CHAIN}/addresses/{ALICE}/transactions"
READS = ("/v1/apiLogs", "/v1/apiUsageMetrics")  # the reading itself is logged too


def logs(client: httpx.Client, secret: str, **params: Any) -> list[dict[str, Any]]:
    query = {"pageSize": 3, **params}
    client.headers[HEADER] = secret
    try:
        return walk(client, "/v1/apiLogs", "logs", "LogsResponse", query)
    finally:
        del client.headers[HEADER]


def wait_for(client: httpx.Client, secret: str, count: int) -> list[dict[str, Any]]:
    """The key's logged requests other than the readings, once `count` are written."""
    deadline = time.monotonic() + 10
    while True:
        found = [e for e in logs(client, secret) if e["requestPath"] not in READS]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_usage_equals_the_requests_made(filled: Database) -> None:
    key, secret = create_key(filled, "usage reader")
    with api_client(filled) as client:
        made = [
            ("/v1/chains", 200, 1),
            ("/v1/chains", 200, 1),
            (TXS, 200, 20),
            (f"/v1/chains/{CHAIN}/addresses/0x12/transactions", 400, 20),
            ("/v1/chains/999/addresses/" + ALICE + "/transactions", 404, 20),
            ("/v1/nothing", 404, 1),
        ]
        before = time.time()
        for path, status, _ in made:
            assert client.get(path, headers={HEADER: secret}).status_code == status
        client.get("/v1/chains")  # anonymous: not this key's
        found = wait_for(client, secret, len(made))
        after = time.time()
        assert sorted(
            (e["requestPath"], e["responseCode"], e["apiCreditsConsumed"]) for e in found
        ) == sorted(made)
        for entry in found:
            assert entry["orgId"] == key.id and entry["apiKeyId"] == key.id
            assert entry["apiKeyAlias"] == "usage reader" and entry["requestType"] == "data"
            assert before * 1000 - 1 <= entry["eventTimestamp"] <= after * 1000
            assert entry["requestDurationMsecs"] > 0
            assert entry["metadata"]["ipAddress"] == "127.0.0.1"
            assert entry["metadata"]["userAgent"].startswith("python-httpx")
        assert [e["eventTimestamp"] for e in found] == sorted(
            (e["eventTimestamp"] for e in found), reverse=True
        )
        assert Counter(e.get("chainId") for e in found) == {None: 3, str(CHAIN): 2, "999": 1}

        response = client.get(
            "/v1/apiUsageMetrics", params={"groupBy": "requestPath"}, headers={HEADER: secret}
        )
        assert response.status_code == 200, response.text
        body = response.json()
        assert_matches(body, "UsageMetricsResponse")
        assert body["orgId"] == key.id and body["aggregateDuration"] == "daily"
        (day,) = body["metrics"]
        assert day["timestamp"] == int(before) - int(before) % 86_400
        groups = {v["groupValue"]: v for v in day["values"] if v["groupValue"] not in READS}
        assert groups["/v1/chains"]["totalRequests"] == 2
        assert groups["/v1/chains"]["apiCreditsUsed"] == 2
        assert groups["/v1/chains"]["successRatePercent"] == 100
        assert groups["/v1/chains"]["requestsPerSecond"] == 2 / 86_400
        assert groups["/v1/nothing"]["invalidRequests"] == 1
        assert groups["/v1/nothing"]["apiCreditsWasted"] == 1
        by_status = client.get(
            "/v1/apiUsageMetrics",
            params={"groupBy": "responseCode", "requestPath": TXS},
            headers={HEADER: secret},
        ).json()
        values = by_status["metrics"][0]["values"]
        assert [(v["groupValue"], v["totalRequests"]) for v in values] == [(200, 1)]
        latency = next(e["requestDurationMsecs"] for e in found if e["requestPath"] == TXS)
        assert values[0]["medianResponseTimeMsecs"] == latency
        # Filters: a status, a chain; a range before any request holds none.
        only_404 = logs(client, secret, responseCode="404")
        assert sorted(e["requestPath"] for e in only_404) == sorted(
            p for p, s, _ in made if s == 404
        )
        on_chain = sorted(e["requestPath"] for e in logs(client, secret, chainId=str(CHAIN)))
        assert on_chain == sorted(p for p, _, _ in made if p.startswith(f"/v1/chains/{CHAIN}/"))
        old = client.get(
            "/v1/apiUsageMetrics",
            params={"startTimestamp": 0, "endTimestamp": 86_400},
            headers={HEADER: secret},
        )
        assert old.json()["metrics"] == []


def test_usage_needs_the_callers_own_key(filled: Database) -> None:
    key, secret = create_key(filled, "someone")
    with api_client(filled) as client:
        for path in ("/v1/apiUsageMetrics", "/v1/apiLogs", "/v1/rpcUsageMetrics"):
            assert_error(client.get(path), 401, "API key")
        for path in ("/v1/apiUsageMetrics", "/v1/apiLogs"):  # the RPC pair takes no orgId
            other = client.get(path, params={"orgId": "not-mine"}, headers={HEADER: secret})
            assert_error(other, 403, "orgId")
        bad = [
            {"timeInterval": "yearly"},
            {"groupBy": "country"},
            {"responseCode": "abc"},
            {"startTimestamp": 86_400 * 3, "endTimestamp": 86_400},
            {"requestType": "ws"},
        ]
        for params in bad:
            response = client.get("/v1/apiUsageMetrics", params=params, headers={HEADER: secret})
            assert_error(response, 400)
        assert_error(
            client.get("/v1/apiLogs", params={"pageToken": "x"}, headers={HEADER: secret}), 400
        )
        assert_error(
            client.get("/v1/apiLogs", params={"pageSize": 101}, headers={HEADER: secret}), 400
        )
    assert key.id


def test_rpc_usage_is_empty_where_no_rpc_is_relayed(filled: Database) -> None:
    _, secret = create_key(filled, "rpc")
    with api_client(filled) as client:
        for path in ("/v1/rpcUsageMetrics", "/v1/subnetRpcUsageMetrics"):
            client.get(path, headers={HEADER: secret})  # data requests: logged, not RPC
            response = client.get(
                path,
                params={"chainId": str(CHAIN), "groupBy": "rpcMethod"},
                headers={HEADER: secret},
            )
            assert response.status_code == 200, response.text
            body = response.json()
            assert_matches(body, "RpcUsageMetricsResponse")
            assert body == {"aggregateDuration": "daily", "metrics": [], "chainId": str(CHAIN)}


def test_a_chain_filter_names_a_chain_the_key_may_read(filled: Database) -> None:
    _, limited = create_key(filled, "other chain only", chains=[43114])
    with api_client(filled) as client:
        for path in ("/v1/apiUsageMetrics", "/v1/apiLogs", "/v1/subnetRpcUsageMetrics"):
            refused = client.get(path, params={"chainId": str(CHAIN)}, headers={HEADER: limited})
            assert_error(refused, 403, "chain")
            unknown = client.get(path, params={"chainId": "999"}, headers={HEADER: limited})
            assert_error(unknown, 404, "999")
            allowed = client.get(path, params={"chainId": "43114"}, headers={HEADER: limited})
            assert allowed.status_code == 200, allowed.text


def test_a_chain_named_by_its_blockchain_id_is_logged_by_its_evm_id(filled: Database) -> None:
    """The first request's reference is looked up when its batch is written; later ones use
    what that lookup found."""
    _, secret = create_key(filled, "by blockchain id")
    path = f"/v1/chains/{BLOCKCHAIN_ID}/addresses/{ALICE}/transactions"
    with api_client(filled) as client:
        for made in (1, 2):
            assert client.get(path, headers={HEADER: secret}).status_code == 200
            found = wait_for(client, secret, made)
            assert [(e["requestPath"], e.get("chainId")) for e in found] == [
                (path, str(CHAIN))
            ] * made
