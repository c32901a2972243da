"""One setting, declared once as a field of its service's settings dataclass: default, help,
environment variable, flag and bounds. The CLI, `up` and docs/settings.md read it from there."""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Any

ENV_PREFIX = "SNOWFIELD_"
_METADATA_KEY = "snowfield.setting"


@dataclass(frozen=True, slots=True)
class _Declaration:
    help: str
    env: str | None  # None: SNOWFIELD_ + the field name; "": no environment variable
    flag: str | None  # None: --field-name
    min: float | None
    max: float | None
    doc: str


def setting(
    default: Any,
    help: str,
    *,
    env: str | None = None,
    flag: str | None = None,
    min: float | None = None,
    max: float | None = None,
    doc: str = "",
) -> Any:
    """A settings field: `help` is the flag's help, `doc` what docs/settings.md adds to it.
    The environment variable is SNOWFIELD_ and the field name in capitals unless `env` names
    another ("" for none); the flag is the field name with dashes unless `flag` names another."""
    declaration = _Declaration(help, env, flag, min, max, doc)
    return dataclasses.field(default=default, metadata={_METADATA_KEY: declaration})


@dataclass(frozen=True, slots=True)
class Setting:
    """A declared setting as the CLI and the docs see it."""

    name: str  # the field's name
    type: Any  # the field's type, resolved
    default: object
    help: str
    doc: str
    flag: str
    env: str | None
    min: float | None
    max: float | None

    @property
    def is_flag(self) -> bool:
        """A boolean, given as `--x` or `--no-x`."""
        return self.type is bool

    @property
    def repeatable(self) -> bool:
        """A tuple of values, one per use of the flag."""
        return typing.get_origin(_without_none(self.type)) is tuple

    @property
    def item_type(self) -> Any:
        """The type of one value of a repeatable setting."""
        return typing.get_args(_without_none(self.type))[0]


def settings_of(settings_type: type) -> tuple[Setting, ...]:
    """The declared settings of a settings dataclass, in field order."""
    hints = typing.get_type_hints(settings_type)
    found = []
    for field in dataclasses.fields(settings_type):
        declared: _Declaration | None = field.metadata.get(_METADATA_KEY)
        if declared is None:
            continue
        env = declared.env
        found.append(
            Setting(
                name=field.name,
                type=hints[field.name],
                default=field.default,
                help=declared.help,
                doc=declared.doc,
                flag=declared.flag or "--" + field.name.replace("_", "-"),
                env=(env or None) if env is not None else ENV_PREFIX + field.name.upper(),
                min=declared.min,
                max=declared.max,
            )
        )
    return tuple(found)


def _without_none(annotation: Any) -> Any:
    """`X | None` as X; any other type as it is."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    is_optional = len(args) == 1 and type(None) in typing.get_args(annotation)
    return args[0] if is_optional else annotation
