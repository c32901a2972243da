"""bench/scale.py's synthetic chain: the skew of a real one, as BlockBundles for `write_batch`.

Senders and recipients are drawn Zipf-distributed (exponent ZIPF_S, a precomputed CDF searched
with bisect) over a population of addresses that grows with the store (a tenth of its
transactions, so 1M addresses at 10M); the draw's rank 0 is the busiest address at every size.
A few contracts take a large share of the calls: a DEX router (a fifth of all transactions, each
swap through one of a few pairs) and a stablecoin (half of the ERC-20 transfers). The mix, per
transaction: native value transfers, ERC-20 transfers, swaps (token transfers, internal calls,
Swap logs), ERC-721 mints and transfers (with `nfts` rows and owners), ERC-1155 single and batch
transfers, calls to other contracts (their own logs, sometimes an internal value call, sometimes
reverted), and now and then a contract creation. Every token transfer has its log; the call data
is stored; a block's token balances are keyed as the indexer keys them (indexer/token_balances.py
`changes`) and its activity rows come from the indexer's own `activity`.

Values carry no meaning: balances (native and token) are drawn, not summed, so the writer gets
as many rows as the indexer would hand it, not the same numbers. Deterministic by seed: the same
seed and size give the same rows.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import random
from dataclasses import dataclass, field

from snowfield.indexer.extract.activity import activity
from snowfield.indexer.token_balances import changes
from snowfield.store.rows import (
    ERC721,
    BalanceRow,
    BlockBundle,
    BlockRow,
    ContractRow,
    InternalTxRow,
    LogRow,
    NftRow,
    TokenBalanceRow,
    TokenRow,
    TransferRow,
    TxRow,
)

GENERATOR_VERSION = 1  # bump when the rows change, so cached stores are rebuilt
CHAIN_ID = 43112
PER_BLOCK = 20  # transactions per block
BLOCKS_PER_BATCH = 1_000  # one write_batch per 20,000 transactions
ZIPF_S = 1.0  # exponent of the address draw: rank r is drawn with weight 1 / (r + 1)^s
MIN_POPULATION = 20_000

# Share of each kind of transaction (cumulative bounds of one uniform draw).
KINDS = (
    ("native", 0.22),
    ("erc20", 0.28),
    ("swap", 0.20),
    ("erc721", 0.05),
    ("erc1155", 0.04),
    ("create", 0.01),
    ("app", 0.20),
)
STABLE_SHARE = 0.5  # of the ERC-20 transfers: the stablecoin's
REVERTED_APP_CALLS = 0.04
ERC1155_IDS = 100  # ids per ERC-1155 contract

ZERO = "0x" + "00" * 20
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
SWAP = "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822"
APP_EVENTS = tuple(f"0x{0xE1 + n:02x}{n:062x}" for n in range(8))  # other contracts' events
SEL_TRANSFER = "0xa9059cbb"  # transfer(address,uint256)
SEL_SWAP_ETH = "0x7ff36ab5"  # swapExactETHForTokens
SEL_SWAP_TOKENS = "0x38ed1739"  # swapExactTokensForTokens
SEL_NFT_TRANSFER = "0x23b872dd"  # transferFrom(address,address,uint256)
SEL_MINT = "0x40c10f19"  # mint(address,uint256)
SEL_1155 = "0xf242432a"  # safeTransferFrom(address,address,uint256,uint256,bytes)
SEL_1155_BATCH = "0x2eb2c2d6"  # safeBatchTransferFrom
SEL_CREATE = "0x60806040"


# An odd 160-bit multiplier: n -> n * SPREAD mod 2^160 is a bijection that scatters consecutive
# numbers over the whole key space, as real addresses are (no collisions between kinds either).
SPREAD = 0x9E3779B97F4A7C15F39CC0605CEDC8341082276B


def address(n: int, salt: int) -> str:
    """Address n of kind `salt` (n < 2^40)."""
    return f"0x{(((salt << 40) + n + 1) * SPREAD) % 2**160:040x}"


def tx_hash(g: int) -> str:
    """Body transaction g's hash (genesis transactions have kind 2)."""
    return f"0x01{g:062x}"


def _hash(kind: int, n: int) -> str:
    return f"0x{kind:02x}{n:062x}"


def _word(value: int | str) -> str:
    """One 32-byte ABI word, hex without 0x (an address or a number)."""
    return f"{int(value, 16) if isinstance(value, str) else value:064x}"


def _topic(value: int | str) -> str:
    return "0x" + _word(value)


ROUTER = address(0, 20)
PAIRS = tuple(address(n, 21) for n in range(8))
STABLE = address(0, 22)
TOKENS = (STABLE, *(address(n, 23) for n in range(63)))
COLLECTIONS = tuple(address(n, 24) for n in range(16))
MULTI = tuple(address(n, 25) for n in range(8))
APPS = tuple(address(n, 26) for n in range(256))
DEPLOYER = address(0, 27)
HOT_CONTRACTS = (ROUTER, STABLE)


def population(size: int) -> int:
    """Addresses the draws spread over: a tenth of the transactions (1M at 10M)."""
    return max(MIN_POPULATION, size // 10)


def holder(rank: int) -> str:
    """The address of draw rank `rank` (the same at every size)."""
    return address(rank, 0)


class Zipf:
    """Ranks 0..n-1 with weight 1 / (rank + 1)^s: one bisect in a precomputed CDF per draw."""

    def __init__(self, n: int, s: float) -> None:
        self.cdf = list(itertools.accumulate(1.0 / (r + 1) ** s for r in range(n)))
        self.total = self.cdf[-1]

    def draw(self, rng: random.Random) -> int:
        return min(bisect.bisect_right(self.cdf, rng.random() * self.total), len(self.cdf) - 1)

    def expected_rank(self, share: float) -> int:
        """The rank at which the cumulative share of draws reaches `share`."""
        return bisect.bisect_left(self.cdf, share * self.total)


@dataclass(slots=True)
class _Tx:
    """One transaction being built and the rows hanging off it."""

    tx: TxRow
    transfers: list[TransferRow] = field(default_factory=list)
    internals: list[InternalTxRow] = field(default_factory=list)
    logs: list[LogRow] = field(default_factory=list)
    contracts: list[ContractRow] = field(default_factory=list)
    paid: list[str] = field(default_factory=list)  # native value receivers


class Traffic:
    """The body of a store of `size` transactions, generated block by block in order."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.rng = random.Random(seed)
        self.people = Zipf(population(size), ZIPF_S)
        self.tokens = Zipf(len(TOKENS) - 1, 1.2)
        self.collections = Zipf(len(COLLECTIONS), 1.0)
        self.apps = Zipf(len(APPS), 1.1)
        self.owners: dict[tuple[str, int], str] = {}  # ERC-721 (collection, id) -> owner
        self.minted: dict[str, list[int]] = {c: [] for c in COLLECTIONS}
        self.seen_1155: set[tuple[str, int]] = set()
        self.created = 0
        self.nfts: list[NftRow] = []  # new ids of the batch being generated
        self._log = 0  # the block's next log index

    # -- genesis --------------------------------------------------------------------------

    def genesis(self) -> tuple[BlockBundle, list[TokenRow]]:
        """Block 0: the deployments of every contract the body calls."""
        created = [ROUTER, *PAIRS, *TOKENS, *COLLECTIONS, *MULTI, *APPS]
        block = _block(0, len(created))
        txs, contracts = [], []
        for i, where in enumerate(created):
            tx = TxRow(CHAIN_ID, 0, i, _hash(2, i), block.hash, block.timestamp, DEPLOYER, None,
                       0, i, 3_000_000, 1_500_000, 25 * 10**9, 2, 1, SEL_CREATE, where,
                       input=SEL_CREATE + "00" * 400)  # fmt: skip
            txs.append(tx)
            contracts.append(ContractRow(CHAIN_ID, where, 0, i, tx.hash, DEPLOYER, None, "CREATE"))
        tokens = [TokenRow(CHAIN_ID, STABLE, "ERC-20", "Bench Dollar", "BUSD", 6, 0)]
        tokens += [TokenRow(CHAIN_ID, t, "ERC-20", f"Bench Token {n}", f"BT{n}", 18, 0)
                   for n, t in enumerate(TOKENS[1:])]  # fmt: skip
        tokens += [TokenRow(CHAIN_ID, c, "ERC-721", f"Bench Art {n}", f"ART{n}", None, 0)
                   for n, c in enumerate(COLLECTIONS)]  # fmt: skip
        tokens += [TokenRow(CHAIN_ID, m, "ERC-1155", f"Bench Items {n}", f"ITM{n}", None, 0)
                   for n, m in enumerate(MULTI)]  # fmt: skip
        tokens += [TokenRow(CHAIN_ID, c, "UNKNOWN", None, None, None, 0)
                   for c in (ROUTER, *PAIRS, *APPS)]  # fmt: skip
        balances = (BalanceRow(CHAIN_ID, DEPLOYER, 0, 10**24),)
        bundle = BlockBundle(block, tuple(txs), contracts=tuple(contracts), balances=balances,
                             activity=activity(txs, [], []))  # fmt: skip
        return bundle, tokens

    # -- body -----------------------------------------------------------------------------

    def blocks(self, first: int, count: int) -> tuple[list[BlockBundle], list[NftRow]]:
        """Blocks first..first+count-1 (1-based) and the `nfts` rows of the ids they mint."""
        self.nfts = []
        bundles = [self._block(number) for number in range(first, first + count)]
        return bundles, self.nfts

    def _person(self) -> str:
        return holder(self.people.draw(self.rng))

    def _block(self, number: int) -> BlockBundle:
        block = _block(number, PER_BLOCK)
        self._log = 0
        kinds = [k for k, _ in KINDS]
        weights = [w for _, w in KINDS]
        picks = self.rng.choices(kinds, weights, k=PER_BLOCK)
        parts = []
        for index, kind in enumerate(picks):
            g = (number - 1) * PER_BLOCK + index
            parts.append(getattr(self, f"_{kind}")(block, index, g))
        txs = [p.tx for p in parts]
        transfers = [t for p in parts for t in p.transfers]
        internals = [i for p in parts for i in p.internals]
        bits = self.rng.getrandbits
        touched = {p.tx.from_addr for p in parts} | {a for p in parts for a in p.paid}
        balances = tuple(BalanceRow(CHAIN_ID, a, number, bits(72)) for a in sorted(touched))
        bundle = BlockBundle(block, tuple(txs), tuple(transfers), tuple(internals),
                             tuple(c for p in parts for c in p.contracts), balances,
                             activity(txs, transfers, internals),
                             logs=tuple(g for p in parts for g in p.logs))  # fmt: skip
        keys = changes(bundle)
        held = []
        for (who, kind, token, token_id), value in sorted(keys.items(), key=_key_order):
            balance = (1 if value else 0) if kind == ERC721 else bits(80)
            held.append(TokenBalanceRow(CHAIN_ID, who, kind, token, token_id, number, balance))
        return dataclasses.replace(bundle, token_balances=tuple(held))

    def _tx(self, block: BlockRow, index: int, g: int, sender: str, to: str | None,
            value: int, gas: int, data: str, *, status: int = 1,
            created: str | None = None) -> _Tx:  # fmt: skip
        selector = data[:10] if len(data) >= 10 else ""
        row = TxRow(CHAIN_ID, block.number, index, tx_hash(g), block.hash, block.timestamp,
                    sender, to, value, g, gas * 3 // 2, gas, 25 * 10**9 + g % 10**9, 2, status,
                    selector, created, 30 * 10**9, 10**9, data or None)  # fmt: skip
        return _Tx(row)

    def _emit(self, part: _Tx, where: str, topics: tuple[str, ...], data: str) -> int:
        tx = part.tx
        n = self._log
        self._log += 1
        part.logs.append(LogRow(CHAIN_ID, tx.block_number, tx.tx_index, n, tx.hash, where,
                                topics, data))  # fmt: skip
        return n

    def _token_transfer(self, part: _Tx, token: str, kind: str, src: str, dst: str,
                        token_id: int | None, value: int) -> None:  # fmt: skip
        tx = part.tx
        if kind == "ERC-20":
            n = self._emit(part, token, (TRANSFER, _topic(src), _topic(dst)), "0x" + _word(value))
        else:  # ERC-721: the id is the third topic
            n = self._emit(part, token, (TRANSFER, _topic(src), _topic(dst), _topic(token_id or 0)),
                           "0x")  # fmt: skip
        part.transfers.append(TransferRow(CHAIN_ID, tx.block_number, tx.tx_index, n, 0, tx.hash,
                                          tx.block_timestamp, token, kind, src, dst, token_id,
                                          value))  # fmt: skip

    def _native(self, block: BlockRow, index: int, g: int) -> _Tx:
        to = self._person()
        part = self._tx(block, index, g, self._person(), to, 10**15 + self.rng.getrandbits(60),
                        21_000, "")  # fmt: skip
        part.paid.append(to)
        return part

    def _erc20(self, block: BlockRow, index: int, g: int) -> _Tx:
        rng = self.rng
        token = STABLE if rng.random() < STABLE_SHARE else TOKENS[1 + self.tokens.draw(rng)]
        sender, to, value = self._person(), self._person(), rng.getrandbits(70)
        part = self._tx(block, index, g, sender, token, 0, 51_000,
                        SEL_TRANSFER + _word(to) + _word(value))  # fmt: skip
        self._token_transfer(part, token, "ERC-20", sender, to, None, value)
        return part

    def _swap(self, block: BlockRow, index: int, g: int) -> _Tx:
        """Through the router and one pair: native or a token in, a token out to the sender."""
        rng = self.rng
        sender, pair = self._person(), PAIRS[rng.randrange(len(PAIRS))]
        out = STABLE if rng.random() < STABLE_SHARE else TOKENS[1 + self.tokens.draw(rng)]
        amount_in, amount_out = rng.getrandbits(64), rng.getrandbits(70)
        native = rng.random() < 0.5
        data = (SEL_SWAP_ETH if native else SEL_SWAP_TOKENS) + "".join(
            _word(v) for v in (amount_in, amount_out, 160, sender, block.timestamp + 60, 2)
        )
        part = self._tx(block, index, g, sender, ROUTER, amount_in if native else 0,
                        140_000, data)  # fmt: skip
        tx = part.tx
        if native:
            part.internals.append(InternalTxRow(CHAIN_ID, tx.block_number, index, 0, tx.hash,
                                                ROUTER, pair, "CALL", amount_in, 90_000, 60_000,
                                                False))  # fmt: skip
        else:
            token_in = TOKENS[1 + self.tokens.draw(rng)]
            part.internals.append(InternalTxRow(CHAIN_ID, tx.block_number, index, 0, tx.hash,
                                                ROUTER, token_in, "CALL", 0, 40_000, 30_000,
                                                False))  # fmt: skip
            self._token_transfer(part, token_in, "ERC-20", sender, pair, None, amount_in)
            part.internals.append(InternalTxRow(CHAIN_ID, tx.block_number, index, 1, tx.hash,
                                                ROUTER, pair, "CALL", 0, 90_000, 60_000,
                                                False))  # fmt: skip
        self._token_transfer(part, out, "ERC-20", pair, sender, None, amount_out)
        self._emit(part, pair, (SWAP, _topic(ROUTER), _topic(sender)),
                   "0x" + "".join(_word(v) for v in (amount_in, 0, 0, amount_out)))  # fmt: skip
        return part

    def _erc721(self, block: BlockRow, index: int, g: int) -> _Tx:
        """A mint to the sender (two in five, and always while a collection has few ids), or a
        transfer of an owned id by its owner."""
        rng = self.rng
        collection = COLLECTIONS[self.collections.draw(rng)]
        ids = self.minted[collection]
        if len(ids) < 10 or rng.random() < 0.4:
            token_id, sender = len(ids), self._person()
            src, dst = ZERO, sender
            ids.append(token_id)
            self.nfts.append(NftRow(CHAIN_ID, collection, token_id, "ERC-721",
                                    f"ipfs://bench/{collection[2:10]}/{token_id}", "unindexed",
                                    first_block=block.number))  # fmt: skip
            data = SEL_MINT + _word(dst) + _word(token_id)
        else:
            token_id = ids[rng.randrange(len(ids))]
            src = sender = self.owners[(collection, token_id)]
            dst = self._person()
            data = SEL_NFT_TRANSFER + _word(src) + _word(dst) + _word(token_id)
        self.owners[(collection, token_id)] = dst
        part = self._tx(block, index, g, sender, collection, 0, 80_000, data)
        self._token_transfer(part, collection, "ERC-721", src, dst, token_id, 1)
        return part

    def _erc1155(self, block: BlockRow, index: int, g: int) -> _Tx:
        """TransferSingle (seven in ten) or TransferBatch of 2-5 ids; three in ten mint."""
        rng = self.rng
        contract = MULTI[rng.randrange(len(MULTI))]
        sender, to = self._person(), self._person()
        src = ZERO if rng.random() < 0.3 else sender
        count = 1 if rng.random() < 0.7 else rng.randint(2, 5)
        ids = sorted(rng.sample(range(ERC1155_IDS), count))
        values = [1 + rng.randrange(1_000) for _ in ids]
        for token_id in ids:
            if (contract, token_id) not in self.seen_1155:
                self.seen_1155.add((contract, token_id))
                self.nfts.append(NftRow(CHAIN_ID, contract, token_id, "ERC-1155",
                                        f"ipfs://bench/{contract[2:10]}/{{id}}", "unindexed",
                                        first_block=block.number))  # fmt: skip
        words = "".join(_word(v) for v in (*ids, *values))
        selector = SEL_1155 if count == 1 else SEL_1155_BATCH
        part = self._tx(block, index, g, sender, contract, 0, 60_000 + 25_000 * count,
                        selector + _word(src) + _word(to) + words)  # fmt: skip
        tx = part.tx
        event = TRANSFER_SINGLE if count == 1 else TRANSFER_BATCH
        n = self._emit(part, contract, (event, _topic(sender), _topic(src), _topic(to)),
                       "0x" + words)  # fmt: skip
        for batch_index, (token_id, value) in enumerate(zip(ids, values, strict=True)):
            part.transfers.append(TransferRow(CHAIN_ID, tx.block_number, index, n, batch_index,
                                              tx.hash, tx.block_timestamp, contract, "ERC-1155",
                                              src, to, token_id, value))  # fmt: skip
        return part

    def _create(self, block: BlockRow, index: int, g: int) -> _Tx:
        created = address(self.created, 28)
        self.created += 1
        sender = self._person()
        part = self._tx(block, index, g, sender, None, 0, 1_200_000, SEL_CREATE + "ab" * 1_000,
                        created=created)  # fmt: skip
        part.contracts.append(ContractRow(CHAIN_ID, created, block.number, index, part.tx.hash,
                                          sender, None, "CREATE"))  # fmt: skip
        return part

    def _app(self, block: BlockRow, index: int, g: int) -> _Tx:
        """A call to another contract: one or two of its events, two in five pay someone
        (an internal value call), some revert (no logs, no frames)."""
        rng = self.rng
        app, sender = APPS[self.apps.draw(rng)], self._person()
        reverted = rng.random() < REVERTED_APP_CALLS
        data = f"0x{rng.getrandbits(32):08x}" + _word(sender) + _word(rng.getrandbits(64))
        part = self._tx(block, index, g, sender, app, 0, 70_000, data, status=int(not reverted))
        if reverted:
            return part
        for _ in range(1 + (rng.random() < 0.3)):
            event = APP_EVENTS[rng.randrange(len(APP_EVENTS))]
            self._emit(part, app, (event, _topic(sender)), "0x" + _word(rng.getrandbits(64)) * 2)
        if rng.random() < 0.4:
            to, tx = self._person(), part.tx
            part.internals.append(InternalTxRow(CHAIN_ID, tx.block_number, index, 0, tx.hash, app,
                                                to, "CALL", 10**14 + rng.getrandbits(50), 30_000,
                                                9_000, False))  # fmt: skip
            part.paid.append(to)
        return part


def _block(number: int, txs: int) -> BlockRow:
    return BlockRow(CHAIN_ID, number, _hash(0, number), _hash(0, number - 1),
                    1_700_000_000 + 2 * number, txs * 80_000, 15_000_000, 25 * 10**9, txs,
                    address(number % 97, 29))  # fmt: skip


def _key_order(item: tuple[tuple[str, int, str, int | None], int | None]) -> tuple[str, ...]:
    who, kind, token, token_id = item[0]
    return (who, str(kind), token, "" if token_id is None else f"{token_id:078d}")
