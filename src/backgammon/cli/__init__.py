"""The ``backgammon`` command.

Each area registers its subcommands from its own module: :mod:`.core`
(rules and notations), :mod:`.engine_cmds` (the engine), :mod:`.play_cmd` (a game
against the computer in the terminal), :mod:`.server_cmds` (the web platform).
Bad input ends with exit status 2 and one line on stderr.
"""

from __future__ import annotations

import sys

import typer

from backgammon.errors import BackgammonError

_app: typer.Typer | None = None


def get_app() -> typer.Typer:
    """The typer application with every area's commands (built on first use: a one-shot ``hint`` needs none)."""
    global _app
    if _app is None:
        from backgammon.cli import core, engine_cmds, formats_cmds, play_cmd, server_cmds, study_cmds

        app = typer.Typer(
            name="backgammon",
            help="Play, study and analyse backgammon.",
            no_args_is_help=True,
            add_completion=False,
            pretty_exceptions_enable=False,
            rich_markup_mode=None,
        )
        for module in (core, formats_cmds, engine_cmds, play_cmd, server_cmds, study_cmds):
            module.register(app)
        _app = app
    return _app


def __getattr__(name: str) -> typer.Typer:
    if name == "app":  # ``from backgammon.cli import app`` still works
        return get_app()
    raise AttributeError(f"module 'backgammon.cli' has no attribute {name!r}")


def fail(message: str) -> None:
    """Print a one-line error and exit with status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the command line, mapping bad input to exit status 2."""
    from backgammon.cli._fastpath import try_quick

    try:
        # plain one-shot commands skip building the whole command line (see backgammon.cli._fastpath)
        result = (
            None if try_quick(sys.argv[1:] if argv is None else argv) else get_app()(args=argv, standalone_mode=False)
        )
    except BackgammonError as exc:
        fail(str(exc).replace("\n", " "))
    except BrokenPipeError:
        sys.stderr.close()
        raise SystemExit(0) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except typer.Exit as exc:
        raise SystemExit(getattr(exc, "exit_code", 0)) from None
    except typer.Abort:
        print("aborted", file=sys.stderr)
        raise SystemExit(130) from None
    except Exception as exc:
        # usage errors of the command-line parser (typer vendors click)
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            if type(exc).__name__ == "NoArgsIsHelpError":
                print(exc.format_message(), file=sys.stderr)
            else:
                message = exc.format_message().replace("\n", " ")
                fail(message[:1].lower() + message[1:])  # our messages are lowercase; click's are not
            raise SystemExit(2) from None
        raise
    if isinstance(result, int) and result:
        raise SystemExit(result)
