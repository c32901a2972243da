"""What every fee-paying tx's verification shares: network checks, UTXO lookup, the Etna fee,
signatures and the flow check; and the registry of executors, one per tx type.

An executor verifies a tx against the state without changing it and returns the `Effect` that
applies it: a rejected tx changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from snowfield.chains.atomic import AtomicRequests, SharedMemory
from snowfield.chains.platform.complexity import tx_complexity
from snowfield.chains.platform.gas import Dimensions, to_gas
from snowfield.chains.platform.spend import verify_spend
from snowfield.chains.platform.state import PlatformState
from snowfield.chains.secp256k1fx import Signers, verify_owner
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.platform.components import (
    UTXO,
    UTXOID,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import Input, OutputOwners
from snowfield.formats.platform.txs import Tx
from snowfield.formats.platform.types import Auth, Owner, UnsignedTx

Effect = Callable[[], None]


@dataclass(frozen=True, slots=True)
class Env:
    """What an executor reads: the state, the network's shared memory, this chain's id."""

    state: PlatformState
    shared_memory: SharedMemory
    chain_id: ID = P_CHAIN_ID


@dataclass(frozen=True, slots=True)
class Spent:
    """A verified spend: UTXOs to delete and create, gas to consume, atomic requests."""

    consumed: tuple[ID, ...]
    produced: tuple[UTXO, ...]
    gas: int
    atomic: dict[ID, AtomicRequests] = field(default_factory=dict)

    def apply(self, env: Env) -> None:
        state = env.state
        for utxo_id in self.consumed:
            state.utxos.remove(utxo_id)
        for utxo in self.produced:
            state.utxos.add(utxo)
        state.fee_state = state.fee_state.consume(self.gas)
        if self.atomic:
            env.shared_memory.apply(env.chain_id, self.atomic)


Executor = Callable[[Env, Tx], Effect]
EXECUTORS: dict[type[UnsignedTx], Executor] = {}


def executes(*tx_types: type[UnsignedTx]) -> Callable[[Callable[[Env, Any], Effect]], Any]:
    """Registers the decorated function as the executor of `tx_types`."""

    def register(function: Callable[[Env, Any], Effect]) -> Any:
        for tx_type in tx_types:
            EXECUTORS[tx_type] = function
        return function

    return register


def execute(env: Env, tx: Tx) -> Effect:
    """Verifies `tx` against `env.state`; returns the effect that applies it."""
    executor = EXECUTORS.get(type(tx.unsigned))
    if executor is None:
        raise InvalidParams(f"unsupported tx type: {type(tx.unsigned).__name__}")
    return executor(env, tx)


def lookup_utxos(env: Env, inputs: Sequence[TransferableInput]) -> list[UTXO]:
    utxos = []
    for inp in inputs:
        utxo = env.state.utxos.get(inp.utxo_id.input_id)
        if utxo is None:
            raise InvalidParams(f"failed to get UTXO {inp.utxo_id.input_id}: not found")
        utxos.append(utxo)
    return utxos


def check_chain(env: Env, fields: BaseTxFields) -> None:
    if fields.network_id != env.state.network_id:
        raise InvalidParams(
            f"tx has wrong network ID: expected {env.state.network_id} but got {fields.network_id}"
        )
    if fields.blockchain_id != env.chain_id:
        raise InvalidParams(
            f"tx has wrong chain ID: expected {env.chain_id} but got {fields.blockchain_id}"
        )


_GAS: dict[tuple[ID, Dimensions], int] = {}


def fee_gas(env: Env, tx: Tx) -> tuple[int, int]:
    """(gas, fee) of `tx` at the current price; InvalidParams above the capacity."""
    state = env.state
    weights = state.params.fees.weights
    key = (tx.id, weights)  # a tx is verified at issue and again in its block: computed once
    gas = _GAS.get(key)
    if gas is None:
        if len(_GAS) > 256:
            _GAS.clear()
        gas = _GAS[key] = to_gas(tx_complexity(tx.unsigned), weights)
    if gas > state.fee_state.capacity:
        raise InvalidParams(
            f"insufficient capacity: capacity ({state.fee_state.capacity}) < gas ({gas})"
        )
    return gas, gas * state.fee_state.price(state.params.fees)


def base_outputs(tx_id: ID, outputs: Sequence[TransferableOutput], first: int = 0) -> list[UTXO]:
    return [
        UTXO(UTXOID(tx_id, first + i), out.asset_id, out.output) for i, out in enumerate(outputs)
    ]


@dataclass(frozen=True, slots=True)
class SpendRequest:
    """What a tx spends beyond its BaseTx: extra outputs, burned amounts, imported inputs."""

    extra_outputs: tuple[TransferableOutput, ...] = ()
    burn: int = 0
    imported: tuple[TransferableInput, ...] = ()
    imported_utxos: tuple[UTXO, ...] = ()
    auths: int = 0


def spend(env: Env, tx: Tx, fields: BaseTxFields, request: SpendRequest = SpendRequest()) -> Spent:
    """Verifies the BaseTx part of `tx`: chain, UTXOs, fee, signatures and flow."""
    check_chain(env, fields)
    inputs = fields.inputs + request.imported
    if len(tx.credentials) != len(inputs) + request.auths:
        raise InvalidParams(
            f"wrong number of credentials: {len(inputs) + request.auths} expected "
            f"!= {len(tx.credentials)} credentials"
        )
    utxos = lookup_utxos(env, fields.inputs) + list(request.imported_utxos)
    gas, fee = fee_gas(env, tx)
    state = env.state
    verify_spend(
        signers_of(tx),
        utxos,
        inputs,
        fields.outputs + request.extra_outputs,
        tx.credentials[: len(inputs)],
        state.timestamp,
        {state.avax_asset_id: fee + request.burn},
    )
    consumed = tuple(inp.utxo_id.input_id for inp in fields.inputs)
    return Spent(consumed, tuple(base_outputs(tx.id, fields.outputs)), gas)


_SIGNERS: dict[ID, Signers] = {}


def signers_of(tx: Tx) -> Signers:
    """The tx's signature recoverer (cached for the tx's auth check after its inputs)."""
    signers = _SIGNERS.get(tx.id)
    if signers is None:
        if len(_SIGNERS) > 256:
            _SIGNERS.clear()
        signers = _SIGNERS[tx.id] = Signers(tx)
    return signers


def output_owners(owner: Owner) -> OutputOwners:
    """The secp256k1fx owner of a tx field; the only kind the P-Chain accepts."""
    if not isinstance(owner, OutputOwners):
        raise InvalidParams("unsupported owner type")
    return owner


def verify_auth(
    env: Env,
    tx: Tx,
    owner: OutputOwners,
    auth: Auth,
    what: str = "unauthorized subnet modification",
) -> None:
    """The last credential signs for `owner` with the indices in `auth` (subnet/disable auth)."""
    if not isinstance(auth, Input):
        raise InvalidParams("wrong auth type")
    if not tx.credentials:
        raise InvalidParams("wrong number of credentials")
    try:
        verify_owner(signers_of(tx), owner, auth.indices, tx.credentials[-1], env.state.timestamp)
    except InvalidParams as err:
        raise InvalidParams(f"{what}: {err.message}") from None
