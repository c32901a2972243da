"""The environment a block or a call runs in: number, time, fee recipient, gas limit, base fee,
ancestors, the precompiles in force and the Warp context, as the rule set decides them."""

from __future__ import annotations

from dataclasses import replace

from snowfield.chains.evm.execution.state import BlockEnv
from snowfield.chains.evm.model import Block
from snowfield.chains.evm.rules.base import EvmRules
from snowfield.chains.evm.view import ChainView
from snowfield.chains.evm.warp import SnowContext, WarpBlock, verify_message
from snowfield.errors import InvalidParams
from snowfield.formats.warp.message import Message


class BlockEnvs:
    """Builds `BlockEnv`s for one chain: its id, rule set and Warp identity over its blocks."""

    def __init__(self, view: ChainView, rules: EvmRules, chain_id: int, snow: SnowContext) -> None:
        self.view = view
        self.rules = rules
        self.chain_id = chain_id
        # Who the chain is on the network and the validators Warp messages verify against.
        self.snow = snow

    def for_block(
        self,
        parent: Block,
        timestamp: int,
        base_fee: int,
        coinbase: bytes,
        gas_limit: int,
        predicate_results: dict[bytes, frozenset[int]] | None = None,
    ) -> BlockEnv:
        """The environment of a block built on `parent`, its producer asking for `coinbase`
        and `gas_limit` (the rules may decide otherwise); its Warp predicates are verified
        now, unless `predicate_results` (a replay's, from its header) decide them."""
        rules, parent_ts = self.rules, parent.header.timestamp
        state = self.view.state_at(parent)
        return BlockEnv(
            number=parent.number + 1,
            timestamp=timestamp,
            coinbase=rules.coinbase(coinbase, state, parent_ts),
            gas_limit=rules.gas_limit(gas_limit, state, parent_ts),
            base_fee=base_fee,
            chain_id=self.chain_id,
            prev_hashes=self.view.ancestors(parent.number + 1),
            stateful=rules.precompiles(timestamp),
            create_check=rules.create_check(timestamp),
            warp=self._warp_block(timestamp, predicate_results),
        )

    def for_call(self, block: Block) -> BlockEnv:
        """The environment a call on `block`'s state sees: the block's own, with no base fee
        charged (as geth)."""
        header = block.header
        return BlockEnv(
            number=block.number,
            timestamp=header.timestamp,
            coinbase=header.coinbase,
            gas_limit=header.gas_limit,
            base_fee=0,
            chain_id=self.chain_id,
            prev_hashes=self.view.ancestors(block.number),
            stateful=self.rules.precompiles(header.timestamp),
            create_check=self.rules.create_check(header.timestamp),
            warp=self.call_warp(header.timestamp),
        )

    def call_warp(self, timestamp: int) -> WarpBlock | None:
        """A call's Warp context: the chain's ids; predicates count as verified."""
        return WarpBlock(self.snow) if self.rules.warp_config(timestamp) is not None else None

    def _warp_block(
        self, timestamp: int, results: dict[bytes, frozenset[int]] | None
    ) -> WarpBlock | None:
        config = self.rules.warp_config(timestamp)
        if config is None:
            return None
        if results is not None:
            return WarpBlock(self.snow, results=results)
        snow = self.snow
        # The block verifies at the P-Chain height it is built at (the proposer's).
        try:
            height = snow.validators.p_chain_height() if snow.validators is not None else 0
        except InvalidParams:  # no P-Chain (yet): nothing verifies
            snow = replace(snow, validators=None)
            height = 0

        def verify(message: Message) -> bool:
            return verify_message(message, snow, config, height) is None

        return WarpBlock(snow, verify=verify)
