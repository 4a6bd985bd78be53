"""Format subcommands: ``mat-check`` (any match or position file), ``sgf-write``, and the IDs ``show`` accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from backgammon.errors import InvalidInputError
from backgammon.formats.analysis import CubeAnalysis, DecisionAnalysis
from backgammon.formats.analysis import CubeAnalysis as _Cube
from backgammon.formats.analysis import Evaluation as _Evaluation
from backgammon.formats.analysis import PlayAnalysis as _Play
from backgammon.formats.analysis import RankedPlay as _Ranked
from backgammon.formats.files import FORMATS, MatchFile
from backgammon.formats.match_id import GameState, MatchState, parse_gnubg_id
from backgammon.formats.xgid import Xgid
from backgammon.position import Position
from backgammon.render import ascii_board

if TYPE_CHECKING:
    from backgammon.match import Match

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
    path: Annotated[Path, typer.Argument(help="a match or position file: .mat, .sgf, .xg, .xgp, .pos")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    analysis: Annotated[
        bool, typer.Option("--analysis", help="print the analysis the file carries (XG's, gnubg's)")
    ] = False,
    plies: Annotated[
        int | None,
        typer.Option("--plies", help="with --analysis: also judge each decision with this engine at this depth"),
    ] = None,
) -> int:
    """Read a match or position file of any format, replay every move and report games, score, warnings, errors.

    The format is told from the content (and the extension): Jellyfish .mat, gnubg's .sgf, eXtreme Gammon's
    .xg and .xgp, Jellyfish .pos. Warnings (a result the file writes differently from the rules, a forfeit
    the rules cannot end) are printed apart from errors. ``--analysis`` prints the file's own analysis of
    each decision, and with ``--plies`` this program's beside it. Exit status 0 when the file has no error
    (warnings allowed), 1 when it has errors (the match is read up to the first), 2 when it cannot be read
    at all.
    """
    from backgammon.formats.files import read_match_file

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    if plies is not None and plies not in (0, 1, 2):
        raise InvalidInputError(f"invalid plies {plies!r}: expected 0, 1 or 2")
    read = read_match_file(data, path.name)
    if read.position is not None:
        return _position_report(path, read, as_json, analysis)
    reading = read.reading
    assert reading is not None
    record = reading.record
    errors, warnings = list(read.errors), list(read.warnings)
    match = reading.match
    left, right = record.names
    games = []
    for game in record.games:
        winner = None if game.winner is None else (left, right)[game.winner]
        games.append({"game": game.number, "score": list(game.score), "winner": winner, "points": game.points})
    doc: dict[str, object] = {
        "file": str(path),
        "format": read.format,
        "match_length": record.match_length,
        "players": [left, right],
        "games": games,
        "warnings": warnings,
        "errors": errors,
        "valid": not errors,
        "analysed_decisions": len(read.analysis),
    }
    if match is not None:
        black, white = match.score[1], match.score[0]
        doc["final_score"] = [black, white]
        doc["finished"] = match.is_over
        doc["winner"] = None if match.winner is None else match.name_of(match.winner)
        doc["games_replayed"] = len(match.games)
    lines = _analysis_lines(read, plies) if analysis else []
    if as_json:
        if analysis:
            doc["analysis"] = lines
        print(json.dumps(doc))
        return 0 if not errors else 1
    length = "money session" if record.match_length == 0 else f"{record.match_length}-point match"
    kind = "" if read.format == "mat" else f" ({FORMATS[read.format]})"
    print(f"{path}{kind}: {length}, {len(record.games)} game(s), {left} (left) vs {right} (right)")
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
    if read.analysis:
        print(f"the file carries {_source(read)}'s analysis of {len(read.analysis)} decision(s)")
    for line in lines:
        print(line)
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


def _source(read: MatchFile) -> str:
    return next((a.source for a in read.analysis if a.source), "the program")


def _position_report(path: Path, read: MatchFile, as_json: bool, analysis: bool) -> int:
    assert read.position is not None
    position, state = read.position.position, read.position.state
    try:
        xgid: Xgid | None = Xgid.from_gnubg(position, state)
    except InvalidInputError:
        xgid = None
    lines = [_describe_analysis(a, None) for a in read.analysis] if analysis else []
    if as_json:
        doc = {
            "file": str(path),
            "format": read.format,
            "gnubg_id": f"{position.position_id()}:{state.match_id()}",
            "xgid": None if xgid is None else str(xgid),
            "players": list(read.position.names),
            "analysed_decisions": len(read.analysis),
            "warnings": list(read.warnings),
            "errors": list(read.errors),
        }
        if analysis:
            doc["analysis"] = lines
        print(json.dumps(doc))
        return 0
    print(f"{path} ({FORMATS[read.format]}): a position")
    print(_render(position, state, xgid))
    for line in lines:
        print(line)
    return 0


def _describe_analysis(item: DecisionAnalysis, ours: DecisionAnalysis | None) -> str:
    """One decision's analysis from the file (and ours beside it), on one line."""
    parts = [f"game {item.game} entry {item.entry + 1}:"]
    if item.cube is not None:
        parts.append(f"cube {_cube_text(item.source, item.cube)}")
        if ours is not None and ours.cube is not None:
            parts.append(f"| ours {_cube_text('', ours.cube)}")
    if item.play is not None and item.play.plays:
        if item.cube is not None:
            parts.append("--")
        parts.append(_play_text(f"play {item.source} ", item.play, name_played=True))
        if ours is not None and ours.play is not None and ours.play.plays:
            parts.append(_play_text("| ours ", ours.play, name_played=False))
    return " ".join(parts)


def _play_text(who: str, play: _Play, name_played: bool) -> str:
    """One analysis of a play (the file's or ours): ``who``, the depth, the best play and the one played
    (named when ``name_played``: beside the file's line, ours leaves out the name of the same play)."""
    best = play.plays[0]
    played = None if play.played is None else play.plays[play.played]
    error = play.error()
    text = f"{who}({best.evaluation.depth}): best {best.move} {best.evaluation.equity:+.3f}"
    if played is not None:
        text += f", played {played.move + ' ' if name_played else ''}{played.evaluation.equity:+.3f}"
    return text + ("" if error is None else f" (error {error:.3f})")


def _cube_text(source: str, cube: CubeAnalysis) -> str:
    who = f"{source} " if source else ""
    if cube.no_double is not None and cube.double_take is not None:
        figures = f"no double {cube.no_double:+.3f}, double/take {cube.double_take:+.3f}"
    elif cube.mwc is not None:
        figures = f"no double {cube.mwc[0]:.1%}, double/take {cube.mwc[1]:.1%} (match-winning chances)"
    else:
        figures = "no figures"
    return f"{who}({cube.depth}): {figures}; {cube.best or 'right action unknown'}"


def _analysis_lines(read: MatchFile, plies: int | None) -> list[str]:
    """The file's analysis, one line a decision, with this program's beside it when ``plies`` is given."""
    ours: dict[tuple[int, int], DecisionAnalysis] = {}
    if plies is not None and read.reading is not None and read.reading.match is not None:
        from backgammon.formats.analysis import entry_actions

        match = read.reading.match
        mine = {(a.game, a.action): a for a in engine_analysis(match, plies)}
        games = list(match.games) + ([match.game] if not match.is_over and match.game.log else [])
        for number, (record_game, game) in enumerate(zip(read.reading.record.games, games, strict=False), start=1):
            for entry, action in entry_actions(record_game.entries, game.log).items():
                if (number, action) in mine:
                    ours[(number, entry)] = mine[(number, action)]
    return [_describe_analysis(a, ours.get((a.game, a.entry))) for a in read.analysis]


def engine_analysis(match: Match, plies: int = 0) -> list[DecisionAnalysis]:
    """This program's analysis of every play and live cube decision of a match, as plain data for the formats.

    Each item names the ``Move`` (its ranked plays at ``plies``, and the
    no-double cube decision before its roll when the cube was live) or the
    ``Double`` it judges by its index in the game's log (``action``).
    Cube figures are money equity per cube or EMG, with match-winning
    chances beside them in a match.
    """
    from backgammon.cli.engine_cmds import load_evaluator
    from backgammon.engine.analysis import _cube_info, cube_is_live, match_games
    from backgammon.engine.search import EvalContext, decide_cube, rank_plays
    from backgammon.game import Double, Game, GamePhase, Move, Roll

    evaluator = load_evaluator()
    depth = f"{plies}-ply"
    out: list[DecisionAnalysis] = []
    for number, game in enumerate(match_games(match), start=1):
        g = Game.new(game.rules, score=game.score, crawford_game=game.crawford_game)
        pending: _Cube | None = None
        for index, action in enumerate(game.log):
            if isinstance(action, (Roll, Double)) and g.phase is GamePhase.ROLL and g.rules.uses_cube:
                pending = None
                if g.may_double(action.player):
                    info = _cube_info(g, action.player)
                    if isinstance(action, Double) or cube_is_live(info):
                        analysed = decide_cube(g.position, EvalContext(evaluator, plies, info))
                        d = analysed.decision
                        p = analysed.probabilities
                        mwc = None
                        if d.no_double_mwc is not None and d.double_take_mwc is not None:
                            mwc = (d.no_double_mwc, d.double_take_mwc)
                        pending = _Cube(
                            d.no_double,
                            d.double_take,
                            d.double_pass,
                            (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon),
                            depth,
                            mwc=mwc,
                            cubeless=d.cubeless_equity,
                        )
                        if isinstance(action, Double):
                            out.append(DecisionAnalysis(number, -1, None, pending, "backgammon", action=index))
                            pending = None
            elif isinstance(action, Move) and g.phase is GamePhase.MOVE and g.dice is not None:
                ranked = rank_plays(g.position, g.dice, EvalContext(evaluator, plies, _cube_info(g, action.player)))
                plays = tuple(
                    _Ranked(
                        str(r.play),
                        _Evaluation(
                            r.equity,
                            (
                                r.probabilities.win,
                                r.probabilities.win_gammon,
                                r.probabilities.win_backgammon,
                                r.probabilities.lose_gammon,
                                r.probabilities.lose_backgammon,
                            ),
                            f"{r.plies}-ply",
                        ),
                    )
                    for r in ranked
                )
                played = next((k for k, r in enumerate(ranked) if r.play == action.play), None)
                play = _Play(g.dice, plays, played) if action.play.steps else None
                if play is not None or pending is not None:
                    out.append(DecisionAnalysis(number, -1, play, pending, "backgammon", action=index))
                pending = None
            g = g.apply(action)
    return out


def sgf_write(
    path: Annotated[Path, typer.Argument(help="a match file: .mat, .sgf, .xg")],
    out: Annotated[Path, typer.Argument(help="the SGF file to write")],
    plies: Annotated[int, typer.Option("--plies", help="depth of this program's analysis (0, 1 or 2)")] = 0,
    bare: Annotated[bool, typer.Option("--no-analysis", help="write the moves only")] = False,
) -> int:
    """Write a match as gnubg's SGF with this program's analysis (ranked plays and cube decisions), which gnubg
    shows when it opens the file."""
    from backgammon.formats.files import read_match_file
    from backgammon.formats.sgf import write_sgf

    if plies not in (0, 1, 2):
        raise InvalidInputError(f"invalid plies {plies!r}: expected 0, 1 or 2")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    read = read_match_file(data, path.name)
    if read.match is None:
        raise InvalidInputError(f"{str(path)!r} holds no match to write (a position file, or no game could start)")
    if not read.match.games and not read.match.game.log:
        raise InvalidInputError(f"{str(path)!r} holds no game with moves to write")
    if read.errors:
        print(f"note: the match is written up to its first error: {read.errors[0]}")
    analysis = [] if bare else engine_analysis(read.match, plies)
    text = write_sgf(read.match, analysis)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(f"cannot write {str(out)!r}: {exc.strerror or exc}") from None
    judged = sum(1 for a in analysis if a.play) + sum(1 for a in analysis if a.cube)
    print(
        f"wrote {out}: {len(read.match.games) + (0 if read.match.is_over else 1)} game(s), {judged} judged decision(s)"
    )
    return 0


def register(app: typer.Typer) -> None:
    app.command("mat-check")(mat_check)
    app.command("sgf-write")(sgf_write)
