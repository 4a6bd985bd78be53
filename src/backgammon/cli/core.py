"""Core subcommands: ``moves`` and ``show``."""

from __future__ import annotations

import json

import typer

from backgammon.dice import parse_roll
from backgammon.position import Position
from backgammon.render import ascii_board


def parse_dice(text: str) -> tuple[int, int]:
    """Read a roll written ``31``, ``3-1``, ``3,1`` or ``3 1`` (:func:`backgammon.dice.parse_roll`).

    Raises:
        InvalidInputError: if the text is not two dice from 1 to 6.
    """
    return parse_roll(text)


def moves(
    position_id: str = typer.Argument(..., help="GNU Backgammon Position ID, e.g. 4HPwATDgc/ABMA"),
    dice: str = typer.Argument(..., help="the roll, e.g. 31 or 3-1"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """List the legal plays of a position for a roll."""
    position = Position.from_position_id(position_id)
    d1, d2 = parse_dice(dice)
    plays = position.legal_plays(d1, d2)
    if as_json:
        doc = {
            "position_id": position.position_id(),
            "dice": [d1, d2],
            "plays": [{"move": str(p), "position_id": p.position.position_id()} for p in plays],
        }
        print(json.dumps(doc))
        return
    for play in plays:
        print(f"{str(play) or '(no legal move)':<28} {play.position.position_id()}")


def show(
    position_id: str = typer.Argument(
        ..., help="GNU Backgammon Position ID, or PositionID:MatchID, or an XGID (then cube, score and dice too)"
    ),
) -> None:
    """Draw a position as text, with both pip counts (and the match state for a gnubg ID or XGID)."""
    from backgammon.cli.formats_cmds import describe_state, is_state_id

    if is_state_id(position_id):
        print(describe_state(position_id))
        return
    print(ascii_board(Position.from_position_id(position_id)))


def register(app: typer.Typer) -> None:
    app.command("moves")(moves)
    app.command("show")(show)
