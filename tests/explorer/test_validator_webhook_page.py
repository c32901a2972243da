"""The explorer's webhook pages with a validator_activity webhook (headless Chromium): the list
shows the key it follows, and its delivery log the P-Chain heights of real deliveries to a
receiver on 127.0.0.1."""

from __future__ import annotations

import asyncio
from pathlib import Path

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.site import ExplorerConfig
from snowfield.store import primary, webhook_outbox
from snowfield.store.keys import create_key
from snowfield.testing import open_database, serve_asgi
from snowfield.webhooks.policy import UrlPolicy, networks
from snowfield.webhooks.worker import Worker
from tests.explorer.conftest import browse, shown
from tests.webhooks.receiver import receiver
from tests.webhooks.test_validator_activity import N1, P, _block, _hook, _meta, _network, _staker


async def _deliver(worker: Worker) -> None:
    await worker.run_once()
    await worker.close()


def test_the_explorer_shows_a_validator_webhook(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "snowfield.db")) as db, receiver() as rx:
        _network(db)
        key, secret = create_key(db, "explorer")
        hook = _hook(db, key.id, rx.url, _meta("nodeId", N1, ["validator_stake"]))
        stake = [("vtx", "AddPermissionlessValidatorTx")]
        primary.write_blocks(
            db, P, [_block(5, stake, stakers=[_staker("vtx", "VALIDATOR", N1)])], 6
        )
        asyncio.run(_deliver(Worker(db, policy=UrlPolicy(allow=networks(["127.0.0.0/8"])))))
        log = webhook_outbox.deliveries(db, hook, None, 10).items
        config = ExplorerConfig(metrics_api="http://127.0.0.1:9", api_key=secret)
        app = create_data_app(db, policy=RatePolicy(10**9, 10**9), explorer=config)
        with serve_asgi(app, name="explorer") as base:
            found = browse(
                base,
                [
                    {"name": "list", "url": "/#/webhooks", "fresh": True},
                    {"name": "one", "url": f"/#/webhook/{hook}"},
                ],
            )
    listed = found["list"]
    assert listed["error"] is None and not listed["consoleErrors"], listed["text"]
    assert [text for text, _ in shown(listed, "follows")] == [f"nodeId {N1}"]
    one = found["one"]
    assert one["error"] is None and not one["consoleErrors"], one["text"]
    assert shown(one, "delivery") == [(d.message_id, "delivered") for d in log] and len(log) == 1
    assert "11111111111111111111111111111111LpoYY" in one["text"]
