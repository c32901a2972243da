"""The primary network's genesis, as avalanchego's local network builds it: the X-Chain's AVAX
CreateAssetTx (whose id is the AVAX asset id) funding ewoq and the dev keys, and the P-Chain's
CreateChainTxs of X and C (whose ids are their blockchain ids). Posing as mainnet or the test
network (`--network-id 1` or `5`), the devnet takes that network's well-known ids instead (one
client library hard-codes them).

Public API: `PrimaryGenesis`, `primary_genesis(settings, funded)`, `X_GENESIS_AVAX`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from snowfield.chains.exchange.genesis import Allocation, genesis_bytes, genesis_tx
from snowfield.chains.platform.genesis import (
    AVM_ID,
    EVM_ID,
    X_FX_IDS,
    GenesisChain,
    genesis_chain_tx,
)
from snowfield.config import NetworkSettings
from snowfield.crypto.keys import EWOQ_KEY, key_from_bytes
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.exchange.txs import Tx
from snowfield.formats.ids import ShortID
from snowfield.node.networks import POSED, NetworkIds, network_ids

X_GENESIS_AVAX = 300_000_000 * 10**9  # nAVAX per funded key on X, as the local genesis gives ewoq
WEI_PER_AVAX = 10**18


@dataclass(frozen=True, slots=True)
class PrimaryGenesis:
    ids: NetworkIds
    x_genesis: Tx  # the AVAX CreateAssetTx
    chains: tuple[GenesisChain, ...]  # the P-Chain genesis's CreateChainTxs (none when posing)


def _x_allocations(secrets: Sequence[bytes]) -> list[Allocation]:
    keys = dict.fromkeys((EWOQ_KEY, *secrets))
    return [Allocation(ShortID.from_public_key(public_key_of(s)), X_GENESIS_AVAX) for s in keys]


def _c_genesis(settings: NetworkSettings, secrets: Sequence[bytes]) -> bytes:
    """The C-Chain's genesis as its CreateChainTx carries it (coreth's JSON shape, sorted)."""
    c = settings.c_chain
    balance = hex(settings.balance * WEI_PER_AVAX)
    alloc = {key_from_bytes(s).checksum_address: {"balance": balance} for s in secrets}
    body = {"config": {"chainId": c.chain_id}, "gasLimit": hex(c.gas_limit), "alloc": alloc}
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


def primary_genesis(settings: NetworkSettings, funded: Sequence[bytes]) -> PrimaryGenesis:
    """The genesis of the network `settings` describe, `funded` the dev keys' secrets."""
    network_id = settings.network_id
    x_tx = genesis_tx(network_id, _x_allocations(funded))
    if network_id in POSED:
        return PrimaryGenesis(network_ids(network_id), x_tx, ())
    x_chain = GenesisChain("X-Chain", AVM_ID, genesis_bytes(x_tx), X_FX_IDS)
    c_chain = GenesisChain("C-Chain", EVM_ID, _c_genesis(settings, funded))
    x_id, c_id = (genesis_chain_tx(network_id, chain).id for chain in (x_chain, c_chain))
    ids = NetworkIds(network_id, str(c_id), str(x_id), str(x_tx.id))
    return PrimaryGenesis(ids, x_tx, (x_chain, c_chain))
