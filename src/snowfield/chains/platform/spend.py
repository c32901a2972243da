"""Spending rules: secp256k1fx signatures, stakeable locks and the flow check of a P-Chain tx.

A port of the facts in avalanchego `platformvm/utxo/verifier.go` (VerifySpendUTXOs) and
`secp256k1fx/fx.go` (VerifyCredentials), with their error texts. `Signers` recovers each
credential signature's address once per tx (recovery is the expensive part).

Public API: `Signers(tx)`, `verify_spend(...)`, `verify_owner(...)`.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Protocol

from snowfield.chains.platform.utxos import inner_output, locktime_of
from snowfield.crypto.secp256k1 import recover_public_key
from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import UTXO, TransferableInput, TransferableOutput
from snowfield.formats.platform.secp256k1fx import Credential, OutputOwners, TransferInput
from snowfield.formats.platform.stakeable import LockIn
from snowfield.formats.platform.types import AnyCredential, TransferableIn


class Signed(Protocol):
    """A signed tx of any chain: what its credentials sign."""

    def unsigned_bytes(self) -> bytes: ...


class Signers:
    """The addresses behind a tx's credential signatures, recovered lazily and cached."""

    def __init__(self, tx: Signed) -> None:
        self._digest = hashlib.sha256(tx.unsigned_bytes()).digest()
        self._cache: dict[bytes, ShortID] = {}

    def address(self, signature: bytes) -> ShortID:
        address = self._cache.get(signature)
        if address is None:
            address = ShortID.from_public_key(recover_public_key(self._digest, signature))
            self._cache[signature] = address
        return address


def _credential(value: AnyCredential) -> Credential:
    if not isinstance(value, Credential):
        raise InvalidParams("wrong credential type")
    return value


def verify_owner(
    signers: Signers,
    owners: OutputOwners,
    indices: Sequence[int],
    credential: AnyCredential,
    now: int,
) -> None:
    """secp256k1fx VerifyCredentials: `indices` of `owners` signed, after the locktime."""
    signatures = _credential(credential).signatures
    if owners.locktime > now:
        raise InvalidParams("output is time locked")
    if owners.threshold < len(indices):
        raise InvalidParams("input has more signers than expected")
    if owners.threshold > len(indices):
        raise InvalidParams("input has less signers than expected")
    if len(indices) != len(signatures):
        raise InvalidParams(
            "input expected a different number of signers than provided in the credential"
        )
    for index, signature in zip(indices, signatures, strict=True):
        if index >= len(owners.addresses):
            raise InvalidParams("input referenced a nonexistent address in the output")
        if signers.address(signature) != owners.addresses[index]:
            raise InvalidParams("wrong signature")


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
