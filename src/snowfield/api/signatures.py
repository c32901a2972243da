"""Operations 1-2: Warp signature aggregation, from a message (POST) or from a P-Chain L1 tx
(GET by tx hash), through the aggregator over the node the service is pointed at.

Body fields and their bounds as data-api.md gives them; texts of the real aggregator. A message
the validators will not sign (not seen, below quorum) is the client's problem (400); a node or
peers out of reach is ours (503).
"""

from __future__ import annotations

from typing import Any

from snowfield.aggregator.aggregate import DEFAULT_QUORUM, AggregationRequest
from snowfield.aggregator.service import (
    TxNotFound,
    TxNotSupported,
    parse_message,
    parse_subnet,
)
from snowfield.aggregator.validators import AggregationError
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import Param
from snowfield.api.primary.primary_network import NETWORK_PATH
from snowfield.errors import InvalidParams, NotFound, Unavailable
from snowfield.formats.warp.message import Message

TX_HASH = Param("txHash", "path", "A P-Chain transaction hash (cb58).", required=True)
_UNREACHABLE = ("failed to connect to a threshold of stake", "failed to reach the node")
MAX_PERCENT = 100


def _hex(body: dict[str, Any], name: str, error: str) -> bytes:
    value = body.get(name)
    if value is None or value == "":
        return b""
    if not isinstance(value, str):
        raise InvalidParams(error)
    text = value[2:] if value.startswith(("0x", "0X")) else value
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise InvalidParams(error) from None


def _percent(body: dict[str, Any], name: str, default: int) -> int:
    value = body.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PERCENT:
        raise InvalidParams(f"{name} must be an integer in [0, {MAX_PERCENT}]")
    return value


def parse_request(body: dict[str, Any]) -> AggregationRequest:
    """Operation 1's body, checked in the real aggregator's order."""
    message = _hex(body, "message", "Could not decode message")
    justification = _hex(body, "justification", "Could not decode justification")
    if not any(message) and not any(justification):
        raise InvalidParams("Must provide either message or justification")
    try:
        unsigned = parse_message(message)
    except InvalidParams:
        raise InvalidParams("Error unpacking warp message") from None
    quorum = _percent(body, "quorumPercentage", DEFAULT_QUORUM) or DEFAULT_QUORUM
    buffer = _percent(body, "quorumPercentageBuffer", 0)
    if quorum + buffer > MAX_PERCENT:
        raise InvalidParams("Invalid quorum buffer number")
    subnet = body.get("signingSubnetId")
    signing = None
    if subnet not in (None, ""):
        try:
            signing = parse_subnet(str(subnet))
        except (InvalidParams, ValueError):
            raise InvalidParams("Error parsing signing subnet ID") from None
    height = body.get("pChainHeight", 0) or 0
    if isinstance(height, bool) or not isinstance(height, int) or height < 0:
        raise InvalidParams("pChainHeight must be an integer >= 0")
    return AggregationRequest(unsigned, justification, signing, quorum, buffer, height)


def _failed(exc: AggregationError) -> Exception:
    text = f"failed to aggregate signatures. error: {exc}"
    if any(marker in str(exc) for marker in _UNREACHABLE):
        return Unavailable(text)
    return InvalidParams(text)


def _signed(message: Message) -> Json:
    return {"signedMessage": message.encode().hex()}


async def aggregate(ctx: Context) -> Json:
    service = ctx.signatures
    request = parse_request(ctx.args["body"])
    if service is None:
        raise Unavailable("signature aggregation is not configured: start with --node-url")
    try:
        return _signed(await service.aggregate(request))
    except AggregationError as exc:
        raise _failed(exc) from None


async def aggregate_tx(ctx: Context) -> Json:
    service = ctx.signatures
    if service is None:
        raise Unavailable("signature aggregation is not configured: start with --node-url")
    try:
        return _signed(await service.aggregate_tx(ctx.args["txHash"]))
    except TxNotFound as exc:
        raise NotFound(str(exc)) from None
    except TxNotSupported as exc:
        raise InvalidParams(str(exc)) from None
    except AggregationError as exc:
        raise _failed(exc) from None


OPERATIONS = (
    Operation(
        "aggregateSignatures",
        "/v1/signatureAggregator/{network}/aggregateSignatures",
        "Aggregate the validators' BLS signatures over a Warp message to a quorum.",
        "Signature aggregator",
        (NETWORK_PATH,),
        "SignedMessage",
        20,
        aggregate,
        method="POST",
        request_body="AggregateSignaturesRequest",
    ),
    Operation(
        "getAggregatedSignatures",
        "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}",
        "Aggregate the signatures of the P-Chain L1 message a transaction calls for.",
        "Signature aggregator",
        (NETWORK_PATH, TX_HASH),
        "SignedMessage",
        20,
        aggregate_tx,
    ),
)
