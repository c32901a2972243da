"""The validators list's kept answers (api/primary/validator_pages.py): an answer asked again
is the same bytes until the writer moves the store's generation, and then the new state's, for
each change that moves an entry: a chain time (a delegation starts), an observation (uptime), a
block (a new validation); a forged page token is refused all the same. SQLite and
PostgreSQL."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.primary import validator_pages
from snowfield.store import primary, validator_state
from snowfield.store.database import Database
from snowfield.store.validator_state import Observation
from snowfield.testing import serve_asgi
from tests.store.test_validator_documents import (  # noqa: F401 - the fixture
    NODE_A,
    P,
    _block,
    _staker,
    staked,
)

NET = "/v1/networks/fuji"


def _get(api: str, path: str, **params: Any) -> httpx.Response:
    got = httpx.get(f"{api}{NET}{path}", params=params)
    assert got.status_code == 200, got.text
    return got


def _v1(api: str, path: str = "/validators") -> dict[str, Any]:
    body = _get(api, path).json()
    return next(v for v in body["validators"] if v["txHash"] == "v1")


def test_kept_answers_follow_the_writer(staked: Database) -> None:  # noqa: F811
    db = staked
    primary.record_chain_time(db, P, 1200)
    with serve_asgi(create_data_app(db)) as api:
        first = _get(api, "/validators").content
        assert _get(api, "/validators").content == first  # kept
        assert _v1(api)["delegatorCount"] == 0
        primary.record_chain_time(db, P, 2500)  # both delegations have started
        assert _v1(api)["delegatorCount"] == 2
        assert _v1(api, f"/validators/{NODE_A}")["delegatorCount"] == 2
        seen = [Observation("v1", NODE_A, "87.5", True, "avalanchego/1.13.0")]
        validator_state.record(db, P, seen, [], (10**18, 4_000 * 10**9, 7))
        assert _v1(api)["uptimePerformance"] == 87.5  # before the observer's refresh, too
        assert _v1(api, f"/validators/{NODE_A}")["uptimePerformance"] == 87.5
        node_c = "NodeID-GvdqXEAMbSARrubpNP44Vqz4krCgYFRu"
        block = _block(2, 2600, [_staker("v3", "VALIDATOR", node_c, 2600, 8000, 10**12)])
        primary.write_blocks(db, P, [block], 2, potential={"v3": 1})
        listed = _get(api, "/validators").json()["validators"]
        assert "v3" in {v["txHash"] for v in listed}
        token = _get(api, "/validators", pageSize=1).json()["nextPageToken"]
        assert _get(api, "/validators", pageSize=1, pageToken=token).json()["validators"]
        forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
        refused = httpx.get(f"{api}{NET}/validators", params={"pageSize": 1, "pageToken": forged})
        assert refused.status_code == 400


def test_kept_answers_stay_within_their_budget(
    staked: Database,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = staked
    primary.record_chain_time(db, P, 2500)
    with serve_asgi(create_data_app(db)) as api:
        whole = _get(api, "/validators").content
        monkeypatch.setattr(validator_pages, "BUDGET", len(whole) + 10)
        pages = [_get(api, "/validators", pageSize=1).content for _ in range(2)]
        assert pages[0] == pages[1]
        assert _get(api, "/validators").content == whole  # kept again after a clear
        (kept,) = validator_pages._KEPT[db].values()
        assert 0 < kept.size <= len(whole) + 10 and len(kept.answers) == 1
