"""The command-line side of the declared settings: a command's options are its settings
dataclass's fields, and `up` names a child's settings to get the flags that give them."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import GenericAlias
from typing import Annotated, Any, ParamSpec, TypeVar, cast

import typer

from snowfield.config import ServeSettings, Setting, settings_of

S = TypeVar("S")
P = ParamSpec("P")


def option(setting: Setting) -> Any:
    """The typer option of one setting: `--x` (`--x/--no-x` for a boolean), its environment
    variable, help and bounds."""
    flag = f"{setting.flag}/--no-{setting.flag[2:]}" if setting.is_flag else setting.flag
    return typer.Option(
        flag, envvar=setting.env, help=setting.help, min=setting.min, max=setting.max
    )


def settings_command(
    settings_type: type[S],
) -> Callable[[Callable[[S], None]], Callable[..., None]]:
    """Makes `run(settings)` a typer command whose options are the settings of
    `settings_type`; its name and help are `run`'s."""
    declared = settings_of(settings_type)

    def wrap(run: Callable[[S], None]) -> Callable[..., None]:
        def command(**values: Any) -> None:
            run(settings_type(**{s.name: _from_cli(s, values[s.name]) for s in declared}))

        # typer reads a command's options from its signature: one keyword per setting.
        command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [
                inspect.Parameter(
                    s.name,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=s.default,
                    annotation=Annotated[_cli_type(s), option(s)],
                )
                for s in declared
            ],
            return_annotation=None,
        )
        command.__name__, command.__qualname__ = run.__name__, run.__qualname__
        command.__doc__, command.__module__ = reflow(run.__doc__ or ""), run.__module__
        return command

    return wrap


def reflow(doc: str) -> str:
    """A docstring as help: each paragraph one line, for the help to wrap to the terminal."""
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def command_line(settings_type: Callable[P, object]) -> Callable[P, list[str]]:
    """The flags that give a command these values of its settings, in the order named. Typed
    as the settings' constructor, so mypy checks the names; a name given is always passed,
    even at its default, so the child's environment cannot change it."""
    declared = {s.name: s for s in settings_of(cast(type, settings_type))}

    def flags(*args: P.args, **kwargs: P.kwargs) -> list[str]:
        settings_type(*args, **kwargs)  # unknown names fail here, not in the child
        return [arg for name, value in kwargs.items() for arg in _to_cli(declared[name], value)]

    return flags


def _cli_type(setting: Setting) -> Any:
    """A repeatable setting (a tuple) is a list to typer: typer reads a tuple as fixed-size."""
    if not setting.repeatable:
        return setting.type
    return GenericAlias(list, (setting.item_type,)) | None


def _from_cli(setting: Setting, value: Any) -> Any:
    if setting.repeatable:
        return tuple(value) if value else None
    return value


def _to_cli(setting: Setting, value: object) -> list[str]:
    if setting.is_flag:
        return [setting.flag if value else f"--no-{setting.flag[2:]}"]
    if value is None:
        return []
    if setting.repeatable:
        return [
            arg for item in cast(tuple[object, ...], value) for arg in (setting.flag, str(item))
        ]
    return [setting.flag, str(value)]


# `--db` of the one-shot commands (keys, contracts): as `snowfield serve` takes it.
DB_OPTION = option(next(s for s in settings_of(ServeSettings) if s.name == "db"))
DEFAULT_DB = ServeSettings().db
