"""Engine subcommands.

The training command lives in :mod:`backgammon.cli.train_cmds`
(``register_train``); the play/analysis commands are registered beside it.
"""

from __future__ import annotations

import typer

from backgammon.cli.train_cmds import register_train


def register(app: typer.Typer) -> None:
    """Add the engine's commands."""
    register_train(app)
