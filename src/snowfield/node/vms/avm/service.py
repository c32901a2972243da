"""avm.* at /ext/bc/X: the X-Chain's gorilla service in avalanchego's shapes (u64s as decimal
strings, bytes as checked hex, `X-<hrp>1…` addresses, `AVAX` as the fee asset's alias)."""

from __future__ import annotations

from typing import Any

from snowfield.chains.exchange.chain import ExchangeChain
from snowfield.errors import Conflict, InvalidParams
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.exchange import rendering
from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.exchange.txs import UTXO, Tx
from snowfield.formats.hexcheck import Encoding, decode, encode, parse_encoding, wants_json
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.avax_json import JsonContext
from snowfield.node.gorilla_params import Params, chain_address
from snowfield.node.networks import NetworkIds
from snowfield.node.utxo_paging import checked_count, empty_end, page_limit, utxo_page
from snowfield.node.vms.avm.runtime import XRuntime
from snowfield.rpc.service import ServiceHandler

AVAX_ALIAS = "AVAX"


class AvmService:
    """The handlers of avm.*, over one hosted X-Chain."""

    def __init__(self, runtime: XRuntime, ids: NetworkIds) -> None:
        self.runtime = runtime
        self.hrp = hrp_for_network(ids.network_id)
        self.json_context = JsonContext(ids.network_id, "X")
        self.aliases = ("X", "avm", ids.x_chain)
        self.chain_names = {"P": ids.primary_subnet, "C": ids.c_chain, "X": ids.x_chain}

    @property
    def chain(self) -> ExchangeChain:
        return self.runtime.chain

    def address(self, text: str) -> ShortID:
        return chain_address(text, self.aliases, self.hrp)

    def format(self, address: ShortID | bytes) -> str:
        raw = address.raw if isinstance(address, ShortID) else address
        return format_address("X", self.hrp, raw)

    def asset_id(self, text: str) -> ID:
        avax = self.chain.state.config.avax_asset_id
        if text == AVAX_ALIAS:
            return avax
        try:
            return ID.from_string(text)
        except InvalidParams:
            raise InvalidParams(f"couldn't find asset {text!r}") from None

    # --- UTXOs and txs ---------------------------------------------------------------------

    def get_utxos(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        addresses = [self.address(t) for t in checked_count(params.strings("addresses"))]
        encoding = parse_encoding(params.get("encoding"))
        limit = page_limit(params.uint("limit"))
        start = params.nested("startIndex")
        cursor = None
        if start is not None and start.string("address"):
            cursor = (self.address(start.string("address")), start.id("utxo"))
        source = params.string("sourceChain")
        source_id = self._chain_id(source) if source else self.chain.state.config.chain_id
        if source_id != self.chain.state.config.chain_id:
            after = (cursor[0].raw, cursor[1].raw) if cursor else None
            page = self.chain.atomic_utxos(source_id, addresses, after, limit)
            end = empty_end()
            if page:
                trait, element = page[-1]
                end = {"address": self.format(trait), "utxo": str(UTXO.decode(element.value).id)}
            return utxo_page([e.value for _, e in page], end, encoding)
        utxos, last = self.chain.utxos(addresses, cursor, limit)
        end = {"address": self.format(last[0]), "utxo": str(last[1])} if last else empty_end()
        return utxo_page([u.encode() for u in utxos], end, encoding)

    def _chain_id(self, name: str) -> ID:
        known = self.chain_names.get(name, name)
        try:
            return ID.from_string(known)
        except InvalidParams:
            raise InvalidParams(f"problem parsing source chainID {name!r}") from None

    def issue_tx(self, raw: dict[str, Any]) -> dict[str, str]:
        params = Params(raw)
        encoding = parse_encoding(params.get("encoding"))
        try:
            data = decode(params.string("tx"), encoding)
        except InvalidParams as err:
            raise InvalidParams(f"problem decoding transaction: {err.message}") from None
        try:
            tx = Tx.decode(data)
        except InvalidParams as err:
            raise InvalidParams(f"couldn't parse tx: {err.message}") from None
        try:
            return {"txID": str(self.runtime.issue(tx))}
        except (InvalidParams, Conflict) as err:
            raise type(err)(f"couldn't issue tx: {err.message}") from None

    def get_tx_status(self, raw: dict[str, Any]) -> dict[str, str]:
        # Deprecated on the real node, which answers Accepted or Unknown only.
        tx_id = Params(raw).id("txID")
        return {"status": "Accepted" if self.chain.is_accepted(tx_id) else "Unknown"}

    def get_tx(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        asked = params.get("encoding")
        encoding = None if wants_json(asked) else parse_encoding(asked)
        tx = self.chain.tx(params.id("txID"))
        if tx is None:
            raise InvalidParams("not found")
        if encoding is None:
            return {"tx": rendering.tx_json(tx, self.json_context), "encoding": "json"}
        return {"tx": encode(tx.encode(), encoding), "encoding": str(encoding)}

    # --- assets and balances ---------------------------------------------------------------

    def get_asset_description(self, raw: dict[str, Any]) -> dict[str, str]:
        asked = Params(raw).string("assetID")
        asset = self.chain.state.assets.get(self.asset_id(asked))
        if asset is None:
            raise InvalidParams(f"couldn't find asset {asked!r}")
        return {
            "assetID": str(asset.asset_id),
            "name": asset.name,
            "symbol": asset.symbol,
            "denomination": str(asset.denomination),
        }

    def get_tx_fee(self, _: dict[str, Any]) -> dict[str, str]:
        config = self.chain.state.config
        return {"txFee": str(config.tx_fee), "createAssetTxFee": str(config.create_asset_tx_fee)}

    def get_balance(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        address = self.address(params.string("address"))
        asset_id = self.asset_id(params.string("assetID"))
        amount, utxo_ids = self.chain.balances(address).get(asset_id, (0, []))
        utxos = [self.chain.state.utxos.get(u) for u in utxo_ids]
        ids = [
            {"txID": str(u.utxo_id.tx_id), "outputIndex": u.utxo_id.output_index}
            for u in utxos
            if u is not None
        ]
        return {"balance": str(amount), "utxoIDs": ids}

    def get_all_balances(self, raw: dict[str, Any]) -> dict[str, Any]:
        address = self.address(Params(raw).string("address"))
        avax = self.chain.state.config.avax_asset_id
        balances = [
            {"asset": AVAX_ALIAS if asset == avax else str(asset), "balance": str(amount)}
            for asset, (amount, _) in sorted(self.chain.balances(address).items())
        ]
        return {"balances": balances}

    # --- blocks ----------------------------------------------------------------------------

    def get_height(self, _: dict[str, Any]) -> dict[str, str]:
        self._require_linear()
        return {"height": str(self.chain.blocks[-1].height)}

    def get_block(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        asked = params.get("encoding")
        encoding = None if wants_json(asked) else parse_encoding(asked)
        self._require_linear()
        block_id = params.id("blockID")
        height = self.runtime.containers.block_ids.get(block_id)
        if height is None and self.chain.blocks[0].id == block_id:
            height = 0  # the linear chain's genesis block (after the stop vertex) is no container
        if height is None:
            raise InvalidParams(f"couldn't get block with id {block_id}: not found")
        return self._block(self.chain.blocks[height], encoding)

    def get_block_by_height(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        asked = params.get("encoding")
        encoding = None if wants_json(asked) else parse_encoding(asked)
        self._require_linear()
        height = params.uint("height")
        blocks = self.chain.blocks
        if height >= len(blocks):
            raise InvalidParams(f"couldn't get block at height {height}: not found")
        return self._block(blocks[height], encoding)

    def _block(self, block: StandardBlock, encoding: Encoding | None) -> dict[str, Any]:
        if encoding is None:
            return {"block": rendering.block_json(block, self.json_context), "encoding": "json"}
        return {"block": encode(block.encode(), encoding), "encoding": str(encoding)}

    def _require_linear(self) -> None:
        if not self.chain.linearized:
            raise InvalidParams("linearization not yet complete")


def avm_methods(runtime: XRuntime, ids: NetworkIds) -> dict[str, ServiceHandler]:
    """avm.* by wire name."""
    service = AvmService(runtime, ids)
    return {
        "avm.getUTXOs": service.get_utxos,
        "avm.issueTx": service.issue_tx,
        "avm.getTxStatus": service.get_tx_status,
        "avm.getTx": service.get_tx,
        "avm.getAssetDescription": service.get_asset_description,
        "avm.getTxFee": service.get_tx_fee,
        "avm.getBalance": service.get_balance,
        "avm.getAllBalances": service.get_all_balances,
        "avm.getHeight": service.get_height,
        "avm.getBlock": service.get_block,
        "avm.getBlockByHeight": service.get_block_by_height,
    }
