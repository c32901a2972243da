"""eth_sendTransaction and the personal_ namespace: signing with the node's keystore."""

from __future__ import annotations

from snowfield.chains.evm.execution.call import CallArgs
from snowfield.chains.evm.execution.transactions import decode_unchecked
from snowfield.crypto.keys import sign_transaction
from snowfield.errors import InvalidParams
from snowfield.node.keystore import Keystore
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.impersonation import stand_in_key
from snowfield.node.vms.evm.methods.signing import fill
from snowfield.node.vms.evm.methods.txargs import call_args
from snowfield.node.vms.evm.render import hb
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param


async def send_impersonated(rt: EvmRuntime, args: CallArgs) -> str:
    """Sends as `args.from_` without its key (anvil_impersonateAccount): a stand-in key
    signs, and the node records and executes the transaction as the sender's."""
    if args.from_ is None:
        raise InvalidParams("missing from address")
    raw = sign_transaction(await fill(rt, args), stand_in_key(args.from_))
    tx = await rt.send(decode_unchecked(raw, args.from_))
    return hb(tx.hash)


def personal_methods(rt: EvmRuntime, keystore: Keystore) -> list[Method]:
    async def send(args: CallArgs, passphrase: str | None = None) -> str:
        if args.from_ is None:
            raise InvalidParams("missing from address")
        if rt.impersonation.covers(args.from_) and args.from_ not in keystore:
            return await send_impersonated(rt, args)
        key = keystore.signer(args.from_, passphrase)
        raw = sign_transaction(await fill(rt, args), key.private_key)
        tx = await rt.send_raw(raw)
        return hb(tx.hash)

    async def send_with_passphrase(args: CallArgs, passphrase: str) -> str:
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
        Method("eth_sendTransaction", send, (Param("args", call_args),)),
        Method(
            "personal_sendTransaction",
            send_with_passphrase,
            (
                Param("args", call_args),
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
