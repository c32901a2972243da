"""What a devnet validator signs when a peer asks (ACP-118): Warp messages its chains accepted,
hashes of accepted blocks, and the P-Chain's L1 messages by the rules of ACP-77. Anything else
is refused with the AppError codes and texts of the real verifiers.

Public API: `Verifier`, `EvmVerifier`, `PlatformVerifier`, `sign_request(...)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.records import L1Validator
from snowfield.crypto.bls import SecretKey
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.warp.message import UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, Hash, decode_payload
from snowfield.formats.warp.platform_messages import (
    L1ValidatorRegistration,
    L1ValidatorWeight,
    SubnetToL1Conversion,
    decode_message,
)
from snowfield.p2p import messages
from snowfield.p2p.peer import AppError

UNEXPECTED, UNREGISTERED_HANDLER = -1, -2  # network/p2p error codes
# subnet-evm / coreth warp verifier codes
EVM_PARSE_ERROR, EVM_VERIFY_ERROR = 1, 2
# platformvm's warp verifier codes (ACP-77), in avalanchego's order
(
    P_PARSE_ADDRESSED_CALL,
    P_SOURCE_ADDRESS,
    P_PARSE_PAYLOAD,
    P_UNSUPPORTED,
    P_PARSE_JUSTIFICATION,
    P_CONVERSION_MISSING,
    P_CONVERSION_MISMATCH,
) = range(1, 8)
P_VALIDATION_MISSING = 11
P_WRONG_NONCE, P_WRONG_WEIGHT = 16, 17


class Verifier(Protocol):
    def verify(self, message: UnsignedMessage, justification: bytes) -> None:
        """Returns when the message may be signed; raises AppError otherwise."""


class EvmVerifier:
    """subnet-evm's and coreth's rules: an AddressedCall the chain sent, or an accepted block."""

    def __init__(self, chain: Callable[[], EvmChain]) -> None:
        self._chain = chain

    def verify(self, message: UnsignedMessage, justification: bytes) -> None:
        try:
            payload = decode_payload(message.payload)
        except InvalidParams as exc:
            raise AppError(EVM_PARSE_ERROR, f"failed to parse payload: {exc.message}") from None
        chain = self._chain()
        if isinstance(payload, Hash):
            if not chain.accepted_block(payload.hash.raw):
                raise AppError(EVM_VERIFY_ERROR, f"failed to get block {payload.hash}: not found")
            return
        if chain.warp_message(message.id.raw) != message.encode():
            raise AppError(EVM_VERIFY_ERROR, f"failed to get message {message.id}: not found")


class PlatformVerifier:
    """platformvm's rules for the L1 messages it signs (ACP-77)."""

    def __init__(self, chain: Callable[[], PlatformChain]) -> None:
        self._chain = chain

    def verify(self, message: UnsignedMessage, justification: bytes) -> None:
        try:
            payload = decode_payload(message.payload)
        except InvalidParams as exc:
            raise AppError(P_PARSE_ADDRESSED_CALL, f"failed to parse: {exc.message}") from None
        if not isinstance(payload, AddressedCall):
            raise AppError(P_PARSE_ADDRESSED_CALL, "expected an addressed call")
        if payload.source_address:
            raise AppError(P_SOURCE_ADDRESS, "source address should be empty")
        try:
            inner = decode_message(payload.payload)
        except InvalidParams as exc:
            raise AppError(P_PARSE_PAYLOAD, f"failed to parse payload: {exc.message}") from None
        if isinstance(inner, SubnetToL1Conversion):
            self._conversion(inner, justification)
        elif isinstance(inner, L1ValidatorRegistration) and inner.registered:
            self._validator(inner.validation_id)
        elif isinstance(inner, L1ValidatorWeight):
            validator = self._validator(inner.validation_id)
            if inner.nonce + 1 != validator.min_nonce:
                raise AppError(P_WRONG_NONCE, "wrong nonce")
            if inner.weight != validator.weight:
                raise AppError(P_WRONG_WEIGHT, "wrong weight")
        else:
            raise AppError(P_UNSUPPORTED, f"unsupported warp message type {type(inner).__name__}")

    def _conversion(self, inner: SubnetToL1Conversion, justification: bytes) -> None:
        if len(justification) != 32:
            raise AppError(P_PARSE_JUSTIFICATION, "failed to parse subnetID: wrong length")
        subnet = self._chain().state.subnets.get(ID(justification))
        if subnet is None or subnet.conversion_id is None:
            raise AppError(P_CONVERSION_MISSING, "conversion does not exist")
        if subnet.conversion_id != inner.id:
            raise AppError(P_CONVERSION_MISMATCH, "conversionID mismatch")

    def _validator(self, validation_id: ID) -> L1Validator:
        validator = self._chain().state.l1_validators.get(validation_id)
        if validator is None:
            raise AppError(P_VALIDATION_MISSING, "validation does not exist")
        return validator


def sign_request(
    body: bytes,
    chain_id: bytes,
    network_id: int,
    verifier: Verifier | None,
    key: SecretKey,
) -> bytes:
    """The SignatureResponse to an ACP-118 SignatureRequest on `chain_id`."""
    try:
        raw, justification = messages.parse_signature_request(body)
        message = UnsignedMessage.decode(raw)
    except (messages.ProtocolError, InvalidParams) as exc:
        raise AppError(UNEXPECTED, f"failed to parse warp unsigned message: {exc}") from None
    if message.network_id != network_id:
        raise AppError(UNEXPECTED, "failed to sign message: wrong network ID")
    if message.source_chain_id.raw != chain_id or verifier is None:
        raise AppError(UNEXPECTED, "failed to sign message: wrong source chain ID")
    verifier.verify(message, justification)
    return messages.signature_response(key.sign(raw).to_bytes())
