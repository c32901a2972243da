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
from snowfield.formats.platform.l1_txs import initial_validation_id
from snowfield.formats.warp.justification import SubnetIDIndex, decode_justification
from snowfield.formats.warp.message import UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, Hash, decode_payload
from snowfield.formats.warp.platform_messages import (
    L1ValidatorRegistration,
    L1ValidatorWeight,
    RegisterL1Validator,
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
(
    P_INVALID_JUSTIFICATION_TYPE,
    P_PARSE_SUBNET_ID,
    P_MISMATCHED_VALIDATION_ID,
    P_VALIDATION_MISSING,
    P_VALIDATION_EXISTS,
    P_PARSE_REGISTER_L1_VALIDATOR,
    P_VALIDATION_COULD_BE_REGISTERED,
) = range(8, 15)
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
        elif isinstance(inner, L1ValidatorRegistration):
            self._not_registered(inner.validation_id, justification)
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
        validator = self._current(validation_id)
        if validator is None:
            raise AppError(P_VALIDATION_MISSING, f'validation "{validation_id}" does not exist')
        return validator

    def _current(self, validation_id: ID) -> L1Validator | None:
        """The L1 validator, unless it never was or was removed (weight 0: avalanchego deletes
        it, while this state keeps the record)."""
        validator = self._chain().state.l1_validators.get(validation_id)
        return validator if validator is not None and validator.weight else None

    def _not_registered(self, validation_id: ID, justification: bytes) -> None:
        """L1ValidatorRegistration(false): the validation is not current and never can be, as
        the justification's preimage of its id proves (avalanchego's verifier, in its order)."""
        try:
            preimage = decode_justification(justification)
        except InvalidParams as exc:
            raise AppError(
                P_PARSE_JUSTIFICATION, f"failed to parse justification: {exc.message}"
            ) from None
        if isinstance(preimage, SubnetIDIndex):
            self._removed_initial_validator(validation_id, preimage)
        elif isinstance(preimage, bytes):
            self._expired_or_removed(validation_id, preimage)
        else:
            raise AppError(P_INVALID_JUSTIFICATION_TYPE, "invalid justification type: <nil>")

    def _removed_initial_validator(self, validation_id: ID, preimage: SubnetIDIndex) -> None:
        if len(preimage.subnet_id) != 32:
            raise AppError(
                P_PARSE_SUBNET_ID,
                f"failed to parse subnetID: expected 32 bytes but got {len(preimage.subnet_id)}",
            )
        subnet_id = ID(preimage.subnet_id)
        expected = initial_validation_id(subnet_id, preimage.index)
        self._same_id(validation_id, expected)
        subnet = self._chain().state.subnets.get(subnet_id)
        if subnet is None or subnet.conversion_id is None:
            raise AppError(P_CONVERSION_MISSING, f'subnet "{subnet_id}" has not been converted')
        self._not_current(validation_id)

    def _expired_or_removed(self, validation_id: ID, message: bytes) -> None:
        try:
            register = decode_message(message)
            if not isinstance(register, RegisterL1Validator):
                raise InvalidParams(f"expected RegisterL1Validator, got {type(register).__name__}")
        except InvalidParams as exc:
            raise AppError(
                P_PARSE_REGISTER_L1_VALIDATOR,
                f"failed to parse RegisterL1Validator justification: {exc.message}",
            ) from None
        self._same_id(validation_id, register.validation_id)
        self._not_current(validation_id)
        state = self._chain().state
        if register.expiry <= state.timestamp:
            return  # the registration window has passed: it can never happen
        if validation_id not in state.used_validation_ids:
            raise AppError(
                P_VALIDATION_COULD_BE_REGISTERED,
                f'validation "{validation_id}" can be registered until {register.expiry}',
            )
        # registered once and removed since: an id is never used twice

    def _same_id(self, validation_id: ID, expected: ID) -> None:
        if validation_id != expected:
            raise AppError(
                P_MISMATCHED_VALIDATION_ID,
                f'validationID "{validation_id}" != justificationID "{expected}"',
            )

    def _not_current(self, validation_id: ID) -> None:
        if self._current(validation_id) is not None:
            raise AppError(P_VALIDATION_EXISTS, f'validation "{validation_id}" exists')


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
