"""eXtreme Gammon's match (``.xg``) and position (``.xgp``) files, read with XG's analysis.

The format is published by XG's author (extremegammon.com/xgformat.aspx:
``XG_format.pas`` and ``ZLibArchive.pas``). Facts used here, all little-endian:

- **Container**: an 8,232-byte ``TRichGameHeader`` (magic ``RGMH``, the
  thumbnail's size at byte 20, four 1,024-character UTF-16 strings), a JPEG
  thumbnail, then a ZLB archive.
- **ZLB archive**: ends with a 36-byte record (CRC-32 of everything before
  it, file count, version, registry size, registry offset, a "registry is
  compressed" flag); the registry (zlib-packed when flagged) holds one
  532-byte entry per file: name and path as Pascal short strings (256
  bytes each), unpacked size, packed size, offset, CRC, status (0 = packed
  with zlib, 1 = stored) and level. The files are ``temp.xgi`` (a copy of
  the first and last records), ``temp.xg`` (the records), ``temp.xgr``
  (rollouts) and ``temp.xgc`` (comments).
- **Records** (``TSaveRec``, 2,560 bytes each, Delphi's natural alignment):
  an entry type at byte 8 (0 match header, 1 game header, 2 cube, 3 move,
  4 game footer, 5 match footer), then that type's fields. Positions
  (``PositionEngine``) are 26 signed bytes from the side on roll: index
  1-24 its points, 25 its bar, 0 the opponent's bar; positive counts are
  the side on roll's checkers. Evaluations are 7 singles: lose backgammon,
  lose gammon, lose, win, win gammon, win backgammon, equity.

Checked on real records (XG's own, from the public repository
``Insti/xgdatatools``, LGPL-2.1; ``tests/data/xg/``): a move record's
moves are ``(from, to)`` pairs of 0-based points (24 the bar, -1 off)
ended by a ``from`` of -1, not the ``(from, die)`` pairs that the
published comment says. The match header's ``Invert`` (the board's
orientation on XG's screen; 1 in every real file at hand) changes nothing
read: the records name the side to act (``ActifP``), not a side of the board.

Reading turns the records into the same
:class:`~backgammon.formats.mat.MatchRecord` a ``.mat`` file gives, so the
match is replayed through the rules by
:func:`~backgammon.formats.mat.load_mat` (warnings and errors per game;
an entry's ``line`` is its record's number in ``temp.xg``). XG's player 1
is the left column (gnubg's player 0), as in XG's own ``.mat`` export.
XG's analysis of each checker play and cube decision becomes
:class:`~backgammon.formats.analysis.DecisionAnalysis` items.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from backgammon.errors import InvalidInputError
from backgammon.formats.analysis import CubeAnalysis, DecisionAnalysis, Evaluation, PlayAnalysis, RankedPlay
from backgammon.formats.mat_replay import load_mat
from backgammon.formats.mat_syntax import EntryKind, MatchRecord, MatEntry, MatGame
from backgammon.formats.match_id import MatchState
from backgammon.position import Position

if TYPE_CHECKING:
    from backgammon.formats.files import MatchFile, PositionFile

__all__ = ["XgRecord", "is_xg", "read_xg_file", "xg_archive", "xg_records"]

MAGIC = b"RGMH"
HEADER_SIZE = 8232
RECORD_SIZE = 2560
SAVE_MAGIC = 0x494C4D44  # "DMLI", in the match header
ARCHIVE_TAIL = 36
REGISTRY_ENTRY = 532
MAX_FILES = 64
MAX_UNPACKED = 64_000_000  # bytes, all files of an archive together
NOT_ANALYSED = -1000.0

LEVELS = {
    0: "1-ply",
    1: "2-ply",
    2: "3-ply",
    12: "3-ply red",
    3: "4-ply",
    4: "5-ply",
    5: "6-ply",
    6: "7-ply",
    100: "Rollout",
    1000: "XG Roller",
    1001: "XG Roller+",
    1002: "XG Roller++",
    999: "Opening Book V1",
    998: "Opening Book V2",
}
"""XG's analysis levels (the published PLAYERLEVEL table)."""


def is_xg(data: bytes) -> bool:
    """Whether the data starts like an XG file (the ``RGMH`` magic)."""
    return data[:4] == MAGIC


def _bad(name: str, what: str) -> InvalidInputError:
    return InvalidInputError(
        f"{name!r} is not a readable eXtreme Gammon file: {what}",
        code="bad_xg_file",
        params={"name": name, "problem": what},
    )


# ====================================================================== archive
def xg_archive(data: bytes, name: str = "file.xg") -> dict[str, bytes]:
    """The files of an XG file's archive, by name (``temp.xg``, ``temp.xgi``, ...).

    Raises:
        InvalidInputError: for a file that is not XG, or a damaged archive
            (the CRC, the registry or a packed file does not check out),
            or one that unpacks to more than :data:`MAX_UNPACKED` bytes.
    """
    if len(data) < HEADER_SIZE or not is_xg(data):
        raise _bad(name, "no RGMH header")
    thumbnail = struct.unpack_from("<I", data, 20)[0]
    start = HEADER_SIZE + thumbnail
    archive = data[start:]
    if thumbnail > len(data) or len(archive) < ARCHIVE_TAIL:
        raise _bad(name, "the archive is missing (file cut short?)")
    crc, count, _version, _registry_size, registry_at = struct.unpack_from("<iiiii", archive, len(archive) - 36)
    compressed_registry = archive[len(archive) - 36 + 20]
    body = archive[: len(archive) - ARCHIVE_TAIL]
    if zlib.crc32(body) != crc & 0xFFFFFFFF:
        raise _bad(name, "the archive's checksum does not match (damaged file)")
    if not 0 < count <= MAX_FILES or not 0 <= registry_at <= len(body):
        raise _bad(name, f"the archive's registry is out of range ({count} files at {registry_at})")
    size = count * REGISTRY_ENTRY
    raw = body[registry_at:]
    registry = _inflate(raw, size, name, "registry") if compressed_registry else raw[:size]
    if len(registry) != size:
        raise _bad(name, "the archive's registry is cut short")
    files: dict[str, bytes] = {}
    total = 0
    for k in range(count):
        entry = registry[k * REGISTRY_ENTRY : (k + 1) * REGISTRY_ENTRY]
        file_name = entry[1 : 1 + min(entry[0], 255)].decode("latin-1")
        unpacked, packed, offset, _crc = struct.unpack_from("<iiii", entry, 512)
        stored = entry[528] == 1
        total += max(unpacked, 0)
        if unpacked < 0 or packed < 0 or offset < 0 or offset + packed > len(body) or total > MAX_UNPACKED:
            raise _bad(name, f"the archive's entry for {file_name!r} is out of range")
        chunk = body[offset : offset + packed]
        content = chunk if stored else _inflate(chunk, unpacked, name, file_name)
        if len(content) != unpacked:
            raise _bad(name, f"{file_name!r} unpacks to {len(content)} bytes, not {unpacked}")
        files[file_name.lower()] = content
    return files


def _inflate(chunk: bytes, size: int, name: str, what: str) -> bytes:
    """Unpack a zlib stream, never to more than ``size`` bytes."""
    try:
        inflater = zlib.decompressobj()
        out = inflater.decompress(chunk, size)
    except zlib.error:
        raise _bad(name, f"{what} is not a valid zlib stream") from None
    return out


# ====================================================================== record layout
class _Layout:
    """Field offsets of a Delphi record, from its declarations and the published alignment rules."""

    _SIZES: ClassVar[dict[str, tuple[int, int]]] = {
        "b": (1, 1),
        "B": (1, 1),
        "h": (2, 2),
        "H": (2, 2),
        "i": (4, 4),
        "I": (4, 4),
        "f": (4, 4),
        "d": (8, 8),
    }

    def __init__(self, start: int, fields: list[tuple[str, str, int]]) -> None:
        self.offsets: dict[str, tuple[int, str, int]] = {}
        at = start
        for field_name, kind, count in fields:
            if kind == "P":  # PositionEngine: 26 shortints
                size, align, fmt, n = 26, 1, "b", 26
            elif kind == "S":  # string[count]: a length byte and count bytes
                size, align, fmt, n = count + 1, 1, "S", count
            elif kind == "W":  # array of widechar
                size, align, fmt, n = 2 * count, 2, "W", count
            elif kind in ("DoubleD", "DataMoves", "Time"):  # records of 4-byte alignment
                size, align, fmt, n = {"DoubleD": 132, "DataMoves": 2184, "Time": 32}[kind], 4, kind, 1
            else:
                one, align = self._SIZES[kind]
                size, fmt, n = one * count, kind, count
            at += -at % align
            self.offsets[field_name] = (at, fmt, n)
            at += size
        self.end = at

    def get(self, record: bytes, field_name: str) -> object:
        at, fmt, n = self.offsets[field_name]
        if fmt == "S":
            length = min(record[at], n)
            return record[at + 1 : at + 1 + length].decode("latin-1")
        if fmt == "W":
            raw = record[at : at + 2 * n].decode("utf-16-le", errors="replace")
            return raw.split("\0", 1)[0]
        if fmt in ("DoubleD", "DataMoves", "Time"):
            return at
        values = struct.unpack_from(f"<{n}{fmt}", record, at)
        return values[0] if n == 1 else values


_MATCH_HEADER = _Layout(
    9,
    [
        ("SPlayer1", "S", 40),
        ("SPlayer2", "S", 40),
        ("MatchLength", "i", 1),
        ("Variation", "i", 1),
        ("Crawford", "B", 1),
        ("Jacoby", "B", 1),
        ("Beaver", "B", 1),
        ("AutoDouble", "B", 1),
        ("Elo1", "d", 1),
        ("Elo2", "d", 1),
        ("exp1", "i", 1),
        ("exp2", "i", 1),
        ("Date", "d", 1),
        ("SEvent", "S", 128),
        ("GameId", "i", 1),
        ("CompLevel1", "i", 1),
        ("CompLevel2", "i", 1),
        ("CountForElo", "B", 1),
        ("AddtoProfile1", "B", 1),
        ("AddtoProfile2", "B", 1),
        ("SLocation", "S", 128),
        ("GameMode", "i", 1),
        ("Imported", "B", 1),
        ("SRound", "S", 128),
        ("Invert", "i", 1),
        ("version", "i", 1),
        ("Magic", "i", 1),
        ("MoneyInitG", "i", 1),
        ("MoneyInitScore", "i", 2),
        ("Entered", "B", 1),
        ("Counted", "B", 1),
        ("UnratedImp", "B", 1),
        ("CommentHeaderMatch", "i", 1),
        ("CommentFooterMatch", "i", 1),
        ("IsMoneyMatch", "B", 1),
        ("WinMoney", "f", 1),
        ("LoseMoney", "f", 1),
        ("Currency", "i", 1),
        ("FeeMoney", "f", 1),
        ("TableStake", "f", 1),
        ("SiteId", "i", 1),
        ("CubeLimit", "i", 1),
        ("AutoDoubleMax", "i", 1),
        ("Transcribed", "B", 1),
        ("Event", "W", 129),
        ("Player1", "W", 129),
        ("Player2", "W", 129),
        ("Location", "W", 129),
        ("Round", "W", 129),
    ],
)
_GAME_HEADER = _Layout(
    9,
    [
        ("score1", "i", 1),
        ("score2", "i", 1),
        ("CrawfordApply", "B", 1),
        ("PosInit", "P", 1),
        ("GameNumber", "i", 1),
        ("InProgress", "B", 1),
        ("CommentHeaderGame", "i", 1),
        ("CommentFooterGame", "i", 1),
        ("NumberOfAutoDouble", "i", 1),
    ],
)
_CUBE = _Layout(
    9,
    [
        ("Actif", "i", 1),
        ("Double", "i", 1),
        ("Take", "i", 1),
        ("BeaverR", "i", 1),
        ("RaccoonR", "i", 1),
        ("CubeB", "i", 1),
        ("Position", "P", 1),
        ("DoubleD", "DoubleD", 1),
        ("ErrCube", "d", 1),
        ("DiceRolled", "S", 2),
        ("ErrTake", "d", 1),
        ("RolloutindexD", "i", 1),
        ("CompChoiceD", "i", 1),
        ("AnalyzeC", "i", 1),
        ("ErrBeaver", "d", 1),
        ("ErrRaccoon", "d", 1),
        ("AnalyzeCR", "i", 1),
        ("inValid", "i", 1),
        ("TutorCube", "b", 1),
        ("TutorTake", "b", 1),
        ("ErrTutorCube", "d", 1),
        ("ErrTutorTake", "d", 1),
        ("FlaggedDouble", "B", 1),
        ("CommentCube", "i", 1),
    ],
)
_MOVE = _Layout(
    9,
    [
        ("PositionI", "P", 1),
        ("PositionEnd", "P", 1),
        ("ActifP", "i", 1),
        ("Moves", "i", 8),
        ("Dice", "i", 2),
        ("CubeA", "i", 1),
        ("ErrorM", "d", 1),
        ("NMoveEval", "i", 1),
        ("DataMoves", "DataMoves", 1),
        ("Played", "B", 1),
        ("ErrMove", "d", 1),
        ("ErrLuck", "d", 1),
        ("CompChoice", "i", 1),
        ("InitEq", "d", 1),
        ("RolloutindexM", "i", 32),
        ("AnalyzeM", "i", 1),
        ("AnalyzeL", "i", 1),
        ("InvalidM", "i", 1),
        ("PositionTutor", "P", 1),
        ("Tutor", "b", 1),
        ("ErrTutorMove", "d", 1),
        ("Flagged", "B", 1),
        ("CommentMove", "i", 1),
    ],
)
_GAME_FOOTER = _Layout(
    9,
    [
        ("Score1g", "i", 1),
        ("Score2g", "i", 1),
        ("CrawfordApplyg", "B", 1),
        ("Winner", "i", 1),
        ("Pointswon", "i", 1),
        ("Termination", "i", 1),
        ("ErrResign", "d", 1),
        ("ErrTakeResign", "d", 1),
        ("Eval", "d", 7),
        ("EvalLevel", "i", 1),
    ],
)
_MATCH_FOOTER = _Layout(9, [("Score1m", "i", 1), ("Score2m", "i", 1), ("WinnerM", "i", 1)])
# EngineStructDoubleAction (132 bytes) and EngineStructBestMove (2184 bytes), relative to their start
_DOUBLE_ACTION = _Layout(
    0,
    [
        ("Pos", "P", 1),
        ("Level", "i", 1),
        ("Score", "i", 2),
        ("Cube", "i", 1),
        ("CubePos", "i", 1),
        ("Jacoby", "i", 1),
        ("Crawford", "h", 1),
        ("met", "h", 1),
        ("FlagDouble", "h", 1),
        ("isBeaver", "h", 1),
        ("Eval", "f", 7),
        ("equB", "f", 1),
        ("equDouble", "f", 1),
        ("equDrop", "f", 1),
        ("LevelRequest", "h", 1),
        ("DoubleChoice3", "h", 1),
        ("EvalDouble", "f", 7),
    ],
)
_BEST_MOVE = _Layout(
    0,
    [
        ("Pos", "P", 1),
        ("Dice", "i", 2),
        ("Level", "i", 1),
        ("Score", "i", 2),
        ("Cube", "i", 1),
        ("CubePos", "i", 1),
        ("Crawford", "i", 1),
        ("Jacoby", "i", 1),
        ("Nmoves", "i", 1),
    ],
)
_POS_PLAYED, _MOVES, _EVAL_LEVEL, _EVAL = 68, 900, 1156, 1284
assert _DOUBLE_ACTION.end == 132 and _BEST_MOVE.end == _POS_PLAYED and _MATCH_HEADER.offsets["GameId"][0] == 268

KINDS = ("match header", "game header", "cube", "move", "game footer", "match footer", "comment", "missing")


@dataclass(frozen=True, slots=True)
class XgRecord:
    """One ``TSaveRec``: its number in ``temp.xg`` (1-based), its kind (see :data:`KINDS`) and its bytes."""

    number: int
    kind: str
    data: bytes

    def get(self, field_name: str) -> object:
        """A field of the record, by the published name."""
        layout = {
            "match header": _MATCH_HEADER,
            "game header": _GAME_HEADER,
            "cube": _CUBE,
            "move": _MOVE,
            "game footer": _GAME_FOOTER,
            "match footer": _MATCH_FOOTER,
        }[self.kind]
        return layout.get(self.data, field_name)

    def integer(self, field_name: str) -> int:
        value = self.get(field_name)
        assert isinstance(value, int)
        return value

    def real(self, field_name: str) -> float:
        value = self.get(field_name)
        assert isinstance(value, float)
        return value

    def position(self, field_name: str) -> tuple[int, ...]:
        value = self.get(field_name)
        assert isinstance(value, tuple)
        return value


def xg_records(content: bytes) -> Iterator[XgRecord]:
    """The records of ``temp.xg`` (a trailing partial record is ignored)."""
    for k in range(len(content) // RECORD_SIZE):
        data = content[k * RECORD_SIZE : (k + 1) * RECORD_SIZE]
        kind = data[8]
        yield XgRecord(k + 1, KINDS[kind] if kind < len(KINDS) else f"unknown ({kind})", data)


# ====================================================================== conversion
def _position(engine: tuple[int, ...]) -> Position:
    """A PositionEngine (26 counts from the side on roll) as a :class:`Position` from that side.

    Raises:
        InvalidPositionError: when the counts are not a position.
    """
    mine = [0] * 25
    theirs = [0] * 25
    for point in range(1, 25):
        count = engine[point]
        if count > 0:
            mine[point - 1] = count
        elif count < 0:
            theirs[24 - point] = -count
    mine[24] = abs(engine[25])
    theirs[24] = abs(engine[0])
    return Position(tuple(mine), tuple(theirs))


def _move_text(pairs: tuple[int, ...]) -> str | None:
    """``(from, to)`` pairs as ``.mat`` text; None for XG's "no move made" (all zeros).

    Points are 0-based (24 the bar); a ``to`` below 0 is off (XG writes
    ``from - die`` there, -1 to -6); a ``from`` of -1 ends the list.

    Raises:
        ValueError: for a step outside the board.
    """
    if not any(pairs):
        return None
    steps = []
    for k in range(0, len(pairs) - 1, 2):
        source, destination = pairs[k], pairs[k + 1]
        if source < 0:
            break
        if not 0 <= source <= 24 or not -6 <= destination <= 23 or destination >= source:
            raise ValueError(f"a step {source}/{destination} outside the board")
        steps.append(f"{source + 1}/{max(destination + 1, 0)}")
    return " ".join(steps)


def _probabilities(values: tuple[float, ...]) -> tuple[float, float, float, float, float]:
    """XG's (lose bg, lose g, lose, win, win g, win bg) as gnubg's (win, win g, win bg, lose g, lose bg)."""
    return (values[3], values[4], values[5], values[1], values[0])


def _side(actif: int) -> int:
    """XG's active player (1: player 1, -1: player 2) as a column: 0 left, 1 right."""
    return 0 if actif == 1 else 1


def _level(level: int) -> str:
    return LEVELS.get(level, f"level {level}")


def _play_analysis(record: XgRecord, dice: tuple[int, int], played_text: str) -> PlayAnalysis | None:
    base = _MOVE.offsets["DataMoves"][0]
    data = record.data
    count = struct.unpack_from("<i", data, base + _BEST_MOVE.offsets["Nmoves"][0])[0]
    if not 0 < count <= 32 or record.real("ErrMove") == NOT_ANALYSED:
        return None
    plays: list[RankedPlay] = []
    played: int | None = None
    end = record.position("PositionEnd")
    for k in range(count):
        pairs = struct.unpack_from("<8b", data, base + _MOVES + 8 * k)
        level = struct.unpack_from("<h", data, base + _EVAL_LEVEL + 4 * k)[0]
        values = struct.unpack_from("<7f", data, base + _EVAL + 28 * k)
        try:
            text = _move_text(pairs) or ""
        except ValueError:
            return None
        position = struct.unpack_from("<26b", data, base + _POS_PLAYED + 26 * k)
        if position == end or (played is None and text == played_text):
            played = k
        plays.append(RankedPlay(text, Evaluation(values[6], _probabilities(values), _level(level))))
    order = sorted(range(len(plays)), key=lambda k: -plays[k].evaluation.equity)  # stable: XG's order on ties
    ranked = tuple(plays[k] for k in order)
    return PlayAnalysis(dice, ranked, None if played is None else order.index(played))


def _cube_analysis(record: XgRecord) -> CubeAnalysis | None:
    if record.integer("AnalyzeC") < 0 or record.real("ErrCube") == NOT_ANALYSED:
        return None
    base = record.integer("DoubleD")
    data = record.data

    def get(field_name: str) -> object:
        return _DOUBLE_ACTION.get(data[base : base + 132], field_name)

    values = get("Eval")
    assert isinstance(values, tuple)
    level = get("Level")
    no_double, double_take, double_pass = (get("equB"), get("equDouble"), get("equDrop"))
    assert isinstance(no_double, float) and isinstance(double_take, float) and isinstance(double_pass, float)
    return CubeAnalysis(
        no_double, double_take, double_pass, _probabilities(values), _level(level if isinstance(level, int) else -1)
    )


@dataclass
class _Builder:
    """Records → ``.mat`` games: the entries of the game being read, and the file's problems."""

    name: str
    warnings: list[str]
    errors: list[str]

    def games(self, records: list[XgRecord]) -> tuple[MatchRecord, list[DecisionAnalysis], XgRecord | None]:
        header = next((r for r in records if r.kind == "match header"), None)
        if header is None:
            raise _bad(self.name, "no match header record")
        if header.integer("Magic") != SAVE_MAGIC:
            self.warnings.append(f"record {header.number}: the match header's magic number is not XG's")
        names = (
            str(header.get("Player1") or header.get("SPlayer1")),
            str(header.get("Player2") or header.get("SPlayer2")),
        )
        length = header.integer("MatchLength")
        money = length >= 99999 or length <= 0
        heads: list[tuple[str, str]] = [("Player 1", names[0]), ("Player 2", names[1])]
        event = str(header.get("Event") or header.get("SEvent"))
        if event:
            heads.append(("Event", event))
        variation = header.integer("Variation")
        if variation:
            heads.append(
                ("Variation", {1: "Nackgammon", 2: "Hypergammon", 3: "Longgammon"}.get(variation, str(variation)))
            )
        if not money:
            heads.append(("Crawford", "On" if header.integer("Crawford") else "Off"))
        else:
            heads.append(("Jacoby", "On" if header.integer("Jacoby") else "Off"))
            heads.append(("Beaver", "On" if header.integer("Beaver") else "Off"))
        limit = header.integer("CubeLimit")
        if 0 < limit < 1 << 20 and (limit & (limit - 1)) == 0:
            heads.append(("CubeLimit", str(limit)))
        games: list[MatGame] = []
        analysis: list[DecisionAnalysis] = []
        current: tuple[XgRecord, list[MatEntry], list[str]] | None = None
        pending_cube: CubeAnalysis | None = None
        last_decision: XgRecord | None = None

        def close() -> None:
            nonlocal current
            if current is None:
                return
            head, entries, errors = current
            games.append(
                MatGame(
                    number=len(games) + 1,
                    names=names,
                    score=(head.integer("score1"), head.integer("score2")),
                    entries=tuple(entries),
                    errors=tuple(errors),
                    line=head.number,
                )
            )
            current = None

        for record in records:
            if record.kind == "game header":
                close()
                current = (record, [], [])
                pending_cube = None
                continue
            if record.kind in ("match header", "match footer", "comment", "missing"):
                continue
            if current is None:
                self.errors.append(f"record {record.number}: a {record.kind} record outside a game")
                continue
            _head, entries, errors = current
            game_no = len(games) + 1
            if record.kind.startswith("unknown"):
                errors.append(f"record {record.number}: unknown record type {record.data[8]}")
                continue
            if record.kind == "cube":
                last_decision = record
                side = _side(record.integer("Actif"))
                cube = _cube_analysis(record)
                if record.integer("Double") == 1:
                    owned = abs(record.integer("CubeB"))
                    value = 2 ** (owned + 1) if owned < 12 else 0
                    index = len(entries)
                    entries.append(MatEntry(side, EntryKind.DOUBLE, value=value, line=record.number))
                    if cube is not None:
                        analysis.append(DecisionAnalysis(game_no, index, cube=cube, source="eXtreme Gammon"))
                    take = record.integer("Take")
                    if take == 1:
                        entries.append(MatEntry(1 - side, EntryKind.TAKE, line=record.number))
                    elif take == 0:
                        entries.append(MatEntry(1 - side, EntryKind.DROP, line=record.number))
                    elif take == 2:
                        entries.append(MatEntry(1 - side, EntryKind.BEAVER, value=value * 2, line=record.number))
                        if record.integer("BeaverR") == 1:
                            entries.append(MatEntry(side, EntryKind.TAKE, line=record.number))
                        elif record.integer("BeaverR") == 0:
                            entries.append(MatEntry(side, EntryKind.DROP, line=record.number))
                    pending_cube = None
                else:
                    pending_cube = cube  # a no-double: judged with the move that follows
                continue
            if record.kind == "move":
                last_decision = record
                side = _side(record.integer("ActifP"))
                dice = record.position("Dice")
                if not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
                    errors.append(f"record {record.number}: dice {dice[0]}-{dice[1]} are not a roll")
                    continue
                try:
                    text = _move_text(record.position("Moves"))
                except ValueError as exc:
                    errors.append(f"record {record.number}: {exc}")
                    continue
                index = len(entries)
                if text is None and not any(record.position("PositionEnd")):  # rolled, then resigned
                    entries.append(MatEntry(side, EntryKind.ROLL, (dice[0], dice[1]), line=record.number))
                    pending_cube = None
                    continue
                text = text or ""
                entries.append(MatEntry(side, EntryKind.MOVE, (dice[0], dice[1]), text, line=record.number))
                play = _play_analysis(record, (dice[0], dice[1]), text) if text else None  # a dance is no decision
                if play is not None or pending_cube is not None:
                    analysis.append(
                        DecisionAnalysis(game_no, index, play=play, cube=pending_cube, source="eXtreme Gammon")
                    )
                pending_cube = None
                continue
            if record.kind == "game footer":
                winner = record.integer("Winner")
                points = record.integer("Pointswon")
                if winner in (1, -1) and points > 0:
                    entries.append(MatEntry(_side(winner), EntryKind.WIN, value=points, line=record.number))
                close()
        close()
        match_record = MatchRecord(
            match_length=0 if money else length,
            games=tuple(games),
            headers=tuple(heads),
            errors=tuple(self.errors),
        )
        return match_record, analysis, last_decision


def _records(data: bytes, name: str) -> list[XgRecord]:
    files = xg_archive(data, name)
    content = files.get("temp.xg")
    if content is None:
        raise _bad(name, "the archive has no temp.xg")
    if len(content) % RECORD_SIZE:
        raise _bad(name, f"temp.xg holds {len(content)} bytes, not whole {RECORD_SIZE}-byte records")
    return list(xg_records(content))


def read_xg_file(data: bytes, name: str) -> MatchFile:
    """Read an ``.xg`` match or ``.xgp`` position file (see :func:`backgammon.formats.read_match_file`).

    A match file gives the match replayed through the rules and XG's analysis
    of each decision; a position file (``.xgp``, or any XG file holding a
    single decision) gives the position with its match state and XG's
    analysis of it.

    Raises:
        InvalidInputError: for a file that is not XG or whose archive is damaged.
    """
    from backgammon.formats.files import MatchFile

    records = _records(data, name)
    warnings: list[str] = []
    builder = _Builder(name, warnings, [])
    record, analysis, last = builder.games(records)
    lower = name.lower()
    decisions = sum(r.kind in ("move", "cube") for r in records)
    position_file = lower.endswith(".xgp") or (not lower.endswith(".xg") and decisions == 1)
    if position_file and last is not None:
        position = _position_of(record, last, records, name)
        return MatchFile(name, "xgp", position=position, analysis=tuple(analysis), file_warnings=tuple(warnings))
    return MatchFile(name, "xg", reading=load_mat(record), analysis=tuple(analysis), file_warnings=tuple(warnings))


def _position_of(record: MatchRecord, decision: XgRecord, records: list[XgRecord], name: str) -> PositionFile:
    """The position of an ``.xgp`` file's decision, with gnubg's match state."""
    from backgammon.errors import InvalidPositionError
    from backgammon.formats.files import PositionFile

    head = next((r for r in records if r.kind == "game header" and r.number < decision.number), None)
    score = (0, 0) if head is None else (head.integer("score1"), head.integer("score2"))
    if decision.kind == "move":
        engine = decision.position("PositionI")
        on_roll = _side(decision.integer("ActifP"))
        dice_values = decision.position("Dice")
        dice: tuple[int, int] | None = (dice_values[0], dice_values[1])
        base = decision.integer("DataMoves")
        cube, cube_pos = struct.unpack_from("<ii", decision.data, base + _BEST_MOVE.offsets["Cube"][0])
    else:
        engine = decision.position("Position")
        on_roll = _side(decision.integer("Actif"))
        dice = None
        base = decision.integer("DoubleD")
        cube, cube_pos = struct.unpack_from("<ii", decision.data, base + _DOUBLE_ACTION.offsets["Cube"][0])
    try:
        position = _position(engine)
    except InvalidPositionError as exc:
        raise _bad(name, f"record {decision.number}: {exc}") from None
    if cube < 1 or cube & (cube - 1):
        cube = 2 ** abs(decision.integer("CubeA" if decision.kind == "move" else "CubeB"))
        cube_pos = 0
    owner = None if cube_pos == 0 else (on_roll if cube_pos > 0 else 1 - on_roll)
    if dice is not None and not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
        dice = None
    try:
        state = MatchState(
            cube_value=cube,
            cube_owner=owner,
            dice_owner=on_roll,
            turn=on_roll,
            dice=dice,
            match_length=record.match_length,
            score=score,
        )
    except InvalidInputError as exc:
        raise _bad(name, f"record {decision.number}: {exc}") from None
    return PositionFile(position, state, record.names)
