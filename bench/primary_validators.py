"""Data API, the validators list (`GET /v1/networks/fuji/validators?pageSize=10`, a dashboard
paging through the validator set): requests/s against a Starlette hello world answering the
same bytes under the same settings, in the same run. Target: >= 40%.

The store: 2,000 primary-network validators with two delegators each and the node's
observation of them (uptime, connection), written with the store's own writers; cached under
.bench/primary-api/. The load spreads over the first 100 pages (their tokens taken first).
bench/primary_api.py runs it after operation 11; alone:

    python bench/primary_validators.py [--duration 8]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from types import ModuleType

import orjson

from snowfield.store import primary, validator_documents, validator_state
from snowfield.store.database import Database
from snowfield.store.primary_rows import BlockRows, StakerRow, TxRow
from snowfield.store.schema import TABLES
from snowfield.store.validator_state import Observation

HERE = Path(__file__).resolve().parent
VALIDATORS = 2_000
DELEGATORS = 2  # per validator
PAGES = 100
PATH = "/v1/networks/fuji/validators?pageSize=10"


def _bench(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _block(pa: ModuleType, height: int, first: int, count: int) -> BlockRows:
    rows = BlockRows(height, pa._id("vblock", height), pa._id("vblock", height - 1),
                     pa.START + height)  # fmt: skip
    end = pa.START + 10**8
    for i in range(first, first + count):
        owner = pa._address(i)
        node = f"NodeID-{pa._id('node', i)[:32]}"
        for k in range(DELEGATORS + 1):
            tx = pa._id("vtx", i * 10 + k)
            kind, tx_type = ("VALIDATOR", "AddPermissionlessValidatorTx") if k == 0 else (
                "DELEGATOR", "AddPermissionlessDelegatorTx")  # fmt: skip
            amount = 2_000 * 10**9 if k == 0 else 25 * 10**9
            details = {"nodeId": node, "subnetId": pa.PCHAIN, "startTimestamp": pa.START,
                       "endTimestamp": end, "rewardAddresses": [owner]}  # fmt: skip
            rows.txs.append(TxRow(tx, tx_type, len(rows.txs), "", details, (owner,)))
            fee = 20_000 if k == 0 else None
            staker = StakerRow(tx, kind, node, pa.PCHAIN, pa.START, end, amount, (owner,),
                               (owner,), fee)  # fmt: skip
            rows.stakers.append(staker)
    return rows


def store(pa: ModuleType) -> Path:
    digest = hashlib.sha256("".join(TABLES).encode()).hexdigest()[:10]
    path = pa.CACHE / f"validators-{VALIDATORS}-{digest}.db"
    if path.exists():
        return path
    pa.CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    db = Database(str(partial))
    db.migrate()
    primary.record_network(
        db, primary.PrimaryNetwork(pa.PCHAIN, 12345, "local", None, None, pa.AVAX)
    )
    per_block = 100
    for height, first in enumerate(range(0, VALIDATORS, per_block), 1):
        primary.write_blocks(db, pa.PCHAIN, [_block(pa, height, first, per_block)], height)
    primary.record_chain_time(db, pa.PCHAIN, pa.START + 1000)
    seen = [
        Observation(str(r[0]), str(r[1]), "99.5", True, "avalanchego/1.13.0")
        for r in db.query("SELECT tx_id, node_id FROM p_stakers WHERE kind = 'VALIDATOR'")
    ]
    stake = VALIDATORS * (2_000 + DELEGATORS * 25) * 10**9
    validator_state.record(db, pa.PCHAIN, seen, [], (720 * 10**15, stake, VALIDATORS))
    # As the indexer's observer does next: the entries the observation changed.
    validator_documents.refresh_store(db, pa.PCHAIN)
    db.close()
    partial.rename(path)
    return path


def run(pa: ModuleType, ab: ModuleType, duration: float) -> float:
    """Requests/s of the validators list over the hello world's; prints the figures."""
    target = store(pa)
    with pa.server(ab, "data", target, PATH) as port:
        client = ab.Client(port)
        paths, token = [PATH], None
        started = time.monotonic()
        while len(paths) < PAGES and time.monotonic() - started < 60:
            status, body = client.get(paths[-1])
            assert status == 200, body[:200]
            if len(paths) == 1:
                first = body
            token = orjson.loads(body).get("nextPageToken")
            if not token:
                break
            paths.append(f"{PATH}&pageToken={urllib.parse.quote(token)}")
        client.close()
        ours = ab.python_load(port, paths, duration)
    with tempfile.NamedTemporaryFile(suffix=".json") as captured:
        captured.write(first)
        captured.flush()
        with pa.server(ab, "hello-validators", Path(captured.name), PATH) as port:
            base = ab.python_load(port, paths, duration)
    ratio = float(ours.per_second / base.per_second)
    mark = "" if ratio >= pa.TARGET_RATE else f"  below the {pa.TARGET_RATE:.0%} target"
    print(f"validators list ({VALIDATORS:,} validators, {len(paths)} pages):"
          f" {ours.per_second:,.0f} req/s vs hello world {base.per_second:,.0f}"
          f" = {ratio:.0%}{mark}")  # fmt: skip
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=float, default=8.0)
    args = parser.parse_args()
    pa = _bench("primary_api")
    run(pa, pa._api_bench(), args.duration)


if __name__ == "__main__":
    main()
