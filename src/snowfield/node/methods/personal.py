"""eth_sendTransaction and the personal_ namespace: signing with the node's keystore."""

from __future__ import annotations

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


def personal_methods(rt: EvmRuntime, keystore: Keystore) -> list[Method]:
    chain = rt.chain

    async def send(args: dict[str, Any], passphrase: str | None = None) -> str:
        sender, fields = fill_transaction(rt, args)
        impersonated = rt.impersonation.covers(sender) and sender not in keystore.addresses()
        key = (
            stand_in_key(sender)
            if impersonated
            else keystore.signer(sender, passphrase).private_key
        )
        if args.get("gas") is not None:
            fields["gas"] = p.uint64(args["gas"])
        else:
            from snowfield.node.methods.eth import call_args

            estimate_args = call_args({k: v for k, v in args.items() if k != "nonce"})
            fields["gas"] = await rt.compute(chain.estimate_gas, estimate_args, chain.head)
        raw = sign_transaction(fields, key)
        tx = await (rt.send(decode_unchecked(raw, sender)) if impersonated else rt.send_raw(raw))
        return hb(tx.hash)

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
