"""The syntax layer of Jellyfish ``.mat`` files: text → :class:`MatchRecord`, nothing replayed.

See :mod:`backgammon.formats.mat` for the format and its dialects; this
module only reads lines into entries and collects what it cannot read in
:attr:`MatGame.errors` (and what it reads with a doubt in
:attr:`MatGame.warnings`), going on with the next line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from backgammon.errors import InvalidInputError
from backgammon.notation import parse_move_text

__all__ = ["MAX_FILE_SIZE", "EntryKind", "MatEntry", "MatGame", "MatchRecord", "normalise_move", "read_mat"]

MAX_FILE_SIZE = 10_000_000  # characters


class EntryKind(Enum):
    """What a column entry of a move line records."""

    MOVE = "move"  # "52: 13/8 13/11" (no move: "52: ", or Heroes' "52: Cannot Move")
    ROLL = "roll"  # Heroes' "52: ????": rolled, then resigned or ran out of time instead of moving
    DOUBLE = "double"  # "Doubles => 2"
    TAKE = "take"  # "Takes"
    DROP = "drop"  # "Drops" (or "Passes")
    BEAVER = "beaver"  # "Beavers => 4"
    WIN = "win"  # "Wins 2 points"
    LOSS = "loss"  # Galaxy's "Losses 2 points": the loser's note, wherever Galaxy puts it


@dataclass(frozen=True, slots=True)
class MatEntry:
    """One entry of one player: a roll and its move, a cube action or the win.

    ``side`` is 0 for the left column (gnubg's player 0) and 1 for the right.
    ``value`` is the cube value offered (DOUBLE), the cube after a beaver
    (BEAVER), the points won (WIN) or lost (LOSS). ``line`` is the 1-based
    line number. A LOSS entry's ``side`` is the column it stands in, which
    Galaxy does not always make the loser's: the ``Wins`` entry decides.
    """

    side: int
    kind: EntryKind
    dice: tuple[int, int] | None = None
    move: str = ""
    value: int = 0
    line: int = 0

    def text(self) -> str:
        """The entry as gnubg writes it (without the column padding)."""
        if self.kind in (EntryKind.MOVE, EntryKind.ROLL):
            assert self.dice is not None
            return f"{self.dice[0]}{self.dice[1]}: {self.move if self.kind is EntryKind.MOVE else '????'}"
        if self.kind is EntryKind.DOUBLE:
            return f" Doubles => {self.value}"
        if self.kind is EntryKind.TAKE:
            return " Takes"
        if self.kind is EntryKind.DROP:
            return " Drops"
        if self.kind is EntryKind.BEAVER:
            return f" Beavers => {self.value}"
        word = "Wins" if self.kind is EntryKind.WIN else "Losses"
        return f" {word} {self.value} point{'s' if self.value != 1 else ''}"


@dataclass(frozen=True, slots=True)
class MatGame:
    """One game of a record: its header and entries, in playing order.

    ``names`` and ``score`` are (left, right) as in the game's header line
    (a name may be empty). ``errors`` lists what could not be read, and
    ``warnings`` what was read with a doubt (each with its line number).
    """

    number: int
    names: tuple[str, str]
    score: tuple[int, int]
    entries: tuple[MatEntry, ...]
    errors: tuple[str, ...] = ()
    line: int = 0
    warnings: tuple[str, ...] = ()

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
        """The players (left, right): from the first game, else (or where a name is empty) XG's
        and Galaxy's Player headers; a name may still be empty."""
        left, right = self.games[0].names if self.games else ("", "")
        return (left or self.header("Player 1") or "", right or self.header("Player 2") or "")

    @property
    def all_errors(self) -> tuple[str, ...]:
        """The file's errors and every game's, in order."""
        out = list(self.errors)
        for game in self.games:
            out.extend(f"game {game.number}: {e}" for e in game.errors)
        return tuple(out)

    @property
    def all_warnings(self) -> tuple[str, ...]:
        """Every game's warnings, in order."""
        return tuple(f"game {game.number}: {w}" for game in self.games for w in game.warnings)


# ====================================================================== reading
_HEADER = re.compile(r'^;\s*\[\s*([^\]"]*?)\s+"(.*)"\s*\]\s*$')
_LENGTH = re.compile(r"^\s*(\d{1,5})\s+points?\s+match\b.*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d{1,6})\s*$", re.IGNORECASE)
_PLAYERS = re.compile(r"^\s*(\S.*?|)\s*:\s*(\d{1,6})\s+(\S.*?|)\s*:\s*(\d{1,6})\s*$")
_NUMBERED = re.compile(r"^(\s*\d{1,4}\))(.*)$")
_START = re.compile(
    r"(?<![^\s)])(?:[1-6][1-6]:|Doubles\b|Takes\b|Drops\b|Passes\b|Beavers\b|Wins\b|Losses\b)", re.IGNORECASE
)
_MOVE = re.compile(r"^([1-6])([1-6]):(.*)$", re.DOTALL)
_CUBE = re.compile(r"^(Doubles|Beavers)\s*=>\s*(\d{1,6})$", re.IGNORECASE)
_WIN = re.compile(r"^(Wins|Losses)\s+(\d{1,6})\s+points?(?:\s+and\s+the\s+match)?\.?$", re.IGNORECASE)
_LOSSES = re.compile(r"^Losses\b", re.IGNORECASE)
_REPEATED_NUMBER = re.compile(r"\s\d{1,4}\)\s*$")
_STEP = re.compile(r"([0-9]{1,2})/([0-9]{1,2})(\*?)(?:\(([0-9])\))?")
_NO_MOVE = ("cannot move",)  # Heroes: the roll has no legal play
_UNPLAYED = "????"  # Heroes: rolled, then resigned or ran out of time
_Parsed = tuple[EntryKind, tuple[int, int] | None, str, int] | str  # an entry's text read, or why not


def read_mat(text: str) -> MatchRecord:
    """Read a ``.mat`` file into a :class:`MatchRecord` (syntax only).

    Lines that cannot be read are reported in the record's and games'
    ``errors`` and skipped. Besides gnubg's and XG's layouts it reads
    Galaxy's ``Losses N points`` notes (anywhere on a line), Heroes'
    ``63: Cannot Move`` (no legal play) and ``63: ????`` (rolled, then
    resigned or timed out), and players' lines with an empty name.

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
    parsed: dict[str, _Parsed] = {}  # each distinct entry text read once per file

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
            current = _GameBuilder(int(m.group(1)), index, parsed=parsed)
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
    parsed: dict[str, _Parsed] = field(default_factory=dict)  # the file's entry texts read so far

    def build(self) -> MatGame:
        wins = [e for e in self.entries if e.kind is EntryKind.WIN]
        warnings = [
            f"line {e.line}: 'Losses {e.value}' but line {wins[0].line} says 'Wins {wins[0].value}'"
            for e in self.entries
            if e.kind is EntryKind.LOSS and wins and e.value != wins[0].value
        ]
        return MatGame(
            number=self.number,
            names=self.names or ("", ""),
            score=self.score,
            entries=tuple(self.entries),
            errors=tuple(self.errors),
            line=self.line,
            warnings=tuple(warnings),
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
        # a chunk ends where the next starts; Galaxy may repeat the move number before its Losses note
        ends = [*starts[1:], len(body)]
        chunks = []
        for s, e in zip(starts, ends, strict=True):
            piece = body[s:e]
            chunks.append((s, (_REPEATED_NUMBER.sub("", piece) if ")" in piece else piece).strip()))
        # the Losses note takes no column of its own
        placed = [c for c in chunks if c[1][0] not in "Ll" or not _LOSSES.match(c[1])]
        if len(placed) > 2:
            self.errors.append(f"line {index}: more than two entries in {raw.strip()[:60]!r}")
            return
        threshold = (6 + self.right_column) // 2
        for start, chunk in chunks:
            if len(placed) == 2 and (start, chunk) in placed:
                side = placed.index((start, chunk))
            else:
                side = 1 if _column_of(raw, offset + start) >= threshold else 0
            entry = _read_entry(chunk, side, index, self.parsed)
            if isinstance(entry, str):
                self.errors.append(f"line {index}: {entry}")
            else:
                self.entries.append(entry)


def _read_entry(chunk: str, side: int, line: int, known: dict[str, _Parsed] | None = None) -> MatEntry | str:
    """The entry ``chunk`` writes, or why it cannot be read; ``known`` keeps the texts already read."""
    parsed = None if known is None else known.get(chunk)
    if parsed is None:
        parsed = _parse_chunk(chunk)
        if known is not None:
            known[chunk] = parsed
    if isinstance(parsed, str):
        return parsed
    kind, dice, move, value = parsed
    return MatEntry(side, kind, dice=dice, move=move, value=value, line=line)


def _parse_chunk(chunk: str) -> _Parsed:
    """An entry's text read: (kind, dice, move, value), or why it cannot be read."""
    m = _MOVE.match(chunk)
    if m:
        move = " ".join(m.group(3).split())
        dice = (int(m.group(1)), int(m.group(2)))
        if move == _UNPLAYED:
            return EntryKind.ROLL, dice, "", 0
        if move.lower() in _NO_MOVE:
            move = ""
        if not _plain_steps(move):
            try:
                parse_move_text(normalise_move(move))
            except InvalidInputError:
                return f"cannot read the move {chunk!r}"
        return EntryKind.MOVE, dice, move, 0
    word = chunk.split()[0].lower()
    m = _CUBE.match(chunk)
    if m:
        kind = EntryKind.DOUBLE if m.group(1).lower() == "doubles" else EntryKind.BEAVER
        return kind, None, "", int(m.group(2))
    if chunk.lower() == "takes":
        return EntryKind.TAKE, None, "", 0
    if chunk.lower() in ("drops", "passes"):
        return EntryKind.DROP, None, "", 0
    m = _WIN.match(chunk)
    if m:
        kind = EntryKind.WIN if m.group(1).lower() == "wins" else EntryKind.LOSS
        return kind, None, "", int(m.group(2))
    return f"cannot read the {word!r} entry {chunk[:60]!r}"


def _plain_steps(move: str) -> bool:
    """True for move text made only of steps such as ``13/8``, ``6/5*`` or ``24/18(2)`` that
    :func:`~backgammon.notation.parse_move_text` accepts (a fast path: False sends the text there)."""
    count = 0
    for token in move.split():
        m = _STEP.fullmatch(token)
        if m is None:
            return False
        source, destination, repeat = int(m.group(1)), int(m.group(2)), int(m.group(4) or 1)
        if not 0 <= destination < source <= 25 or (m.group(3) and destination == 0) or not 1 <= repeat <= 4:
            return False
        count += repeat
    return count <= 4


def normalise_move(move: str) -> str:
    """Move text in the notation :mod:`backgammon.notation` reads (``25`` = bar, ``0`` = off)."""
    return move.replace("(", " (").replace(" (", "(")
