"""The settings of `snowfield relayer`: ICM messages between a node's EVM chains."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.config import shared
from snowfield.config.setting import setting


@dataclass(frozen=True, slots=True)
class RelayerSettings:
    """An ICM relayer for the devnet: it follows `SendCrossChainMessage` of the messenger (at
    its keyless address) on the C-Chain and every custom EVM chain the node hosts, has the Warp
    message signed by the validators over the peer-to-peer network (the aggregator), and
    delivers it with `receiveCrossChainMessage`, the signed message in the access list. It
    keeps its position per chain in `--state-file` with the messages it could not deliver yet
    (too few signatures, a reverted delivery, a node away), which it tries again on later
    rounds; it never delivers a message the destination already received, so a relayer killed
    at any moment and restarted delivers each message once."""

    node_url: str = setting(
        "http://127.0.0.1:9650",
        "Base URL of the node whose EVM chains the relayer serves (the C-Chain and every custom "
        "EVM chain it hosts) and whose validators sign.",
        env="SNOWFIELD_RELAYER_NODE_URL",
    )
    key: str | None = setting(
        None,
        "Hex private key the relayer pays delivery gas with (required).",
        env="SNOWFIELD_RELAYER_KEY",
    )
    reward_address: str | None = setting(
        None, "Address the messenger credits the relayer's rewards to (default: the key's)."
    )
    state_file: str = setting(
        "data/relayer.json", "Where the relayer keeps its position per chain across restarts."
    )
    chain: tuple[str, ...] | None = setting(
        None,
        "Blockchain id (or C) of a chain to relay between (repeatable; default: every EVM chain"
        " of the node, new ones included as they appear).",
    )
    interval: float = setting(1.0, "Seconds between looks for new messages.", min=0.05)
    log_level: str = shared.log_level()
    log_format: str = shared.log_format()
