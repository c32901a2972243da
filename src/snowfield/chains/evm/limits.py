"""Size limits on transactions and code, with geth's texts: EIP-3860 initcode, the pool's."""

from __future__ import annotations

from snowfield.errors import InvalidParams

MAX_INITCODE_SIZE = 49_152  # EIP-3860: twice EIP-170's code size limit
MAX_TX_SIZE = 4 * 32 * 1024  # geth's and coreth's txMaxSize: four 32 KiB slots


def check_pool_sizes(is_create: bool, data_size: int, raw_size: int) -> None:
    """The pool's size checks of a signed transaction (geth's ValidateTransaction)."""
    if raw_size > MAX_TX_SIZE:
        raise InvalidParams(f"oversized data: transaction size {raw_size}, limit {MAX_TX_SIZE}")
    if is_create and data_size > MAX_INITCODE_SIZE:
        raise InvalidParams(
            f"max initcode size exceeded: code size {data_size}, limit {MAX_INITCODE_SIZE}"
        )


def check_initcode(is_create: bool, data_size: int) -> None:
    """The state transition's check of a message's initcode (geth's text has no comma)."""
    if is_create and data_size > MAX_INITCODE_SIZE:
        raise InvalidParams(
            f"max initcode size exceeded: code size {data_size} limit {MAX_INITCODE_SIZE}"
        )
