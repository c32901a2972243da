"""The Warp precompile (0x0200…0005): send Warp messages, read the verified ones a transaction's
predicates carry (subnet-evm's and coreth's precompile/contracts/warp, pre-Granite gas)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from snowfield.chains.evm.precompiles.abi import selector, topic, word
from snowfield.chains.evm.precompiles.base import (
    LOG_DATA_GAS,
    LOG_GAS,
    LOG_TOPIC_GAS,
    WRITE_GAS_PER_SLOT,
    FunctionTable,
    PrecompileEnv,
    PrecompileError,
)
from snowfield.chains.evm.precompiles.module import (
    ActivationContext,
    PrecompileConfig,
    PrecompileModule,
    StateWriter,
)
from snowfield.chains.evm.warp import (
    DEFAULT_QUORUM,
    PER_WARP_MESSAGE_CHUNK_GAS,
    QUORUM_DENOMINATOR,
    WARP_ADDRESS,
    SnowContext,
    WarpConfig,
    parse_predicate,
)
from snowfield.errors import InvalidParams
from snowfield.formats.warp.message import UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, Hash, decode_payload, encode_payload

GET_BLOCKCHAIN_ID_GAS = 2
GET_VERIFIED_WARP_MESSAGE_BASE_GAS = 2
# A log with three topics, the cost of producing and serving a BLS signature, a slot write.
SEND_WARP_MESSAGE_BASE_GAS = LOG_GAS + 3 * LOG_TOPIC_GAS + 20_000 + WRITE_GAS_PER_SLOT
PER_WARP_MESSAGE_BYTE_GAS = LOG_DATA_GAS
QUORUM_MINIMUM = 33
SEND_WARP_MESSAGE = topic("SendWarpMessage(address,bytes32,bytes)")
MAX_INT32 = 2**31 - 1


def _abi_bytes(args: bytes) -> bytes:
    """One ABI `bytes` argument, as Go's abi unpacks it (extra bytes ignored)."""
    if len(args) < 32:
        raise PrecompileError(
            "invalid sendWarpMessage input: abi: attempting to unmarshal an empty string "
            "while arguments are expected"
            if not args
            else "invalid sendWarpMessage input: abi: cannot marshal in to go type: length "
            f"insufficient {len(args)} require 32"
        )
    offset = int.from_bytes(args[:32], "big")
    if offset + 32 > len(args):
        raise PrecompileError(
            f"invalid sendWarpMessage input: abi: cannot marshal in to go slice: offset "
            f"{offset + 32} would go over slice boundary (len={len(args)})"
        )
    length = int.from_bytes(args[offset : offset + 32], "big")
    if offset + 32 + length > len(args):
        raise PrecompileError(
            f"invalid sendWarpMessage input: abi: cannot marshal in to go type: length "
            f"insufficient {len(args)} require {offset + 32 + length}"
        )
    return args[offset + 32 : offset + 32 + length]


def _encode_bytes(data: bytes) -> bytes:
    return word(len(data)) + data + bytes(-len(data) % 32)


def _index(env: PrecompileEnv) -> int:
    args = env.input[4:]
    if len(args) < 32:
        raise PrecompileError(
            "invalid index to specify warp message: abi: cannot marshal in to go type: "
            f"length insufficient {len(args)} require 32"
        )
    index = int.from_bytes(args[28:32], "big")  # Go's abi reads a uint32 from the low bytes
    if index > MAX_INT32:
        raise PrecompileError("invalid index to specify warp message: larger than MaxInt32")
    return index


def _snow(env: PrecompileEnv) -> SnowContext:
    return env.warp.snow if env.warp is not None else SnowContext()


def _get_blockchain_id(env: PrecompileEnv) -> bytes:
    env.use_gas(GET_BLOCKCHAIN_ID_GAS)
    return _snow(env).blockchain_id.raw


def _send(env: PrecompileEnv) -> bytes:
    args = env.input[4:]
    env.use_gas(SEND_WARP_MESSAGE_BASE_GAS)
    env.use_gas(PER_WARP_MESSAGE_BYTE_GAS * len(args))
    if env.read_only:
        raise PrecompileError("write protection")
    payload = _abi_bytes(args)
    snow = _snow(env)
    try:
        addressed = encode_payload(AddressedCall(env.caller, payload))
    except InvalidParams as exc:  # above the payload codec's 24 KiB
        raise PrecompileError(str(exc)) from None
    message = UnsignedMessage(snow.network_id, snow.blockchain_id, addressed)
    message_id = message.id.raw
    data = word(32) + _encode_bytes(message.encode())
    env.add_log(WARP_ADDRESS, (SEND_WARP_MESSAGE, word(env.caller), message_id), data)
    return message_id


_INVALID_MESSAGE = word(64) + word(0) + word(0) + word(0) + word(96) + word(0)
_INVALID_BLOCK_HASH = bytes(96)


def _verified(env: PrecompileEnv, *, block_hash: bool) -> bytes:
    """handleWarpMessage: the index-th predicate when it verified, else valid=false."""
    env.use_gas(GET_VERIFIED_WARP_MESSAGE_BASE_GAS)
    index = _index(env)
    warp = env.warp
    chunks = warp.predicate(index) if warp is not None else None
    if chunks is None:
        return _INVALID_BLOCK_HASH if block_hash else _INVALID_MESSAGE
    env.use_gas(PER_WARP_MESSAGE_CHUNK_GAS * len(chunks))
    try:
        message = parse_predicate(chunks)
        body = decode_payload(message.unsigned.payload)
    except InvalidParams as exc:
        raise PrecompileError(str(exc)) from None
    source = message.unsigned.source_chain_id.raw
    if block_hash:
        if not isinstance(body, Hash):
            raise PrecompileError("cannot unpack block hash payload: not a Hash payload")
        return source + body.hash.raw + word(1)
    if not isinstance(body, AddressedCall):
        raise PrecompileError("cannot unpack addressed payload: not an AddressedCall payload")
    sender = body.source_address[-20:].rjust(20, b"\x00")  # common.BytesToAddress
    return word(64) + word(1) + source + word(sender) + word(96) + _encode_bytes(body.payload)


def _configure(config: PrecompileConfig, state: StateWriter, ctx: ActivationContext) -> None:
    """Warp keeps nothing in state."""


def _verify(params: Mapping[str, Any]) -> None:
    quorum = params.get("quorumNumerator", 0)
    if isinstance(quorum, bool) or not isinstance(quorum, int) or quorum < 0:
        raise InvalidParams("invalid warpConfig: quorumNumerator must be a uint64")
    if quorum > QUORUM_DENOMINATOR:
        raise InvalidParams(
            f"invalid warp quorum ratio: cannot specify numerator ({quorum}) > denominator "
            f"({QUORUM_DENOMINATOR})"
        )
    if quorum and quorum < QUORUM_MINIMUM:
        raise InvalidParams(
            f"invalid warp quorum ratio: cannot specify numerator ({quorum}) < min numerator "
            f"({QUORUM_MINIMUM})"
        )
    if not isinstance(params.get("requirePrimaryNetworkSigners", False), bool):
        raise InvalidParams("invalid warpConfig: requirePrimaryNetworkSigners must be a boolean")


def warp_config(config: PrecompileConfig) -> WarpConfig:
    """The verification settings of an active warpConfig (quorum 0 means the default)."""
    return WarpConfig(
        config.params.get("quorumNumerator") or DEFAULT_QUORUM,
        bool(config.params.get("requirePrimaryNetworkSigners", False)),
    )


WARP_CONTRACT = FunctionTable(
    WARP_ADDRESS,
    {
        selector("getBlockchainID()"): _get_blockchain_id,
        selector("sendWarpMessage(bytes)"): _send,
        selector("getVerifiedWarpMessage(uint32)"): lambda env: _verified(env, block_hash=False),
        selector("getVerifiedWarpBlockHash(uint32)"): lambda env: _verified(env, block_hash=True),
    },
)

MODULE = PrecompileModule(
    key="warpConfig",
    address=WARP_ADDRESS,
    contract=WARP_CONTRACT,
    configure=_configure,
    verify=_verify,
    defaults={"quorumNumerator": 0, "requirePrimaryNetworkSigners": False},
)
