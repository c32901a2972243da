"""Store rows → the spec's JSON objects: camelCase, big numbers as strings, no null anywhere.
A transaction's objects (operations 5 and 10) are rendered by `store.documents`, which also
renders them ahead of time for operation 5's read model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from snowfield.store.documents import (
    ERC_TYPES,
    Json,
    Nfts,
    Tokens,
    erc721_token,
    internal_transaction,
    native_transaction,
    put,
    transfer,
)
from snowfield.store.rows import ChainRow, ContractRow, TokenRow, TransferRow

__all__ = ["erc721_token", "internal_transaction", "native_transaction", "transfer"]

FEATURES = ("nftIndexing", "webhooks", "teleporter")


def listed_transfer(t: TransferRow, block_hash: str, tokens: Tokens, nfts: Nfts) -> Json:
    """A transfer as operations 6 and 7 list it: with its block and transaction."""
    return {
        "blockNumber": str(t.block_number),
        "blockTimestamp": t.block_timestamp,
        "blockHash": block_hash,
        "txHash": t.tx_hash,
        **transfer(t, tokens, nfts),
    }


def contract_metadata(
    address: str,
    contract: ContractRow | None,
    token: TokenRow | None,
    curated: Mapping[str, Any] | None,
) -> Json:
    """Contract metadata: on-chain facts, then the operator's curation over them."""
    erc_type = token.erc_type if token is not None and token.erc_type in ERC_TYPES else "UNKNOWN"
    out: Json = {"address": address, "ercType": erc_type}
    if token is not None:
        put(out, name=token.name, symbol=token.symbol)
        if erc_type == "ERC-20":
            out["decimals"] = token.decimals if token.decimals is not None else 18
    if contract is not None:
        details: Json = {"txHash": contract.tx_hash, "deployerAddress": contract.deployer}
        put(details, deployerContractAddress=contract.factory)
        out["deploymentDetails"] = details
    out.update(curated or {})
    return out


def chain(c: ChainRow) -> Json:
    token: Json = {"name": c.token_name, "symbol": c.token_symbol, "decimals": c.token_decimals}
    put(token, logoUri=c.token_logo)
    out: Json = {
        "chainId": str(c.chain_id),
        "status": "OK",
        "chainName": c.name,
        "description": c.description,
        "vmName": "EVM",
        "rpcUrl": c.rpc_url,
        "isTestnet": c.network != "mainnet",
        "networkToken": token,
        "private": c.private,
        "enabledFeatures": [f for f in c.features if f in FEATURES],
    }
    put(
        out,
        platformChainId=c.blockchain_id,
        subnetId=c.subnet_id,
        vmId=c.vm_id,
        explorerUrl=c.explorer_url,
        wsUrl=c.ws_url,
        chainLogoUri=c.chain_logo,
    )
    if c.multicall is not None:
        out["utilityAddresses"] = {"multicall": c.multicall}
    return out


def native_balance(c: ChainRow, balance: int | None) -> Json:
    out: Json = {
        "name": c.token_name,
        "symbol": c.token_symbol,
        "decimals": c.token_decimals,
        "chainId": str(c.chain_id),
        "balance": str(balance or 0),
    }
    put(out, logoUri=c.token_logo)
    return out
