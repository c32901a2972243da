"""Spending rules: stakeable locks and the flow check of a P-Chain tx.

A port of the facts in avalanchego `platformvm/utxo/verifier.go` (VerifySpendUTXOs), with its
error texts; signatures are checked by `snowfield.chains.secp256k1fx`.

Public API: `verify_spend(...)`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from snowfield.chains.platform.utxos import inner_output, locktime_of
from snowfield.chains.secp256k1fx import Signers, verify_owner
from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import UTXO, TransferableInput, TransferableOutput
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferInput
from snowfield.formats.platform.stakeable import LockIn
from snowfield.formats.platform.types import AnyCredential, TransferableIn


def _owner_bytes(owners: OutputOwners) -> bytes:
    packer = Packer()
    owners.pack(packer)
    return packer.to_bytes()


Locked = dict[ID, dict[int, dict[bytes, int]]]  # asset → locktime → owner bytes → amount


def _consume(
    signers: Signers,
    inp: TransferableInput,
    utxo: UTXO,
    credential: AnyCredential,
    now: int,
) -> tuple[int, bytes | None]:
    """Verifies one input against its UTXO; returns (locktime if still locked else 0, owner)."""
    if inp.asset_id != utxo.asset_id:
        raise InvalidParams(
            f"input asset ID does not match UTXO asset ID: {inp.asset_id} != {utxo.asset_id}"
        )
    locktime, spent = locktime_of(utxo.output), inner_output(utxo.output)
    transfer_in: TransferableIn = inp.input
    if isinstance(transfer_in, LockIn):
        if transfer_in.locktime != locktime:
            raise InvalidParams(
                f"input locktime does not match UTXO locktime: {transfer_in.locktime} != {locktime}"
            )
        transfer_in = transfer_in.input
    elif now < locktime:
        raise InvalidParams("locked funds not marked as locked")
    if not isinstance(transfer_in, TransferInput):
        raise InvalidParams("wrong input type")
    if transfer_in.amount != spent.amt:
        raise InvalidParams("failed to verify transfer: utxo amount and input amount are not equal")
    try:
        verify_owner(signers, spent.owners, transfer_in.sig_indices, credential, now)
    except InvalidParams as err:
        raise InvalidParams(f"failed to verify transfer: {err.message}") from None
    if now >= locktime:
        return 0, None
    return locktime, _owner_bytes(spent.owners)


def verify_spend(
    signers: Signers,
    utxos: Sequence[UTXO],
    inputs: Sequence[TransferableInput],
    outputs: Sequence[TransferableOutput],
    credentials: Sequence[AnyCredential],
    now: int,
    unlocked_produced: Mapping[ID, int],
) -> None:
    """VerifySpendUTXOs: signatures, locks, and consumed ≥ produced (+ the fee in
    `unlocked_produced`) per asset, locked stake matched per (locktime, owner)."""
    if len(inputs) != len(credentials):
        raise InvalidParams(
            f"wrong number of credentials: {len(inputs)} inputs != {len(credentials)} credentials"
        )
    unlocked_consumed: dict[ID, int] = defaultdict(int)
    locked_consumed: Locked = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for inp, utxo, credential in zip(inputs, utxos, credentials, strict=True):
        locktime, owner = _consume(signers, inp, utxo, credential, now)
        if owner is None:
            unlocked_consumed[utxo.asset_id] += inp.input.amount
        else:
            locked_consumed[utxo.asset_id][locktime][owner] += inp.input.amount
    produced: dict[ID, int] = defaultdict(int, unlocked_produced)
    locked_produced: Locked = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for out in outputs:
        locktime = locktime_of(out.output)
        if locktime == 0:
            produced[out.asset_id] += out.output.amount
        else:
            owner = _owner_bytes(inner_output(out.output).owners)
            locked_produced[out.asset_id][locktime][owner] += out.output.amount
    _match_locked(locked_produced, locked_consumed, unlocked_consumed)
    for asset, amount in produced.items():
        if amount > unlocked_consumed[asset]:
            missing = amount - unlocked_consumed[asset]
            raise InvalidParams(f"insufficient unlocked funds: needs {missing} more {asset}")


def _match_locked(produced: Locked, consumed: Locked, unlocked: dict[ID, int]) -> None:
    """Locked outputs come from locked inputs of the same owner and locktime, else unlocked."""
    for asset, by_locktime in produced.items():
        for locktime, by_owner in by_locktime.items():
            for owner, amount in by_owner.items():
                increase = amount - consumed[asset][locktime][owner]
                if increase <= 0:
                    continue
                if increase > unlocked[asset]:
                    raise InvalidParams(
                        f"insufficient locked funds: needs {increase - unlocked[asset]} more "
                        f"{asset} for locktime {locktime}"
                    )
                unlocked[asset] -= increase
