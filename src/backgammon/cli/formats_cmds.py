"""Format subcommands: ``mat-check``, and the IDs that ``show`` accepts besides a Position ID."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from backgammon.errors import InvalidInputError
from backgammon.formats.mat import load_mat
from backgammon.formats.match_id import GameState, MatchState, parse_gnubg_id
from backgammon.formats.sgf import load_sgf
from backgammon.formats.xgid import Xgid
from backgammon.position import Position
from backgammon.render import ascii_board

_RESIGN = {1: "single game", 2: "gammon", 3: "backgammon"}


def is_state_id(text: str) -> bool:
    """True for text that ``show`` reads as an XGID or ``PositionID:MatchID``."""
    stripped = text.strip()
    return stripped.upper().startswith("XGID=") or ":" in stripped


def describe_state(text: str) -> str:
    """A board with its cube, score and dice, from an XGID or ``PositionID:MatchID``.

    gnubg's player 1 is the XGID's X (bottom), player 0 its O (top).

    Raises:
        InvalidInputError: if the text is neither.
    """
    stripped = text.strip()
    xgid: Xgid | None = None
    if stripped.upper().startswith("XGID=") or stripped.count(":") >= 8:
        xgid = Xgid.parse(stripped)
        position, state = xgid.to_gnubg()
    else:
        position, state = parse_gnubg_id(stripped)
        try:
            xgid = Xgid.from_gnubg(position, state)
        except InvalidInputError:
            xgid = None  # a finished match has no XGID
    return _render(position, state, xgid)


def _who(player: int) -> str:
    return f"player {player}"


def _render(position: Position, state: MatchState, xgid: Xgid | None) -> str:
    on_roll = state.dice_owner
    lines = [ascii_board(position, x_name=f"X = {_who(on_roll)}, on roll", o_name=f"O = {_who(1 - on_roll)}")]
    lines.append("players as gnubg numbers them: player 0 = XGID's O (top), player 1 = XGID's X (bottom)")
    lines.append(f"GNU BG ID: {position.position_id()}:{state.match_id()}")
    if xgid is not None:
        lines.append(str(xgid))
    score = f"player 0 {state.score[0]}, player 1 {state.score[1]}"
    if state.is_money:
        kind = "money game" + ("" if xgid is None else f", jacoby {'on' if xgid.jacoby else 'off'}")
        lines.append(f"{kind}; score: {score}")
    else:
        lines.append(f"{state.match_length}-point match{', crawford game' if state.crawford else ''}; score: {score}")
    owner = "centred" if state.cube_owner is None else f"owned by {_who(state.cube_owner)}"
    lines.append(f"cube: {state.cube_value}, {owner}")
    if state.game_state is not GameState.PLAYING:
        lines.append(f"game state: {state.game_state.name.lower()}")
    elif state.doubled:
        lines.append(f"{_who(on_roll)} doubles to {state.cube_value * 2}; {_who(state.turn)} to answer")
    elif state.resignation:
        lines.append(f"{_who(on_roll)} offers to resign a {_RESIGN[state.resignation]}; {_who(state.turn)} to answer")
    elif state.dice is None:
        lines.append(f"{_who(on_roll)} to roll or double")
    else:
        lines.append(f"{_who(on_roll)} to play {max(state.dice)}-{min(state.dice)}")
    return "\n".join(lines)


def mat_check(
    path: Annotated[Path, typer.Argument(help="a Jellyfish .mat match file, or gnubg's .sgf")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> int:
    """Read a .mat (or, by its extension, .sgf) match file, replay every move and report games, score, warnings, errors.

    Warnings (a result the file writes differently from the rules, a forfeit the rules cannot end)
    are printed apart from errors. Exit status 0 when the file has no error (warnings allowed),
    1 when it has errors (the match is read up to the first), 2 when it cannot be read at all.
    """
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise InvalidInputError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    reading = load_sgf(text) if path.suffix.lower() == ".sgf" else load_mat(text)
    record = reading.record
    errors, warnings = list(reading.all_errors), list(reading.all_warnings)
    match = reading.match
    left, right = record.names
    games = []
    for game in record.games:
        winner = None if game.winner is None else (left, right)[game.winner]
        games.append({"game": game.number, "score": list(game.score), "winner": winner, "points": game.points})
    doc: dict[str, object] = {
        "file": str(path),
        "match_length": record.match_length,
        "players": [left, right],
        "games": games,
        "warnings": warnings,
        "errors": errors,
        "valid": not errors,
    }
    if match is not None:
        black, white = match.score[1], match.score[0]
        doc["final_score"] = [black, white]
        doc["finished"] = match.is_over
        doc["winner"] = None if match.winner is None else match.name_of(match.winner)
        doc["games_replayed"] = len(match.games)
    if as_json:
        print(json.dumps(doc))
        return 0 if not errors else 1
    length = "money session" if record.match_length == 0 else f"{record.match_length}-point match"
    print(f"{path}: {length}, {len(record.games)} game(s), {left} (left) vs {right} (right)")
    for g in games:
        result = "no result" if g["winner"] is None else f"{g['winner']} wins {g['points']}"
        print(f"  game {g['game']}: from {g['score'][0]}-{g['score'][1]}, {result}")  # type: ignore[index]
    if match is not None:
        status = "match over" if match.is_over else ("session" if match.is_money else "match not finished")
        final = doc["final_score"]
        upto = "" if not errors else " (replayed up to the first error)"
        print(f"final score: {left} {final[0]}, {right} {final[1]} ({status}){upto}")  # type: ignore[index]
        if match.winner is not None:
            print(f"winner: {match.name_of(match.winner)}")
    if warnings:
        print(f"{len(warnings)} warning(s):")
        for warning in warnings:
            print(f"  {warning}")
    if errors:
        print(f"{len(errors)} error(s):")
        for error in errors:
            print(f"  {error}")
        return 1
    print("valid: every move replayed through the rules" + (" (see the warnings)" if warnings else ""))
    return 0


def register(app: typer.Typer) -> None:
    app.command("mat-check")(mat_check)
