"""A quick start for the one-shot commands (private).

typer builds a pydantic validator for every parameter of the command it runs, and
registering every area's commands imports every command module: together about a
third of a second before ``backgammon hint`` does anything. For the commands in
:data:`QUICK`, :func:`try_quick` reads the command line itself, from the command
function's own typer declarations (names, defaults, types), and calls the
function directly. Anything it does not recognise exactly (``--help``, an unknown
option, a value that is not a plain ``int``, a missing argument, ``--``) makes it
decline, and the full typer command line then runs and answers, errors included,
as it always did. So a command behaves the same whichever path runs it.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

# command name -> (module, function) of the commands worth starting quickly
QUICK: dict[str, tuple[str, str]] = {
    "hint": ("backgammon.cli.engine_cmds", "hint"),
    "engine": ("backgammon.cli.engine_cmds", "engine"),
    "analyze": ("backgammon.cli.engine_cmds", "analyze"),
}

_TYPES: dict[str, Callable[[str], Any]] = {"int": int, "str": str}


class _Decline(Exception):
    """The quick reader does not handle this command line: typer must."""


def _plain(info: Any) -> bool:
    """Whether a typer parameter declaration has only what the quick reader understands."""
    for attr in ("callback", "envvar", "parser", "default_factory", "min", "max", "click_type"):
        if getattr(info, attr, None) is not None:
            return False
    return not any(getattr(info, attr, False) for attr in ("is_eager", "prompt", "count", "multiple"))


def parse(func: Callable[..., Any], args: Sequence[str]) -> dict[str, Any]:
    """The keyword arguments typer would pass ``func`` for ``args``.

    Raises:
        _Decline: for anything but plain positionals, ``--name value``, ``--name=value`` and flags.
    """
    from typer.models import ArgumentInfo, OptionInfo

    positional: list[tuple[str, Callable[[str], Any], Any]] = []
    variadic = ""  # the name of a trailing list argument (``list[str]``, required), if any
    options: dict[str, tuple[str, Callable[[str], Any] | None]] = {}  # flag -> (parameter, type; None: a flag)
    values: dict[str, Any] = {}
    for name, param in inspect.signature(func).parameters.items():
        info, annotation = param.default, str(param.annotation)
        if not isinstance(info, ArgumentInfo | OptionInfo) or not _plain(info):
            raise _Decline(name)
        if annotation == "list[str]" and isinstance(info, ArgumentInfo) and info.default is ... and not variadic:
            variadic = name  # one or more values, after the single positionals
            continue
        if variadic and isinstance(info, ArgumentInfo):
            raise _Decline(name)  # only options may follow the list
        if annotation == "bool" and isinstance(info, OptionInfo):
            kind = None
        elif annotation in _TYPES:
            kind = _TYPES[annotation]
        else:
            raise _Decline(name)
        if isinstance(info, ArgumentInfo):
            if kind is None:
                raise _Decline(name)
            positional.append((name, kind, info.default))
            continue
        decls = list(info.param_decls or ())
        if not decls or any(not d.startswith("--") or "/" in d for d in decls):
            raise _Decline(name)  # short names and --x/--no-x pairs are typer's
        values[name] = info.default
        for decl in decls:
            options[decl] = (name, kind)
    given: list[str] = []
    rest = list(args)
    while rest:
        token = rest.pop(0)
        if not token.startswith("-"):
            given.append(token)
            continue
        flag, eq, inline = token.partition("=")
        if flag not in options:
            raise _Decline(token)  # --help, --, unknown or short options
        name, kind = options[flag]
        if kind is None:
            if eq:
                raise _Decline(token)
            values[name] = True
            continue
        if eq:
            text = inline
        elif rest and not rest[0].startswith("-"):
            text = rest.pop(0)
        else:
            raise _Decline(token)  # a missing value, or one that looks like an option
        try:
            values[name] = kind(text)
        except ValueError:
            raise _Decline(token) from None
    if variadic:
        if len(given) <= len(positional):
            raise _Decline(variadic)  # missing: typer says so
        values[variadic] = given[len(positional) :]
        given = given[: len(positional)]
    if len(given) > len(positional):
        raise _Decline("extra arguments")
    for i, (name, kind, default) in enumerate(positional):
        if i < len(given):
            try:
                values[name] = kind(given[i])
            except ValueError:
                raise _Decline(name) from None
        elif default is ...:
            raise _Decline(name)  # missing: typer says so
        else:
            values[name] = default
    return values


def try_quick(argv: Sequence[str]) -> bool:
    """Run ``argv`` quickly if it is a plain call of a :data:`QUICK` command; ``False`` if typer must run it."""
    if not argv or argv[0] not in QUICK:
        return False
    module, attr = QUICK[argv[0]]
    func = getattr(importlib.import_module(module), attr)
    try:
        kwargs = parse(func, argv[1:])
    except _Decline:
        return False
    func(**kwargs)
    return True
