"""`snowfield keys`, `snowfield contracts load` and `snowfield serve` as an operator runs them."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from typer.testing import CliRunner

from snowfield.cli.main import app
from snowfield.store.database import Database
from snowfield.testing import free_port
from tests.api.conftest import CHAIN, TOKEN, ChainBuilder, add_chains, api_client, assert_error

runner = CliRunner()


def _filled(path: Path) -> str:
    db = Database(str(path))
    db.migrate()
    add_chains(db)
    ChainBuilder(db).add(3)
    db.close()
    return str(path)


def test_keys_create_list_revoke(tmp_path: Path) -> None:
    url = _filled(tmp_path / "s.db")
    created = runner.invoke(
        app,
        [
            "keys",
            "create",
            "--name",
            "ci",
            "--chains",
            str(CHAIN),
            "--rate-per-minute",
            "99",
            "--db",
            url,
        ],
    )
    assert created.exit_code == 0, created.output
    secret = created.stdout.strip().splitlines()[-1]
    assert secret.startswith("sfk_")
    listed = runner.invoke(app, ["keys", "list", "--db", url])
    assert listed.exit_code == 0 and "ci" in listed.stdout and secret not in listed.stdout
    assert f"chains={CHAIN}" in listed.stdout and "rate=99" in listed.stdout
    key_id = listed.stdout.split("\t", 1)[0]
    db = Database(url)
    with api_client(db) as client:
        ok = client.get("/v1/chains", headers={"x-service-api-key": secret})
        assert ok.status_code == 200 and ok.headers["ratelimit-limit"] == "99"
        assert runner.invoke(app, ["keys", "revoke", key_id, "--db", url]).exit_code == 0
        assert_error(client.get("/v1/chains", headers={"x-service-api-key": secret}), 401)
    assert runner.invoke(app, ["keys", "revoke", key_id, "--db", url]).exit_code == 1
    bad = runner.invoke(app, ["keys", "create", "--name", "x", "--chains", "a,b", "--db", url])
    assert bad.exit_code == 2


def test_contracts_load_merges_curation_into_metadata(tmp_path: Path) -> None:
    url = _filled(tmp_path / "s.db")
    good = tmp_path / "curated.json"
    good.write_text(
        json.dumps(
            [
                {
                    "chainId": CHAIN,
                    "address": TOKEN,
                    "name": "Curated",
                    "description": "A token",
                    "resourceLinks": [{"type": "Website", "url": "https://example.invalid"}],
                    "tags": ["stable"],
                    "bannerAsset": {"assetId": "a1", "imageUri": "https://example.invalid/b.png"},
                }
            ]
        )
    )
    loaded = runner.invoke(app, ["contracts", "load", str(good), "--db", url])
    assert loaded.exit_code == 0, loaded.output
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            [
                {
                    "chainId": CHAIN,
                    "address": TOKEN,
                    "resourceLinks": [{"type": "Blogspot", "url": "x"}],
                }
            ]
        )
    )
    refused = runner.invoke(app, ["contracts", "load", str(bad), "--db", url])
    assert refused.exit_code == 1 and "resourceLinks[0].type" in refused.output
    with api_client(Database(url)) as client:
        body = client.get(f"/v1/chains/{CHAIN}/addresses/{TOKEN}").json()
    assert body["name"] == "Curated" and body["symbol"] == "TOK" and body["decimals"] == 6
    assert body["resourceLinks"] == [{"type": "Website", "url": "https://example.invalid"}]
    assert body["bannerAsset"] == {"assetId": "a1", "imageUri": "https://example.invalid/b.png"}
    assert body["ercType"] == "ERC-20" and body["tags"] == ["stable"]


def test_serve_command_answers_on_its_port(tmp_path: Path) -> None:
    url = _filled(tmp_path / "s.db")
    port = free_port()
    cmd = [sys.executable, "-m", "snowfield", "serve", "--db", url, "--port", str(port)]
    # A free metrics port too: the default 8081 may be taken (a `make up` beside the tests).
    cmd += ["--metrics-api-port", str(free_port()), "--rate-anonymous", "2", "--log-level", "warn"]
    log = tmp_path / "serve.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                first = httpx.get(f"http://127.0.0.1:{port}/v1/chains", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "serve did not start"
                time.sleep(0.1)
        assert first.status_code == 200 and first.headers["ratelimit-limit"] == "2"
        assert first.json()["chains"][0]["chainId"] == str(CHAIN)
        assert httpx.get(f"http://127.0.0.1:{port}/v1/chains").status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/v1/chains").status_code == 429
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    # uvicorn shuts down gracefully, then re-raises SIGTERM so the exit status tells why.
    assert proc.returncode in (0, -signal.SIGTERM)
    assert "Traceback" not in log.read_text()
