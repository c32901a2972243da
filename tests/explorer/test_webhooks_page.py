"""The explorer's webhook pages in headless Chromium: the API key's webhooks, and one webhook's
delivery log as the data API's (our) delivery log gives it, after real deliveries to a receiver
on 127.0.0.1."""

from __future__ import annotations

import asyncio
from pathlib import Path

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.site import ExplorerConfig
from snowfield.store import webhook_outbox, webhooks
from snowfield.store.keys import create_key
from snowfield.store.webhooks import WebhookRow
from snowfield.testing import open_database, serve_asgi
from snowfield.webhooks.policy import UrlPolicy, networks
from snowfield.webhooks.worker import Worker
from tests.api.conftest import CAROL, CHAIN, ChainBuilder, add_chains
from tests.explorer.conftest import browse, shown
from tests.webhooks.receiver import receiver


async def _deliver(worker: Worker) -> None:
    await worker.run_once()
    await worker.close()


def test_the_explorer_shows_a_webhooks_delivery_log(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "snowfield.db")) as db, receiver() as rx:
        add_chains(db)
        key, secret = create_key(db, "explorer")
        webhooks.ensure_secret(db, key.id)
        draft = WebhookRow(
            "", key.id, "address_activity", rx.url, "carol's calls", "", str(CHAIN), CHAIN, None,
            "active", 0, False, False,
        )  # fmt: skip
        hook = webhooks.create_webhook(db, draft, [CAROL])
        ChainBuilder(db).add(3)
        rx.answer = lambda n: (500, 0.0) if n == 0 else (200, 0.0)  # the first one fails
        asyncio.run(_deliver(Worker(db, policy=UrlPolicy(allow=networks(["127.0.0.0/8"])))))
        log = webhook_outbox.deliveries(db, hook.id, None, 10).items
        config = ExplorerConfig(metrics_api="http://127.0.0.1:9", api_key=secret)
        app = create_data_app(db, policy=RatePolicy(10**9, 10**9), explorer=config)
        with serve_asgi(app, name="explorer") as base:
            found = browse(
                base,
                [
                    {"name": "list", "url": "/#/webhooks", "fresh": True},
                    {"name": "one", "url": f"/#/webhook/{hook.id}", "shot": "webhook.png"},
                ],
            )
    assert found["list"]["error"] is None, found["list"]["text"]
    assert shown(found["list"], "webhook") == [("carol's calls", hook.id)]
    one = found["one"]
    assert one["error"] is None and not one["consoleErrors"], one["text"]
    assert shown(one, "delivery") == [(d.message_id, d.state) for d in log]
    assert {d.state for d in log} == {"delivered", "pending"}  # the failed one awaits its retry
    assert "500" in one["text"]
