"""A tiny test wallet: keys, genesis, and signed P-Chain txs that pay exactly the dynamic fee."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from snowfield.chains.atomic import SharedMemory
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.complexity import tx_complexity
from snowfield.chains.platform.config import AVAX
from snowfield.chains.platform.gas import to_gas
from snowfield.chains.platform.genesis import (
    AVM_ID,
    EVM_ID,
    X_FX_IDS,
    Allocation,
    GenesisChain,
    GenesisConfig,
    InitialStaker,
)
from snowfield.crypto import bls
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.crypto.secp256k1 import public_key_of, sign_recoverable
from snowfield.formats.ids import ID, P_CHAIN_ID, NodeID, ShortID
from snowfield.formats.platform.components import (
    UTXO,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.formats.platform.txs import Tx, unsigned_bytes
from snowfield.formats.platform.types import AnyCredential, UnsignedTx

NETWORK_ID = 12345
AVAX_ID = ID(hashlib.sha256(b"avax").digest())
START = 1_700_000_000
KEY2 = hashlib.sha256(b"second key").digest()


def address(secret: bytes) -> ShortID:
    return ShortID.from_public_key(public_key_of(secret))


def owner(*secrets: bytes, threshold: int = 1, locktime: int = 0) -> OutputOwners:
    return OutputOwners(locktime, threshold, tuple(sorted(address(s) for s in secrets)))


@functools.cache
def pop(seed: bytes) -> ProofOfPossession:
    secret = bls.SecretKey.from_bytes(b"\x00" + hashlib.sha256(seed).digest()[1:])
    return ProofOfPossession(secret.public_key().to_bytes(), secret.prove_possession().to_bytes())


def genesis_config(stakers: int = 2, allocations: Sequence[Allocation] = ()) -> GenesisConfig:
    initial = tuple(
        InitialStaker(
            NodeID(bytes([i + 1]) * 20),
            pop(b"genesis %d" % i).public_key,
            pop(b"genesis %d" % i).proof,
            address(EWOQ_KEY),
            2_000 * AVAX,
            20_000,
        )
        for i in range(stakers)
    )
    chains = (
        GenesisChain("X-Chain", AVM_ID, b"x genesis", X_FX_IDS),
        GenesisChain("C-Chain", EVM_ID, b"c genesis"),
    )
    funded = (Allocation(address(EWOQ_KEY), 100_000 * AVAX), *allocations)
    return GenesisConfig(NETWORK_ID, AVAX_ID, START, funded, initial, chains)


def new_chain(stakers: int = 2, allocations: Sequence[Allocation] = ()) -> PlatformChain:
    return PlatformChain.from_genesis(genesis_config(stakers, allocations), SharedMemory())


def sign(unsigned: UnsignedTx, signers: Sequence[Sequence[bytes]]) -> Tx:
    digest = hashlib.sha256(unsigned_bytes(unsigned)).digest()
    credentials: tuple[AnyCredential, ...] = tuple(
        Credential(tuple(sign_recoverable(s, digest) for s in keys)) for keys in signers
    )
    return Tx(unsigned, credentials)


@dataclass
class Wallet:
    """Spends the UTXOs one key owns alone; change goes back to it."""

    chain: PlatformChain
    secret: bytes = EWOQ_KEY
    network_id: int = NETWORK_ID
    asset_id: ID = AVAX_ID

    def _utxos(self) -> list[UTXO]:
        page, _ = self.chain.utxos([address(self.secret)])
        return [
            u
            for u in page
            if isinstance(u.output, TransferOutput) and u.output.owners.threshold == 1
        ]

    def base(
        self,
        spend: int,
        outputs: Sequence[TransferableOutput] = (),
        memo: bytes = b"",
        fee: int = 0,
    ) -> tuple[BaseTxFields, int]:
        """BaseTx fields consuming enough UTXOs for `spend` + `fee`, with change."""
        utxos, total = [], 0
        for utxo in self._utxos():
            utxos.append(utxo)
            total += utxo.output.amount
            if total >= spend + fee:
                break
        inputs = tuple(
            sorted(
                (
                    TransferableInput(u.utxo_id, u.asset_id, TransferInput(u.output.amount, (0,)))
                    for u in utxos
                ),
                key=lambda i: i.sort_key(),
            )
        )
        change = total - spend - fee
        outs = list(outputs)
        if change > 0:
            change_out = TransferOutput(change, owner(self.secret))
            outs.append(TransferableOutput(self.asset_id, change_out))
        outs.sort(key=lambda o: o.sort_key())
        return BaseTxFields(self.network_id, P_CHAIN_ID, tuple(outs), inputs, memo), len(inputs)

    def build(
        self,
        make: Callable[[BaseTxFields], UnsignedTx],
        spend: int = 0,
        outputs: Sequence[TransferableOutput] = (),
        auth: Sequence[Sequence[bytes]] = (),
    ) -> Tx:
        """A tx paying exactly gas * price (the complexity does not depend on amounts)."""
        draft, _ = self.base(spend, outputs, fee=1)
        gas = to_gas(tx_complexity(make(draft)), self.chain.fee_config.weights)
        base, count = self.base(spend, outputs, fee=gas * self.chain.fee_state[1])
        return sign(make(base), [[self.secret]] * count + list(auth))
