"""`PlatformChain`: the P-Chain state machine behind platform.*: issue, build, replay, query."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from snowfield.chains.atomic import AtomicElement, SharedMemory
from snowfield.chains.platform.blocks import AcceptedBlock, BlockAcceptor
from snowfield.chains.platform.config import PERCENT_DENOMINATOR, FeeConfig
from snowfield.chains.platform.executor import Env, execute
from snowfield.chains.platform.gas import FeeState, ValidatorFeeState
from snowfield.chains.platform.genesis import GenesisConfig, build_state
from snowfield.chains.platform.queries import Balance, ValidatorInfo, balance_of, staked_outputs
from snowfield.chains.platform.records import Blockchain, L1Validator, Subnet, TxRecord, TxStatus
from snowfield.chains.platform.stakers import Staker
from snowfield.chains.platform.state import PlatformState, ValidatorSet
from snowfield.chains.platform.timeflow import next_change_time
from snowfield.errors import Conflict, InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, NodeID, ShortID
from snowfield.formats.platform.components import UTXO, TransferableOutput
from snowfield.formats.platform.transfer_txs import ExportTx, ImportTx
from snowfield.formats.platform.txs import Tx

MAX_MEMPOOL = 4096
MAX_BLOCKS_PER_BUILD = 1024
# A validator's (uptime percent, connected) as the node observes it.
Uptime = Callable[[NodeID], tuple[float, bool]]


class PlatformChain:
    """One P-Chain: its state, mempool, accepted blocks and the devnet's stopped validators."""

    def __init__(self, state: PlatformState, shared_memory: SharedMemory) -> None:
        self.state = state
        self.shared_memory = shared_memory
        self.env = Env(state, shared_memory, P_CHAIN_ID)
        self._acceptor = BlockAcceptor(self.env)
        self._mempool: dict[ID, Tx] = {}
        self._spent_by: dict[ID, ID] = {}  # UTXO id -> the mempool tx spending it
        self._unverified: set[ID] = set()  # mempool txs issued with verify=False
        self.blocks: list[AcceptedBlock] = []
        # The node's view of its validators' uptime; a node it does not run counts as up
        # (the devnet has no other peers to measure).
        self.observed_uptime: Uptime = lambda _node: (100.0, True)

    @classmethod
    def from_genesis(cls, config: GenesisConfig, shared_memory: SharedMemory) -> PlatformChain:
        return cls(build_state(config), shared_memory)

    # --- writing -------------------------------------------------------------------------

    def issue(self, tx_bytes: bytes, now: int | None = None) -> ID:
        """Verifies a signed tx against the current state and queues it; returns its id."""
        return self.issue_tx(Tx.decode(tx_bytes), now)

    @property
    def mempool_size(self) -> int:
        return len(self._mempool)

    def issue_tx(self, tx: Tx, now: int | None = None, *, verify: bool = True) -> ID:
        """`issue` of a decoded tx; `now` is the network time its block will be built at.
        `verify=False`: the caller builds the block right away and reads the tx's fate from
        it (`refusal`): the block's execution is then its only one."""
        if tx.id in self._mempool:
            return tx.id  # avalanchego's issueTx ignores a duplicate in its mempool
        known = self.state.txs.get(tx.id)
        if known and known.status is TxStatus.COMMITTED:
            raise Conflict(f"duplicate tx: {tx.id} is already accepted")
        if len(self._mempool) >= MAX_MEMPOOL:
            raise Conflict("mempool is full")
        spends = self._check_conflicts(tx)
        if verify:
            self._verify(tx, now)
        else:
            self._unverified.add(tx.id)
        self._mempool[tx.id] = tx
        self._spent_by.update(dict.fromkeys(spends, tx.id))
        self._acceptor.dropped.pop(tx.id, None)
        return tx.id

    def refusal(self, tx_id: ID) -> str | None:
        """Why the block built for an unverified issue (`verify=False`) left the tx out; the tx
        is then forgotten, as one refused at issue is (status Unknown)."""
        if tx_id in self.state.txs or tx_id in self._mempool:
            return None
        return self._acceptor.dropped.pop(tx_id, "tx was not included in a block")

    def _verify(self, tx: Tx, now: int | None) -> None:
        """Executes `tx`. Like avalanchego's VerifyTx, on the next block's time `now`: its
        fee capacity and price (capacity refills with time) and its timestamp (staking start
        times, Warp message expiry windows, locktimes are judged against it)."""
        state, saved, saved_time = self.state, self.state.fee_state, self.state.timestamp
        if now is None or now <= state.timestamp:  # the next block starts from this state
            effect = execute(self.env, tx)
            # ...so the block may apply this effect; not an atomic tx's: the other chains move
            # the shared memory in between
            if not isinstance(tx.unsigned, _ATOMIC):
                self._acceptor.remember(tx.id, effect)
            return
        state.fee_state = self.fee_state_at(now)[0]
        state.timestamp = now
        try:
            execute(self.env, tx)
        finally:
            state.fee_state = saved
            state.timestamp = saved_time

    def _check_conflicts(self, tx: Tx) -> set[ID]:
        """The UTXOs `tx` spends; Conflict when a mempool tx spends one of them."""
        spends = _spent_ids(tx)
        for utxo_id in spends:
            other = self._spent_by.get(utxo_id)
            if other is not None:
                raise Conflict(f"tx conflicts with other tx: {tx.id} spends inputs of {other}")
        return spends

    def build_block(self, now: int) -> list[AcceptedBlock]:
        """Builds and accepts every block due by network time `now`: staker ends (proposal +
        option), time advances to each staker change, then the mempool's txs."""
        built: list[AcceptedBlock] = []
        for _ in range(MAX_BLOCKS_PER_BUILD):
            step = self._next_due(now)
            if not step:
                break
            built += step
        time = max(now, self.state.timestamp)
        if time > self.state.timestamp:
            # A block that moves time is accepted even when its txs all fail: unverified txs
            # are verified first, so that a refused tx never moves the chain.
            self._verify_pending(now)
        self._unverified.clear()
        if self._mempool:  # no tx, no block: time alone moves only at a due change
            block = self._acceptor.standard(time, tuple(self._mempool.values()))
            self._mempool.clear()
            self._spent_by.clear()
            if block is not None:
                built.append(block)
        self.blocks += built
        return built

    def _verify_pending(self, now: int) -> None:
        for tx_id in [t for t in self._mempool if t in self._unverified]:
            tx = self._mempool[tx_id]
            try:
                self._verify(tx, now)
            except InvalidParams as err:
                self._leave_mempool(tx_id)
                self._acceptor.dropped[tx_id] = err.message

    def _leave_mempool(self, tx_id: ID) -> None:
        """Takes a tx out of the mempool, and its inputs out of the spent-UTXO index."""
        tx = self._mempool.pop(tx_id, None)
        for utxo_id in _spent_ids(tx) if tx is not None else ():
            self._spent_by.pop(utxo_id, None)

    def _next_due(self, now: int) -> list[AcceptedBlock]:
        staker = self.state.stakers.next_to_end()
        if staker is not None and staker.kind.rewarded and staker.end <= self.state.timestamp:
            return self._acceptor.reward(staker, commit=self._uptime_ok(staker))
        change = next_change_time(self.state)
        if change is not None and self.state.timestamp < change <= now:
            block = self._acceptor.standard(change, ())
            return [block] if block else []
        return []

    def uptime(self, node_id: NodeID) -> tuple[float, bool]:
        """(percent, connected) of a validator as this node sees it."""
        return self.observed_uptime(node_id)

    def _uptime_ok(self, staker: Staker) -> bool:
        required = self.state.params.staking.uptime_requirement / PERCENT_DENOMINATOR
        return self.uptime(staker.node_id)[0] >= 100 * required

    def apply_block(self, data: bytes) -> AcceptedBlock:
        """Replays a journaled block (deterministic: the same bytes give the same state)."""
        block = self._acceptor.accept(data)
        for tx_id in _tx_ids(block):
            self._leave_mempool(tx_id)
        self.blocks.append(block)
        return block

    # --- reading -------------------------------------------------------------------------

    @property
    def height(self) -> int:
        return self.state.height

    @property
    def timestamp(self) -> int:
        return self.state.timestamp

    @property
    def last_accepted_id(self) -> ID:
        return self.state.last_block_id

    @property
    def current_supply(self) -> int:
        return self.state.current_supply

    def utxos(
        self,
        addresses: Iterable[ShortID],
        start: tuple[ShortID, ID] | None = None,
        limit: int = 1024,
    ) -> tuple[list[UTXO], tuple[ShortID, ID] | None]:
        return self.state.utxos.by_addresses(addresses, start, limit)

    def atomic_utxos(
        self,
        source_chain: ID,
        addresses: Iterable[ShortID],
        start: tuple[bytes, bytes] | None = None,
        limit: int = 1024,
    ) -> list[tuple[bytes, AtomicElement]]:
        traits = [a.raw for a in addresses]
        return self.shared_memory.indexed(P_CHAIN_ID, source_chain, traits, start, limit)

    def balance(self, addresses: Iterable[ShortID]) -> Balance:
        utxos = self.state.utxos.of_addresses(addresses)
        return balance_of(
            [u for u in utxos if u.asset_id == self.state.avax_asset_id], self.timestamp
        )

    def tx(self, tx_id: ID) -> Tx | None:
        record = self.state.txs.get(tx_id)
        return record.tx if record else self._mempool.get(tx_id)

    def tx_status(self, tx_id: ID) -> tuple[TxStatus, str | None]:
        record: TxRecord | None = self.state.txs.get(tx_id)
        if record is not None:
            return record.status, None
        if tx_id in self._mempool:
            return TxStatus.PROCESSING, None
        if tx_id in self._acceptor.dropped:
            return TxStatus.DROPPED, self._acceptor.dropped[tx_id]
        return TxStatus.UNKNOWN, None

    def current_validators(
        self, subnet_id: ID = PRIMARY_NETWORK_ID, node_ids: Iterable[NodeID] = ()
    ) -> list[ValidatorInfo]:
        wanted, stakers = set(node_ids), self.state.stakers
        return [
            ValidatorInfo(
                staker, tuple(stakers.delegators_of(subnet, node_id)), *self.uptime(node_id)
            )
            for (subnet, node_id), staker in sorted(stakers.validators.items())
            if subnet == subnet_id and (not wanted or node_id in wanted)
        ]

    def validators_at(self, height: int, subnet_id: ID = PRIMARY_NETWORK_ID) -> ValidatorSet:
        if height > self.height:
            raise InvalidParams(f"height {height} is above the last accepted height {self.height}")
        return self.state.validator_sets_at(height).get(subnet_id, {})

    def subnets(self) -> list[Subnet]:
        return sorted(self.state.subnets.values(), key=lambda s: s.subnet_id)

    def subnet(self, subnet_id: ID) -> Subnet:
        if subnet_id == PRIMARY_NETWORK_ID:
            raise InvalidParams("the primary network isn't a subnet")
        subnet = self.state.subnets.get(subnet_id)
        if subnet is None:
            raise InvalidParams(f"subnet {subnet_id} not found")
        return subnet

    def blockchains(self) -> list[Blockchain]:
        return sorted(self.state.blockchains.values(), key=lambda c: c.blockchain_id)

    def l1_validator(self, validation_id: ID) -> L1Validator:
        record = self.state.l1_validators.get(validation_id)
        if record is None:
            raise InvalidParams(f"fetching L1 validator {validation_id} failed: not found")
        return record

    def l1_validators(self, subnet_id: ID) -> list[L1Validator]:
        return [v for v in self.state.l1_validators.values() if v.subnet_id == subnet_id]

    @property
    def fee_config(self) -> FeeConfig:
        return self.state.params.fees

    def fee_state_at(self, now: int) -> tuple[FeeState, int]:
        """The fee state and price of a block built at network time `now`."""
        fees = self.state.fee_state.advance(self.fee_config, max(now - self.state.timestamp, 0))
        return fees, fees.price(self.fee_config)

    @property
    def fee_state(self) -> tuple[FeeState, int]:
        """The last accepted fee state and its price (platform.getFeeState)."""
        return self.state.fee_state, self.state.fee_state.price(self.fee_config)

    @property
    def validator_fee_state(self) -> ValidatorFeeState:
        return self.state.validator_fee_state

    def stake_of(self, addresses: Iterable[ShortID]) -> tuple[int, list[TransferableOutput]]:
        outputs = staked_outputs(list(self.state.stakers.by_tx.values()), set(addresses))
        return sum(out.output.amount for out in outputs), outputs

    def reward_utxos(self, staker_tx_id: ID) -> list[UTXO]:
        return list(self.state.reward_utxos.get(staker_tx_id, ()))


_ATOMIC = (ImportTx, ExportTx)


def _spent_ids(tx: Tx) -> set[ID]:
    inputs = getattr(tx.unsigned, "base", None)
    ids = {inp.utxo_id.input_id for inp in inputs.inputs} if inputs is not None else set()
    imported = getattr(tx.unsigned, "imported_inputs", ())
    return ids | {inp.utxo_id.input_id for inp in imported}


def _tx_ids(block: AcceptedBlock) -> list[ID]:
    txs: tuple[Tx, ...] = getattr(block.block, "txs", ()) or getattr(
        block.block, "decision_txs", ()
    )
    return [tx.id for tx in txs]
