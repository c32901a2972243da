"""The explorer in a real headless Chromium over an indexed devnet: every page type shows what the
data API, the metrics API and the node say; links and paging lead where they should; errors are
explained; the overview stays within its transfer budget and its origins. Screenshots of each
page type land in .artifacts/explorer/."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from snowfield.api.gate import RatePolicy
from snowfield.api.metrics.params import intervals_of
from snowfield.api.site import ExplorerConfig
from snowfield.store.curation import parse_curated, save_curated
from snowfield.store.keys import create_key
from snowfield.store.rollup_reads import METRICS
from tests.explorer.conftest import (
    Site,
    another_site,
    browse,
    count,
    dead_url,
    explorer_site,
    one,
    shown,
)

CHAIN = "43112"
A = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"  # the demo's sender and deployer
C = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"  # receives the demo's NFTs
UNKNOWN_TX = "0x" + "ab" * 32
BUDGET_BYTES = 300_000
# Pages are usable in well under a second on a quiet machine (docs/explorer.md); this bound is a
# tripwire for gross regressions that still holds on a shared 2-core machine under load.
USABLE_MS = 4000


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with explorer_site(tmp_path_factory.mktemp("explorer")) as built:
        yield built


def _entries(site: Site, address: str, **params: Any) -> list[dict[str, Any]]:
    path = f"/v1/chains/{CHAIN}/addresses/{address}/transactions"
    found: list[dict[str, Any]] = site.api(path, pageSize=100, **params)["transactions"]
    return found


@pytest.fixture(scope="module")
def targets(site: Site) -> dict[str, Any]:
    """Transactions, addresses and contracts of each kind, found through the data API."""
    entries = _entries(site, A)
    by_method = {
        e["nativeTransaction"].get("method", {}).get("methodName", "").split("(")[0]: e
        for e in entries
    }
    deployments = site.api(f"/v1/chains/{CHAIN}/contracts/{A}/deployments", pageSize=100)
    token = next(c for c in deployments["contracts"] if c["ercType"] == "ERC-20")
    head = int(site.rpc_call("eth_blockNumber"), 16)
    block = site.rpc_call("eth_getBlockByNumber", hex(head), False)
    return {
        "head": head,
        "head_hash": block["hash"],
        "erc20_tx": by_method["transfer"]["nativeTransaction"],
        "split_tx": by_method["split"]["nativeTransaction"],
        "batch_tx": by_method["safeBatchTransferFrom"]["nativeTransaction"],
        "token": token,
    }


def _metric_steps() -> list[dict[str, Any]]:
    return [
        {"name": f"metric-{m}-{i}", "url": f"/#/metrics?metric={m}&interval={i}&chain={CHAIN}"}
        for m in METRICS
        for i in intervals_of(m)
    ]


@pytest.fixture(scope="module")
def walk(site: Site, targets: dict[str, Any]) -> dict[str, Any]:
    """One browser run over every page type (screenshots of each), links, paging and search."""
    erc20, split = targets["erc20_tx"]["txHash"], targets["split_tx"]["txHash"]
    token = targets["token"]["address"]
    steps: list[dict[str, Any]] = [
        {"name": "overview", "url": "/", "fresh": True, "idle": True, "shot": "overview.png"},
        {"name": "overview-link", "click": "#blocks a[href*='/block/']"},
        {"name": "block", "url": f"/#/chain/{CHAIN}/block/{targets['head']}", "shot": "block.png"},
        {"name": "block-by-hash", "url": f"/#/chain/{CHAIN}/block/{targets['head_hash']}"},
        {"name": "tx-erc20", "url": f"/#/chain/{CHAIN}/tx/{erc20}", "shot": "tx.png"},
        {"name": "tx-split", "url": f"/#/chain/{CHAIN}/tx/{split}", "shot": "tx-internal.png"},
        {"name": "tx-batch", "url": f"/#/chain/{CHAIN}/tx/{targets['batch_tx']['txHash']}"},
        {"name": "address", "url": f"/#/chain/{CHAIN}/address/{A}", "shot": "address.png"},
        {"name": "address-next", "click": "[data-k=next-page]"},
        {"name": "address-first", "click": "[data-k=first-page]"},
        {"name": "erc20-tab", "click": "[data-tab=erc20]"},
        {"name": "nfts", "url": f"/#/chain/{CHAIN}/address/{C}?tab=nfts", "images": True},
        {"name": "nfts-shot", "shot": "address-nfts.png"},
        {"name": "deployed", "url": f"/#/chain/{CHAIN}/address/{A}?tab=contracts"},
        {"name": "contract-link", "click": f"[data-contract='{token}'] a"},
        {"name": "icm-tab", "url": f"/#/chain/{CHAIN}/address/{A}?tab=icm"},
        {"name": "contract", "url": f"/#/chain/{CHAIN}/contract/{token}", "shot": "contract.png"},
        {"name": "metrics", "url": "/#/metrics", "shot": "metrics.png"},
        {"name": "chart-2160", "script": CHART_2160, "shot": "chart-2160.png"},
        *_metric_steps(),
        {"name": "metric-total", "url": "/#/metrics?metric=txCount&interval=day&chain=total"},
        {"name": "metric-icm", "url": "/#/metrics?metric=icmMessages&interval=hour&chain=total"},
        {"name": "metric-staking", "url": "/#/metrics?metric=validatorCount&chain=total"},
        {"name": "search-address", "url": "/", "idle": True},
        {"name": "search-address-go", "search": A.upper().replace("0X", "0x")},
        {"name": "search-number", "search": "3"},
        {"name": "search-tx", "search": erc20},
        {"name": "search-block-hash", "search": targets["head_hash"]},
        {"name": "search-node", "search": "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"},
        {"name": "search-nothing", "search": "no such thing"},
        {"name": "unknown-tx", "url": f"/#/chain/{CHAIN}/tx/{UNKNOWN_TX}", "shot": "error.png"},
        {"name": "unserved", "url": "/#/validator/NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"},
        {"name": "unserved-shot", "shot": "unserved.png"},
        {"name": "dark", "url": "/", "fresh": True, "dark": True, "idle": True},
        {"name": "dark-shot", "shot": "overview-dark.png"},
        {"name": "phone", "url": "/", "fresh": True, "idle": True, "viewport": _PHONE},
        {"name": "phone-shot", "shot": "overview-phone.png"},
        {"name": "phone-tx", "url": f"/#/chain/{CHAIN}/tx/{split}", "shot": "tx-phone.png"},
    ]
    return browse(site.base, [{"url": None, **s} for s in steps])


_PHONE = {"width": 390, "height": 844}
# Draws the explorer's chart with 2,160 hourly points (a full page of operation 17) in place of
# the metrics page's chart, then hovers it; reports the time and what was drawn.
CHART_2160 = """(async () => {
  const { lineChart } = await import("/explorer/chart.js");
  const box = document.querySelector("#chart");
  const points = Array.from({ length: 2160 }, (_, i) =>
    ({ timestamp: 1700000000 + 3600 * i, value: 500 + 400 * Math.sin(i / 40) + (i % 24) * 5 }));
  const started = performance.now();
  lineChart(box, points);
  const ms = performance.now() - started;
  const svg = box.querySelector("svg").getBoundingClientRect();
  box.querySelector("svg").dispatchEvent(new PointerEvent("pointermove",
    { clientX: svg.left + svg.width / 2, clientY: svg.top + 50, bubbles: true }));
  const line = box.querySelector("path.line").getAttribute("d");
  return { ms, drawn: line.split("L").length, tip: box.querySelector(".tip").textContent };
})()"""


def _usable(step: dict[str, Any]) -> None:
    assert step["state"] == "ready", step["text"][:800]
    assert step["ms"] < USABLE_MS, f"{step['hash']} took {step['ms']} ms"
    assert not [e for e in step["consoleErrors"] if "Failed to load resource" not in e]


def test_overview_shows_heads_metrics_and_latest(walk: dict[str, Any], site: Site) -> None:
    page = walk["overview"]
    _usable(page)
    head = int(site.rpc_call("eth_blockNumber"), 16)
    assert one(page, "head")[1] == str(head)
    total = site.metric(CHAIN, "cumulativeTxCount", pageSize=1)["results"][0]["value"]
    assert one(page, "total-txs")[1] == str(total)
    hours = site.metric(CHAIN, "txCount", timeInterval="hour", pageSize=24)["results"]
    assert one(page, "txs-24h")[1] == str(sum(p["value"] for p in hours))
    today = site.metric(CHAIN, "activeAddresses", timeInterval="day", pageSize=1)["results"]
    assert one(page, "active-today")[1] == str(today[0]["value"])
    contracts = site.metric(CHAIN, "contracts", pageSize=1)["results"][0]["value"]
    assert one(page, "contracts-today") == (str(contracts), str(contracts))
    assert page["blocks"] == [str(n) for n in range(head, head - 8, -1)]
    latest = []
    for n in range(head, head - 10, -1):
        block = site.api(f"/v1/chains/{CHAIN}/blocks/{n}/transactions", pageSize=0)
        latest += [t["txHash"] for t in reversed(block["transactions"])]
    assert page["txs"] == latest[:10]
    charted = [
        len(site.metric(CHAIN, m, timeInterval="hour", pageSize=168)["results"])
        for m in ("txCount", "activeAddresses")
    ]
    assert page["chartPoints"] == charted


def test_overview_budget_and_origins(walk: dict[str, Any], site: Site) -> None:
    requests = walk["overview"]["requests"]
    assert sum(r["bytes"] for r in requests) <= BUDGET_BYTES
    allowed = {urlsplit(u).netloc for u in (site.base, site.rpc, site.metrics)}
    assert {urlsplit(r["url"]).netloc for r in requests} <= allowed
    assert not [r for r in requests if r.get("failed")]


def test_links_lead_to_the_block_page(walk: dict[str, Any], targets: dict[str, Any]) -> None:
    page = walk["overview-link"]
    _usable(page)
    assert page["page"] == "block" and page["hash"].endswith(f"/block/{targets['head']}")


def test_block_page_matches_node_and_operation_9(
    walk: dict[str, Any], site: Site, targets: dict[str, Any]
) -> None:
    for name in ("block", "block-by-hash"):
        page = walk[name]
        _usable(page)
        header = site.rpc_call("eth_getBlockByNumber", hex(targets["head"]), False)
        assert one(page, "number")[1] == str(targets["head"])
        assert one(page, "hash")[0] == header["hash"]
        assert one(page, "tx-count")[1] == str(len(header["transactions"]))
        assert one(page, "gas-used")[1] == str(int(header["gasUsed"], 16))
        listed = site.api(f"/v1/chains/{CHAIN}/blocks/{targets['head']}/transactions")
        assert page["txs"] == [t["txHash"] for t in listed["transactions"]]


def _summary_matches(site: Site, page: dict[str, Any], tx: dict[str, Any]) -> Any:
    """Status, fee (gas used times effective gas price), value and gas as the node and operation 9
    say; the receipt."""
    _usable(page)
    receipt = site.rpc_call("eth_getTransactionReceipt", tx["txHash"])
    fee = int(receipt["gasUsed"], 16) * int(receipt["effectiveGasPrice"], 16)
    assert one(page, "status")[1] == tx["txStatus"] == str(int(receipt["status"], 16))
    assert one(page, "fee")[1] == str(fee)
    assert one(page, "value")[1] == tx["value"]
    assert one(page, "gas-used")[1] == tx["gasUsed"]
    return receipt


def _view(site: Site, tx: dict[str, Any]) -> Any:
    """The transaction's complete view, as the data API gives the page."""
    return site.api(f"/v1/chains/{CHAIN}/transactions/{tx['txHash']}")


def test_transaction_page_shows_transfers_logs_status_and_fee(
    walk: dict[str, Any], site: Site, targets: dict[str, Any]
) -> None:
    tx = targets["erc20_tx"]
    page = walk["tx-erc20"]
    receipt = _summary_matches(site, page, tx)
    view = _view(site, tx)
    entry = next(e for e in _entries(site, A) if e["nativeTransaction"]["txHash"] == tx["txHash"])
    assert (
        [v for _, v in shown(page, "erc20-value")]
        == [t["value"] for t in view["erc20Transfers"]]
        == [t["value"] for t in entry["erc20Transfers"]]
    )
    assert count(page, "logs") == len(receipt["logs"])
    assert [v for _, v in shown(page, "log")] == [
        f"{int(g['logIndex'], 16)}:{g['address'].lower()}" for g in receipt["logs"]
    ]
    symbol = view["erc20Transfers"][0]["erc20Token"]["symbol"]
    assert any(text.startswith("Transfer(") and symbol in text for text, _ in shown(page, "event"))
    indexed_head = int(
        site.api(f"/v1/chains/{CHAIN}/blocks", pageSize=1)["blocks"][0]["blockNumber"]
    )
    assert one(page, "confirmations")[1] == str(indexed_head - int(tx["blockNumber"]) + 1)


def test_transaction_page_shows_internal_transactions(
    walk: dict[str, Any], site: Site, targets: dict[str, Any]
) -> None:
    tx = targets["split_tx"]
    page = walk["tx-split"]
    _summary_matches(site, page, tx)
    internals = _view(site, tx)["internalTransactions"]
    assert internals and count(page, "internals") == len(internals)
    assert [v for _, v in shown(page, "internal")] == [
        f"{i['internalTxType']}:{i['from']['address']}:{i['to']['address']}:{i['value']}"
        for i in internals
    ]
    # The splitter's own history lists the same calls (it is party to each).
    splitter = tx["to"]["address"]
    block = int(tx["blockNumber"])
    entry = next(
        e
        for e in _entries(site, splitter, startBlock=block, endBlock=block + 1)  # end exclusive
        if e["nativeTransaction"]["txHash"] == tx["txHash"]
    )
    assert entry["internalTransactions"] == internals


def test_transaction_page_shows_a_batch_of_erc1155_transfers(
    walk: dict[str, Any], site: Site, targets: dict[str, Any]
) -> None:
    tx = targets["batch_tx"]
    page = walk["tx-batch"]
    receipt = _summary_matches(site, page, tx)
    moved = _view(site, tx)["erc1155Transfers"]
    assert len(moved) == 2  # one TransferBatch log, two ids
    assert [v for _, v in shown(page, "erc1155-value")] == [
        f"{t['erc1155Token']['tokenId']}:{t['value']}" for t in moved
    ]
    assert count(page, "logs") == len(receipt["logs"])


def test_address_page_balances_history_and_paging(walk: dict[str, Any], site: Site) -> None:
    page = walk["address"]
    _usable(page)
    balances = site.api(f"/v1/chains/{CHAIN}/addresses/{A}/balances:listErc721")
    native = balances["nativeTokenBalance"]["balance"]
    assert (
        one(page, "native-balance")[1]
        == native
        == str(int(site.rpc_call("eth_getBalance", A, "latest"), 16))
    )
    _token_balances_are_the_nodes(site, page)
    first = site.api(f"/v1/chains/{CHAIN}/addresses/{A}/transactions", pageSize=25)
    assert page["txs"] == [e["nativeTransaction"]["txHash"] for e in first["transactions"]]
    second = site.api(
        f"/v1/chains/{CHAIN}/addresses/{A}/transactions",
        pageSize=25,
        pageToken=first["nextPageToken"],
    )
    assert walk["address-next"]["txs"] == [
        e["nativeTransaction"]["txHash"] for e in second["transactions"]
    ]
    assert walk["address-first"]["txs"] == page["txs"]
    erc20 = site.api(f"/v1/chains/{CHAIN}/addresses/{A}/transactions:listErc20", pageSize=25)
    assert walk["erc20-tab"]["txs"] == [t["txHash"] for t in erc20["transactions"]]
    # operation 16's tab: as many messages as the data API lists for the address
    messages = site.api(f"/v1/icm/addresses/{A}/messages", pageSize=25)["messages"]
    assert one(walk["icm-tab"], "icm-messages")[1] == str(len(messages))


def _token_balances_are_the_nodes(site: Site, page: dict[str, Any]) -> None:
    """Every ERC-20 and ERC-1155 balance the address page shows is the node's balanceOf."""
    erc20 = [(k[6:], v) for k, _, v, _ in page["ks"] if k.startswith("erc20-0x")]
    erc1155 = [(k[8:].split("-"), v) for k, _, v, _ in page["ks"] if k.startswith("erc1155-0x")]
    assert erc20 and erc1155 and not page["errors"]  # every balance part served
    now = site.api(f"/v1/chains/{CHAIN}/addresses/{A}/balances:getNative")
    assert one(page, "native-balance")[1] == now["nativeTokenBalance"]["balance"]
    owner = A[2:].rjust(64, "0")
    for token, value in erc20:
        data = "0x70a08231" + owner
        assert value == str(
            int(site.rpc_call("eth_call", {"to": token, "data": data}, "latest"), 16)
        )
    for (token, token_id), value in erc1155:
        data = "0x00fdd58e" + owner + int(token_id).to_bytes(32, "big").hex()
        assert value == str(
            int(site.rpc_call("eth_call", {"to": token, "data": data}, "latest"), 16)
        )
    listed = site.api(f"/v1/chains/{CHAIN}/addresses/{A}/balances:listErc20", pageSize=50)
    assert [t for t, _ in erc20] == [t["address"] for t in listed["erc20TokenBalances"]]


def test_nft_holdings_show_their_images(walk: dict[str, Any], site: Site) -> None:
    page = walk["nfts"]
    _usable(page)
    owned = site.api(f"/v1/chains/{CHAIN}/addresses/{C}/balances:listErc721", pageSize=24)
    tokens = [f"{t['address']}:{t['tokenId']}" for t in owned["erc721TokenBalances"]]
    assert tokens and page["tokens"] == tokens
    assert page["images"] and all(width > 0 for width in page["images"])


def test_deployments_and_contract_metadata(
    walk: dict[str, Any], site: Site, targets: dict[str, Any]
) -> None:
    deployed = site.api(f"/v1/chains/{CHAIN}/contracts/{A}/deployments", pageSize=25)
    assert walk["deployed"]["contracts"] == [c["address"] for c in deployed["contracts"]]
    token = targets["token"]
    for name in ("contract-link", "contract"):
        page = walk[name]
        _usable(page)
        assert page["page"] == "contract"
        assert one(page, "erc-type")[0] == token["ercType"]
        assert one(page, "name")[0] == token["name"]
        assert one(page, "symbol")[0] == token["symbol"]
        assert one(page, "decimals")[0] == str(token["decimals"])


def _first_activity(site: Site, chain: str) -> int:
    """The start of the first day with a transaction: where the dashboard opens."""
    days = site.metric(chain, "txCount", timeInterval="day", pageSize=2160)["results"]
    return int([p for p in days if p["value"] > 0][-1]["timestamp"])


def _series(site: Site, chain: str, metric: str, interval: str) -> list[tuple[int, float]]:
    """The series, newest first, as the API and the dashboard's table list it (from the
    chain's first active day, the dashboard's default range)."""
    start = _first_activity(site, chain)
    points = site.metric(chain, metric, timeInterval=interval, pageSize=2160, startTimestamp=start)[
        "results"
    ]
    return [(p["timestamp"], float(p["value"])) for p in points]


def _values(page: dict[str, Any]) -> list[tuple[int, float]]:
    return [(ts, float(v)) for ts, v in page["values"]]


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_metrics_dashboard_shows_every_metric_and_interval(
    walk: dict[str, Any], site: Site, metric: str
) -> None:
    for interval in intervals_of(metric):
        page = walk[f"metric-{metric}-{interval}"]
        _usable(page)
        expected = _series(site, CHAIN, metric, interval)
        assert _values(page) == expected
        assert page["chartPoints"] == [len(expected)]


def test_metrics_dashboard_default_and_aggregate(walk: dict[str, Any], site: Site) -> None:
    _usable(walk["metrics"])
    assert _values(walk["metrics"]) == _series(site, CHAIN, "txCount", "hour")
    assert _values(walk["metric-total"]) == _series(site, "total", "txCount", "day")
    # It opens on the chain's activity: hours from its first active day, not from genesis
    # (a devnet's genesis is years earlier: 21,600 hours of zeros in ten requests before).
    everything = site.metric(CHAIN, "txCount", timeInterval="hour", pageSize=2160)
    default = _values(walk["metrics"])
    assert default and default[-1][0] >= _first_activity(site, CHAIN)
    assert len(default) < 2160 or "nextPageToken" not in everything
    metric_calls = [r for r in walk["metrics"]["requests"] if "/v2/" in r["url"]]
    assert len(metric_calls) <= 3, metric_calls


def test_metrics_dashboard_charts_staking(walk: dict[str, Any], site: Site) -> None:
    page = walk["metric-staking"]
    _usable(page)
    got = httpx.get(
        f"{site.metrics}/v2/networks/fuji/metrics/validatorCount",
        params={"pageSize": 2160, "startTimestamp": _first_activity(site, "total")},
        timeout=30,
    )
    # a site without a P-Chain index answers 404: the page says there is no data
    want = got.json()["results"] if got.status_code == 200 else []
    assert got.status_code in (200, 404)
    assert _values(page) == [(p["timestamp"], float(p["value"])) for p in want]


def test_metrics_dashboard_charts_icm_messages(walk: dict[str, Any], site: Site) -> None:
    page = walk["metric-icm"]
    _usable(page)
    start = _first_activity(site, "total")
    body = httpx.get(
        f"{site.metrics}/v2/icm/timeseries",
        params={"timeInterval": "hour", "pageSize": 2160, "startTimestamp": start},
        timeout=30,
    ).json()
    assert _values(page) == [(p["timestamp"], float(p["value"])) for p in body["results"]]


LINKS = (
    "[...document.querySelectorAll('#view a[target=_blank]')].map((a) => a.getAttribute('href'))"
)


def test_curated_metadata_is_shown_and_its_links_are_safe(site: Site) -> None:
    factory = site.report.contracts["Factory"].lower()
    curated = {
        "chainId": int(CHAIN),
        "address": factory,
        "description": "Deploys <b>children</b>",
        "officialSite": "javascript:alert(1)",
        "resourceLinks": [{"type": "Github", "url": "https://github.com/example/factory"}],
        "tags": ["demo", "factory"],
    }
    save_curated(site.db, [parse_curated(curated)])
    url = f"/#/chain/{CHAIN}/contract/{factory}"
    page = browse(site.base, [{"name": "c", "url": url, "fresh": True, "script": LINKS}])["c"]
    _usable(page)
    assert "Deploys <b>children</b>" in page["text"]  # shown as text, not markup
    assert page["script"] == ["#", "https://github.com/example/factory"]
    assert "demo" in page["text"] and "factory" in page["text"]
    children = site.api(f"/v1/chains/{CHAIN}/contracts/{factory}/deployments", pageSize=25)
    assert children["contracts"] and page["contracts"] == [
        c["address"] for c in children["contracts"]
    ]


def test_chart_draws_2160_points_and_hovers(walk: dict[str, Any]) -> None:
    drawn = walk["chart-2160"]["script"]
    assert drawn["drawn"] == 2160
    assert drawn["ms"] < 500, drawn
    assert drawn["tip"].startswith("2023-") and "·" in drawn["tip"]


def test_search_routes_each_kind_of_id(walk: dict[str, Any], targets: dict[str, Any]) -> None:
    assert walk["search-address-go"]["hash"] == f"#/chain/{CHAIN}/address/{A}"
    assert walk["search-number"]["hash"] == f"#/chain/{CHAIN}/block/3"
    assert walk["search-tx"]["hash"] == f"#/chain/{CHAIN}/tx/{targets['erc20_tx']['txHash']}"
    assert walk["search-block-hash"]["hash"] == f"#/chain/{CHAIN}/block/{targets['head_hash']}"
    assert walk["search-node"]["hash"].startswith("#/validator/NodeID-")
    assert walk["search-node"]["error"] == "unserved"
    assert walk["search-nothing"]["error"] == "notfound"


def test_errors_are_explained(walk: dict[str, Any]) -> None:
    unknown = walk["unknown-tx"]
    assert unknown["state"] == "error" and unknown["error"] == "notfound"
    assert UNKNOWN_TX in unknown["text"]
    unserved = walk["unserved"]
    assert unserved["error"] == "unserved" and "Not served by this deployment" in unserved["text"]


def test_phone_and_dark_layouts(walk: dict[str, Any]) -> None:
    for name in ("dark", "phone", "phone-tx"):
        _usable(walk[name])
    for name in ("phone", "phone-tx"):
        assert walk[name]["scrollWidth"] <= walk[name]["clientWidth"], name


def test_rate_limits_and_dead_services_are_explained(site: Site) -> None:
    dead = dead_url()
    config = ExplorerConfig(rpc=dead + "/ext/bc/C/rpc", metrics_api=dead)
    with another_site(site.db, config, RatePolicy(10, 10)) as base:
        found = browse(
            base,
            [
                {"name": "overview", "url": "/", "fresh": True, "shot": "error-down.png"},
                {"name": "address", "url": f"/#/chain/{CHAIN}/address/{A}", "idle": True},
                {"name": "limited-shot", "shot": "error-ratelimited.png"},
            ],
        )
    overview = found["overview"]
    assert overview["state"] == "ready" and "unavailable" in overview["errors"]
    assert "node down" in overview["text"]
    assert found["address"]["error"] == "ratelimited"
    assert "try again in" in found["address"]["text"]


def test_the_transaction_page_needs_no_node(site: Site, targets: dict[str, Any]) -> None:
    """The complete view comes from the data API: with the node down the page is whole."""
    config = ExplorerConfig(rpc=dead_url() + "/ext/bc/C/rpc", metrics_api=site.metrics)
    tx = targets["split_tx"]
    with another_site(site.db, config, RatePolicy(10**9, 10**9)) as base:
        found = browse(
            base, [{"name": "tx", "url": f"/#/chain/{CHAIN}/tx/{tx['txHash']}", "fresh": True}]
        )
    _summary_matches(site, found["tx"], tx)
    assert count(found["tx"], "internals") == len(_view(site, tx)["internalTransactions"])


def test_screenshots_of_every_page_type(walk: dict[str, Any]) -> None:
    from tests.explorer.conftest import ARTIFACTS

    for name in ("overview", "block", "tx", "address", "address-nfts", "contract", "metrics"):
        shot = ARTIFACTS / f"{name}.png"
        assert shot.exists() and shot.stat().st_size > 10_000, shot


def test_api_key_is_sent_when_configured(site: Site) -> None:
    _, secret = create_key(site.db, "explorer")
    keyed = ExplorerConfig(rpc=site.rpc, metrics_api=site.metrics, api_key=secret)
    wrong = ExplorerConfig(rpc=site.rpc, metrics_api=site.metrics, api_key="not-a-key")
    # Anonymous callers could not afford one address page; the key's limit is ample.
    policy = RatePolicy(anonymous=5, keyed=10**6)
    path = f"/#/chain/{CHAIN}/address/{A}"
    with (
        another_site(site.db, keyed, policy) as with_key,
        another_site(site.db, wrong, policy) as with_wrong_key,
    ):
        found = browse(
            with_key,
            [
                {"name": "keyed", "url": path, "fresh": True},
                {"name": "refused", "url": path, "fresh": True, "base": with_wrong_key},
            ],
        )
    _usable(found["keyed"])
    assert one(found["keyed"], "native-balance")[1]
    assert found["refused"]["error"] == "denied" and "API key" in found["refused"]["text"]


def test_latest_blocks_update_live(site: Site) -> None:
    """Runs last: it mines a block, which moves the head the other tests compare with."""
    head = int(site.rpc_call("eth_blockNumber"), 16)
    mine = {"url": site.rpc, "method": "evm_mine", "params": []}
    found = browse(
        site.base,
        [
            {"name": "before", "url": "/", "fresh": True, "idle": True},
            {"name": "after", "rpc": mine, "wait": 3500, "shot": "overview-live.png"},
        ],
    )
    assert found["before"]["blocks"][0] == str(head)
    assert found["after"]["blocks"][0] == str(head + 1)
    assert found["after"]["blocks"][1:] == found["before"]["blocks"][:-1]
    assert one(found["after"], "head")[1] == str(head + 1)
    assert found["after"]["txs"] == found["before"]["txs"]  # an empty block adds none


def test_a_transaction_the_index_does_not_hold_yet(site: Site) -> None:
    """Runs after the live test: a transaction the node has mined but nothing indexed since."""
    sent = site.rpc_call("eth_sendTransaction", {"from": A, "to": C, "value": "0x1"})
    page = browse(site.base, [{"name": "tx", "url": f"/#/chain/{CHAIN}/tx/{sent}", "fresh": True}])
    assert page["tx"]["state"] == "ready"
    assert "not indexed yet" in one(page["tx"], "pending")[0]
