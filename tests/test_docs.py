"""Every setting, method and route is documented."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import typer.core
import typer.main

from snowfield import cli
from snowfield.config import SERVICES, SETTINGS, EvmChainSettings, NetworkSettings
from snowfield.testing import serve_devnet

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_setting_is_in_the_table_and_the_docs(service: str) -> None:
    settings_type = SERVICES[service]
    fields = {f.name for f in dataclasses.fields(settings_type)}
    rows = [s for s in SETTINGS if s.service == service]
    assert fields == {s.name.replace("-", "_") for s in rows}
    text = (DOCS / "settings.md").read_text()
    section = text.split(f"## `snowfield {service}`", 1)[1].split("\n## ", 1)[0]
    defaults = settings_type()
    for setting in rows:
        assert f"`{setting.flag}`" in section and f"`{setting.env}`" in section, setting.name
        assert getattr(defaults, setting.name.replace("-", "_")) == setting.default, setting.name


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_cli_option_is_a_setting(service: str) -> None:
    """The command's options are the SETTINGS rows: same flags, variables, defaults and help."""
    command = typer.main.get_command(cli.app).commands[service]  # type: ignore[attr-defined]
    options = {p.opts[0]: p for p in command.params if isinstance(p, typer.core.TyperOption)}
    rows = {s.flag: s for s in SETTINGS if s.service == service}
    assert set(options) == set(rows)
    for flag, option in options.items():
        setting = rows[flag]
        assert (option.envvar, option.default, option.help) == (
            setting.env,
            setting.default,
            setting.help,
        ), flag


def test_the_network_chains_come_from_the_network_settings() -> None:
    """Each chain entry of NetworkSettings is read from the network's own (documented) flags."""
    network = NetworkSettings(chain_id=7, gas_limit=30_000_000, block_time=2.0)
    (c_chain,) = network.chains
    assert c_chain.alias == "C"
    for field in dataclasses.fields(EvmChainSettings):
        if field.name != "alias":
            assert getattr(c_chain, field.name) == getattr(network, field.name), field.name


def test_environment_names_are_unambiguous() -> None:
    """Two settings share an environment variable only when they mean the same thing."""
    by_env: dict[str, set[object]] = {}
    for s in SETTINGS:
        by_env.setdefault(s.env, set()).add((s.name, repr(s.default)))
    assert {env: v for env, v in by_env.items() if len(v) > 1} == {}


def test_every_method_is_documented() -> None:
    text = (DOCS / "node-api.md").read_text()
    with serve_devnet() as running:
        node = running.node
        names = set(node.health_rpc.methods) | set(node.info_rpc.methods)
        names |= set(node.devnet_rpc.methods)
        for chain in node.chains:
            names |= {m for s in chain.services.values() for m in s.dispatcher.methods}
            names |= {m for index in chain.indexes.values() for m in index.service.methods}
    missing = sorted(
        name for name in names if f"`{name}`" not in text and f"`{name.split('.')[-1]}" not in text
    )
    assert missing == []
