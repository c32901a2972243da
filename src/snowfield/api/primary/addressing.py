"""What the primary network's address operations share: the chain a `blockchainId` names, and
primary-network addresses (`P-`/`X-`/`C-` + bech32) checked against that chain and network."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from snowfield.api.operation import Context
from snowfield.api.params import Param
from snowfield.api.primary.primary_network import indexed_network
from snowfield.errors import InvalidParams
from snowfield.formats.bech32 import parse_bech32
from snowfield.store.primary import PrimaryNetwork

P_ID = "11111111111111111111111111111111LpoYY"
MAINNET_X = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"
FUJI_X = "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"
MAINNET_C = "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"
FUJI_C = "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"
# The real service's BlockchainId: each chain by alias or by its mainnet / test-network id.
CHAINS = {
    "p-chain": ("P", None),
    P_ID: ("P", None),
    "x-chain": ("X", None),
    MAINNET_X: ("X", True),
    FUJI_X: ("X", False),
    "c-chain": ("C", None),
    MAINNET_C: ("C", True),
    FUJI_C: ("C", False),
}
BLOCKCHAIN_IDS = (P_ID, MAINNET_X, FUJI_X, MAINNET_C, FUJI_C, "p-chain", "x-chain", "c-chain")
CHAIN_NAMES = {"P": "p-chain", "X": "x-chain", "C": "c-chain"}
MAX_ADDRESSES = 64  # per request; each one is an index range

BLOCKCHAIN = Param(
    "blockchainId",
    "path",
    "The chain: p-chain, x-chain, c-chain, or its mainnet / test-network blockchain id.",
    required=True,
    enum=BLOCKCHAIN_IDS,
)


@dataclass(frozen=True, slots=True)
class Target:
    """The chain (P, X or C) a request names, on the indexed network."""

    chain: str
    net: PrimaryNetwork

    @property
    def name(self) -> str:
        return CHAIN_NAMES[self.chain]


async def target(ctx: Context) -> Target:
    """The chain `blockchainId` names on `network`: 400 for another network's id, 404 when the
    network is not indexed."""
    named = ctx.args["blockchainId"]
    chain, mainnet = CHAINS[named]
    if mainnet is not None and mainnet != (ctx.args["network"] == "mainnet"):
        raise InvalidParams(f"blockchainId {named} is not a chain of {ctx.args['network']}")
    return Target(chain, await indexed_network(ctx))


def split_addresses(raw: str, name: str = "addresses") -> list[str]:
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if not items:
        raise InvalidParams(f"{name} must not be empty")
    if len(items) > MAX_ADDRESSES:
        raise InvalidParams(f"{name} takes at most {MAX_ADDRESSES} addresses")
    return items


def chain_of(item: str) -> tuple[str | None, str]:
    """(the chain prefix P/X/C or None, the bare bech32 part) of an address as given."""
    if len(item) > 2 and item[1] == "-":
        prefix = item[0].upper()
        if prefix not in CHAIN_NAMES:
            raise InvalidParams(f"{item} is not a primary network address")
        return prefix, item[2:]
    return None, item


# Kept per (address as given, HRP): a pure function of them, and the checksum over 40-odd
# characters was about a tenth of a P-Chain balance request; wallets ask for the same
# addresses again and again. Refusals raise, so are not kept.
@functools.lru_cache(maxsize=4096)
def bare_address(item: str, hrp: str) -> str:
    """The checked, lower-case bech32 of one address of the network whose HRP is `hrp`."""
    _, bare = chain_of(item)
    try:
        got_hrp, payload = parse_bech32(bare)
    except InvalidParams:
        raise InvalidParams(f"{item} is not a valid address") from None
    if len(payload) != 20:
        raise InvalidParams(f"{item} is not a valid address")
    if got_hrp != hrp:
        raise InvalidParams(f"{item} is not an address of this network ({hrp}1...)")
    return bare.lower()


def addresses_for(t: Target, raw: str | None) -> list[str]:
    """The addresses of a request on chain `t`: each of this network, none of another chain."""
    if raw is None:
        raise InvalidParams("addresses is required")
    if len(raw) > _KEPT_LENGTH:  # padded past any list of valid addresses: not kept
        return list(_addresses.__wrapped__(t.chain, t.net.hrp, raw))
    return list(_addresses(t.chain, t.net.hrp, raw))


# A bound on the kept lists' keys (MAX_ADDRESSES addresses with prefix and comma: under 100
# characters each), so that 4096 of them stay small whatever a body holds.
_KEPT_LENGTH = 100 * MAX_ADDRESSES


@functools.lru_cache(maxsize=4096)  # as bare_address: the same lists are asked again and again
def _addresses(chain: str, hrp: str, raw: str) -> tuple[str, ...]:
    out = []
    for item in split_addresses(raw):
        prefix, _ = chain_of(item)
        if prefix is not None and prefix != chain:
            name = CHAIN_NAMES[chain]
            raise InvalidParams(f"{item} is not a {name} address: addresses of mixed chains")
        out.append(bare_address(item, hrp))
    return tuple(dict.fromkeys(out))


def body_addresses(ctx: Context) -> str:
    """The `addresses` of a PrimaryNetworkAddressesBodyDto body."""
    value = ctx.args["body"].get("addresses")
    if not isinstance(value, str):
        raise InvalidParams("addresses must be a string")
    return value


def boolean(param: Param, raw: str) -> bool:
    if raw not in ("true", "false"):
        raise InvalidParams(f"{param.name} must be true or false")
    return raw == "true"
