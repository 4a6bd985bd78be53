"""Build eXtreme Gammon ``.xg`` files byte by byte from the published format, for tests.

These files are NOT written by eXtreme Gammon: they are built here from a match whose moves are known
(a real ``.mat`` file replayed by the rules), following XG_format.pas / ZLibArchive.pas as published
at extremegammon.com/xgformat.aspx. The record offsets below are written out by hand from those
declarations and Delphi's alignment rules (not taken from the reader's layout code, so that a
mistake in one is not copied into the other); they were checked against two real XG records
(tests/data/xg/real_cube_record.bin, real_move_record.bin).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

from backgammon.game import Double, Move, Pass, Player, Take
from backgammon.match import Match
from backgammon.position import Position

RECORD = 2560


def engine_position(position: Position) -> bytes:
    """A Position (from the side on roll) as XG's PositionEngine: 26 signed bytes."""
    cells = [0] * 26
    for point in range(1, 25):
        cells[point] += position.mine[point - 1]
        cells[point] -= position.theirs[24 - point]
    cells[25] = position.mine[24]
    cells[0] = -position.theirs[24]
    return struct.pack("<26b", *cells)


def _record(kind: int) -> bytearray:
    data = bytearray(RECORD)
    data[8] = kind
    return data


def _short_string(text: str, size: int) -> bytes:
    raw = text.encode("latin-1")[:size]
    return bytes([len(raw)]) + raw + bytes(size - len(raw))


def _wide(text: str, chars: int) -> bytes:
    raw = text.encode("utf-16-le")[: 2 * (chars - 1)]
    return raw + bytes(2 * chars - len(raw))


@dataclass
class Candidate:
    """An analysed candidate: (from, to) 0-based pairs, 7 evaluation values (lose bg .. win bg, equity), level."""

    pairs: tuple[int, ...]
    values: tuple[float, ...]
    level: int = 2
    position_after: bytes = b""


@dataclass
class XgBuilder:
    """Collects records; ``build()`` returns the whole file."""

    records: list[bytes] = field(default_factory=list)

    def match_header(self, p1: str, p2: str, length: int, *, crawford: bool = True, jacoby: bool = False) -> None:
        r = _record(0)
        r[9:50] = _short_string(p1, 40)
        r[50:91] = _short_string(p2, 40)
        struct.pack_into("<i", r, 92, length)
        r[100] = int(crawford)
        r[101] = int(jacoby)
        struct.pack_into("<i", r, 552, 30)  # version
        struct.pack_into("<i", r, 556, 0x494C4D44)  # Magic
        struct.pack_into("<i", r, 612, 1024)  # CubeLimit
        r[880 : 880 + 258] = _wide(p1, 129)
        r[1138 : 1138 + 258] = _wide(p2, 129)
        self.records.append(bytes(r))

    def game_header(self, score1: int, score2: int, number: int) -> None:
        r = _record(1)
        struct.pack_into("<ii", r, 12, score1, score2)
        r[21:47] = engine_position(Position.initial())
        struct.pack_into("<i", r, 48, number)
        self.records.append(bytes(r))

    def cube(
        self,
        actif: int,
        position: Position,
        *,
        double: int,
        take: int,
        cube_log: int,
        analysis: tuple[float, float, float] | None = None,
    ) -> None:
        r = _record(2)
        struct.pack_into("<iiiiii", r, 12, actif, double, take, -1, -1, cube_log)
        r[36:62] = engine_position(position)
        err = -1000.0
        struct.pack_into("<i", r, 232, -1)  # AnalyzeC: not analysed
        if analysis is not None:
            base = 64
            r[base : base + 26] = engine_position(position)
            struct.pack_into("<i", r, base + 28, 2)  # Level: 3-ply
            struct.pack_into("<ii", r, base + 40, 2**cube_log, 0)
            struct.pack_into("<7f", r, base + 60, 0.01, 0.1, 0.3, 0.7, 0.2, 0.02, 0.5)
            struct.pack_into("<fff", r, base + 88, *analysis)
            struct.pack_into("<i", r, 232, 2)
            err = 0.0
        struct.pack_into("<d", r, 200, err)
        struct.pack_into("<d", r, 216, -1000.0)
        self.records.append(bytes(r))

    def move(
        self,
        actif: int,
        before: Position,
        after: bytes,
        pairs: tuple[int, ...],
        dice: tuple[int, int],
        candidates: list[Candidate] | None = None,
    ) -> None:
        r = _record(3)
        r[9:35] = engine_position(before)
        r[35:61] = after
        struct.pack_into("<i", r, 64, actif)
        padded = list(pairs) + [-1] * (8 - len(pairs))
        struct.pack_into("<8i", r, 68, *padded)
        struct.pack_into("<ii", r, 100, *dice)
        err = -1000.0
        if candidates:
            base = 124
            r[base : base + 26] = engine_position(before)
            struct.pack_into("<ii", r, base + 28, *dice)
            struct.pack_into("<i", r, base + 64, len(candidates))
            for k, c in enumerate(candidates):
                r[base + 68 + 26 * k : base + 68 + 26 * (k + 1)] = c.position_after or bytes(26)
                moves = list(c.pairs) + [-1] * (8 - len(c.pairs))
                struct.pack_into("<8b", r, base + 900 + 8 * k, *moves)
                struct.pack_into("<hbb", r, base + 1156 + 4 * k, c.level, 0, 0)
                struct.pack_into("<7f", r, base + 1284 + 28 * k, *c.values)
            struct.pack_into("<i", r, 120, len(candidates))
            err = 0.0
        struct.pack_into("<d", r, 2312, err)
        self.records.append(bytes(r))

    def game_footer(self, winner: int, points: int, termination: int) -> None:
        r = _record(4)
        struct.pack_into("<iiii", r, 24, winner, points, termination, 0)
        self.records.append(bytes(r))

    def build(self, *, corrupt_crc: bool = False) -> bytes:
        temp_xg = b"".join(self.records)
        temp_xgi = self.records[0] + self.records[-1]
        files = [("temp.xgi", temp_xgi), ("temp.xg", temp_xg), ("temp.xgr", b""), ("temp.xgc", b"")]
        body = bytearray()
        registry = bytearray()
        for name, content in files:
            packed = zlib.compress(content)
            entry = bytearray(532)
            entry[0:256] = _short_string(name, 255)
            struct.pack_into("<iiiI", entry, 512, len(content), len(packed), len(body), zlib.crc32(content))
            entry[528] = 0  # packed with zlib
            entry[529] = 2
            registry += entry
            body += packed
        registry_at = len(body)
        body += zlib.compress(bytes(registry))
        tail = bytearray(36)
        crc = zlib.crc32(bytes(body)) ^ (1 if corrupt_crc else 0)
        struct.pack_into("<IiiiI", tail, 0, crc, len(files), 1, len(body) - registry_at, registry_at)
        tail[20] = 1
        header = bytearray(8232)
        header[0:4] = b"RGMH"
        struct.pack_into("<IIqI", header, 4, 1, 8232, 8232, 0)
        return bytes(header) + bytes(body) + bytes(tail)


def xg_from_match(match: Match, *, analyse_first_move: list[Candidate] | None = None) -> bytes:
    """An .xg file holding ``match``'s games (left column = XG's player 1 = Player.BLACK)."""
    b = XgBuilder()
    black, white = match.name_of(Player.BLACK), match.name_of(Player.WHITE)
    b.match_header(black, white, match.match_length or 99999, jacoby=match.rules.jacoby)
    games = list(match.games)
    if not match.is_over and match.game.log:
        games.append(match.game)
    first = True
    for number, game in enumerate(games, start=1):
        b.game_header(game.score[1], game.score[0], number)
        cube_log = 0
        offered: Double | None = None
        on_roll_board = Position.initial()  # the board seen from the side to act next
        for action in game.log:
            if isinstance(action, Move):
                play = action.play
                actif = 1 if action.player is Player.BLACK else -1
                pairs: list[int] = []
                for step in play.steps:
                    pairs += [step.source - 1, step.destination - 1]
                after = engine_position(play.position.flip())
                candidates = analyse_first_move if first else None
                b.move(actif, play.origin, after, tuple(pairs), play.dice, candidates)
                on_roll_board = play.position
                first = False
            elif isinstance(action, Double):
                offered = action
            elif isinstance(action, (Take, Pass)) and offered is not None:
                actif = 1 if offered.player is Player.BLACK else -1
                b.cube(actif, on_roll_board, double=1, take=int(isinstance(action, Take)), cube_log=cube_log)
                if isinstance(action, Take):
                    cube_log += 1
                offered = None
        if game.result is not None and game.result.winner is not None:
            b.game_footer(1 if game.result.winner is Player.BLACK else -1, game.result.points, 1)
    return b.build()
