"""geth's TraceConfig: the tracer a debug_trace* call names (none: struct logger), its options."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from snowfield.chains.evm.chain import CallPrelude
from snowfield.chains.evm.execution.fourbyte import FourByteTracer
from snowfield.chains.evm.execution.overrides import NO_BLOCK_OVERRIDES
from snowfield.chains.evm.execution.prestate import PrestateTracer
from snowfield.chains.evm.execution.structlog import StructLogOptions
from snowfield.chains.evm.execution.tracer import CallTracer
from snowfield.chains.evm.execution.tracing import Tracer
from snowfield.errors import InvalidParams
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.methods.overrides import block_overrides, state_overrides


def _flag(config: dict[str, Any], name: str) -> bool:
    value = config.get(name)
    return False if value is None else p.boolean(value)


def _call_tracer(config: dict[str, Any]) -> Tracer:
    return CallTracer(only_top_call=_flag(config, "onlyTopCall"), with_log=_flag(config, "withLog"))


def _prestate_tracer(config: dict[str, Any]) -> Tracer:
    tracer = PrestateTracer(
        diff_mode=_flag(config, "diffMode"),
        disable_code=_flag(config, "disableCode"),
        disable_storage=_flag(config, "disableStorage"),
        include_empty=_flag(config, "includeEmpty"),
    )
    if tracer.diff_mode and tracer.include_empty:
        raise InvalidParams("cannot use diffMode with includeEmpty")
    return tracer


def _four_byte_tracer(config: dict[str, Any]) -> Tracer:
    return FourByteTracer()


# Each named tracer and the parser of its tracerConfig.
TRACERS: dict[str, Callable[[dict[str, Any]], Tracer]] = {
    "callTracer": _call_tracer,
    "prestateTracer": _prestate_tracer,
    "4byteTracer": _four_byte_tracer,
}


def tracer_of(value: Any) -> Tracer:
    """The tracer a trace config asks for; raises InvalidParams for an unknown one."""
    config = p.obj(value or {})
    name = config.get("tracer")
    if name is None or name == "":
        return _struct_logger(config)
    parse = TRACERS.get(name) if isinstance(name, str) else None
    if parse is None:
        known = ", ".join(TRACERS)
        raise InvalidParams(f"tracer {name!r} is not supported; use one of {known} or none")
    return parse(p.obj(config.get("tracerConfig") or {}))


def _struct_logger(config: dict[str, Any]) -> Tracer:
    limit = config.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise InvalidParams("cannot unmarshal limit into Go struct field Config.limit of type int")
    return StructLogOptions(
        enable_memory=_flag(config, "enableMemory"),
        disable_stack=_flag(config, "disableStack"),
        disable_storage=_flag(config, "disableStorage"),
        enable_return_data=_flag(config, "enableReturnData"),
        limit=limit or 0,
    )


def trace_call_config(value: Any) -> tuple[Tracer, CallPrelude]:
    """geth's TraceCallConfig: a TraceConfig with state and block overrides."""
    config = p.obj(value or {})
    states, blocks = config.get("stateOverrides"), config.get("blockOverrides")
    prelude = CallPrelude(
        state={} if states is None else state_overrides(states),
        block=NO_BLOCK_OVERRIDES if blocks is None else block_overrides(blocks),
    )
    return tracer_of(config), prelude
