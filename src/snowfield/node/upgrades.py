"""What the node reports about network upgrades and static fees (info.upgrades, info.getTxFee).

Facts from avalanchego: upgrade/upgrade.go (the Config fields; the local network activates
every released upgrade at InitiallyActiveTime) and genesis/genesis_{mainnet,fuji,local}.go
(the static fees, in nAVAX)."""

from __future__ import annotations

from typing import Any

from snowfield.formats.cb58 import encode_cb58
from snowfield.node.networks import PRIMARY_NETWORK

_ACTIVE = "2020-12-05T05:00:00Z"  # avalanchego's upgrade.InitiallyActiveTime
_UNSCHEDULED = "9999-12-01T00:00:00Z"  # upgrade.UnscheduledActivationTime
_ACTIVE_UPGRADES = (
    "apricotPhase1Time",
    "apricotPhase2Time",
    "apricotPhase3Time",
    "apricotPhase4Time",
    "apricotPhase5Time",
    "apricotPhasePre6Time",
    "apricotPhase6Time",
    "apricotPhasePost6Time",
    "banffTime",
    "cortinaTime",
    "durangoTime",
    "etnaTime",
    "fortunaTime",
    "graniteTime",
)
_SECOND_NS = 1_000_000_000
MILLI_AVAX = 1_000_000
AVAX = 1_000 * MILLI_AVAX


def upgrade_config() -> dict[str, Any]:
    """upgrade.Config as JSON: every released upgrade active since 2020 (Etna and Granite
    included), Helicon not scheduled, as a local avalanchego network reports it."""
    config: dict[str, Any] = dict.fromkeys(_ACTIVE_UPGRADES, _ACTIVE)
    config["apricotPhase4MinPChainHeight"] = 0
    config["cortinaXChainStopVertexID"] = PRIMARY_NETWORK  # ids.Empty
    config["graniteEpochDuration"] = 30 * _SECOND_NS
    config["heliconTime"] = _UNSCHEDULED
    return config


def static_fees(network_id: int) -> dict[str, str]:
    """info.getTxFee: the pre-Etna static fees of the network's genesis, as decimal strings."""
    public = network_id in (1, 5)
    fees = {
        "txFee": MILLI_AVAX,
        "createAssetTxFee": 10 * MILLI_AVAX if public else MILLI_AVAX,
        "createSubnetTxFee": AVAX if public else 100 * MILLI_AVAX,
        "transformSubnetTxFee": 10 * AVAX if public else 100 * MILLI_AVAX,
        "createBlockchainTxFee": AVAX if public else 100 * MILLI_AVAX,
        "addPrimaryNetworkValidatorFee": 0,
        "addPrimaryNetworkDelegatorFee": 0,
        "addSubnetValidatorFee": MILLI_AVAX,
        "addSubnetDelegatorFee": MILLI_AVAX,
    }
    return {name: str(value) for name, value in fees.items()}


def _padded_id(name: str) -> str:
    """An fx's id: its name padded with zeros to 32 bytes, in cb58 (as avalanchego)."""
    return encode_cb58(name.encode().ljust(32, b"\0"))


FXS = {_padded_id(name): name for name in ("secp256k1fx", "nftfx", "propertyfx")}
