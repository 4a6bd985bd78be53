"""Replaying ``.mat`` records through the rules: tolerant of every real dialect, strict where it must be.

:func:`load_mat` reads a file (or a :class:`~backgammon.formats.mat.MatchRecord`)
and replays it the way python-chess's PGN reader reads games: a problem
does not abort the file. What the rules cannot explain is an *error*: the
match is replayed up to it, and the games after it are still replayed one
by one from the scores in their headers, to report their own problems.
What the rules can explain but the file writes differently is a
*warning*: a result scored as under money play's Jacoby rule, a result
that no rule gives in the match's last game, a forfeit written where the
loser is not on roll. :func:`replay` and :func:`check` are the strict
forms: the match, or the list of errors.

What is accepted without a warning, because real sites write it so:

- the last game's ``Wins N`` capped at what the winner needed to win the
  match, or at the match length (Galaxy, Heroes);
- a ``Wins N`` before the game is over: a resignation (or a time-out) by
  the loser at the lowest level that gives N points (capped likewise), or
  a drop when the loser was doubled and N is the cube;
- ``63: ????`` (Heroes): the roll, then that resignation or time-out.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from backgammon.errors import BackgammonError, IllegalPlayError, InvalidInputError
from backgammon.formats.mat_syntax import EntryKind, MatchRecord, MatEntry, MatGame, normalise_move, read_mat
from backgammon.game import (
    MAX_CUBE,
    AcceptResignation,
    Beaver,
    Double,
    Ending,
    GamePhase,
    Move,
    OpeningRoll,
    Pass,
    Player,
    Resign,
    ResultKind,
    Roll,
    Rules,
    Take,
    check_match_length,
)
from backgammon.match import Match
from backgammon.moves import Play, find_play, legal_plays
from backgammon.position import Position

_Steps = tuple[tuple[int, int], ...] | None  # move text as literal steps, or None

__all__ = ["GameReport", "MatReading", "check", "load_mat", "play_from_mat", "replay", "rules_for"]


# ====================================================================== moves
def play_from_mat(position: Position, dice: tuple[int, int], text: str, plays: Sequence[Play] | None = None) -> Play:
    """The legal play that ``.mat`` move text describes.

    ``position`` is seen from the mover; points are the mover's, 25 is the
    bar and 0 is off. The steps are applied one by one and the result must
    be the position of a legal play; text that leaves steps implicit
    (``13/7`` for 4-2 hitting on the way) goes through
    :func:`backgammon.notation.parse_play`. ``plays`` may pass the legal
    plays when the caller has them already.

    Raises:
        InvalidInputError: for text that is not move notation.
        IllegalPlayError: when no legal play matches.
        AmbiguousPlayError: when several legal plays match.
    """
    return _play_of(position, dice, text, plays, None)


def _play_of(
    position: Position,
    dice: tuple[int, int],
    text: str,
    plays: Sequence[Play] | None,
    known: dict[str, _Steps] | None,
) -> Play:
    """:func:`play_from_mat`; ``known`` keeps the move texts already read (one file's)."""
    d1, d2 = dice
    if plays is None:
        plays = legal_plays(position, d1, d2)
    if known is None:
        steps = _literal_steps(text)
    else:
        steps = known[text] if text in known else known.setdefault(text, _literal_steps(text))
    after = None if steps is None else _apply_steps(position, steps)
    if after is not None:
        try:
            return find_play(position, d1, d2, after, plays)
        except IllegalPlayError:
            pass  # the literal steps reach no legal play: read the text as notation
    return find_play(position, d1, d2, normalise_move(text), plays)


def _apply_steps(position: Position, steps: tuple[tuple[int, int], ...]) -> Position | None:
    """Apply each step of :func:`_literal_steps` literally; None when one cannot be played."""
    mine = list(position.mine)
    theirs = list(position.theirs)
    for src, dst in steps:
        if not mine[src - 1]:
            return None
        mine[src - 1] -= 1
        if dst:
            if theirs[24 - dst] >= 2:
                return None
            if theirs[24 - dst] == 1:
                theirs[24 - dst] = 0
                theirs[24] += 1
            mine[dst - 1] += 1
    # counts only moved between points, so the result is a board; it is only looked up among the
    # legal plays (their positions are the generator's), hence built without validation
    return Position._trusted(tuple(theirs), tuple(mine))


_REPEAT = re.compile(r"(.*)\((\d)\)")


def _literal_steps(text: str) -> _Steps:
    """The (from, to) steps that move text writes one by one, repeats expanded (25 = bar, 0 = off);
    None when the text is not plain steps or a step runs backwards."""
    steps: list[tuple[int, int]] = []
    for token in text.split():
        repeat = 1
        m = _REPEAT.fullmatch(token) if "(" in token else None
        if m:
            token, repeat = m.group(1), int(m.group(2))
        points: list[int] = []
        for part in token.split("/"):
            part = part.rstrip("*").lower()
            if part == "bar":
                points.append(25)
            elif part == "off":
                points.append(0)
            elif part.isdigit() and int(part) <= 25:
                points.append(int(part))
            else:
                return None
        if len(points) < 2:
            return None
        pairs = list(itertools.pairwise(points))
        if any(src == 0 or dst == 25 or (dst >= src and dst != 0) for src, dst in pairs):
            return None
        steps.extend(pairs * repeat)
    return tuple(steps)


# ====================================================================== replay
def rules_for(record: MatchRecord) -> Rules:
    """The rules a record is played under, from its length and XG's headers.

    ``Crawford "Off"`` turns the Crawford rule off, ``Jacoby "On"`` and
    ``Beaver "On"`` turn those on (money play), ``CubeLimit "N"`` sets the cube
    limit (1 = no cube). Without headers: the Crawford rule in matches, no
    Jacoby, beavers allowed when the file has one, no cube limit but gnubg's
    (2^15).

    Raises:
        InvalidInputError: for a variation other than standard backgammon, or
            a bad header value.
    """

    variation = (record.header("Variation") or "Backgammon").strip().lower()
    if variation not in ("backgammon", "standard", "standard backgammon"):
        raise InvalidInputError(f"unsupported variation {record.header('Variation')!r}: only standard backgammon")

    def flag(name: str, default: bool) -> bool:
        value = record.header(name)
        if value is None:
            return default
        if value.strip().lower() in ("on", "yes", "true", "1"):
            return True
        if value.strip().lower() in ("off", "no", "false", "0"):
            return False
        raise InvalidInputError(f"invalid header {name} {value!r}: expected 'On' or 'Off'")

    has_beaver = any(e.kind is EntryKind.BEAVER for g in record.games for e in g.entries)
    limit_text = record.header("CubeLimit")
    cube, cube_limit = True, MAX_CUBE
    if limit_text is not None:
        try:
            cube_limit = int(limit_text.strip())
        except ValueError:
            raise InvalidInputError(f"invalid header CubeLimit {limit_text!r}: expected a power of two") from None
        if cube_limit <= 1:
            cube, cube_limit = False, 1
        cube_limit = min(cube_limit, MAX_CUBE)
    check_match_length(record.match_length)
    return Rules(
        match_length=record.match_length,
        cube=cube,
        cube_limit=cube_limit,
        jacoby=flag("Jacoby", False),
        beavers=flag("Beaver", has_beaver) or has_beaver,
        crawford=flag("Crawford", True),
    )


# ====================================================================== results
@dataclass(frozen=True, slots=True)
class GameReport:
    """What replaying one game found: its warnings and errors, each naming its line.

    ``replayed`` is True for the games replayed in sequence from the start of
    the file, which :attr:`MatReading.match` holds (the last of them only up
    to its first error); the games after an error are replayed alone, from
    the score in their headers, to report their own problems.
    """

    number: int
    line: int
    replayed: bool
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MatReading:
    """A ``.mat`` file read and replayed as far as the rules allow.

    ``match`` is the match up to the first error (None when not even the
    first game could start: bad rules headers or score); ``games`` has one
    :class:`GameReport` a game; ``errors`` and ``warnings`` are the file's
    own (its syntax errors outside games, its rules headers).
    """

    record: MatchRecord
    match: Match | None
    games: tuple[GameReport, ...]
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def all_errors(self) -> tuple[str, ...]:
        """The file's errors, then every game's, in order."""
        return (*self.errors, *(e for g in self.games for e in g.errors))

    @property
    def all_warnings(self) -> tuple[str, ...]:
        """The file's warnings, then every game's, in order."""
        return (*self.warnings, *(w for g in self.games for w in g.warnings))

    @property
    def ok(self) -> bool:
        """True when nothing is an error (warnings allowed): :attr:`match` holds every game."""
        return not self.all_errors


def load_mat(source: str | MatchRecord, rules: Rules | None = None) -> MatReading:
    """Read and replay a ``.mat`` file, collecting every warning and error instead of stopping.

    ``source`` is the file's text or a record from :func:`read_mat`. ``rules``
    default to :func:`rules_for`; for a money session without a Jacoby header
    the replay is tried without and, if that finds problems, with the Jacoby
    rule. A game with syntax errors is not replayed; the match stops before it.

    >>> text = " 3 point match\\n\\n Game 1\\n A : 0   B : 0\\n  1) 31: 8/5 6/5\\n      Wins 4016 points\\n"
    >>> reading = load_mat(text)
    >>> reading.ok, reading.match.score, reading.all_warnings  # doctest: +NORMALIZE_WHITESPACE
    (True, (0, 0), ("game 1 line 6: 'Wins 4016' is more than the match length (3) and than any result
    with the cube at 1: a corrupt result; the game is left unfinished",))

    Raises:
        InvalidInputError: only for text that :func:`read_mat` refuses (not a
            string, too large, no ``N point match`` line).
    """
    record = read_mat(source) if isinstance(source, str) else source
    if rules is not None:
        return _load(record, rules)
    try:
        rules = rules_for(record)
    except InvalidInputError as exc:
        reports = tuple(
            GameReport(g.number, g.line, False, tuple(f"game {g.number}: {w}" for w in g.warnings), _syntax_errors(g))
            for g in record.games
        )
        return MatReading(record, None, reports, errors=(*record.errors, str(exc)))
    reading = _load(record, rules)
    if rules.is_money and record.header("Jacoby") is None and (reading.all_errors or reading.all_warnings):
        jacoby = _load(record, replace(rules, jacoby=True))
        if not jacoby.all_errors and len(jacoby.all_warnings) < len(reading.all_warnings) + len(reading.all_errors):
            return jacoby
    return reading


def replay(record: MatchRecord, rules: Rules | None = None) -> Match:
    """Replay a record through the rules: the resulting :class:`~backgammon.match.Match`.

    Strict about errors, silent about warnings (:func:`load_mat` lists
    both): every move must give the position of a legal play, every cube
    action must be allowed, each game's header score must agree with the
    replayed score. A ``Wins N`` that the rules do not give, or that comes
    where no rule can end the game in the last game, is only a warning; the
    match keeps the rules' result. The last game may be unfinished.

    ``rules`` default to :func:`rules_for`; for a money session without a
    Jacoby header the replay is tried without and then with the Jacoby rule.

    Raises:
        InvalidInputError: for a record with syntax errors, or anything the
            rules reject; the message names the game and line.
    """
    if record.all_errors:
        raise InvalidInputError(f"invalid .mat: {record.all_errors[0]}")
    if rules is None:
        rules_for(record)  # raises for bad headers, which a reading only reports
    reading = load_mat(record, rules)
    if reading.all_errors or reading.match is None:
        raise InvalidInputError(reading.all_errors[0] if reading.all_errors else "invalid .mat: no game")
    return reading.match


def check(record: MatchRecord, rules: Rules | None = None) -> tuple[str, ...]:
    """Every error of a record (warnings aside): its syntax errors, then each game's replay error.

    Unlike :func:`replay`, which stops at the first problem, the games after
    an error are replayed on their own from the score in their header (the
    Crawford game is the first game at which a side is one point away), so
    that one bad game does not hide the others. An empty tuple means
    :func:`replay` succeeds.

    >>> check(read_mat(" 1 point match\\n\\n Game 1\\n A : 0   B : 0\\n  1) 31: 8/5 6/3\\n"))
    ("invalid .mat: game 1 line 5: illegal play '8/5 6/3' for roll 3-1 in position 4HPwATDgc/ABMA",)
    """
    return load_mat(record, rules).all_errors


def _syntax_errors(game: MatGame) -> tuple[str, ...]:
    return tuple(f"game {game.number}: {e}" for e in game.errors)


def _load(record: MatchRecord, rules: Rules) -> MatReading:
    """Replay the games in sequence up to the first error, then each later game alone."""
    reports: list[GameReport] = []
    match: Match | None = None
    in_sequence = True
    known: dict[str, _Steps] = {}  # the file's move texts as steps, each read once
    alone_end: tuple[int, int] | None = None  # (white, black) after the last game replayed alone, if it ended
    for k, game in enumerate(record.games):
        last = k == len(record.games) - 1
        errors = list(_syntax_errors(game))
        warnings = [f"game {game.number}: {w}" for w in game.warnings]
        replayed = in_sequence and not errors
        if replayed:
            start, error = (match, None) if match is not None else _start(record, game, rules, crawford=False)
            if start is not None:
                match, found, error = _replay_game(start, game, last=last, lone=len(record.games) == 1, known=known)
                warnings += found
            errors += [error] if error else []
        elif not errors:
            start, error = _start(record, game, rules, crawford=_is_crawford(record, k, rules))
            errors += [error] if error else []
            if start is not None and alone_end is not None and alone_end != start.score:
                errors.append(_score_error(game, alone_end, rules))
            if start is not None:
                ended, found, error = _replay_game(start, game, last=last, lone=False, known=known)
                warnings += found
                errors += [error] if error else []
                alone_end = ended.score if not errors and len(ended.games) > len(start.games) else None
        reports.append(GameReport(game.number, game.line, replayed, tuple(warnings), tuple(errors)))
        in_sequence = replayed and not errors
        alone_end = None if in_sequence or errors else alone_end
    if not record.games:
        match, error = _start(record, None, rules, crawford=False)
        return MatReading(record, match, (), errors=(*record.errors, *([error] if error else [])))
    return MatReading(record, match, tuple(reports), errors=record.errors)


def _is_crawford(record: MatchRecord, k: int, rules: Rules) -> bool:
    """Whether game ``k``, replayed alone, is the Crawford game: the first game at which a side is one away."""
    length = record.match_length

    def one_away(score: tuple[int, int]) -> bool:
        return bool(length) and any(0 < s == length - 1 for s in score)

    previous = record.games[k - 1] if k else None
    return rules.crawford_applies and one_away(record.games[k].score) and not (previous and one_away(previous.score))


def _start(
    record: MatchRecord, game: MatGame | None, rules: Rules, *, crawford: bool
) -> tuple[Match | None, str | None]:
    """A match at ``game``'s header score (0-0 for a file with no game), or the error that prevents it."""
    from backgammon.match import Match

    left, right = record.names
    score = (0, 0) if game is None else (game.score[1], game.score[0])
    try:
        match = Match.new(
            rules,
            players=(right.strip() or "Player 1", left.strip() or "Player 0"),
            score=score,
            crawford_game=crawford,
        )
    except InvalidInputError as exc:
        return None, f"invalid .mat: game {1 if game is None else game.number}: {exc}"
    return match, None


def _score_error(game: MatGame, score: tuple[int, int], rules: Rules) -> str:
    """The error of a game whose header does not continue ``score`` (white, black)."""
    if rules.match_length and max(score) >= rules.match_length:
        return f"invalid .mat: game {game.number} comes after the end of the match"
    return (
        f"invalid .mat: game {game.number} starts at {game.score[0]}-{game.score[1]} "
        f"but the games before give {score[1]}-{score[0]}"
    )


def _replay_game(
    match: Match, game: MatGame, *, last: bool, lone: bool, known: dict[str, _Steps] | None = None
) -> tuple[Match, list[str], str | None]:
    """Apply one game's entries: (the match, the warnings, the first error or None).

    ``last``: the file's last game, which may be unfinished; ``lone``: the
    file's only game (where a Jacoby-scored result is recognised).
    """

    where = f"game {game.number}"
    if match.is_over or match.score != (game.score[1], game.score[0]):
        return match, [], _score_error(game, match.score, match.rules)
    warnings: list[str] = []
    before = len(match.games)
    wins_seen = False
    for entry in game.entries:
        if entry.kind is EntryKind.LOSS:
            continue  # the loser's note: the Wins entry says who won (Galaxy's column is not reliable)
        player = Player.WHITE if entry.side == 1 else Player.BLACK
        at = f"{where} line {entry.line}"
        if len(match.games) != before:  # the game has ended: only its result may follow
            if entry.kind is not EntryKind.WIN or wins_seen:
                return match, warnings, f"invalid .mat: {at}: entry after the end of the game"
            wins_seen = True
            problem = _result_problem(match, entry, player, lone)
            if problem:
                warnings.append(f"{at}: {problem}")
            continue
        if entry.kind is EntryKind.WIN:
            wins_seen = True
            match, problem = _forfeit(match, entry, player)
            if problem and not last:
                return match, warnings, f"invalid .mat: {at}: {problem}"
            if problem:
                warnings.append(f"{at}: {problem}; the game is left unfinished")
            continue
        try:
            match = _apply_entry(match, entry, player, known)
        except BackgammonError as exc:
            return match, warnings, f"invalid .mat: {at}: {exc}"
    if not last and len(match.games) == before:
        return match, warnings, f"invalid .mat: {where} has no result"
    if not last and not wins_seen:
        return match, warnings, f"invalid .mat: {where} has no 'Wins' line"
    return match, warnings, None


def _accepted(match_length: int, score: int, points: int) -> tuple[int, ...]:
    """The ``Wins`` values that mean ``points`` for a side at ``score``: the points, or (in a match)
    the points capped at what the side needed to win the match or at the match length."""
    if not match_length:
        return (points,)
    return (points, min(points, match_length - score), min(points, match_length))


def _name(player: Player) -> str:
    return str(player).lower()


def _result_problem(match: Match, entry: MatEntry, player: Player, lone: bool) -> str | None:
    """Why a ``Wins`` entry after a finished game disagrees with the rules' result, or None."""

    game = match.games[-1]
    result = game.result
    assert result is not None and result.winner is not None
    score = game.score[0] if result.winner is Player.WHITE else game.score[1]
    if result.winner is player and entry.value in _accepted(match.match_length, score, result.points):
        return None
    says = f"says {_name(player)} wins {entry.value} but the game gives {_name(result.winner)} {result.points}"
    if (
        lone
        and result.winner is player
        and result.ending is Ending.PLAYED
        and result.kind in (ResultKind.GAMMON, ResultKind.BACKGAMMON)
        and game.cube_owner is None
        and entry.value == result.cube_value
    ):
        kind = "gammon" if result.kind is ResultKind.GAMMON else "backgammon"
        return f"{says}: a {kind} with the cube centred scored single, as under money play's Jacoby rule"
    return says


def _forfeit(match: Match, entry: MatEntry, player: Player) -> tuple[Match, str | None]:
    """End the game by a ``Wins`` that comes before it is over: (the match, None), or (the match
    unchanged, why no rule ends the game so).

    The loser resigned (or ran out of time) at the lowest level that gives
    the points, or dropped a double worth them.
    """

    game = match.game
    loser = player.other
    score = match.score_of(player)
    wins = f"{_name(player)} wins {entry.value} point(s)"
    possible = {game.cube_value * k for k in (1, 2, game.rules.backgammon_value)}
    if match.match_length and entry.value > match.match_length and entry.value not in possible:
        return match, (
            f"'Wins {entry.value}' is more than the match length ({match.match_length}) "
            f"and than any result with the cube at {game.cube_value}: a corrupt result"
        )
    if game.turn is loser and game.phase in (GamePhase.ROLL, GamePhase.MOVE):
        for level in ResultKind:
            try:
                ended = match.apply(Resign(loser, level)).apply(AcceptResignation(player))
            except BackgammonError:  # pragma: no cover - the side to act may always resign
                break
            result = ended.games[-1].result
            assert result is not None
            if entry.value in _accepted(match.match_length, score, result.points):
                return ended, None
        if match.match_length and entry.value == match.match_length - score:
            return match, (
                f"{wins}, all it needed, but the game is not over and no resignation by {_name(loser)} gives that "
                f"(cube at {game.cube_value}): a forfeit of the match, which the rules cannot end"
            )
        return match, f"{wins} but the game is not over and no resignation by {_name(loser)} gives that"
    if (
        game.turn is loser
        and game.phase is GamePhase.DOUBLED
        and entry.value in _accepted(match.match_length, score, game.cube_value)
    ):
        return match.apply(Pass(loser)), None
    return (
        match,
        f"{wins} while {_name(loser)} is not the side to act ({game.describe()}): a forfeit the rules cannot end",
    )


def _apply_entry(match: Match, entry: MatEntry, player: Player, known: dict[str, _Steps] | None = None) -> Match:
    """Apply a move, roll or cube entry (``Wins`` and ``Losses`` are the caller's)."""

    game = match.game
    kind = entry.kind
    if kind in (EntryKind.MOVE, EntryKind.ROLL):
        assert entry.dice is not None
        high, low = max(entry.dice), min(entry.dice)
        if game.phase is GamePhase.OPENING:
            if high == low:
                raise InvalidInputError(f"the opening roll cannot be a double ({high}{low})")
            white, black = (high, low) if player is Player.WHITE else (low, high)
            match = match.apply(OpeningRoll(white, black))
        else:
            match = match.apply(Roll(player, (high, low)))
        if match.game.on_roll is not player:
            raise InvalidInputError(f"{_name(player)} is not on roll")
        if kind is EntryKind.ROLL:
            return match  # Heroes' "????": a resignation or time-out follows
        play = _play_of(match.game.position, (high, low), entry.move, match.game.legal_plays, known)
        return match.apply(Move(player, play))
    if kind is EntryKind.DOUBLE:
        if entry.value != game.cube_value * 2:
            raise InvalidInputError(f"'Doubles => {entry.value}' with the cube at {game.cube_value}")
        return match.apply(Double(player))
    if kind is EntryKind.TAKE:
        return match.apply(Take(player))
    if kind is EntryKind.DROP:
        return match.apply(Pass(player))
    if kind is EntryKind.BEAVER:
        if entry.value != game.cube_value * 4:
            raise InvalidInputError(f"'Beavers => {entry.value}' with the cube at {game.cube_value}")
        return match.apply(Beaver(player))
    raise AssertionError(f"unexpected entry {kind}")  # pragma: no cover
