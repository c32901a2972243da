"""Read models of the P-Chain for the platform.* services: balances, validators, stake."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.chains.platform.stakers import Staker
from snowfield.chains.platform.utxos import inner_output, locktime_of
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.components import UTXO, TransferableOutput


@dataclass(frozen=True, slots=True)
class Balance:
    """platform.getBalance: AVAX owned by some addresses, split by what it may be used for."""

    unlocked: int
    locked_stakeable: int
    locked_not_stakeable: int
    utxos: tuple[UTXO, ...]

    @property
    def total(self) -> int:
        return self.unlocked + self.locked_stakeable + self.locked_not_stakeable


def balance_of(utxos: list[UTXO], now: int) -> Balance:
    unlocked = stakeable = not_stakeable = 0
    for utxo in utxos:
        amount, inner = utxo.output.amount, inner_output(utxo.output)
        if locktime_of(utxo.output) > now:
            stakeable += amount
        elif inner.owners.locktime > now:
            not_stakeable += amount
        else:
            unlocked += amount
    return Balance(unlocked, stakeable, not_stakeable, tuple(utxos))


@dataclass(frozen=True, slots=True)
class ValidatorInfo:
    """platform.getCurrentValidators: a validator, its delegators and its devnet uptime."""

    staker: Staker
    delegators: tuple[Staker, ...]
    uptime: float
    connected: bool

    @property
    def delegator_weight(self) -> int:
        return sum(d.weight for d in self.delegators)


def staked_outputs(stakers: list[Staker], addresses: set[ShortID]) -> list[TransferableOutput]:
    """The stake outputs of current stakers owned by any of `addresses` (platform.getStake)."""
    return [
        out
        for staker in stakers
        for out in staker.stake
        if addresses & set(inner_output(out.output).owners.addresses)
    ]
