"""The X-Chain's genesis: the AVAX asset (a CreateAssetTx) whose initial state funds the
network's allocations, as avalanchego's genesis builds it.

As avalanchego's genesis builds it, the tx names no blockchain (the X-Chain's id comes from
the P-Chain genesis, which holds these bytes) and its id is the AVAX asset id. Posing as a known
network, the devnet uses that network's AVAX id instead (its genesis is not reproduced byte for
byte): the genesis tx is stored under that id, and its UTXOs are `assetID:i` as on the real chain.

Public API: `Allocation`, `genesis_tx(network_id, allocations)`, `genesis_bytes(tx)` (the AVM
genesis a CreateChainTx carries), `genesis_state(config, tx, peers)`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from snowfield.chains.exchange.state import SECP_FX, Asset, ExchangeConfig, ExchangeState
from snowfield.formats.codec import Packer
from snowfield.formats.exchange.txs import UTXO, CreateAssetTx, InitialState, Tx
from snowfield.formats.ids import EMPTY_ID, ID, ShortID
from snowfield.formats.platform.components import UTXOID, BaseTxFields
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput
from snowfield.formats.registry import Encodable

AVAX_NAME, AVAX_SYMBOL, AVAX_DENOMINATION = "Avalanche", "AVAX", 9
MAX_GENESIS_SIZE = 1 << 30  # the genesis codec's limit


@dataclass(frozen=True, slots=True)
class Allocation:
    address: ShortID
    amount: int  # nAVAX


def _output_key(output: TransferOutput) -> tuple[int, int, bytes]:
    return (output.amt, output.owners.locktime, b"".join(a.raw for a in output.owners.addresses))


def genesis_tx(network_id: int, allocations: Sequence[Allocation]) -> Tx:
    """The AVAX CreateAssetTx: no inputs, one secp256k1fx output per allocation (sorted)."""
    outputs = sorted(
        (TransferOutput(a.amount, OutputOwners(0, 1, (a.address,))) for a in allocations),
        key=_output_key,
    )
    states: tuple[InitialState, ...] = ()
    if outputs:
        states = (InitialState(SECP_FX, tuple[Encodable, ...](outputs)),)
    base = BaseTxFields(network_id, EMPTY_ID, (), ())
    return Tx(CreateAssetTx(base, AVAX_NAME, AVAX_SYMBOL, AVAX_DENOMINATION, states))


def genesis_bytes(tx: Tx) -> bytes:
    """avm's Genesis{Txs: [GenesisAsset{Alias "AVAX", CreateAssetTx}]}: version, count, then
    the alias and the tx's fields inline."""
    packer = Packer(max_size=MAX_GENESIS_SIZE).u16(0).u32(1).string(AVAX_SYMBOL)
    tx.unsigned.pack(packer)
    return packer.to_bytes()


def genesis_state(config: ExchangeConfig, tx: Tx, peers: Iterable[ID]) -> ExchangeState:
    state = ExchangeState(config, peers=frozenset(peers))
    asset_id = config.avax_asset_id
    unsigned = tx.unsigned
    assert isinstance(unsigned, CreateAssetTx)
    index = 0
    for initial in unsigned.states:
        for output in initial.outputs:
            state.utxos.add(UTXO(UTXOID(asset_id, index), asset_id, output))
            index += 1
    state.assets[asset_id] = Asset(
        asset_id, AVAX_NAME, AVAX_SYMBOL, AVAX_DENOMINATION, frozenset({SECP_FX})
    )
    state.txs[asset_id] = tx
    return state
