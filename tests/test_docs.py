"""Every setting, method and route is documented."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from snowfield.config import SETTINGS, DevnetSettings
from snowfield.testing import serve_devnet

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_setting_is_in_the_table_and_the_docs() -> None:
    fields = {f.name for f in dataclasses.fields(DevnetSettings)}
    table = {s.name.replace("-", "_") for s in SETTINGS if s.service == "devnet"}
    assert fields == table
    text = (DOCS / "settings.md").read_text()
    for setting in SETTINGS:
        assert f"`{setting.flag}`" in text and f"`{setting.env}`" in text, setting.name
    defaults = DevnetSettings()
    for setting in SETTINGS:
        assert getattr(defaults, setting.name.replace("-", "_")) == setting.default, setting.name


def test_every_method_is_documented() -> None:
    text = (DOCS / "node-api.md").read_text()
    with serve_devnet() as running:
        node = running.node
        names = set(node.evm_rpc.methods) | set(node.admin_rpc.methods)
        names |= set(node.health_rpc.methods) | set(node.index.service.methods)
    missing = sorted(
        name for name in names if f"`{name}`" not in text and f"`{name.split('.')[-1]}" not in text
    )
    assert missing == []
