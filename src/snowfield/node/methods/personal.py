"""eth_sendTransaction and the personal_ namespace: signing with the node's keystore."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from snowfield.chains.evm.execution.transactions import decode_unchecked
from snowfield.crypto.keys import sign_transaction
from snowfield.errors import InvalidParams
from snowfield.node.impersonation import stand_in_key
from snowfield.node.methods import params as p
from snowfield.node.methods.keystore import Keystore
from snowfield.node.methods.render import hb
from snowfield.node.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param


def fill_transaction(rt: EvmRuntime, args: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """Completes a TransactionArgs object (nonce, gas, fees) as geth's eth_sendTransaction."""
    chain = rt.chain
    if args.get("from") is None:
        raise InvalidParams("missing from address")
    sender = p.address(args["from"])
    data = args.get("input", args.get("data"))
    fields: dict[str, Any] = {
        "chainId": chain.config.chain_id,
        "nonce": p.uint64(args["nonce"])
        if args.get("nonce") is not None
        else chain.pending_nonce(sender),
        "value": p.quantity(args["value"]) if args.get("value") is not None else 0,
        "data": hb(p.data(data)) if data is not None else "0x",
    }
    if args.get("to") is not None:
        fields["to"] = "0x" + p.address(args["to"]).hex()
    if args.get("gasPrice") is not None:
        fields["gasPrice"] = p.quantity(args["gasPrice"])
    else:
        tip = (
            p.quantity(args["maxPriorityFeePerGas"])
            if args.get("maxPriorityFeePerGas") is not None
            else chain.suggested_tip()
        )
        fee_cap = (
            p.quantity(args["maxFeePerGas"])
            if args.get("maxFeePerGas") is not None
            else 2 * chain.next_base_fee() + tip
        )
        fields.update(type=2, maxFeePerGas=fee_cap, maxPriorityFeePerGas=tip)
    return sender, fields


async def send_as(
    rt: EvmRuntime, args: dict[str, Any], key_of: Callable[[bytes], bytes] | None
) -> str:
    """Completes, signs and submits a transaction; `key_of` None: as an impersonated sender,
    whose transaction a stand-in key signs and the node records as the sender's."""
    chain = rt.chain
    sender, fields = fill_transaction(rt, args)
    key = stand_in_key(sender) if key_of is None else key_of(sender)
    if args.get("gas") is not None:
        fields["gas"] = p.uint64(args["gas"])
    else:
        from snowfield.node.methods.eth import call_args

        estimate_args = call_args({k: v for k, v in args.items() if k != "nonce"})
        fields["gas"] = await rt.compute(chain.estimate_gas, estimate_args, chain.head)
    raw = sign_transaction(fields, key)
    tx = await (rt.send_raw(raw) if key_of is not None else rt.send(decode_unchecked(raw, sender)))
    return hb(tx.hash)


def personal_methods(rt: EvmRuntime, keystore: Keystore) -> list[Method]:

    async def send(args: dict[str, Any], passphrase: str | None = None) -> str:
        sender = p.address(args["from"]) if args.get("from") is not None else None
        if sender is not None and rt.impersonation.covers(sender) and sender not in keystore:
            return await send_as(rt, args, None)
        return await send_as(rt, args, lambda a: keystore.signer(a, passphrase).private_key)

    async def send_with_passphrase(args: dict[str, Any], passphrase: str) -> str:
        return await send(args, passphrase)

    def import_raw_key(key_hex: str, passphrase: str) -> str:
        try:
            raw = bytes.fromhex(key_hex.removeprefix("0x"))
        except ValueError:
            raise InvalidParams("invalid private key: not hex") from None
        if len(raw) != 32:
            raise InvalidParams("invalid private key: want 32 bytes")
        return hb(keystore.import_key(raw, passphrase))

    def unlock(address: bytes, passphrase: str, duration: int | None) -> bool:
        return keystore.unlock(address, passphrase, duration)

    def list_accounts() -> list[str]:
        return [hb(a) for a in keystore.addresses()]

    return [
        Method("eth_sendTransaction", send, (Param("args", p.obj),)),
        Method(
            "personal_sendTransaction",
            send_with_passphrase,
            (
                Param("args", p.obj),
                Param("passphrase", p.string),
            ),
        ),
        Method("personal_listAccounts", list_accounts),
        Method(
            "personal_importRawKey",
            import_raw_key,
            (
                Param("key", p.string),
                Param("passphrase", p.string),
            ),
        ),
        Method(
            "personal_unlockAccount",
            unlock,
            (
                Param("address", p.address),
                Param("passphrase", p.string),
                Param("duration", p.number_or_hex, None),
            ),
        ),
    ]
