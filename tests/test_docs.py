"""Every setting, method and route is documented."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import typer.core
import typer.main

from snowfield.cli.main import app
from snowfield.config import SERVICES, EvmChainSettings, NetworkSettings, settings_of
from snowfield.config.docs import settings_doc
from snowfield.testing import serve_devnet

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_settings_doc_is_generated_from_the_settings() -> None:
    """docs/settings.md is what `python -m snowfield.config` writes: regenerate it (`make
    docs`) after changing a setting."""
    assert (DOCS / "settings.md").read_text() == settings_doc(SERVICES)


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_setting_is_in_the_docs(service: str) -> None:
    settings_type = SERVICES[service]
    text = (DOCS / "settings.md").read_text()
    section = text.split(f"## `snowfield {service}`", 1)[1].split("\n## ", 1)[0]
    defaults = settings_type()
    for setting in settings_of(settings_type):
        assert f"`{setting.flag}`" in section, setting.name
        assert setting.env is None or f"`{setting.env}`" in section, setting.name
        assert getattr(defaults, setting.name) == setting.default, setting.name


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_cli_option_is_a_setting(service: str) -> None:
    """The command's options are its declared settings: same flags, variables, defaults, help
    and bounds."""
    command = typer.main.get_command(app).commands[service]  # type: ignore[attr-defined]
    options = {p.opts[0]: p for p in command.params if isinstance(p, typer.core.TyperOption)}
    rows = {s.flag: s for s in settings_of(SERVICES[service])}
    assert set(options) == set(rows)
    for flag, option in options.items():
        setting = rows[flag]
        assert (option.envvar, option.default, option.help) == (
            setting.env,
            setting.default if not setting.repeatable else None,
            setting.help,
        ), flag
        assert (option.min, option.max) == (setting.min, setting.max), flag
        assert option.secondary_opts == ([f"--no-{flag[2:]}"] if setting.is_flag else []), flag


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
    for settings_type in SERVICES.values():
        for s in settings_of(settings_type):
            if s.env is not None:
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


def test_every_data_api_operation_is_documented() -> None:
    """docs/data-api.md, or a page of docs/data-api/, names each operation as `METHOD path`."""
    from snowfield.api.app import OPERATIONS

    pages = [DOCS / "data-api.md", *sorted((DOCS / "data-api").glob("*.md"))]
    text = "\n".join(page.read_text() for page in pages)
    missing = [
        f"{op.method} {op.path}" for op in OPERATIONS if f"`{op.method} {op.path}`" not in text
    ]
    assert missing == []
