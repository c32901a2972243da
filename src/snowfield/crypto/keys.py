"""secp256k1 accounts: mnemonic derivation, addresses and EVM transaction and message signing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data
from eth_utils import to_checksum_address

from snowfield.errors import InvalidParams

Account.enable_unaudited_hdwallet_features()

# The mnemonic hardhat and anvil use: tools and tutorials already know its accounts.
DEFAULT_MNEMONIC = "test test test test test test test test test test test junk"
# avalanchego's well-known local-network key ("ewoq"), funded on every local network.
EWOQ_KEY = bytes.fromhex("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")


@dataclass(frozen=True, slots=True)
class DevKey:
    private_key: bytes
    address: bytes

    @property
    def checksum_address(self) -> str:
        return str(Account.from_key(self.private_key).address)


def derive_keys(mnemonic: str, count: int) -> list[DevKey]:
    """BIP-44 keys m/44'/60'/0'/0/i, as hardhat and anvil derive them."""
    keys = []
    for i in range(count):
        acct = Account.from_mnemonic(mnemonic, account_path=f"m/44'/60'/0'/0/{i}")
        keys.append(DevKey(bytes(acct.key), bytes.fromhex(acct.address[2:])))
    return keys


def key_from_bytes(private_key: bytes) -> DevKey:
    acct = Account.from_key(private_key)
    return DevKey(bytes(acct.key), bytes.fromhex(acct.address[2:]))


def sign_transaction(fields: dict[str, Any], private_key: bytes) -> bytes:
    """Signs an EVM transaction given as eth_account fields; returns the raw bytes."""
    if fields.get("to"):
        fields = {**fields, "to": to_checksum_address(fields["to"])}
    return bytes(Account.sign_transaction(fields, private_key).raw_transaction)


def sign_message(message: bytes, private_key: bytes) -> bytes:
    """The EIP-191 personal-message signature (r, s, v with v 27 or 28) of eth_sign."""
    signed = Account.sign_message(encode_defunct(primitive=message), private_key)
    return bytes(signed.signature)


def sign_typed_data(typed_data: dict[str, Any], private_key: bytes) -> bytes:
    """The EIP-712 signature of eth_signTypedData_v4; InvalidParams if the data is malformed."""
    try:
        message = encode_typed_data(full_message=typed_data)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise InvalidParams(f"invalid typed data: {exc}") from None
    return bytes(Account.sign_message(message, private_key).signature)
