"""The ICM (Teleporter) messenger's events, decoded from a log's topics and data (pure).

The topic hashes are keccak-256 of the event signatures (checked against the hashing module by
tests/formats/test_icm.py); formats does no hashing itself. `MESSENGER_ADDRESSES` are where a
messenger is known to live: the network's v1 messenger, and the devnet's own keyless
deployment (its address follows from our contract's bytecode; tests pin it to the workload's).
"""

from __future__ import annotations

from dataclasses import dataclass

from eth_abi import decode
from eth_abi.exceptions import DecodingError

from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID

MESSAGE_TYPE = "(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)"
FEE_TYPE = "(address,uint256)"
MESSENGER_ADDRESSES = (
    "0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf",  # TeleporterMessenger v1 on the real networks
    "0x382fadd0b6cefa004c90eeea48b1e99dc168ffc4",  # the devnet's (workload/icm.py)
)

SEND = "0x2a211ad4a59ab9d003852404f9c57c690704ee755f3c79d2c2812ad32da99df8"
RECEIVE = "0x292ee90bbaf70b5d4936025e09d56ba08f3e421156b6a568cf3c2840d9343e34"
EXECUTED = "0x34795cc6b122b9a0ae684946319f1e14a577b4e8f9b3dda9ac94c21a54d3188c"
EXECUTION_FAILED = "0x4619adc1017b82e02eaefac01a43d50d6d8de4460774bc370c3ff0210d40c985"
RECEIPT_RECEIVED = "0xd13a7935f29af029349bed0a2097455b91fd06190a30478c575db3f31e00bf57"
ADD_FEE_AMOUNT = "0xc1bfd1f1208927dfbd414041dcb5256e6c9ad90dd61aec3249facbd34ff7b3e1"
# Event signature of each topic above, for the tests that recompute them.
SIGNATURES = {
    SEND: f"SendCrossChainMessage(bytes32,bytes32,{MESSAGE_TYPE},{FEE_TYPE})",
    RECEIVE: f"ReceiveCrossChainMessage(bytes32,bytes32,address,address,{MESSAGE_TYPE})",
    EXECUTED: "MessageExecuted(bytes32,bytes32)",
    EXECUTION_FAILED: f"MessageExecutionFailed(bytes32,bytes32,{MESSAGE_TYPE})",
    RECEIPT_RECEIVED: f"ReceiptReceived(bytes32,bytes32,address,{FEE_TYPE})",
    ADD_FEE_AMOUNT: f"AddFeeAmount(bytes32,{FEE_TYPE})",
}
MAX_EVENT_DATA = 1 << 20  # a message larger than any block could carry is not decoded


@dataclass(frozen=True, slots=True)
class Message:
    """A TeleporterMessage."""

    nonce: int
    origin: str  # originSenderAddress, lower-case 0x hex
    destination_chain: str  # destinationBlockchainID, cb58
    destination: str  # destinationAddress
    required_gas_limit: int
    allowed_relayers: tuple[str, ...]
    receipts: tuple[tuple[int, str], ...]  # (receivedMessageNonce, relayerRewardAddress)
    payload: bytes


@dataclass(frozen=True, slots=True)
class IcmEvent:
    """One messenger event. `kind`: send | receive | executed | failed | receipt | fee.
    `peer_chain` is the other side: the destination of a send or receipt, the source of a
    receive, an execution or a failure (None for a fee)."""

    kind: str
    message_id: str  # lower-case hex, no 0x (as the data service names messages)
    peer_chain: str | None = None
    message: Message | None = None
    fee_token: str | None = None
    fee_amount: int | None = None
    deliverer: str | None = None
    reward_redeemer: str | None = None  # a receive's relayerRewardAddress; a receipt's too


class IcmDecodeError(ValueError):
    pass


def decode_event(topics: list[str], data: bytes) -> IcmEvent | None:
    """The messenger event of a log (topics as lower-case 0x hex); None for any other event;
    IcmDecodeError when the topic names a messenger event but the log is malformed."""
    if not topics or topics[0] not in SIGNATURES:
        return None
    head = topics[0]
    if len(data) > MAX_EVENT_DATA:
        raise IcmDecodeError("event data too large")
    try:
        message_id = _word(topics, 1)
        if head == SEND and len(topics) == 3:
            message, fee = decode([MESSAGE_TYPE, FEE_TYPE], data, strict=False)
            return IcmEvent(
                "send",
                message_id,
                _chain(topics[2]),
                _message(message),
                fee_token=_address(fee[0]),
                fee_amount=int(fee[1]),
            )
        if head == RECEIVE and len(topics) == 4:
            redeemer, message = decode(["address", MESSAGE_TYPE], data, strict=False)
            return IcmEvent(
                "receive",
                message_id,
                _chain(topics[2]),
                _message(message),
                deliverer=_topic_address(topics[3]),
                reward_redeemer=_address(redeemer),
            )
        if head == EXECUTED and len(topics) == 3 and not data:
            return IcmEvent("executed", message_id, _chain(topics[2]))
        if head == EXECUTION_FAILED and len(topics) == 3:
            (message,) = decode([MESSAGE_TYPE], data, strict=False)
            return IcmEvent("failed", message_id, _chain(topics[2]), _message(message))
        if head == RECEIPT_RECEIVED and len(topics) == 4:
            (fee,) = decode([FEE_TYPE], data, strict=False)
            return IcmEvent(
                "receipt",
                message_id,
                _chain(topics[2]),
                fee_token=_address(fee[0]),
                fee_amount=int(fee[1]),
                reward_redeemer=_topic_address(topics[3]),
            )
        if head == ADD_FEE_AMOUNT and len(topics) == 2:
            (fee,) = decode([FEE_TYPE], data, strict=False)
            return IcmEvent("fee", message_id, fee_token=_address(fee[0]), fee_amount=int(fee[1]))
    except (DecodingError, InvalidParams, ValueError, OverflowError, TypeError, IndexError) as exc:
        raise IcmDecodeError(f"malformed {SIGNATURES[head].split('(')[0]} log: {exc}") from None
    raise IcmDecodeError(f"malformed {SIGNATURES[head].split('(')[0]} log: topic count")


def _word(topics: list[str], n: int) -> str:
    text = topics[n].lower().removeprefix("0x")
    if len(text) != 64:
        raise ValueError("a topic is 32 bytes")
    bytes.fromhex(text)
    return text


def _chain(topic: str) -> str:
    return str(ID(bytes.fromhex(topic.lower().removeprefix("0x"))))


def _topic_address(topic: str) -> str:
    raw = bytes.fromhex(topic.lower().removeprefix("0x"))
    if len(raw) != 32 or any(raw[:12]):
        raise ValueError("an address topic holds 20 bytes")
    return "0x" + raw[12:].hex()


def _address(value: str) -> str:
    return str(value).lower()


def _message(value: tuple) -> Message:  # type: ignore[type-arg]
    nonce, origin, destination_chain, destination, gas, relayers, receipts, payload = value
    return Message(
        nonce=int(nonce),
        origin=_address(origin),
        destination_chain=str(ID(bytes(destination_chain))),
        destination=_address(destination),
        required_gas_limit=int(gas),
        allowed_relayers=tuple(_address(r) for r in relayers),
        receipts=tuple((int(n), _address(a)) for n, a in receipts),
        payload=bytes(payload),
    )
