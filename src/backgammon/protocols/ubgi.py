"""UBGI, the Universal Backgammon Interface (draft 0.01): a UCI-like engine protocol on stdin/stdout.

The draft (Øystein Schønning-Johansen, 2025, github.com/oysteijo/Universal-Backgammon-Interface)
defines, from the user interface to the engine:

* ``ubgi``: start; the engine initialises and answers ``id name ...``, ``id author ...``,
  ``id version ...`` and ``readyok`` (or ``sorry`` if it cannot start);
* a position, as a FIBS ``board:`` string or an XGID: the engine answers its best action: a
  move (``8/5 6/5``: one from/to pair per checker and die, no ``*`` and no ``(2)``; the bar
  is 25, off is 0), ``double``, ``roll``, ``take``, ``drop``, or a blank line when the roll
  cannot be played;
* ``stop``: stop what the engine is doing; ``quit``: end the process.

Anything the engine does not understand or cannot answer gets ``sorry``. The draft gives
``sorry`` no arguments, so the reason goes to stderr as one line ``ubgi: ...``. Options,
analysis and rollouts are announced in the draft for later versions and are not implemented.
See ``docs/ubgi.md``.

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


class Session:
    """One UBGI conversation: feed it lines, it writes the answers.

    ``player_factory`` builds the :class:`EnginePlayer` at ``ubgi`` (or at the
    first position, for interfaces that skip the handshake).
    """

    def __init__(self, player_factory: Callable[[], EnginePlayer], out: IO[str], err: IO[str]) -> None:
        self._factory = player_factory
        self._player: EnginePlayer | None = None
        self._out = out
        self._err = err
        self.done = False

    def _say(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def _sorry(self, reason: str) -> None:
        self._say("sorry")
        self._err.write("ubgi: " + error_line(reason)[len("error: ") :] + "\n")
        self._err.flush()

    def _ensure_player(self) -> EnginePlayer:
        if self._player is None:
            player = self._factory()
            player.warm_up()  # the draft: initialise at "ubgi", then "readyok"
            self._player = player
        return self._player

    def handle(self, line: bytes | str | None) -> None:
        """Answer one line (``None``: a line over :data:`MAX_LINE` bytes). Never raises for bad input."""
        try:
            if line is None:
                raise InvalidInputError(f"a line longer than {MAX_LINE} bytes")
            if isinstance(line, bytes):
                try:
                    line = line.decode("ascii")
                except UnicodeDecodeError:
                    raise InvalidInputError("the line is not ASCII text") from None
            text = line.replace("\x00", "").strip()
            if not text:
                return
            word = text.split()[0]
            if word == "ubgi":
                self._ensure_player()
                self._say(f"id name {NAME}")
                self._say(f"id author {AUTHOR}")
                self._say(f"id version {_version()}")
                self._say("readyok")
            elif word == "stop":
                pass  # answers are computed synchronously: nothing is running between lines
            elif word == "quit":
                self.done = True
            elif word == "isready":  # UCI's synchronisation, harmless to answer
                self._say("readyok")
            elif text.startswith("board:") or text.upper().startswith("XGID=") or text.count(":") >= 9:
                decision = parse_position(text)
                self._say(self._ensure_player().answer(decision, bar="25", off="0"))
            else:
                raise InvalidInputError(f"unknown command {text[:20]!r}")
        except BackgammonError as exc:
            self._sorry(str(exc))
        except Exception:  # a bug must not stop the engine: log it and answer
            log.exception("ubgi: a request failed")
            self._sorry("internal error (logged)")


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


__all__ = ["AUTHOR", "NAME", "Session", "decision_of_xgid", "make_player", "parse_position", "run"]
