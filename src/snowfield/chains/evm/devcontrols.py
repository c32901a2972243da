"""Dev controls (cheat codes): the network clock and the next block's time, the next blocks'
parameters, edits of the head's state, and rewinds; each under the block producer's locks."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable

from snowfield.chains.clock import NetworkClock, check_time
from snowfield.chains.evm.execution.edits import AccountEdit, apply_edits
from snowfield.chains.evm.history import ChainHistory
from snowfield.chains.evm.model import Block
from snowfield.chains.evm.production import BlockParams, BlockProducer
from snowfield.chains.evm.state_dump import check_state
from snowfield.errors import InvalidParams

RewindListener = Callable[[int, tuple[Block, ...]], None]


class DevControls:
    """What anvil's and hardhat's cheat codes change; edits and rewinds are journaled, the
    clock and the next blocks' parameters are not (the blocks record what they used)."""

    def __init__(self, producer: BlockProducer, history: ChainHistory, clock: NetworkClock) -> None:
        self.producer = producer
        self.history = history
        self.clock = clock
        self._rewind_listeners: list[RewindListener] = []

    def on_rewind(self, listener: RewindListener) -> None:
        """Calls `listener(height, cut blocks)` after the chain is cut back to `height`."""
        self._rewind_listeners.append(listener)

    # -- time --------------------------------------------------------------------------

    @property
    def time_offset(self) -> int:
        """The network clock's offset from wall time (evm_increaseTime's total)."""
        return self.clock.offset

    @time_offset.setter
    def time_offset(self, seconds: int) -> None:
        self.clock.offset = seconds

    def increase_time(self, seconds: int) -> int:
        return self.clock.increase(seconds)

    def set_next_timestamp(self, timestamp: int) -> None:
        check_time(timestamp)
        head_time = self.history.head.header.timestamp
        if timestamp < head_time:
            raise InvalidParams(f"timestamp {timestamp} is before the latest block's {head_time}")
        self.producer.next_timestamp = timestamp

    def reset_block_params(self) -> None:
        """Forgets what cheat codes set for the next blocks (coinbase, gas limit, time)."""
        self.producer.params = BlockParams.default(self.producer.config)
        self.time_offset = 0
        self.producer.next_timestamp = None

    # -- state -------------------------------------------------------------------------

    def edit_state(self, edits: list[AccountEdit]) -> None:
        """Writes accounts into the head's state, journaled so a restart finds them."""
        history = self.history
        with self.producer.quiesced():
            history.set_head_state(apply_edits(history.store, history.head_root, edits))

    def load_nodes(self, root: bytes, nodes: dict[bytes, bytes]) -> None:
        """Makes the state at `root` (whose trie nodes and code are `nodes`) the head's."""
        recording = self.history.store.recording
        with self.producer.quiesced():
            check_state(ChainMap(nodes, recording.data), root)
            for key, value in nodes.items():
                recording[key] = value
            self.history.set_head_state(root)

    def rewind(self, height: int, root: bytes | None = None) -> None:
        """Cuts the chain back to block `height`, with head state `root` (default: that
        block's); journaled, so a restart does not bring the cut blocks back."""
        blocks = self.history.blocks
        with self.producer.quiesced():
            if any(block.ext_data for block in blocks[height + 1 :]):
                # Their UTXOs moved in the network's shared memory, which other chains have
                # seen (and may have spent): the EVM state alone cannot go back.
                raise InvalidParams(
                    f"cannot rewind to block {height}: later blocks hold atomic transactions"
                )
            root = root if root is not None else blocks[height].header.state_root
            cut = self.history.rewind(height, root)
        for listener in self._rewind_listeners:
            listener(height, cut)
