"""The C-Chain's atomic API, served twice: `avax.*` at /ext/bc/C/avax as avalanchego's coreth
(u64s as decimal strings) and the spec's `native.*` at /ext/bc/C/native (u64s as numbers).

Methods: getUTXOs (UTXOs P or X exported to C, by `C-<hrp>1…` address), issueTx,
getAtomicTxStatus, getAtomicTx; texts as coreth's `atomic/vm/api.go`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from snowfield.chains.evm.atomic import AtomicLedger, AtomicStatus
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.hexcheck import decode, encode, parse_encoding
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import UTXO
from snowfield.node.gorilla_params import Params, chain_address
from snowfield.node.registry import ChainIds
from snowfield.node.utxo_paging import checked_count, empty_end, page_limit
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.service import ServiceHandler

MAX_BLOCKS_PER_ISSUE = 64
Number = Callable[[int], Any]  # how a u64 leaves: str (avalanchego's json.Uint64) or int


class AtomicService:
    """The handlers over one C-Chain's atomic ledger."""

    def __init__(
        self,
        runtime: EvmRuntime,
        network_id: int,
        chain_ids: ChainIds,
        aliases: tuple[str, ...],
        number: Number,
    ) -> None:
        self.runtime = runtime
        self.hrp = hrp_for_network(network_id)
        self.chain_ids = chain_ids
        self.aliases = aliases
        self.number = number

    @property
    def ledger(self) -> AtomicLedger:
        ledger = self.runtime.chain.atomic
        assert ledger is not None
        return ledger

    def _address(self, text: str) -> ShortID:
        return chain_address(text, self.aliases, self.hrp)

    def _source(self, name: str) -> ID:
        if not name:
            raise InvalidParams("no source chain provided")
        blockchain_id = self.chain_ids(name)
        try:
            return ID.from_string(blockchain_id or name)
        except InvalidParams:
            raise InvalidParams(f"problem parsing source chainID {name!r}") from None

    def get_utxos(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        texts = checked_count(params.strings("addresses"))
        source = self._source(params.string("sourceChain"))
        addresses = [self._address(t).raw for t in texts]
        encoding = parse_encoding(params.get("encoding"))
        limit = page_limit(params.uint("limit"))
        start = params.nested("startIndex")
        after = None
        if start is not None and start.string("address"):
            after = (self._address(start.string("address")).raw, start.id("utxo").raw)
        page = self.ledger.utxos(source, addresses, after, limit)
        end = empty_end()
        if page:
            trait, element = page[-1]
            end = {
                "address": format_address("C", self.hrp, trait),
                "utxo": str(UTXO.decode(element.value).id),
            }
        return {
            "utxos": [encode(e.value, encoding) for _, e in page],
            "endIndex": end,
            "numFetched": self.number(len(page)),
            "encoding": str(encoding),
        }

    async def issue_tx(self, raw: dict[str, Any]) -> dict[str, str]:
        params = Params(raw)
        try:
            data = decode(params.string("tx"), parse_encoding(params.get("encoding")))
        except InvalidParams as exc:
            raise InvalidParams(f"problem decoding transaction: {exc}") from None
        runtime = self.runtime
        chain = runtime.chain
        tx_id = await runtime.write(chain.issue_atomic, data)
        # In automine, blocks until the pool is empty: a block holds at most the atomic gas
        # limit's worth (bounded: each block takes at least one tx, or drops it).
        for _ in range(MAX_BLOCKS_PER_ISSUE):
            if not runtime.automine or not self.ledger.has_pending():
                break
            if await runtime.write(chain.mine) is None:
                break
        return {"txID": str(tx_id)}

    def _tx_id(self, params: Params) -> ID:
        if not params.string("txID"):
            raise InvalidParams("nil transaction ID")
        return params.id("txID")

    def get_atomic_tx_status(self, raw: dict[str, Any]) -> dict[str, Any]:
        status, height = self.ledger.status(self._tx_id(Params(raw)))
        reply: dict[str, Any] = {"status": str(status)}
        if status is AtomicStatus.ACCEPTED and height is not None:
            reply["blockHeight"] = self.number(height)
        return reply

    def get_atomic_tx(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        tx_id = self._tx_id(params)
        encoding = parse_encoding(params.get("encoding"))
        found = self.ledger.tx(tx_id)
        if found is None:
            raise NotFound(f"could not find tx {tx_id}")
        data, height = found
        reply: dict[str, Any] = {"tx": encode(data, encoding), "encoding": str(encoding)}
        if height is not None:
            reply["blockHeight"] = self.number(height)
        return reply


def atomic_methods(
    namespace: str,
    runtime: EvmRuntime,
    network_id: int,
    chain_ids: ChainIds,
    aliases: tuple[str, ...],
) -> dict[str, ServiceHandler]:
    """`avax.*` (u64s as strings, as the real node) or `native.*` (numbers, as the spec)."""
    number: Number = str if namespace == "avax" else int
    service = AtomicService(runtime, network_id, chain_ids, aliases, number)
    return {
        f"{namespace}.getUTXOs": service.get_utxos,
        f"{namespace}.issueTx": service.issue_tx,
        f"{namespace}.getAtomicTxStatus": service.get_atomic_tx_status,
        f"{namespace}.getAtomicTx": service.get_atomic_tx,
    }
