"""Signing with the node's accounts: eth_sign, personal_sign, eth_signTypedData_v4,
eth_signTransaction, and eth_fillTransaction (geth's defaults for a transaction object)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from snowfield.chains.evm.execution.call import CallArgs
from snowfield.chains.evm.execution.transactions import decode_tx, decode_unchecked, encode_unsigned
from snowfield.crypto.keys import sign_message, sign_transaction, sign_typed_data
from snowfield.errors import InvalidParams
from snowfield.node.keystore import Keystore
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.methods.txargs import call_args
from snowfield.node.vms.evm.render import hb, transaction_json
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param


async def fill(rt: EvmRuntime, args: CallArgs) -> dict[str, Any]:
    """The transaction object completed as geth's setDefaults does (fees, nonce, gas, chain
    id), as eth_account fields."""
    chain = rt.chain
    if args.to is None and not args.data:
        raise InvalidParams("contract creation without any data provided")
    if args.chain_id is not None and args.chain_id != chain.config.chain_id:
        raise InvalidParams(
            f"chainId does not match node's (have={args.chain_id}, want={chain.config.chain_id})"
        )
    if args.gas_price is None:
        tip = chain.suggested_tip() if args.max_priority_fee is None else args.max_priority_fee
        fee = tip + 2 * chain.next_base_fee() if args.max_fee is None else args.max_fee
        if fee < tip:
            raise InvalidParams(f"maxFeePerGas ({fee}) < maxPriorityFeePerGas ({tip})")
        args = dataclasses.replace(args, max_fee=fee, max_priority_fee=tip)
    if args.nonce is None:
        args = dataclasses.replace(args, nonce=chain.pending_nonce(args.sender))
    if args.gas is None:
        estimate = dataclasses.replace(args, nonce=None)
        args = dataclasses.replace(
            args, gas=await rt.compute(chain.estimate_gas, estimate, chain.head)
        )
    return tx_fields(args, chain.config.chain_id)


def tx_fields(args: CallArgs, chain_id: int) -> dict[str, Any]:
    """eth_account fields of a complete transaction object; its type follows geth's
    ToTransaction (authorizations, 1559 fees, access list, else legacy)."""
    fields: dict[str, Any] = {
        "chainId": chain_id,
        "nonce": args.nonce,
        "gas": args.gas,
        "value": args.value,
        "data": hb(args.data),
    }
    if args.to is not None:
        fields["to"] = hb(args.to)
    if args.access_list is not None:
        fields["accessList"] = [
            {"address": hb(a.address), "storageKeys": [hb(k) for k in a.storage_keys]}
            for a in args.access_list
        ]
    if args.authorization_list is not None:
        fields["type"] = 4
        fields["authorizationList"] = [
            {
                "chainId": a.chain_id,
                "address": hb(a.address),
                "nonce": a.nonce,
                "yParity": a.y_parity,
                "r": a.r,
                "s": a.s,
            }
            for a in args.authorization_list
        ]
    elif args.max_fee is not None:
        fields["type"] = 2
    elif args.access_list is not None:
        fields["type"] = 1
    if fields.get("type", 0) >= 2:
        fields.update(maxFeePerGas=args.max_fee, maxPriorityFeePerGas=args.max_priority_fee)
    else:
        fields["gasPrice"] = args.gas_price
    return fields


def _require_complete(args: CallArgs) -> None:
    """eth_signTransaction signs only what the caller fixed (geth's checks, in its order)."""
    if args.gas is None:
        raise InvalidParams("gas not specified")
    if args.gas_price is None and (args.max_priority_fee is None or args.max_fee is None):
        raise InvalidParams("missing gasPrice or maxFeePerGas/maxPriorityFeePerGas")
    if args.nonce is None:
        raise InvalidParams("nonce not specified")


def typed_data(value: Any) -> dict[str, Any]:
    """EIP-712 typed data, as an object or as the JSON text of one (ethers and viem send text)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InvalidParams(f"invalid typed data: {exc}") from None
    return p.obj(value)


def signing_methods(rt: EvmRuntime, keystore: Keystore) -> list[Method]:
    def eth_sign(address: bytes, data: bytes) -> str:
        return hb(sign_message(data, keystore.signer(address).private_key))

    def personal_sign(data: bytes, address: bytes, passphrase: str | None = None) -> str:
        return hb(sign_message(data, keystore.signer(address, passphrase).private_key))

    def sign_typed(address: bytes, data: dict[str, Any]) -> str:
        return hb(sign_typed_data(data, keystore.signer(address).private_key))

    async def sign_tx(args: CallArgs) -> dict[str, Any]:
        _require_complete(args)
        fields = await fill(rt, args)
        key = keystore.signer(args.sender)
        raw = sign_transaction(fields, key.private_key)
        return {"raw": hb(raw), "tx": transaction_json(decode_tx(raw))}

    async def fill_tx(args: CallArgs) -> dict[str, Any]:
        raw = encode_unsigned(await fill(rt, args))
        return {"raw": hb(raw), "tx": transaction_json(decode_unchecked(raw, args.sender))}

    return [
        Method("eth_sign", eth_sign, (Param("address", p.address), Param("data", p.data))),
        Method(
            "personal_sign",
            personal_sign,
            (
                Param("data", p.data),
                Param("address", p.address),
                Param("passphrase", p.string, None),
            ),
        ),
        Method(
            "eth_signTypedData_v4",
            sign_typed,
            (Param("address", p.address), Param("data", typed_data)),
        ),
        Method("eth_signTransaction", sign_tx, (Param("args", call_args),)),
        Method("eth_fillTransaction", fill_tx, (Param("args", call_args),)),
    ]
