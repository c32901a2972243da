"""JSON schemas of the balance operations, an address's further histories and the chains it used:
OpenAPI components beside api/schemas.py's, closed as the real service's clients read them."""

from __future__ import annotations

from snowfield.api.schemas import B, N, S, Schema, array, enum, obj, ref


def _page(name: str, item: Schema, extra: dict[str, Schema] | None = None) -> Schema:
    return obj({**(extra or {}), name: array(item)}, {"nextPageToken": S})


_NATIVE = {"nativeTokenBalance": ref("NativeTokenBalance")}
# Required and nullable in the real service (null: no reputation known). OpenAPI 3.0 spells
# it `nullable`; the enum carries null too so that plain JSON Schema validators agree.
_REPUTATION: Schema = {"nullable": True, "enum": ["Malicious", "Benign", None]}

BALANCE_COMPONENTS: dict[str, Schema] = {
    "GetNativeBalanceResponse": obj(_NATIVE),
    "Erc20TokenBalance": obj(
        {
            "address": S,
            "name": S,
            "symbol": S,
            "decimals": N,
            "ercType": enum("ERC-20"),
            "chainId": S,
            "balance": S,
            "tokenReputation": _REPUTATION,
        },
        {"logoUri": S},
    ),
    "Erc1155TokenBalance": obj(
        {
            "address": S,
            "ercType": enum("ERC-1155"),
            "tokenId": S,
            "tokenUri": S,
            "metadata": ref("Erc1155TokenMetadata"),
            "chainId": S,
            "balance": S,
        }
    ),
    "ListErc20BalancesResponse": _page("erc20TokenBalances", ref("Erc20TokenBalance"), _NATIVE),
    "ListErc1155BalancesResponse": _page(
        "erc1155TokenBalances", ref("Erc1155TokenBalance"), _NATIVE
    ),
    "ListCollectibleBalancesResponse": _page(
        "collectibleBalances",
        {"oneOf": [ref("Erc721TokenBalance"), ref("Erc1155TokenBalance")]},
    ),
    "ListErc1155TransactionsResponse": _page("transactions", ref("Erc1155Transfer")),
    "InternalTransaction": obj(
        {
            "blockNumber": S,
            "blockTimestamp": N,
            "blockHash": S,
            "txHash": S,
            "from": ref("RichAddress"),
            "to": ref("RichAddress"),
            "internalTxType": ref("InternalTransactionOpCall"),
            "value": S,
            "isReverted": B,
            "gasUsed": S,
            "gasLimit": S,
        }
    ),
    "InternalTransactionOpCall": enum(
        "UNKNOWN", "CALL", "CREATE", "CREATE2", "CREATE3", "CALLCODE", "DELEGATECALL", "STATICCALL"
    ),
    "ListInternalTransactionsResponse": _page("transactions", ref("InternalTransaction")),
    "ListAddressChainsResponse": obj(
        {"indexedChains": array(ref("ChainInfo")), "unindexedChains": array(S)}
    ),
}
