"""Jellyfish ``.mat`` match files, as GNU Backgammon and eXtreme Gammon write them.

Two layers, like python-chess's PGN support:

- **Syntax** (:func:`read_mat`): text → :class:`MatchRecord` (headers, match
  length, :class:`MatGame` objects with their :class:`MatEntry` list in
  playing order). Nothing is checked against the rules; problems are
  collected in :attr:`MatGame.errors` / :attr:`MatchRecord.errors` and the
  reader goes on, so that one bad line does not lose the rest of the file.
- **Replay** (:func:`replay`): a record → a :class:`backgammon.match.Match`,
  every move checked by the rules (a move is accepted when it produces the
  same position as a legal play). :func:`write_mat` turns a match back into
  text.

The file, as gnubg exports it::

    ; [EventDate "2026.11.29"]          optional "; [Key "value"]" headers

     5 point match                      0 for a money session

     Game 1
     Alice : 0                      Bob : 0
      1) 31: 8/5 6/5                 52: 13/8 13/11
      2)  Doubles => 2                Takes
      3) 64: 24/18 13/9              66: 24/18 24/18 13/7 13/7
     ...
          Wins 1 point

Each numbered line holds one entry of the left player (gnubg's player 0)
and one of the right player (player 1). Points are numbered from the
mover's side, the bar is 25 and off is 0, ``*`` marks a hit. Columns are
split by the entries' syntax, not by width, so XG's and Jellyfish's
layouts read as well as gnubg's.

Players: the left column is gnubg's player 0, which is
:attr:`~backgammon.game.Player.BLACK` in :mod:`backgammon.game`; the right
column is player 1, :attr:`~backgammon.game.Player.WHITE`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from backgammon.errors import BackgammonError, IllegalPlayError, InvalidInputError, InvalidPositionError
from backgammon.moves import Play, find_play, legal_plays
from backgammon.notation import parse_move_text
from backgammon.position import Position

if TYPE_CHECKING:
    from backgammon.game import Game, Rules
    from backgammon.match import Match

__all__ = [
    "EntryKind",
    "MatEntry",
    "MatGame",
    "MatchRecord",
    "check",
    "play_from_mat",
    "read_mat",
    "replay",
    "rules_for",
    "write_mat",
]

MAX_FILE_SIZE = 10_000_000  # characters


class EntryKind(Enum):
    """What a column entry of a move line records."""

    MOVE = "move"  # "52: 13/8 13/11" (possibly no move: "52: ")
    DOUBLE = "double"  # "Doubles => 2"
    TAKE = "take"  # "Takes"
    DROP = "drop"  # "Drops" (or "Passes")
    BEAVER = "beaver"  # "Beavers => 4"
    WIN = "win"  # "Wins 2 points"


@dataclass(frozen=True, slots=True)
class MatEntry:
    """One entry of one player: a roll and its move, a cube action or the win.

    ``side`` is 0 for the left column (gnubg's player 0) and 1 for the right.
    ``value`` is the cube value offered (DOUBLE), the cube after a beaver
    (BEAVER) or the points won (WIN). ``line`` is the 1-based line number.
    """

    side: int
    kind: EntryKind
    dice: tuple[int, int] | None = None
    move: str = ""
    value: int = 0
    line: int = 0

    def text(self) -> str:
        """The entry as gnubg writes it (without the column padding)."""
        if self.kind is EntryKind.MOVE:
            assert self.dice is not None
            return f"{self.dice[0]}{self.dice[1]}: {self.move}"
        if self.kind is EntryKind.DOUBLE:
            return f" Doubles => {self.value}"
        if self.kind is EntryKind.TAKE:
            return " Takes"
        if self.kind is EntryKind.DROP:
            return " Drops"
        if self.kind is EntryKind.BEAVER:
            return f" Beavers => {self.value}"
        return f" Wins {self.value} point{'s' if self.value != 1 else ''}"


@dataclass(frozen=True, slots=True)
class MatGame:
    """One game of a record: its header and entries, in playing order.

    ``names`` and ``score`` are (left, right) as in the game's header line.
    ``errors`` lists what could not be read (each with its line number).
    """

    number: int
    names: tuple[str, str]
    score: tuple[int, int]
    entries: tuple[MatEntry, ...]
    errors: tuple[str, ...] = ()
    line: int = 0

    @property
    def result(self) -> MatEntry | None:
        """The ``Wins`` entry, or None when the game has no result (yet)."""
        return next((e for e in self.entries if e.kind is EntryKind.WIN), None)

    @property
    def winner(self) -> int | None:
        """The winning side (0 = left, 1 = right), or None."""
        result = self.result
        return None if result is None else result.side

    @property
    def points(self) -> int | None:
        """The points won, or None."""
        result = self.result
        return None if result is None else result.value


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A whole ``.mat`` file, read but not checked against the rules.

    ``headers`` keeps the ``; [Key "value"]`` lines in order; ``comments`` the
    other ``;`` lines. ``match_length`` is 0 for a money session.
    """

    match_length: int
    games: tuple[MatGame, ...]
    headers: tuple[tuple[str, str], ...] = ()
    comments: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def header(self, key: str) -> str | None:
        """The value of a header (case-insensitive key), or None."""
        for k, v in self.headers:
            if k.lower() == key.lower():
                return v
        return None

    @property
    def names(self) -> tuple[str, str]:
        """The players (left, right): from the first game, else XG's Player headers."""
        if self.games:
            return self.games[0].names
        return (self.header("Player 1") or "Player 0", self.header("Player 2") or "Player 1")

    @property
    def all_errors(self) -> tuple[str, ...]:
        """The file's errors and every game's, in order."""
        out = list(self.errors)
        for game in self.games:
            out.extend(f"game {game.number}: {e}" for e in game.errors)
        return tuple(out)


# ====================================================================== reading
_HEADER = re.compile(r'^;\s*\[\s*([^\]"]*?)\s+"(.*)"\s*\]\s*$')
_LENGTH = re.compile(r"^\s*(\d{1,5})\s+points?\s+match\b.*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d{1,6})\s*$", re.IGNORECASE)
_PLAYERS = re.compile(r"^\s*(\S.*?)\s*:\s*(\d{1,6})\s+(\S.*?)\s*:\s*(\d{1,6})\s*$")
_NUMBERED = re.compile(r"^(\s*\d{1,4}\))(.*)$")
_START = re.compile(r"(?<![^\s)])(?:[1-6][1-6]:|Doubles\b|Takes\b|Drops\b|Passes\b|Beavers\b|Wins\b)", re.IGNORECASE)
_MOVE = re.compile(r"^([1-6])([1-6]):(.*)$", re.DOTALL)
_CUBE = re.compile(r"^(Doubles|Beavers)\s*=>\s*(\d{1,6})$", re.IGNORECASE)
_WIN = re.compile(r"^Wins\s+(\d{1,6})\s+points?(?:\s+and\s+the\s+match)?\.?$", re.IGNORECASE)


def read_mat(text: str) -> MatchRecord:
    """Read a ``.mat`` file into a :class:`MatchRecord` (syntax only).

    Lines that cannot be read are reported in the record's and games'
    ``errors`` and skipped.

    >>> record = read_mat(" 1 point match\\n\\n Game 1\\n A : 0   B : 0\\n  1) 31: 8/5 6/5\\n")
    >>> record.match_length, record.games[0].entries[0].move
    (1, '8/5 6/5')

    Raises:
        InvalidInputError: if the text is not a string, is too large, or has
            no ``N point match`` line.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"invalid .mat text {text!r}: expected a string")
    if len(text) > MAX_FILE_SIZE:
        raise InvalidInputError(f"invalid .mat text: {len(text)} characters, at most {MAX_FILE_SIZE} allowed")
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    headers: list[tuple[str, str]] = []
    comments: list[str] = []
    file_errors: list[str] = []
    match_length: int | None = None
    games: list[MatGame] = []
    current: _GameBuilder | None = None

    for index, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if line.lstrip().startswith(";"):
            m = _HEADER.match(line.strip())
            if m and match_length is None:
                headers.append((m.group(1), m.group(2)))
            elif match_length is None:
                comments.append(line.strip()[1:].strip())
            continue
        if match_length is None:
            m = _LENGTH.match(line)
            if m:
                match_length = int(m.group(1))
            else:
                file_errors.append(f"line {index}: expected ' N point match', got {line.strip()[:60]!r}")
            continue
        m = _GAME.match(line)
        if m:
            if current is not None:
                games.append(current.build())
            current = _GameBuilder(int(m.group(1)), index)
            continue
        if current is None:
            file_errors.append(f"line {index}: expected ' Game 1', got {line.strip()[:60]!r}")
            continue
        if current.names is None:
            m = _PLAYERS.match(line)
            if m:
                current.names = (m.group(1), m.group(3))
                current.score = (int(m.group(2)), int(m.group(4)))
                current.right_column = _column_of(raw, m.start(3))
                continue
            current.errors.append(f"line {index}: expected the players' line 'Name : score   Name : score'")
            current.names = ("", "")
        current.read_line(raw, index)
    if current is not None:
        games.append(current.build())
    if match_length is None:
        raise InvalidInputError("invalid .mat text: no ' N point match' line")
    return MatchRecord(
        match_length=match_length,
        games=tuple(games),
        headers=tuple(headers),
        comments=tuple(comments),
        errors=tuple(file_errors),
    )


def _column_of(raw: str, index: int) -> int:
    return len(raw[:index].expandtabs(8))


@dataclass
class _GameBuilder:
    number: int
    line: int
    names: tuple[str, str] | None = None
    score: tuple[int, int] = (0, 0)
    right_column: int = 32
    entries: list[MatEntry] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def build(self) -> MatGame:
        return MatGame(
            number=self.number,
            names=self.names or ("", ""),
            score=self.score,
            entries=tuple(self.entries),
            errors=tuple(self.errors),
            line=self.line,
        )

    def read_line(self, raw: str, index: int) -> None:
        m = _NUMBERED.match(raw)
        offset = 0
        body = raw
        if m:
            offset = len(m.group(1))
            body = m.group(2)
        starts = [s.start() for s in _START.finditer(body)]
        if not starts:
            if body.strip():
                self.errors.append(f"line {index}: cannot read {raw.strip()[:60]!r}")
            return
        if body[: starts[0]].strip():
            self.errors.append(f"line {index}: cannot read {body[: starts[0]].strip()[:40]!r}")
        chunks = [(s, body[s:e].strip()) for s, e in zip(starts, [*starts[1:], len(body)], strict=True)]
        if len(chunks) > 2:
            self.errors.append(f"line {index}: more than two entries in {raw.strip()[:60]!r}")
            return
        threshold = (6 + self.right_column) // 2
        for k, (start, chunk) in enumerate(chunks):
            if len(chunks) == 2:
                side = k
            else:
                side = 1 if _column_of(raw, offset + start) >= threshold else 0
            entry = _read_entry(chunk, side, index)
            if isinstance(entry, str):
                self.errors.append(f"line {index}: {entry}")
            else:
                self.entries.append(entry)


def _read_entry(chunk: str, side: int, line: int) -> MatEntry | str:
    m = _MOVE.match(chunk)
    if m:
        move = " ".join(m.group(3).split())
        try:
            parse_move_text(_normalise_move(move))
        except InvalidInputError:
            return f"cannot read the move {chunk!r}"
        dice = (int(m.group(1)), int(m.group(2)))
        return MatEntry(side, EntryKind.MOVE, dice=dice, move=move, line=line)
    word = chunk.split()[0].lower()
    m = _CUBE.match(chunk)
    if m:
        kind = EntryKind.DOUBLE if m.group(1).lower() == "doubles" else EntryKind.BEAVER
        return MatEntry(side, kind, value=int(m.group(2)), line=line)
    if chunk.lower() == "takes":
        return MatEntry(side, EntryKind.TAKE, line=line)
    if chunk.lower() in ("drops", "passes"):
        return MatEntry(side, EntryKind.DROP, line=line)
    m = _WIN.match(chunk)
    if m:
        return MatEntry(side, EntryKind.WIN, value=int(m.group(1)), line=line)
    return f"cannot read the {word!r} entry {chunk[:60]!r}"


def _normalise_move(move: str) -> str:
    """Move text in the notation :mod:`backgammon.notation` reads (``25`` = bar, ``0`` = off)."""
    return move.replace("(", " (").replace(" (", "(")


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
    d1, d2 = dice
    if plays is None:
        plays = legal_plays(position, d1, d2)
    after = _apply_steps(position, text)
    if after is not None:
        try:
            return find_play(position, d1, d2, after, plays)
        except IllegalPlayError:
            pass  # the literal steps reach no legal play: read the text as notation
    return find_play(position, d1, d2, _normalise_move(text), plays)


def _apply_steps(position: Position, text: str) -> Position | None:
    """Apply each written step literally; None when the text is not plain steps."""
    mine = list(position.mine)
    theirs = list(position.theirs)
    for token in text.split():
        repeat = 1
        m = re.fullmatch(r"(.*)\((\d)\)", token)
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
        for _ in range(repeat):
            for src, dst in itertools.pairwise(points):
                if src == 0 or dst == 25 or (dst >= src and dst != 0):
                    return None
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
    try:
        return Position(tuple(theirs), tuple(mine))
    except InvalidPositionError:
        return None


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
    from backgammon.game import MAX_CUBE, Rules, check_match_length

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


def replay(record: MatchRecord, rules: Rules | None = None) -> Match:
    """Replay a record through the rules: the resulting :class:`~backgammon.match.Match`.

    Every move must give the position of a legal play, every cube action
    must be allowed, each game's header score must agree with the replayed
    score and each ``Wins N`` with the result (a game that ends with ``Wins``
    before it is played out is a resignation by the loser, at the level that
    gives those points). The last game may be unfinished.

    ``rules`` default to :func:`rules_for`; for a money session without a
    Jacoby header the replay is tried without and then with the Jacoby rule.

    Raises:
        InvalidInputError: for a record with syntax errors, or anything the
            rules reject; the message names the game and line.
    """
    if record.all_errors:
        raise InvalidInputError(f"invalid .mat: {record.all_errors[0]}")
    if rules is not None:
        return _replay(record, rules)
    derived = rules_for(record)
    try:
        return _replay(record, derived)
    except InvalidInputError:
        if not derived.is_money or record.header("Jacoby") is not None:
            raise
        from dataclasses import replace

        try:
            return _replay(record, replace(derived, jacoby=True))
        except InvalidInputError:
            pass
        raise


def check(record: MatchRecord, rules: Rules | None = None) -> tuple[str, ...]:
    """Every problem of a record: its syntax errors, then each game's replay error.

    Unlike :func:`replay`, which stops at the first problem, each game is
    replayed on its own from the score in its header (the Crawford game is
    the first game at which a side is one point away), so that one bad game
    does not hide the others. An empty tuple means :func:`replay` succeeds.

    >>> check(read_mat(" 1 point match\\n\\n Game 1\\n A : 0   B : 0\\n  1) 31: 8/5 6/3\\n"))
    ("invalid .mat: game 1 line 5: illegal play '8/5 6/3' for roll 3-1 in position 4HPwATDgc/ABMA",)
    """
    from dataclasses import replace

    errors = list(record.all_errors)
    if rules is None:
        try:
            rules = rules_for(record)
        except InvalidInputError as exc:
            return (*errors, str(exc))
        if rules.is_money and record.header("Jacoby") is None and not errors:
            try:
                _replay(record, rules)
            except InvalidInputError:
                try:
                    _replay(record, replace(rules, jacoby=True))
                    rules = replace(rules, jacoby=True)
                except InvalidInputError:
                    pass
    length = record.match_length
    previous: MatGame | None = None
    for k, game in enumerate(record.games):
        last = k == len(record.games) - 1
        if previous is not None and previous.result is not None:
            expected = list(previous.score)
            expected[previous.result.side] += previous.result.value
            if length and max(expected) >= length:
                errors.append(f"invalid .mat: game {game.number} comes after the end of the match")
            elif tuple(expected) != game.score:
                errors.append(
                    f"invalid .mat: game {game.number} starts at {game.score[0]}-{game.score[1]} "
                    f"but the games before give {expected[0]}-{expected[1]}"
                )
        if not game.errors:
            at_crawford = bool(length) and any(0 < s == length - 1 for s in game.score)
            was_at_crawford = previous is not None and any(0 < s == length - 1 for s in previous.score)
            crawford = at_crawford and not was_at_crawford and rules.crawford_applies
            single = replace(record, games=(game,))
            try:
                _replay(single, rules, crawford_first=crawford, complete=not last)
            except InvalidInputError as exc:
                errors.append(str(exc))
        previous = game
    return tuple(errors)


def _replay(record: MatchRecord, rules: Rules, *, crawford_first: bool = False, complete: bool = False) -> Match:
    from backgammon.game import Player
    from backgammon.match import Match

    names = record.names
    white_name = names[1].strip() or "Player 1"
    black_name = names[0].strip() or "Player 0"
    first_score = record.games[0].score if record.games else (0, 0)
    try:
        match = Match.new(
            rules,
            players=(white_name, black_name),
            score=(first_score[1], first_score[0]),
            crawford_game=crawford_first,
        )
    except InvalidInputError as exc:
        raise InvalidInputError(f"invalid .mat: game {record.games[0].number}: {exc}") from None
    for number, game in enumerate(record.games):
        where = f"game {game.number}"
        if match.is_over:
            raise InvalidInputError(f"invalid .mat: {where} comes after the end of the match")
        expected = (game.score[1], game.score[0])
        if match.score != expected:
            raise InvalidInputError(
                f"invalid .mat: {where} starts at {game.score[0]}-{game.score[1]} "
                f"but the games before give {match.score[1]}-{match.score[0]}"
            )
        games_before = len(match.games)
        result_checked = False
        for entry in game.entries:
            player = Player.WHITE if entry.side == 1 else Player.BLACK
            if len(match.games) != games_before:  # the game has ended: only its result may follow
                result = match.games[-1].result
                assert result is not None
                if entry.kind is not EntryKind.WIN or result_checked:
                    raise InvalidInputError(f"invalid .mat: {where} line {entry.line}: entry after the end of the game")
                if result.winner is not player or result.points != entry.value:
                    raise InvalidInputError(
                        f"invalid .mat: {where} line {entry.line}: says {str(player).lower()} wins {entry.value} "
                        f"but the game gives {str(result.winner).lower()} {result.points}"
                    )
                result_checked = True
                continue
            try:
                match = _apply_entry(match, entry, player)
            except BackgammonError as exc:
                raise InvalidInputError(f"invalid .mat: {where} line {entry.line}: {exc}") from None
            result_checked = entry.kind is EntryKind.WIN
        last = number == len(record.games) - 1 and not complete
        if len(match.games) == games_before and not last:
            raise InvalidInputError(f"invalid .mat: {where} has no result")
        if len(match.games) != games_before and game.result is None and not last:
            raise InvalidInputError(f"invalid .mat: {where} has no 'Wins' line")
    return match


def _apply_entry(match: Match, entry: MatEntry, player: object) -> Match:
    from backgammon.game import (
        AcceptResignation,
        Beaver,
        Double,
        GamePhase,
        Move,
        OpeningRoll,
        Pass,
        Player,
        Resign,
        ResultKind,
        Roll,
        Take,
    )

    assert isinstance(player, Player)
    game = match.game
    kind = entry.kind
    if kind is EntryKind.MOVE:
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
            raise InvalidInputError(f"{str(player).lower()} is not on roll")
        play = play_from_mat(match.game.position, (high, low), entry.move, match.game.legal_plays)
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
    # WIN before the game is over: the loser resigned
    loser = player.other
    problems = []
    for level in (ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON):
        try:
            ended = match.apply(Resign(loser, level)).apply(AcceptResignation(player))
        except BackgammonError as exc:
            problems.append(str(exc))
            break
        result = ended.games[-1].result
        assert result is not None
        if result.points == entry.value:
            return ended
    detail = f" ({problems[0]})" if problems else ""
    raise InvalidInputError(
        f"{str(player).lower()} wins {entry.value} point(s) but the game is not over and no resignation "
        f"by {str(loser).lower()} gives that{detail}"
    )


# ====================================================================== writing
def write_mat(
    match: Match,
    *,
    headers: Iterable[tuple[str, str]] = (),
    comments: Iterable[str] = (),
) -> str:
    """The match as a ``.mat`` file in gnubg's layout.

    The left column is BLACK (gnubg's player 0), the right WHITE. Games
    still in progress are written without a result. Each move is written
    step by step, bar as 25 and off as 0.

    Not written, because the format has no place for them: opening-roll
    ties, resignations that were rejected, and a roll after which the player
    resigned instead of moving.

    Raises:
        InvalidInputError: if a game cannot be written: a draw or automatic
            doubles, which the format cannot hold.
    """
    from backgammon.game import Player

    out: list[str] = []
    for key, value in headers:
        out.append(f'; [{key} "{value}"]')
    for comment in comments:
        out.append(f"; {comment}")
    if out:
        out.append("")
    out.append(f" {match.match_length} point match")
    out.append("")
    games = list(match.games)
    if not match.is_over and match.game.log:
        games.append(match.game)
    black, white = match.name_of(Player.BLACK), match.name_of(Player.WHITE)
    for number, game in enumerate(games, start=1):
        if game.auto_doubles:
            raise InvalidInputError(f"game {number} has automatic doubles, which a .mat file cannot hold")
        out.append(f" Game {number}")
        left = f"{black} : {game.score[1]}"
        # the right column starts at 32, or 3 blanks after a long left name (gnubg needs the gap)
        out.append(f" {left.ljust(max(31, len(left) + 3))}{white} : {game.score[0]}")
        out.extend(_game_lines(game))
        out.append("")
    return "\n".join(out) + "\n"


def _game_lines(game: Game) -> list[str]:
    from backgammon.game import (
        Beaver,
        Double,
        Ending,
        Move,
        Pass,
        Player,
        Take,
    )

    entries: list[tuple[int, str]] = []
    for action in game.log:
        side = 1 if getattr(action, "player", None) is Player.WHITE else 0
        if isinstance(action, Move):
            play = action.play
            steps = _step_texts(play)
            text = "".join(step + (" " if k < 3 else "") for k, step in enumerate(steps))
            entries.append((side, f"{max(play.dice)}{min(play.dice)}: {text}"))
        elif isinstance(action, Double):
            entries.append((side, f" Doubles => {game_cube_after(game, action)}"))
        elif isinstance(action, Take):
            entries.append((side, " Takes"))
        elif isinstance(action, Pass):
            entries.append((side, " Drops"))
        elif isinstance(action, Beaver):
            entries.append((side, f" Beavers => {game_cube_after(game, action)}"))
    lines: list[str] = []
    slots: list[str | None] = [None, None]
    number = 0

    def flush() -> None:
        nonlocal number, slots
        if slots[0] is None and slots[1] is None:
            return
        number += 1
        left = slots[0] or ""
        right = slots[1] or ""
        lines.append(f"{number:3d}) {left:<27} {right}")
        slots = [None, None]

    for side, text in entries:
        if side == 0:
            flush()
            slots[0] = text
        else:
            if slots[1] is not None:
                flush()
            slots[1] = text
    result = game.result
    if result is not None:
        if result.winner is None or result.ending is Ending.DRAW:
            raise InvalidInputError("a drawn game cannot be written to a .mat file")
        wins = f" Wins {result.points} point{'s' if result.points != 1 else ''}"
        side = 1 if result.winner is Player.WHITE else 0
        if side == 1 and slots[0] is not None and slots[1] is None:
            slots[1] = wins + " "
            flush()
        else:
            flush()
            lines.append(("     " + wins) if side == 0 else (" " * 33 + wins))
    else:
        flush()
    return lines


def _step_texts(play: Play) -> list[str]:
    """The steps of a play, highest source first (a checker's steps stay in order), hits marked.

    The steps are those of the generator's play for the higher die first, so
    that one position is always written the same way.
    """
    high, low = max(play.dice), min(play.dice)
    canonical = play  # a Game's plays come from the generator for the dice as rolled
    if play.dice != (high, low):
        canonical = legal_plays(play.origin, high, low).get(play.position) or play
    theirs = list(play.origin.theirs)
    out = []
    for step in sorted(canonical.steps, key=lambda st: (-st.source, st.destination)):
        hit = False
        if step.destination and theirs[24 - step.destination] == 1:
            theirs[24 - step.destination] = 0
            theirs[24] += 1
            hit = True
        out.append(f"{step.source}/{step.destination}{'*' if hit else ''}")
    return out


def game_cube_after(game: Game, action: object) -> int:
    """The cube value that a Double or Beaver in ``game``'s log proposes.

    Raises:
        InvalidInputError: if the action is not in the log.
    """
    from backgammon.game import Beaver, Double, Take

    cube = 1
    for a in game.log:
        if a is action:
            return cube * 2 if isinstance(a, Double) else cube * 4
        if isinstance(a, Take):
            cube *= 2
        elif isinstance(a, Beaver):
            cube *= 4
    raise InvalidInputError("the action is not in the game's log")
