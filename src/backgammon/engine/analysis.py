"""Match analysis: every play and cube decision of both players, the engine's choice and the error.

Input: a :class:`backgammon.match.Match` (for instance replayed from a
Jellyfish ``.mat`` file by :mod:`backgammon.formats.mat`), or single
:class:`backgammon.game.Game` objects. Each game is replayed from its start
through its action log; before each action the engine judges the decision:

* **plays** (``Move``): every legal play is ranked
  (:func:`backgammon.engine.search.rank_plays`, 0-ply unless asked
  otherwise) by cubeful equity at the game's cube and score (the opponent's
  best cube action after the play, from :mod:`backgammon.engine.cube`; EMG in
  a match, so dead gammons count for nothing), as gnubg does; the error is the
  best play's equity minus the played one's. A play is *forced* when the roll
  leaves one distinct resulting position. A played move the filters dropped
  before the full depth is evaluated at the full depth to be compared (as
  gnubg does).
* **cube decisions** of the side on roll when it has one (``Double``, or
  ``Roll`` = no double), at the same depth
  (:func:`backgammon.engine.search.decide_cube`): the error is the best of no
  double / double (with the receiver's best answer) minus what the choice gives
  (:meth:`cube.CubeDecision.error`), in money equity per cube or EMG.
  There is a cube decision only where the cube is *live* for the side on roll
  (:func:`cube_is_live`): the cube is used (not a casual game), it is not
  the Crawford game, the opponent does not own it, doubling stays within the
  cube limit and, in a match, winning at the current cube does not already
  win the match. A double is always counted; a no-double is counted only when
  it was close, as gnubg counts "close or actual cube decisions": an error, or
  no double within :data:`CLOSE_CUBE` of the double (with the receiver's
  best answer).
* **take decisions** (``Take``/``Pass``/``Beaver`` counted as a take): the
  receiver's loss against its best answer; always counted.

Per player (:class:`PlayerTotals`), as gnubg and eXtreme Gammon define them:
the **error rate** is the equity lost per counted decision (unforced plays
plus counted cube and take decisions), and the **PR** (performance rating)
is that times 500 (gnubg prints it per 1000, in "mEMG": PR = mEMG / 2).
Checker and cube figures are also given apart: ``pr_checker`` over the
unforced plays, ``pr_cube`` over the counted cube and take decisions.
Optional **luck**: for each roll, the equity of the best play for the roll
actually rolled minus the average over all 36 rolls (positive: a lucky roll).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backgammon.dice import ALL_36
from backgammon.engine.cube import CubeInfo, CubeOwner
from backgammon.engine.search import CUBELESS, EvalContext, decide_cube, equity_label, evaluate_play, rank_plays
from backgammon.errors import InvalidInputError
from backgammon.position import Position

CLOSE_CUBE = 0.16
"""A no-double counts as a cube decision when no double and double are this close (gnubg's "close" margin)
or when it was an error."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision. ``player`` is the game's Player; equities from the decider's side."""

    game: int
    index: int  # position of the action in the game's log
    player: Any
    kind: str  # "play", "cube" or "take"
    position_id: str
    dice: tuple[int, int] | None
    chosen: str
    best: str
    chosen_equity: float
    best_equity: float
    error: float
    forced: bool = False
    luck: float | None = None
    plies: int = 0  # the depth the equities were evaluated at
    equity_kind: str = CUBELESS  # "cubeless", "cubeful money" or "cubeful match" (EMG)
    win: float | None = None  # the decider's winning chance after the choice made (cubeless, at ``plies``)

    @property
    def equity_label(self) -> str:
        """Depth and kind of the equities, as shown to users (``"1-ply cubeful match, EMG"``)."""
        return equity_label(self.plies, self.equity_kind)


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """A player's totals over the analysed games."""

    name: str
    decisions: int
    unforced: int
    total_error: float
    play_error: float
    cube_error: float
    errors: int  # decisions with an error above 0.02 (gnubg's "doubtful" threshold is 0.04)
    luck: float | None
    unforced_plays: int = 0  # plays with more than one distinct result
    cube_decisions: int = 0  # counted cube and take decisions (gnubg's "close or actual")

    @property
    def error_per_decision(self) -> float:
        """Mean equity lost per counted decision (unforced plays, counted cube and take decisions)."""
        return self.total_error / self.unforced if self.unforced else 0.0

    @property
    def pr(self) -> float:
        """PR (eXtreme Gammon's performance rating): mean error per counted decision x 500."""
        return 500.0 * self.error_per_decision

    @property
    def pr_checker(self) -> float:
        """PR of the checker play alone: mean error per unforced play x 500."""
        return 500.0 * self.play_error / self.unforced_plays if self.unforced_plays else 0.0

    @property
    def pr_cube(self) -> float:
        """PR of the cube alone: mean error per counted cube or take decision x 500."""
        return 500.0 * self.cube_error / self.cube_decisions if self.cube_decisions else 0.0


@dataclass(frozen=True, slots=True)
class MatchReport:
    """All decisions and the totals of both players (keyed by the game module's Player)."""

    decisions: tuple[Decision, ...]
    totals: dict[Any, PlayerTotals] = field(default_factory=dict)
    match_length: int = 0
    final_score: tuple[int, int] = (0, 0)


def _cube_info(game: Any, player: Any) -> CubeInfo:
    from backgammon.game import Player, cube_owner_seen_by

    owner = CubeOwner(cube_owner_seen_by(game.cube_owner, player))
    rules = game.rules
    if rules.match_length == 0:
        return CubeInfo.money(value=game.cube_value, owner=owner, jacoby=bool(rules.jacoby))
    white, black = game.score
    mine, theirs = (white, black) if player is Player.WHITE else (black, white)
    away_me, away_opp = rules.match_length - mine, rules.match_length - theirs
    crawford = bool(game.crawford_game)
    post = not crawford and 1 in (away_me, away_opp) and bool(getattr(rules, "crawford", True))
    limit = getattr(rules, "cube_limit", 64)
    return CubeInfo(
        value=game.cube_value,
        owner=owner,
        away=(away_me, away_opp),
        crawford=crawford,
        post_crawford=post,
        limit=limit,
    )


def cube_is_live(cube: CubeInfo) -> bool:
    """Whether the side on roll has a real cube decision (see the module's notes).

    False where it may not double (Crawford game, the opponent owns the cube,
    the cube limit) and, in a match, where the cube is dead for it: winning at
    the current cube value already wins the match, so doubling can only cost.

    >>> cube_is_live(CubeInfo.match(2, 5, value=2, owner=CubeOwner.ME))
    False
    >>> cube_is_live(CubeInfo.match(3, 5, value=2, owner=CubeOwner.ME))
    True
    """
    if not cube.may_double():
        return False
    return cube.away is None or cube.away[0] > cube.value


def _luck(position: Position, dice: tuple[int, int], evaluator: Any, plies: int, cache: dict[Any, float]) -> float:
    def best(d: tuple[int, int]) -> float:
        key = (position, min(d), max(d))
        if key not in cache:
            cache[key] = rank_plays(position, d, EvalContext(evaluator, plies))[0].equity
        return cache[key]

    mean = sum(best(roll) for roll in ALL_36) / 36
    return best(dice) - mean


def analyze_game(
    game: Any,
    evaluator: Any,
    game_number: int = 1,
    plies: int = 0,
    luck: bool = False,
    cubeful: bool = True,
    start: Any = None,
    progress: Callable[[int], None] | None = None,
) -> list[Decision]:
    """Judge every decision of a game (finished or not), replaying it from its start.

    ``cubeful``: judge plays by cubeful equity at the game's cube and score
    (default), else by cubeless money equity. ``start``: the game's state before its
    first action when it did not start from the opening (a Game from ``Game.from_position``).
    ``progress``: called with the number of the game's actions judged so far, after each
    action (for a progress bar; an exception it raises stops the analysis).

    Raises:
        InvalidInputError: if the game's log does not replay (it always does for a Game built by apply).
    """
    from backgammon.game import Beaver, Double, Game, GamePhase, Move, Pass, Roll, Take

    g = start if start is not None else Game.new(game.rules, score=game.score, crawford_game=game.crawford_game)
    out: list[Decision] = []
    pending = None  # the cube decision of the side that just doubled
    cache: dict[Any, float] = {}
    for index, action in enumerate(game.log):
        if isinstance(action, Move) and g.phase is GamePhase.MOVE and g.dice is not None:
            position = g.position
            cube = _cube_info(g, action.player) if cubeful else None
            ranked = rank_plays(position, g.dice, EvalContext(evaluator, plies, cube))
            chosen = next((r for r in ranked if r.play == action.play), None)
            if chosen is None:
                raise InvalidInputError(f"play {str(action.play)!r} is not legal in {position.position_id()!r}")
            if chosen.plies != ranked[0].plies:  # dropped by the filters: judge it at the full depth
                chosen = evaluate_play(chosen.play, EvalContext(evaluator, plies, cube))
            best = ranked[0]
            out.append(
                Decision(
                    game=game_number,
                    index=index,
                    player=action.player,
                    kind="play",
                    position_id=position.position_id(),
                    dice=g.dice,
                    chosen=str(action.play),
                    best=str(ranked[0].play),
                    chosen_equity=chosen.equity,
                    best_equity=best.equity,
                    error=max(0.0, best.equity - chosen.equity),
                    forced=len(ranked) == 1,
                    luck=_luck(position, g.dice, evaluator, plies, cache) if luck else None,
                    plies=chosen.plies,
                    equity_kind=chosen.kind,
                    win=chosen.probabilities.win,
                )
            )
        elif (
            isinstance(action, (Roll, Double))
            and g.phase is GamePhase.ROLL
            and g.rules.uses_cube
            and g.may_double(action.player)
        ):
            position = g.position
            info = _cube_info(g, action.player)
            doubled = isinstance(action, Double)
            if doubled or cube_is_live(info):
                analysed = decide_cube(position, EvalContext(evaluator, plies, info))
                decision = analysed.decision
                error, _ = decision.error(doubled)
                best_double = min(decision.double_take, decision.double_pass)
                close = abs(decision.no_double - best_double) < CLOSE_CUBE
                if doubled or error > 0 or close:
                    out.append(
                        Decision(
                            game=game_number,
                            index=index,
                            player=action.player,
                            kind="cube",
                            position_id=position.position_id(),
                            dice=None,
                            chosen="double" if doubled else "no double",
                            best=decision.action.value,
                            chosen_equity=best_double if doubled else decision.no_double,
                            best_equity=max(decision.no_double, best_double),
                            error=error,
                            plies=analysed.plies,
                            equity_kind=analysed.kind,
                            win=analysed.probabilities.win,
                        )
                    )
                pending = analysed if doubled else None
        elif isinstance(action, (Take, Pass, Beaver)) and pending is not None:
            took = not isinstance(action, Pass)
            decision = pending.decision
            _, receiver_error = decision.error(True, took)
            got = decision.double_take if took else decision.double_pass
            best_answer = min(decision.double_take, decision.double_pass)
            out.append(
                Decision(
                    game=game_number,
                    index=index,
                    player=action.player,
                    kind="take",
                    position_id=g.position.position_id(),
                    dice=None,
                    chosen="take" if took else "pass",
                    best="take" if decision.take else "pass",
                    chosen_equity=-got,
                    best_equity=-best_answer,
                    error=receiver_error or 0.0,
                    plies=pending.plies,
                    equity_kind=pending.kind,
                    win=1.0 - pending.probabilities.win,
                )
            )
            pending = None
        g = g.apply(action)
        if progress is not None:
            progress(index + 1)
    return out


def analyze_match(match: Any, evaluator: Any, plies: int = 0, luck: bool = False, cubeful: bool = True) -> MatchReport:
    """Judge every decision of every game of a match (``backgammon.match.Match``)."""
    decisions: list[Decision] = []
    for number, game in enumerate(match_games(match), 1):
        decisions.extend(analyze_game(game, evaluator, number, plies, luck, cubeful))
    return match_report(match, decisions)


def match_games(match: Any) -> list[Any]:
    """The games of a match to analyse: the finished ones, and the current one once it has moves."""
    games = list(match.games)
    if match.game is not None and match.game not in games and match.game.log:
        games.append(match.game)
    return games


def match_report(match: Any, decisions: Sequence[Decision]) -> MatchReport:
    """The report of a match from its judged decisions (totals per player)."""
    from backgammon.game import Player

    names = {Player.WHITE: match.players[0], Player.BLACK: match.players[1]}
    return MatchReport(
        decisions=tuple(decisions),
        totals={p: totals(decisions, p, names[p]) for p in (Player.WHITE, Player.BLACK)},
        match_length=match.rules.match_length,
        final_score=tuple(match.score),
    )


def totals(decisions: Iterable[Decision], player: Any, name: str) -> PlayerTotals:
    """Totals of one player's decisions."""
    mine = [d for d in decisions if d.player == player]
    unforced = [d for d in mine if not d.forced]
    lucks = [d.luck for d in mine if d.luck is not None]
    plays = sum(1 for d in unforced if d.kind == "play")
    return PlayerTotals(
        name=name,
        decisions=len(mine),
        unforced=len(unforced),
        total_error=sum(d.error for d in unforced),
        play_error=sum(d.error for d in unforced if d.kind == "play"),
        cube_error=sum(d.error for d in unforced if d.kind != "play"),
        errors=sum(1 for d in unforced if d.error > 0.02),
        luck=sum(lucks) if lucks else None,
        unforced_plays=plays,
        cube_decisions=len(unforced) - plays,
    )


def analyze_mat_file(path: str | Path, evaluator: Any, plies: int = 0, luck: bool = False) -> MatchReport:
    """Read a Jellyfish ``.mat`` file, replay it and analyse it.

    Raises:
        InvalidInputError: if the file cannot be read or replayed.
    """
    from backgammon.formats import mat

    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInputError(f"cannot read match file {str(path)!r}: {exc.strerror or exc}") from None
    match = mat.replay(mat.read_mat(text))
    return analyze_match(match, evaluator, plies, luck)


def report_json(report: MatchReport) -> dict[str, Any]:
    """A report as JSON-ready data. The PRs are sent unrounded: a reader that shows them to one decimal
    rounds once (a PR rounded to 2 decimals first, such as 26.2496 to 26.25, would show 26.3)."""
    return {
        "match_length": report.match_length,
        "final_score": list(report.final_score),
        "players": {
            str(p): {
                "name": t.name,
                "decisions": t.decisions,
                "unforced": t.unforced,
                "total_error": round(t.total_error, 4),
                "play_error": round(t.play_error, 4),
                "cube_error": round(t.cube_error, 4),
                "error_per_decision": round(t.error_per_decision, 5),
                "pr": t.pr,
                "unforced_plays": t.unforced_plays,
                "cube_decisions": t.cube_decisions,
                "pr_checker": t.pr_checker,
                "pr_cube": t.pr_cube,
                "errors": t.errors,
                **({"luck": round(t.luck, 4)} if t.luck is not None else {}),
            }
            for p, t in report.totals.items()
        },
        "decisions": [
            {
                "game": d.game,
                "index": d.index,
                "player": str(d.player),
                "kind": d.kind,
                "position_id": d.position_id,
                "dice": list(d.dice) if d.dice else None,
                "chosen": d.chosen,
                "best": d.best,
                "chosen_equity": round(d.chosen_equity, 4),
                "best_equity": round(d.best_equity, 4),
                "error": round(d.error, 4),
                "forced": d.forced,
                "plies": d.plies,
                "equity_kind": d.equity_kind,
                "equity_label": d.equity_label,
                **({"luck": round(d.luck, 4)} if d.luck is not None else {}),
                **({"win": round(d.win, 4)} if d.win is not None else {}),
            }
            for d in report.decisions
        ],
    }


def report_text(report: MatchReport, errors_only: bool = False, threshold: float = 0.02) -> str:
    """A report as text: the decisions (or only the errors) and the totals per player."""
    labels = sorted({d.equity_label for d in report.decisions})
    lines = [f"equities: {'; '.join(labels)}"] if labels else []
    for d in report.decisions:
        if errors_only and d.error <= threshold:
            continue
        dice = f"{d.dice[0]}{d.dice[1]}" if d.dice else "  "
        mark = "  ??" if d.error > 0.08 else "  ?" if d.error > threshold else ""
        best = "" if d.chosen == d.best or d.error == 0 else f"  (best: {d.best})"
        lines.append(
            f"g{d.game:<3}{d.index:>4} {d.player!s:<6} {d.kind:<5} {dice} {d.chosen or '(no move)':<24}"
            f" err {d.error:.3f}{mark}{best}"
        )
    lines.append("")
    lines.append(
        f"{'player':<20}{'decisions':>10}{'counted':>9}{'error':>9}{'per dec.':>10}"
        f"{'PR':>7}{'checker':>9}{'cube':>7}{'luck':>8}"
    )
    for t in report.totals.values():
        luck = f"{t.luck:>+8.3f}" if t.luck is not None else f"{'':>8}"
        lines.append(
            f"{t.name:<20}{t.decisions:>10}{t.unforced:>9}{t.total_error:>9.3f}{t.error_per_decision:>10.4f}"
            f"{t.pr:>7.1f}{t.pr_checker:>9.1f}{t.pr_cube:>7.1f}{luck}"
        )
    lines.append(
        "counted: unforced plays and close or actual cube decisions; PR = error per counted decision x 500"
        " (checker: per unforced play; cube: per counted cube or take decision)"
    )
    return "\n".join(lines)


def _both(report: MatchReport) -> tuple[int, float]:
    """Counted decisions and total error of both players of a report."""
    return sum(t.unforced for t in report.totals.values()), sum(t.total_error for t in report.totals.values())


def batch_json(
    done: Sequence[tuple[str, MatchReport, float]], failed: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    """Several files' reports (``(path, report, seconds)``, the seconds left out) and the files that could
    not be analysed (``(path, error)``) as JSON-ready data, with the total over both players of every file."""
    counted = sum(_both(r)[0] for _, r, _ in done)
    error = sum(_both(r)[1] for _, r, _ in done)
    per = error / counted if counted else 0.0
    return {
        "files": [{"path": path, **report_json(report)} for path, report, _ in done],
        "errors": [{"path": path, "error": message} for path, message in failed],
        "total": {
            "files": len(done),
            "decisions": sum(len(r.decisions) for _, r, _ in done),
            "unforced": counted,
            "total_error": round(error, 4),
            "error_per_decision": round(per, 5),
            "pr": 500.0 * per,
        },
    }


def batch_text(done: Sequence[tuple[str, MatchReport, float]]) -> str:
    """One line per analysed file (``(path, report, seconds)``) and the total: each player's PR, both
    players' counted decisions, error and PR, and the seconds the file's analysis took."""
    lines = [
        f"{'file':<32}{'length':>7}{'counted':>9}{'error':>9}{'PR':>7}  {'players (PR)':<40}{'seconds':>9}",
    ]
    all_counted, all_error, all_seconds = 0, 0.0, 0.0
    for path, report, seconds in done:
        counted, error = _both(report)
        all_counted, all_error, all_seconds = all_counted + counted, all_error + error, all_seconds + seconds
        pr = 500.0 * error / counted if counted else 0.0
        players = ", ".join(f"{t.name} {t.pr:.1f}" for t in report.totals.values())
        length = str(report.match_length) if report.match_length else "money"
        lines.append(
            f"{Path(path).name[-32:]:<32}{length:>7}{counted:>9}{error:>9.3f}{pr:>7.1f}  "
            f"{players[:40]:<40}{seconds:>9.2f}"
        )
    pr = 500.0 * all_error / all_counted if all_counted else 0.0
    name = f"total ({len(done)} file{'s' if len(done) != 1 else ''})"
    lines.append(f"{name:<32}{'':>7}{all_counted:>9}{all_error:>9.3f}{pr:>7.1f}  {'':<40}{all_seconds:>9.2f}")
    return "\n".join(lines)


__all__ = [
    "CLOSE_CUBE",
    "Decision",
    "MatchReport",
    "PlayerTotals",
    "analyze_game",
    "analyze_mat_file",
    "analyze_match",
    "batch_json",
    "batch_text",
    "cube_is_live",
    "match_games",
    "match_report",
    "report_json",
    "report_text",
    "totals",
]
