"""The two avm.* reads client libraries build their Context from (avm.getAssetDescription for
AVAX, avm.getTxFee), served at /ext/bc/X from the network's table until the X-Chain is hosted."""

from __future__ import annotations

from typing import Any

from snowfield.errors import InvalidParams
from snowfield.node.methods.gorilla_params import Params
from snowfield.rpc.service import ServiceHandler

# avalanchego's genesis_local/fuji/mainnet X-Chain static fees (nAVAX): 1 and 10 milliAVAX.
TX_FEE = 1_000_000
CREATE_ASSET_TX_FEE = 10_000_000


def avm_context_methods(avax_asset_id: str) -> dict[str, ServiceHandler]:
    """avm.getAssetDescription (AVAX only) and avm.getTxFee."""

    def get_asset_description(raw: dict[str, Any]) -> dict[str, str]:
        asked = Params(raw).string("assetID")
        if asked not in ("AVAX", avax_asset_id):
            raise InvalidParams(f"couldn't find asset {asked!r}")
        return {
            "assetID": avax_asset_id,
            "name": "Avalanche",
            "symbol": "AVAX",
            "denomination": "9",
        }

    def get_tx_fee(_: dict[str, Any]) -> dict[str, str]:
        return {"txFee": str(TX_FEE), "createAssetTxFee": str(CREATE_ASSET_TX_FEE)}

    return {"avm.getAssetDescription": get_asset_description, "avm.getTxFee": get_tx_fee}
