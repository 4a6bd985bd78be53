"""GNU Backgammon's external player interface: FIBS board strings in, moves and cube answers out.

gnubg can hand one of its players to another program (``set player 0 external
localhost:PORT`` in gnubg's command line). gnubg then connects to that address
and, for every decision of that player, sends one FIBS ``board:`` line (the
board state of FIBS's client protocol, its CLIP ``rawboard``); the program
answers one line: a move such as ``24/18 13/11``, or ``double``, ``roll``,
``take`` or ``drop``. See ``docs/external-player.md``.

This module parses and validates board strings (:class:`FibsBoard`), turns them
into the engine's view of the decision (:func:`decision_of`, a
:class:`Decision`: a move, a cube decision or a take decision, with the
position, dice and cube seen from the side on roll), answers them with the
engine (:class:`EnginePlayer`: :func:`~backgammon.engine.levels.choose_play`
for moves, :func:`~backgammon.engine.search.decide_cube` for the cube), and
serves them over a TCP or Unix socket (:func:`serve`). Bad input never stops
the server: each bad line gets one line ``error: ...`` naming what is wrong.

How the board string is read (the FIBS client protocol's ``board:`` state):
53 fields separated by ``:``: ``board``, your name, the opponent's name, the
match length (0 or 9999 and more: money), your score, the opponent's score, 26
board cells, turn, your two dice, the opponent's two dice, the cube value, you
may double, the opponent may double, was doubled, colour, direction, home, bar,
your checkers off, the opponent's off, your checkers on the bar, the
opponent's, can move, forced move, did Crawford, redoubles. Your checkers are
the cells with the sign of ``colour``; you move in ``direction`` (-1: from cell
24 towards cell 1, bearing off to cell 0, your bar is cell 25; +1 the mirror
image). ``turn`` is the colour of the side on roll. The side on roll is the one
asked to move or to double; when ``was doubled`` is set, the other side is
asked to take. That side need not be "you": gnubg 1.07 writes every board in
one orientation (its player 1 is "you", colour 1) whichever player it asks,
and sets ``turn`` to the side on roll, so reading the mover from ``turn`` is
what makes both FIBS's and gnubg's boards come out right.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import random
import re
import socket
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from backgammon.dice import check_roll
from backgammon.engine.cube import CubeInfo, CubeOwner
from backgammon.engine.met import MAX_AWAY
from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.moves import Play
from backgammon.position import CHECKERS, Position

log = logging.getLogger("backgammon.protocols.external")

FIELDS = 53
"""Fields of a FIBS board string, ``board`` included."""

MAX_LINE = 4_096
"""Bytes in one input line; a board string is about 150."""

MAX_ERROR = 200
"""Characters of an error line."""

MONEY_LENGTH = 9_999
"""FIBS's match length for an unlimited (money) session; 0 is read as money as well."""

MOVE = "move"
DOUBLE = "double"
TAKE = "take"

_INT = re.compile(r"-?[0-9]{1,5}")
_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,64}")


@dataclass(frozen=True, slots=True)
class FibsBoard:
    """The fields of a FIBS ``board:`` line, as written (see the module docstring)."""

    you: str
    opponent: str
    match_length: int
    your_score: int
    opponent_score: int
    cells: tuple[int, ...]
    turn: int
    your_dice: tuple[int, int]
    opponent_dice: tuple[int, int]
    cube: int
    you_may_double: bool
    opponent_may_double: bool
    was_doubled: bool
    colour: int
    direction: int
    home: int
    bar: int
    your_off: int
    opponent_off: int
    your_bar: int
    opponent_bar: int
    can_move: int
    forced_move: int
    did_crawford: bool
    redoubles: int

    @classmethod
    def parse(cls, text: str) -> FibsBoard:
        """Parse and check one board string (surrounding blanks and NUL bytes are ignored).

        Raises:
            InvalidInputError: naming the first field that is wrong.
        """
        fields = text.strip().strip("\x00").strip().split(":")
        if fields[0] != "board":
            raise InvalidInputError("invalid board: expected a FIBS board string starting with 'board:'")
        if len(fields) != FIELDS:
            raise InvalidInputError(f"invalid board: {len(fields)} fields, expected {FIELDS}")
        for name, value in (("player name", fields[1]), ("opponent name", fields[2])):
            if not _NAME.fullmatch(value):
                raise InvalidInputError(f"invalid board: bad {name} (1 to 64 printable characters)")
        numbers: list[int] = []
        for index, value in enumerate(fields[3:], start=3):
            if not _INT.fullmatch(value.strip()):
                raise InvalidInputError(f"invalid board: field {index} is {_short(value)}, expected an integer")
            numbers.append(int(value))
        length, my_score, their_score = numbers[0:3]
        cells = tuple(numbers[3:29])
        (turn, d1, d2, o1, o2, cube, may, their_may, doubled, colour, direction, home, bar,
         my_off, their_off, my_bar, their_bar, can_move, forced, crawford, redoubles) = numbers[29:]  # fmt: skip
        board = cls(
            fields[1], fields[2], length, my_score, their_score, cells, turn, (d1, d2), (o1, o2), cube,
            bool(may), bool(their_may), bool(doubled), colour, direction, home, bar, my_off, their_off,
            my_bar, their_bar, can_move, forced, bool(crawford), redoubles,
        )  # fmt: skip
        flags = {"you may double": may, "opponent may double": their_may, "was doubled": doubled,
                 "did crawford": crawford}  # fmt: skip
        board._check(flags)
        return board

    def _check(self, flags: dict[str, int]) -> None:
        if not 0 <= self.match_length <= 99_999:
            raise InvalidInputError(f"invalid board: match length {self.match_length}")
        for name, score in (("your score", self.your_score), ("opponent score", self.opponent_score)):
            if score < 0 or (not self.is_money and score >= self.match_length):
                raise InvalidInputError(
                    f"invalid board: {name} {score} (the {self.match_length}-point match is over or the score is wrong)"
                )
        if any(abs(c) > CHECKERS for c in self.cells):
            raise InvalidInputError("invalid board: a board cell holds more than 15 checkers")
        if self.turn not in (-1, 0, 1):
            raise InvalidInputError(f"invalid board: turn {self.turn}, expected -1, 0 or 1")
        for name, dice in (("your dice", self.your_dice), ("opponent dice", self.opponent_dice)):
            if dice != (0, 0):
                try:
                    check_roll(dice)
                except InvalidInputError as exc:
                    raise InvalidInputError(f"invalid board: {name} (0 0 or two dice): {exc}") from None
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise InvalidInputError(f"invalid board: cube {self.cube}, expected a power of two")
        for name, value in flags.items():
            if value not in (0, 1):
                raise InvalidInputError(f"invalid board: {name} flag {value}, expected 0 or 1")
        if self.colour not in (-1, 1) or self.direction not in (-1, 1):
            raise InvalidInputError("invalid board: colour and direction must be -1 or 1")
        expected = (0, 25) if self.direction == -1 else (25, 0)
        if (self.home, self.bar) != expected:
            raise InvalidInputError(
                f"invalid board: home {self.home} and bar {self.bar} do not fit direction {self.direction}"
            )
        for name, value in (("checkers off", self.your_off), ("opponent checkers off", self.opponent_off),
                            ("checkers on the bar", self.your_bar), ("opponent bar", self.opponent_bar)):  # fmt: skip
            if not 0 <= value <= CHECKERS:
                raise InvalidInputError(f"invalid board: {name} {value}, expected 0 to 15")

    @property
    def is_money(self) -> bool:
        """An unlimited session (match length 0 or at least 9999)."""
        return self.match_length == 0 or self.match_length >= MONEY_LENGTH

    def direction_of(self, sign: int) -> int:
        """The direction in which the checkers of that sign move (-1: towards cell 1)."""
        return self.direction if sign == self.colour else -self.direction

    def side(self, sign: int) -> tuple[int, ...]:
        """The 25 counts (own points 1..24, then the bar) of the checkers of that sign.

        Raises:
            InvalidInputError: if the side's bar cell holds the other side's checkers.
        """
        down = self.direction_of(sign) == -1
        bar_cell, other_bar = (25, 0) if down else (0, 25)
        if self.cells[bar_cell] * sign < 0 or self.cells[other_bar] * sign > 0:
            raise InvalidInputError("invalid board: a bar cell holds checkers of the wrong colour")
        points = [max(0, sign * self.cells[p if down else 25 - p]) for p in range(1, 25)]
        on_bar = abs(self.cells[bar_cell])
        if on_bar == 0:  # boards that give the bar only in the count fields
            on_bar = self.your_bar if sign == self.colour else self.opponent_bar
        return (*points, on_bar)


@dataclass(frozen=True, slots=True)
class Decision:
    """What the board asks: ``kind`` is :data:`MOVE`, :data:`DOUBLE` (double or roll) or :data:`TAKE`.

    ``position``, ``dice`` and ``cube`` are seen from the side on roll: the
    mover, the side that may double, or, for a take, the side that doubled
    (whose cube is shown before the double).
    """

    kind: str
    position: Position
    dice: tuple[int, int] | None
    cube: CubeInfo


FIBS = "fibs"
GNUBG = "gnubg"
DIALECTS = (GNUBG, FIBS)
"""How scores are read: ``fibs``: "your score" is the colour side's (FIBS's client protocol);
``gnubg``: as gnubg 1.07 writes them (see :func:`decision_of`)."""


def decision_of(board: FibsBoard, dialect: str = FIBS) -> Decision:
    """The decision a board string asks for (see the module docstring).

    ``dialect`` says whose the two score fields are. In FIBS's protocol "your
    score" is the colour side's. gnubg 1.07 writes the names and the scores
    in its own player order (player 0 first), while its board has player 1 as
    the colour side, except in take decisions, where both are swapped: so in
    the ``gnubg`` dialect "your score" is the colour side's only when ``was
    doubled`` is set.

    Raises:
        InvalidInputError: if the game is over, the position is impossible or the cube and score
            do not go together.
    """
    mover = board.turn
    if mover == 0:
        raise InvalidInputError("invalid board: turn 0, the game is over (nothing to decide)")
    position = Position(board.side(mover), board.side(-mover))
    if position.is_game_over():
        raise InvalidInputError("invalid board: a side has borne off all its checkers (the game is over)")
    mover_is_you = mover == board.colour
    dice = board.your_dice if mover_is_you else board.opponent_dice
    if dice == (0, 0):  # gnubg fills both pairs; FIBS may give the roll in either
        dice = board.opponent_dice if mover_is_you else board.your_dice
    if dialect not in DIALECTS:
        raise InvalidInputError(f"unknown dialect {dialect!r}: expected {' or '.join(DIALECTS)}")
    scores_are_colour_side = dialect == FIBS or board.was_doubled
    cube = _cube_of(board, mover_is_you, mover_is_you == scores_are_colour_side)
    if board.was_doubled:
        return Decision(TAKE, position, None, cube)
    if dice == (0, 0):
        return Decision(DOUBLE, position, None, cube)
    return Decision(MOVE, position, dice, cube)


def _cube_of(board: FibsBoard, mover_is_you: bool, your_score_is_movers: bool) -> CubeInfo:
    mine, theirs = (
        (board.you_may_double, board.opponent_may_double)
        if mover_is_you
        else (board.opponent_may_double, board.you_may_double)
    )
    if board.cube == 1 or mine == theirs:
        owner = CubeOwner.CENTRED if board.cube == 1 or mine else CubeOwner.OPPONENT
    else:
        owner = CubeOwner.ME if mine else CubeOwner.OPPONENT
    if board.is_money:
        return CubeInfo.money(board.cube, owner)
    scores = (
        (board.your_score, board.opponent_score) if your_score_is_movers else (board.opponent_score, board.your_score)
    )
    away = (board.match_length - scores[0], board.match_length - scores[1])
    if max(away) > MAX_AWAY:
        raise InvalidInputError(f"invalid board: {max(away)} points to go, the match equity table stops at {MAX_AWAY}")
    one_away = 1 in away
    crawford = one_away and not board.did_crawford
    if crawford and board.cube != 1:
        raise InvalidInputError("invalid board: the cube has turned in the Crawford game")
    return CubeInfo.match(
        away[0], away[1], board.cube, owner, crawford=crawford, post_crawford=one_away and board.did_crawford
    )


def play_text(play: Play, bar: str = "bar", off: str = "off") -> str:
    """A play as one ``from/to`` pair per checker and die, e.g. ``'24/18 18/13'`` (no ``*``, no ``(2)``)."""
    return " ".join(
        f"{bar if s.source == 25 else s.source}/{off if s.destination == 0 else s.destination}" for s in play.steps
    )


class EnginePlayer:
    """Answers decisions with the engine at a level (and optionally another depth).

    ``evaluator_factory`` is called once, at the first decision (so that a
    missing engine shows as an error answer). ``plies`` replaces the level's depth.

    Raises:
        InvalidInputError: on an unknown level or a depth outside 0..2.
    """

    def __init__(
        self,
        evaluator_factory: Callable[[], Any],
        level: str | None = None,
        plies: int | None = None,
        seed: int | None = None,
    ) -> None:
        from backgammon.engine.levels import STRONGEST, get_level

        lv = get_level(level or STRONGEST)
        if plies is not None:
            if not isinstance(plies, int) or isinstance(plies, bool) or not 0 <= plies <= 2:
                raise InvalidInputError(f"invalid plies {plies!r}: expected 0, 1 or 2")
            lv = dataclasses.replace(lv, plies=plies)
        self.level = lv
        self._factory = evaluator_factory
        self._evaluator: Any = None
        self._rng = random.Random(seed)

    @property
    def evaluator(self) -> Any:
        if self._evaluator is None:
            self._evaluator = self._factory()
        return self._evaluator

    def warm_up(self) -> None:
        """Load the network and its kernels now (a move and a cube decision on the opening position),
        so that the first real decision is answered at once.

        Raises:
            BackgammonError: if the engine cannot be loaded.
        """
        start = Position.initial()
        self.answer(Decision(MOVE, start, (3, 1), CubeInfo.money()))
        self.answer(Decision(DOUBLE, start, None, CubeInfo.money()))

    def play(self, decision: Decision) -> Play | None:
        """The level's play for a :data:`MOVE` decision (None when the roll cannot be played)."""
        from backgammon.engine.levels import choose_play

        assert decision.dice is not None
        play = choose_play(decision.position, decision.dice, self.level, self._rng, self.evaluator, decision.cube)
        return play if play.steps else None

    def doubles(self, decision: Decision) -> bool:
        """Whether the side on roll doubles (never when it may not)."""
        if not decision.cube.may_double():
            return False
        return bool(self._cube(decision).should_double)

    def takes(self, decision: Decision) -> bool:
        """Whether the side doubled in a :data:`TAKE` decision takes."""
        return bool(self._cube(decision).take)

    def _cube(self, decision: Decision) -> Any:
        from backgammon.engine.search import EvalContext, decide_cube

        return decide_cube(decision.position, EvalContext(self.evaluator, self.level.plies, decision.cube)).decision

    def answer(self, decision: Decision, bar: str = "bar", off: str = "off") -> str:
        """The answer word or move (``''`` when a roll cannot be played)."""
        if decision.kind == TAKE:
            return "take" if self.takes(decision) else "drop"
        if decision.kind == DOUBLE:
            return "double" if self.doubles(decision) else "roll"
        play = self.play(decision)
        return "" if play is None else play_text(play, bar, off)


def error_line(message: str) -> str:
    """``error: message`` on one line, cut to :data:`MAX_ERROR` characters."""
    text = "error: " + " ".join(str(message).split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 1] + "…"


def answer_line(
    line: bytes | str | None,
    player: EnginePlayer,
    record: list[dict[str, Any]] | None = None,
    dialect: str = GNUBG,
) -> str | None:
    """The reply to one input line: a move, a cube word, or ``error: ...``; None for a blank line.

    Never raises for bad input. ``None`` as ``line`` stands for a line over
    :data:`MAX_LINE` bytes. ``record``, when given, gets one dict per decision
    (board, kind, position ID, dice, answer), for logs and tests.
    """
    try:
        if line is None:
            raise InvalidInputError(f"invalid board: a line longer than {MAX_LINE} bytes")
        if isinstance(line, bytes):
            line = line.replace(b"\x00", b"")
            try:
                line = line.decode("ascii")
            except UnicodeDecodeError:
                raise InvalidInputError("invalid board: the line is not ASCII text") from None
        line = line.replace("\x00", "").strip()
        if not line:
            return None
        decision = decision_of(FibsBoard.parse(line), dialect)
        reply = player.answer(decision)
        if record is not None:
            record.append(
                {
                    "board": line,
                    "kind": decision.kind,
                    "position_id": decision.position.position_id(),
                    "dice": list(decision.dice) if decision.dice else None,
                    "cube": _cube_json(decision.cube),
                    "answer": reply,
                }
            )
        return reply
    except BackgammonError as exc:
        return error_line(str(exc))
    except Exception:  # a bug must not stop the server: log it, answer, keep serving
        log.exception("external player: a decision failed")
        return error_line("internal error (logged; the board was not answered)")


def _cube_json(cube: CubeInfo) -> dict[str, Any]:
    return {"value": cube.value, "owner": cube.owner.value, "away": list(cube.away) if cube.away else None,
            "crawford": cube.crawford, "post_crawford": cube.post_crawford}  # fmt: skip


def _short(value: str, limit: int = 20) -> str:
    return repr(value) if len(value) <= limit else repr(value[: limit - 1]) + "…"


def read_lines(stream: IO[bytes], limit: int = MAX_LINE) -> Iterator[bytes | None]:
    """The lines of a binary stream; ``None`` for a line over ``limit`` bytes (skipped, not stored)."""
    from backgammon.protocols.jsonlines import request_lines

    return request_lines(stream, limit)


def serve_connection(
    lines: Iterable[bytes | str | None],
    write: Callable[[str], None],
    player: EnginePlayer,
    log_stream: IO[str] | None = None,
    dialect: str = GNUBG,
) -> int:
    """Answer every line of one connection; returns the number of answers written."""
    count = 0
    for line in lines:
        record: list[dict[str, Any]] = []
        reply = answer_line(line, player, record, dialect)
        if reply is None:
            continue
        write(reply + "\n")
        count += 1
        if log_stream is not None:
            entry = record[0] if record else {"answer": reply}
            log_stream.write(json.dumps(entry) + "\n")
            log_stream.flush()
    return count


def listen(host: str = "127.0.0.1", port: int = 0, path: str | None = None) -> socket.socket:
    """A listening socket: TCP on ``host:port`` (port 0: any free port), or Unix at ``path``.

    Raises:
        InvalidInputError: if the address cannot be used.
    """
    if path is None and (isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535):
        raise InvalidInputError(f"invalid port {port!r}: expected 0 to 65535")
    try:
        if path is not None:
            if not hasattr(socket, "AF_UNIX"):
                raise InvalidInputError("unix sockets are not available on this system")
            if os.path.exists(path):
                raise InvalidInputError(f"cannot listen at {path!r}: the path exists")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(path)
        else:
            sock = socket.create_server((host, port), reuse_port=False)
        sock.listen(1)
        return sock
    except OSError as exc:
        where = path if path is not None else f"{host}:{port}"
        raise InvalidInputError(f"cannot listen at {where}: {exc.strerror or exc}") from None


def serve(
    sock: socket.socket,
    player: EnginePlayer,
    *,
    once: bool = False,
    log_stream: IO[str] | None = None,
    status: IO[str] | None = None,
    dialect: str = GNUBG,
) -> int:
    """Accept connections one at a time and answer them until the peer closes; returns the answers.

    With ``once`` the server stops after the first connection. ``status``
    gets one line per connection (default: stderr).
    """
    status = status or sys.stderr
    total = 0
    with sock:
        while True:
            conn, peer = sock.accept()
            status.write(f"external player: connection from {peer or 'unix socket'}\n")
            status.flush()
            with conn, conn.makefile("rb") as stream:

                def write(text: str, conn: socket.socket = conn) -> None:
                    conn.sendall(text.encode("ascii", "replace"))

                try:
                    total += serve_connection(read_lines(stream), write, player, log_stream, dialect)
                except OSError as exc:  # the peer went away mid-answer
                    status.write(f"external player: connection lost ({exc.strerror or exc})\n")
            status.write("external player: connection closed\n")
            status.flush()
            if once:
                return total


__all__ = [
    "DIALECTS",
    "DOUBLE",
    "FIBS",
    "FIELDS",
    "GNUBG",
    "MOVE",
    "TAKE",
    "Decision",
    "EnginePlayer",
    "FibsBoard",
    "answer_line",
    "decision_of",
    "error_line",
    "listen",
    "play_text",
    "serve",
    "serve_connection",
]
