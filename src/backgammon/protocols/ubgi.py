"""UBGI, the Universal Backgammon Interface, version 0.2: a UCI-like engine protocol on stdin/stdout.

Version 0.2 is the one the bgci match runner speaks (``docs/ubgi-v0.2-spec.md`` of
github.com/bungogood/bgci); the first draft, 0.01, is Øystein Schønning-Johansen's (2025,
github.com/oysteijo/Universal-Backgammon-Interface). From the controller to the engine:

* ``ubgi``: the engine initialises and answers ``id name ...``, ``id author ...``, ``id version
  ...``, ``proto 0.2`` and ``ubgiok``; ``isready``: ``readyok``; ``newgame``: forget the position;
* ``position gnubgid <PositionID>`` (money, cube centred; ``PositionID:MatchID`` brings the cube,
  score and dice too) or ``position xgid <XGID>``; ``dice <d1> <d2>``;
* ``go`` / ``go chequer``: ``bestmove 24/18 13/12`` (``bar``, ``off``; ``pass`` when the roll
  cannot be played); ``go cube``: ``bestcube double`` or ``nodouble``; ``go turn``:
  ``bestturn cube=<double|nodouble> move=<move>``;
* ``keys``: ``key engine.ply int 1..3 <default> ...`` (UBGI counts the root: its 1-ply is our
  0-ply), ``key engine.level enum ...``, ``key game.variant ...``; ``set <key> <value>``;
  ``get <key>``: ``value <key> <value>``;
* ``stop`` (nothing runs between lines) and ``quit``.

A refusal is ``error <code> <detail>`` with one of the four codes (``bad_command``, ``bad_value``,
``bad_state``, ``unsupported``), and the session goes on. Draft 0.01's one-line positions are
still answered where they do not clash with 0.2: a bare XGID (``XGID=...``) or a FIBS ``board:``
string gets the move (bar 25, off 0), ``double``/``roll`` or ``take``/``drop`` at once, and
``sorry`` (the reason on stderr as ``ubgi: ...``) when it cannot be read. What changed: ``ubgi``
now ends with ``proto 0.2`` and ``ubgiok`` (0.01's ``readyok`` comes from ``isready``), and an
unknown command is ``error bad_command`` (0.01: ``sorry``). See ``docs/ubgi.md``.

The decisions themselves are the external player's (:mod:`backgammon.protocols.external`):
the same board reading, the same engine answers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import IO, Any

from backgammon.engine.cube import CubeInfo
from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.protocols.external import (
    DOUBLE,
    MOVE,
    TAKE,
    Decision,
    EnginePlayer,
    FibsBoard,
    decision_of,
    error_line,
)

log = logging.getLogger("backgammon.protocols.ubgi")

MAX_LINE = 4_096
"""Bytes in one input line."""

NAME = "backgammon"
AUTHOR = "the backgammon project"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("backgammon")
    except Exception:  # noqa: BLE001 - not installed as a distribution: say so
        return "unknown"


def decision_of_xgid(text: str) -> Decision:
    """The decision an XGID asks for: a move with dice, a double/roll without, a take when doubled.

    Raises:
        InvalidInputError: on a bad XGID or a finished game.
    """
    from backgammon.formats.xgid import Xgid
    from backgammon.protocols.jsonlines import cube_info_from_match_state

    xgid = Xgid.parse(text)
    position, state = xgid.to_gnubg()
    if position.is_game_over():
        raise InvalidInputError("invalid xgid: a side has borne off all its checkers (the game is over)")
    cube: CubeInfo = cube_info_from_match_state(state, state.dice_owner, jacoby=xgid.jacoby)
    if state.doubled:
        return Decision(TAKE, position, None, cube)
    if state.dice:
        return Decision(MOVE, position, tuple(state.dice), cube)  # type: ignore[arg-type]
    return Decision(DOUBLE, position, None, cube)


def parse_position(text: str) -> Decision:
    """The decision of a FIBS board string (``board:...``) or an XGID (``XGID=...`` or bare).

    Raises:
        InvalidInputError: naming what is wrong.
    """
    if text.startswith("board:"):
        return decision_of(FibsBoard.parse(text))
    return decision_of_xgid(text)


class UbgiError(Exception):
    """A refusal of UBGI 0.2: ``error <code> <detail>`` (codes: :data:`ERROR_CODES`)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


ERROR_CODES = ("bad_command", "bad_value", "bad_state", "unsupported")
"""The four error codes of UBGI 0.2."""
PROTO = "0.2"
MAX_PLY = 3
"""The deepest ``engine.ply`` that may be set (UBGI counts the root: our 2-ply search is its 3)."""


class Session:
    """One UBGI conversation: feed it lines, it writes the answers.

    It speaks UBGI 0.2 (``ubgi`` ... ``ubgiok``; ``isready``; ``newgame``; ``position gnubgid`` /
    ``position xgid``; ``dice``; ``go`` / ``go chequer`` / ``go cube`` / ``go turn``; ``set``, ``get``,
    ``keys``; ``error <code> ...``) and keeps draft 0.01's one-line positions (an XGID or a FIBS
    ``board:`` line, answered at once, ``sorry`` on failure). ``player_factory`` builds the
    :class:`EnginePlayer` at ``ubgi`` or ``isready`` (or at the first decision, for interfaces that
    skip the handshake).
    """

    def __init__(self, player_factory: Callable[[], EnginePlayer], out: IO[str], err: IO[str]) -> None:
        self._factory = player_factory
        self._player: EnginePlayer | None = None
        self._out = out
        self._err = err
        self.done = False
        self._position: Any = None  # the side on roll's Position, from ``position``
        self._cube: CubeInfo = CubeInfo.money()
        self._dice: tuple[int, int] | None = None
        self._doubled = False  # the position's cube was just offered (an XGID with dice "D")

    def _say(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def _sorry(self, reason: str) -> None:
        self._say("sorry")
        self._err.write("ubgi: " + error_line(reason)[len("error: ") :] + "\n")
        self._err.flush()

    def _error(self, code: str, detail: str) -> None:
        self._say(f"error {code} " + " ".join(str(detail).split())[:200])

    def _ensure_player(self) -> EnginePlayer:
        if self._player is None:
            player = self._factory()
            player.warm_up()  # initialise at "ubgi" (or "isready"), before the first decision
            self._player = player
        return self._player

    def handle(self, line: bytes | str | None) -> None:
        """Answer one line (``None``: a line over :data:`MAX_LINE` bytes). Never raises for bad input."""
        try:
            if line is None:
                raise UbgiError("bad_command", f"a line longer than {MAX_LINE} bytes")
            if isinstance(line, bytes):
                try:
                    line = line.decode("ascii")
                except UnicodeDecodeError:
                    raise UbgiError("bad_command", "the line is not ASCII text") from None
            text = line.replace("\x00", "").strip()
            if not text:
                return
            words = text.split()
            command = COMMANDS.get(words[0])
            if command is not None:
                command(self, words[1:])
            elif text.startswith("board:") or text.upper().startswith("XGID=") or text.count(":") >= 9:
                self._old_position(text)  # draft 0.01: a position answered at once
            else:
                raise UbgiError("bad_command", f"unknown command {words[0][:20]!r}")
        except UbgiError as exc:
            self._error(exc.code, exc.detail)
        except BackgammonError as exc:
            self._error("bad_value", str(exc))
        except Exception:  # a bug must not stop the engine: log it and answer
            log.exception("ubgi: a request failed")
            self._error("bad_state", "internal error (logged)")

    def _old_position(self, text: str) -> None:
        try:
            decision = parse_position(text)
            self._say(self._ensure_player().answer(decision, bar="25", off="0"))
        except BackgammonError as exc:
            self._sorry(str(exc))

    # ------------------------------------------------------------ commands
    def _ubgi(self, args: list[str]) -> None:
        self._ensure_player()
        self._say(f"id name {NAME}")
        self._say(f"id author {AUTHOR}")
        self._say(f"id version {_version()}")
        self._say(f"proto {PROTO}")
        self._say("ubgiok")

    def _isready(self, args: list[str]) -> None:
        self._ensure_player()
        self._say("readyok")

    def _newgame(self, args: list[str]) -> None:
        self._position, self._cube, self._dice, self._doubled = None, CubeInfo.money(), None, False

    def _stop(self, args: list[str]) -> None:
        pass  # answers are computed synchronously: nothing is running between lines

    def _quit(self, args: list[str]) -> None:
        self.done = True

    def _set_position(self, args: list[str]) -> None:
        if len(args) != 2 or args[0] not in ("gnubgid", "xgid"):
            raise UbgiError("bad_command", "expected: position gnubgid <id> or position xgid <xgid>")
        if args[0] == "xgid":
            decision = decision_of_xgid(args[1])
            self._position, self._cube, self._dice = decision.position, decision.cube, decision.dice
            self._doubled = decision.kind == TAKE
            return
        from backgammon.position import Position

        if ":" in args[1]:  # PositionID:MatchID, the cube, score and dice with it
            from backgammon.formats.match_id import parse_gnubg_id
            from backgammon.protocols.jsonlines import cube_info_from_match_state

            position, state = parse_gnubg_id(args[1])
            cube = cube_info_from_match_state(state, state.dice_owner)
            dice = tuple(state.dice) if state.dice else None
            doubled = bool(state.doubled)
        else:
            position, cube, dice, doubled = Position.from_position_id(args[1]), CubeInfo.money(), None, False
        if position.is_game_over():
            raise UbgiError("bad_value", "a side has borne off all its checkers (the game is over)")
        self._position, self._cube, self._dice, self._doubled = position, cube, dice, doubled  # type: ignore[assignment]

    def _set_dice(self, args: list[str]) -> None:
        if len(args) != 2 or not all(a in "123456" and len(a) == 1 for a in args):
            raise UbgiError("bad_value", "expected: dice <1-6> <1-6>")
        self._dice = (int(args[0]), int(args[1]))

    def _go(self, args: list[str]) -> None:
        what = args[0] if args else "chequer"
        if len(args) > 1 or what not in ("chequer", "cube", "turn"):
            raise UbgiError("bad_command", "expected: go, go chequer, go cube or go turn")
        if self._position is None:
            raise UbgiError("bad_state", "missing position")
        if what == "chequer":
            self._say(f"bestmove {self._move()}")
        elif what == "cube":
            self._say(f"bestcube {self._cube_action()}")
        else:
            move = self._move()  # (checked first: a turn needs its dice)
            self._say(f"bestturn cube={self._cube_action()} move={move}")

    def _move(self) -> str:
        if self._dice is None:
            raise UbgiError("bad_state", "missing dice")
        if self._doubled:
            raise UbgiError("bad_state", "the cube was offered: the position asks for a take or a drop")
        answer = self._ensure_player().answer(Decision(MOVE, self._position, self._dice, self._cube))
        return answer or "pass"

    def _cube_action(self) -> str:
        if self._doubled:
            raise UbgiError("unsupported", "take decisions (UBGI 0.2 has no answer for them)")
        answer = self._ensure_player().answer(Decision(DOUBLE, self._position, None, self._cube))
        return "double" if answer == "double" else "nodouble"

    # ------------------------------------------------------------ settings
    def _key_lines(self) -> list[str]:
        from backgammon.engine.levels import LEVELS

        level = self._ensure_player().level
        top = max(MAX_PLY, level.plies + 1)
        return [
            f"key engine.ply int 1..{top} {level.plies + 1} root-inclusive decision depth (gnubg's plies + 1)",
            f"key engine.level enum {'|'.join(LEVELS)} {level.name} playing strength (depth and noise)",
            "key game.variant enum backgammon backgammon the game",
        ]

    def _keys(self, args: list[str]) -> None:
        for line in self._key_lines():
            self._say(line)

    def _value(self, key: str) -> str:
        level = self._ensure_player().level
        values = {"engine.ply": str(level.plies + 1), "engine.level": level.name, "game.variant": "backgammon"}
        if key not in values:
            raise UbgiError("unsupported", key[:40])
        return values[key]

    def _get(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UbgiError("bad_command", "expected: get <key>")
        self._say(f"value {args[0]} {self._value(args[0])}")

    def _set(self, args: list[str]) -> None:
        from backgammon.engine.levels import LEVELS, get_level

        if len(args) != 2:
            raise UbgiError("bad_command", "expected: set <key> <value>")
        key, value = args
        current = self._ensure_player()
        if key == "engine.level":
            if value not in LEVELS:
                raise UbgiError("bad_value", f"engine.level must_be {'|'.join(LEVELS)}")
            self._player = EnginePlayer(lambda: current.evaluator, value, None)
        elif key == "engine.ply":
            level = current.level
            top = max(MAX_PLY, level.plies + 1)
            if not value.isdigit() or not 1 <= int(value) <= top:
                raise UbgiError("bad_value", f"engine.ply must_be 1..{top}")
            plies = int(value) - 1
            base = get_level(level.name)
            self._player = EnginePlayer(lambda: current.evaluator, base.name, None if plies == base.plies else plies)
        elif key == "game.variant":
            if value != "backgammon":
                raise UbgiError("unsupported", f"game.variant {value[:40]}")
        else:
            raise UbgiError("unsupported", key[:40])


COMMANDS: dict[str, Callable[[Session, list[str]], None]] = {
    "ubgi": Session._ubgi,
    "isready": Session._isready,
    "newgame": Session._newgame,
    "position": Session._set_position,
    "dice": Session._set_dice,
    "go": Session._go,
    "set": Session._set,
    "get": Session._get,
    "keys": Session._keys,
    "stop": Session._stop,
    "quit": Session._quit,
}
"""UBGI 0.2's commands (``stop`` from draft 0.01)."""


def run(
    lines: Iterable[bytes | str | None],
    out: IO[str],
    err: IO[str],
    player_factory: Callable[[], EnginePlayer],
) -> int:
    """Run a session over ``lines`` until ``quit`` or the end of input; returns the lines read."""
    session = Session(player_factory, out, err)
    count = 0
    for line in lines:
        count += 1
        session.handle(line)
        if session.done:
            break
    return count


def make_player(
    evaluator_factory: Callable[[], Any], level: str | None, plies: int | None
) -> Callable[[], EnginePlayer]:
    """A factory for the session's player (checked now, built at ``ubgi``).

    Raises:
        InvalidInputError: on a bad level or depth.
    """
    EnginePlayer(lambda: None, level, plies)  # validate the options before the session starts
    return lambda: EnginePlayer(evaluator_factory, level, plies)


__all__ = [
    "AUTHOR",
    "ERROR_CODES",
    "NAME",
    "PROTO",
    "Session",
    "UbgiError",
    "decision_of_xgid",
    "make_player",
    "parse_position",
    "run",
]
