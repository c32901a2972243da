"""What the EVM and primary-network export requests share: their dates (YYYY-MM-DD, the
deprecated names read as the new ones) and their option arrays."""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from snowfield.errors import InvalidParams

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
TOP = frozenset({"type", "firstDate", "lastDate", "startDate", "endDate", "options"})


def date_field(body: Mapping[str, Any], *names: str) -> str | None:
    """The first of `names` given, as a checked YYYY-MM-DD date."""
    for name in names:
        value = body.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or not _DATE.fullmatch(value):
            raise InvalidParams(f"{name} must be a date as YYYY-MM-DD")
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            raise InvalidParams(f"{name} is not a calendar date") from None
        return value
    return None


def strings(options: Mapping[str, Any], name: str, most: int) -> list[str]:
    value = options.get(name)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise InvalidParams(f"options.{name} must be a non-empty array of strings")
    if len(value) > most:
        raise InvalidParams(f"options.{name} may list at most {most} values")
    return list(dict.fromkeys(value))


def dates(body: Mapping[str, Any], options_help: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """({firstDate?, lastDate?}, options) of a request, its top-level fields checked."""
    unknown = sorted(set(body) - TOP)
    if unknown:
        raise InvalidParams(f"unknown field {unknown[0]}")
    first = date_field(body, "firstDate", "startDate")
    last = date_field(body, "lastDate", "endDate")
    if first is not None and last is not None and last < first:
        raise InvalidParams("lastDate must not be before firstDate")
    options = body.get("options")
    if not isinstance(options, dict):
        raise InvalidParams(f"options is required: {options_help}")
    out: dict[str, Any] = {}
    if first is not None:
        out["firstDate"] = first
    if last is not None:
        out["lastDate"] = last
    return out, options
