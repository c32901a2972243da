"""Settings of every service: one frozen dataclass per command, each setting declared once as
a field (default, help, environment variable, flag, bounds). The CLI options, `up`'s child
command lines and docs/settings.md (`python -m snowfield.config`) are derived from them."""

from __future__ import annotations

from snowfield.config.aggregator import AggregatorSettings
from snowfield.config.indexer import IndexSettings, PrimaryIndexSettings
from snowfield.config.network import DevnetSettings, EvmChainSettings, NetworkSettings
from snowfield.config.relayer import RelayerSettings
from snowfield.config.serve import ServeSettings
from snowfield.config.setting import ENV_PREFIX, Setting, settings_of
from snowfield.config.up import UpSettings
from snowfield.config.webhooks import WebhookSettings

# The settings of each command, in the order docs/settings.md lists them.
SERVICES: dict[str, type] = {
    "devnet": NetworkSettings,
    "index": IndexSettings,
    "index-primary": PrimaryIndexSettings,
    "serve": ServeSettings,
    "aggregator": AggregatorSettings,
    "relayer": RelayerSettings,
    "webhooks": WebhookSettings,
    "up": UpSettings,
}

__all__ = [
    "ENV_PREFIX",
    "SERVICES",
    "AggregatorSettings",
    "DevnetSettings",
    "EvmChainSettings",
    "IndexSettings",
    "NetworkSettings",
    "PrimaryIndexSettings",
    "RelayerSettings",
    "ServeSettings",
    "Setting",
    "UpSettings",
    "WebhookSettings",
    "settings_of",
]
