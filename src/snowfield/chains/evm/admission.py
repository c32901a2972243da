"""Whether a signed transaction may enter the mempool: geth's pool checks, with its error texts."""

from __future__ import annotations

from snowfield.chains.evm.execution.state import StateReader
from snowfield.chains.evm.execution.transactions import intrinsic_gas
from snowfield.chains.evm.limits import check_pool_sizes
from snowfield.chains.evm.model import Tx
from snowfield.chains.evm.rules.base import EvmRules
from snowfield.chains.evm.warp import extra_intrinsic_gas
from snowfield.errors import Conflict, InvalidParams

# Transactions without a chain id the node accepts anyway, as coreth's
# allow-unprotected-tx-hashes does: keyless deployments that must land at one address on every
# chain. The deterministic deployment proxy (coreth's default), and the ICM messenger's
# (snowfield.workload.icm.KEYLESS; a test pins the hash to it).
ALLOWED_UNPROTECTED_TX_HASHES = frozenset(
    bytes.fromhex(h)
    for h in (
        "fefb2da535e927b85fe68eb81cb2e4a5827c905f78381a01ef2322aa9b0aee8e",
        "4e2ab3d833d6294a952825e2d06d40abfd2a3bfd406a609142e653b18fd48e3b",
    )
)


class TxValidator:
    """The pool's checks for one chain (reth's TransactionValidator): those a transaction
    passes alone, then those against the head's state."""

    def __init__(self, chain_id: int, rules: EvmRules) -> None:
        self.chain_id = chain_id
        self.rules = rules

    def check(self, tx: Tx, *, known: bool, gas_limit: int, timestamp: int) -> None:
        """Stateless checks: replay protection, chain id, not `known` yet, sizes, gas bounds
        under the next blocks' `gas_limit`, fee fields; `timestamp` is the head's."""
        if tx.chain_id is None and tx.hash not in ALLOWED_UNPROTECTED_TX_HASHES:
            raise InvalidParams("only replay-protected (EIP-155) transactions allowed over RPC")
        if tx.chain_id is not None and tx.chain_id != self.chain_id:
            raise InvalidParams(
                f"invalid chain id for signer: have {tx.chain_id} want {self.chain_id}"
            )
        if known:
            raise Conflict("already known")
        check_pool_sizes(tx.to is None, len(tx.data), len(tx.raw))
        if tx.gas > gas_limit:
            raise InvalidParams("exceeds block gas limit")
        needed = intrinsic_gas(tx)
        if tx.access_list and self.rules.warp_config(timestamp) is not None:
            needed += extra_intrinsic_gas(tx.access_list)  # InvalidParams when malformed
        if tx.gas < needed:
            raise InvalidParams(f"intrinsic gas too low: gas {tx.gas}, minimum needed {needed}")
        if tx.max_priority_fee > tx.max_fee:
            raise InvalidParams(
                f"max priority fee per gas higher than max fee per gas: address "
                f"0x{tx.sender.hex()}, maxPriorityFeePerGas: {tx.max_priority_fee}, "
                f"maxFeePerGas: {tx.max_fee}"
            )

    def check_state(self, tx: Tx, state: StateReader, base_fee: int, timestamp: int) -> None:
        """Against the head's `state`: the nonce, the fee cap against the next `base_fee`, the
        balance for gas and value, and the rule set's refusals (allow lists) at `timestamp`."""
        nonce = state.nonce(tx.sender)
        if tx.nonce < nonce:
            raise InvalidParams(f"nonce too low: next nonce {nonce}, tx nonce {tx.nonce}")
        if tx.max_fee < base_fee:
            raise InvalidParams(
                f"max fee per gas less than block base fee: address 0x{tx.sender.hex()}, "
                f"maxFeePerGas: {tx.max_fee}, baseFee: {base_fee}"
            )
        have = state.balance(tx.sender)
        want = tx.gas * tx.max_fee + tx.value
        if have < want:
            raise InvalidParams(
                f"insufficient funds for gas * price + value: address 0x{tx.sender.hex()} "
                f"have {have} want {want}"
            )
        refused = self.rules.tx_error(state, tx.sender, timestamp)
        if refused is not None:
            raise InvalidParams(refused)
