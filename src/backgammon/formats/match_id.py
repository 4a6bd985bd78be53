"""GNU Backgammon Match ID: the match and cube state in 12 base64 characters.

The Match ID packs 66 bits (9 bytes, little-endian, bits numbered from 0,
least significant first) and encodes them with standard base64::

    bits   0-3   log2 of the cube value
    bits   4-5   cube owner: 0 = player 0, 1 = player 1, 3 = centred
    bit    6     dice owner (the player on roll, or who rolled)
    bit    7     Crawford game
    bits   8-10  game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
    bit   11     turn: whose decision it is now
    bit   12     a double is offered
    bits  13-14  resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
    bits  15-17  die 1 (gnubg writes the larger die here; 0 = not rolled)
    bits  18-20  die 2
    bits  21-35  match length (0 = money game)
    bits  36-50  score of player 0
    bits  51-65  score of player 1

The six bits after bit 65 are zero in the classic format. GNU Backgammon
1.07 as shipped by Debian sets bit 66 whenever the Jacoby rule is not in
force (every match, and money play without Jacoby); :attr:`MatchState.extra_bits`
keeps those bits so that such IDs round-trip unchanged.

gnubg's player 0 is the top player (XGID's O, the left column of a ``.mat``
file), player 1 the bottom player (XGID's X).

>>> state = MatchState.from_match_id("QYkqASAAIAAA")
>>> state.match_length, state.score, state.cube_value, state.cube_owner, state.dice
(9, (2, 4), 2, 0, (5, 2))
>>> state.match_id()
'QYkqASAAIAAA'
>>> pid, ms = parse_gnubg_id("4HPwATDgc/ABMA:cAkAAAAAAAAA")
>>> ms.is_money, ms.dice_owner
(True, 1)
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

from backgammon.dice import check_roll
from backgammon.errors import InvalidInputError
from backgammon.game import MAX_MATCH_LENGTH, check_match_length
from backgammon.position import Position

if TYPE_CHECKING:
    from backgammon.game import Game

__all__ = [
    "MAX_MATCH_LENGTH",
    "GameState",
    "MatchState",
    "format_gnubg_id",
    "parse_gnubg_id",
]

MAX_CUBE_LOG = 15  # the cube field has 4 bits
_MAX_SCORE = (1 << 15) - 1
_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


class GameState(IntEnum):
    """The state of the current game, as stored in bits 8-10."""

    NONE = 0  # no game started
    PLAYING = 1
    OVER = 2  # played out
    RESIGNED = 3
    DROPPED = 4  # ended by a refused double


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class MatchState:
    """The match and cube state that a gnubg Match ID holds.

    Players are gnubg's numbers: 0 (top, XGID's O) and 1 (bottom, XGID's X).
    ``cube_owner`` is 0, 1 or None (centred). ``dice_owner`` is the player on
    roll; ``turn`` the player who must act now (the opponent of the doubler
    while a double is pending). ``dice`` is None when not rolled. ``score``
    is ``(player 0, player 1)``. ``match_length`` 0 is money play.

    >>> MatchState(match_length=5, score=(1, 3), dice_owner=1, turn=1).match_id()
    'cAmgABAAGAAA'

    Raises:
        InvalidInputError: when a field is out of range; the message names it.
    """

    cube_value: int = 1
    cube_owner: int | None = None
    dice_owner: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    doubled: bool = False
    resignation: int = 0
    dice: tuple[int, int] | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    extra_bits: int = 0

    def __post_init__(self) -> None:
        cube = self.cube_value
        if not _is_int(cube) or cube < 1 or cube & (cube - 1) or cube > 1 << MAX_CUBE_LOG:
            raise InvalidInputError(
                f"invalid cube value {cube!r}: expected a power of two from 1 to {1 << MAX_CUBE_LOG}"
            )
        if self.cube_owner is not None and (not _is_int(self.cube_owner) or self.cube_owner not in (0, 1)):
            raise InvalidInputError(f"invalid cube owner {self.cube_owner!r}: expected 0, 1 or None (centred)")
        for name in ("dice_owner", "turn"):
            value = getattr(self, name)
            if not _is_int(value) or value not in (0, 1):
                raise InvalidInputError(f"invalid {name.replace('_', ' ')} {value!r}: expected player 0 or 1")
        for name in ("crawford", "doubled"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInputError(f"invalid {name} flag {getattr(self, name)!r}: expected True or False")
        try:
            object.__setattr__(self, "game_state", GameState(self.game_state))
        except ValueError:
            raise InvalidInputError(f"invalid game state {self.game_state!r}: expected 0..4") from None
        if not _is_int(self.resignation) or not 0 <= self.resignation <= 3:
            raise InvalidInputError(
                f"invalid resignation {self.resignation!r}: expected 0 (none), 1 (single), 2 (gammon) or 3 (backgammon)"
            )
        if self.dice is not None:
            if not isinstance(self.dice, tuple):
                raise InvalidInputError(f"invalid dice {self.dice!r}: expected None or a tuple of two dice")
            check_roll(self.dice)
        length = check_match_length(self.match_length)
        score = self.score
        if (
            not isinstance(score, tuple)
            or len(score) != 2
            or not all(_is_int(s) and 0 <= s <= _MAX_SCORE for s in score)
        ):
            raise InvalidInputError(f"invalid score {score!r}: expected two non-negative integers")
        problem = _score_problem(length, score, self.game_state)
        if problem:
            raise InvalidInputError(f"invalid score {score!r}: {problem}")
        if self.crawford and length == 0:
            raise InvalidInputError("invalid crawford flag: there is no crawford game in money play")
        if self.crawford and self.game_state in (GameState.NONE, GameState.PLAYING):
            from backgammon.game import crawford_problem

            problem = crawford_problem(length, score)
            if problem:
                raise InvalidInputError(f"invalid crawford flag: {problem}")
            if cube > 1 or self.cube_owner is not None:
                raise InvalidInputError(
                    f"invalid cube {cube} (owner {self.cube_owner}): the cube stays centred at 1 in the crawford game"
                )
        if not _is_int(self.extra_bits) or not 0 <= self.extra_bits < 64:
            raise InvalidInputError(f"invalid extra bits {self.extra_bits!r}: expected 0..63")

    # ------------------------------------------------------------------ queries
    @property
    def is_money(self) -> bool:
        """True for money play (match length 0)."""
        return self.match_length == 0

    @property
    def cube_log(self) -> int:
        """log2 of the cube value."""
        return self.cube_value.bit_length() - 1

    @classmethod
    def from_game(cls, game: Game) -> MatchState:
        """The Match ID state of a :class:`~backgammon.game.Game`.

        WHITE is gnubg's player 1, BLACK player 0. Before the opening roll
        the game state is NONE. A finished game shows its ending and the
        score after it, as gnubg does: played out (OVER), the loser is on
        roll; resigned (RESIGNED), the loser's resignation stays and the
        winner has the turn; a dropped double (DROPPED), the doubler is on roll.

        Raises:
            InvalidInputError: for a drawn (casual) game, which a Match ID cannot hold.
        """
        from backgammon.game import Ending, GamePhase, Player

        def index(player: Player | None) -> int:
            return 1 if player is Player.WHITE else 0

        white, black = game.score
        phase = game.phase
        state = GameState.PLAYING
        on_roll = index(game.on_roll or Player.WHITE)
        turn = on_roll if game.turn is None else index(game.turn)
        resignation = game.resignation.value if phase is GamePhase.RESIGNATION and game.resignation else 0
        if phase is GamePhase.OPENING:
            state = GameState.NONE
        elif phase is GamePhase.OVER:
            result = game.result
            assert result is not None
            if result.winner is None:
                raise InvalidInputError("a drawn game has no match id")
            loser = index(result.winner.other)
            if result.ending is Ending.PLAYED:  # gnubg passes the turn to the loser
                state, on_roll, turn = GameState.OVER, loser, loser
            elif result.ending is Ending.RESIGNED:  # the resignation stays, the winner answered it
                state, on_roll, turn = GameState.RESIGNED, loser, index(result.winner)
                resignation = result.kind.value if result.kind is not None else 1
            else:
                state, turn = GameState.DROPPED, on_roll
            if result.winner is Player.WHITE:
                white += result.points
            else:
                black += result.points
        return cls(
            cube_value=game.cube_value,
            cube_owner=None if game.cube_owner is None else index(game.cube_owner),
            dice_owner=on_roll,
            crawford=game.crawford_game,
            game_state=state,
            turn=turn,
            doubled=phase is GamePhase.DOUBLED,
            resignation=resignation,
            dice=game.rolled_dice,
            match_length=game.rules.match_length,
            score=(black, white),
        )

    # ------------------------------------------------------------------ coding
    @classmethod
    def from_match_id(cls, match_id: str) -> MatchState:
        """Decode a Match ID (12 base64 characters).

        The dice are returned larger first, whatever order the ID holds them in.

        Raises:
            InvalidInputError: for text that is not a valid Match ID; the
                message names the field at fault.
        """
        if not isinstance(match_id, str):
            raise InvalidInputError(f"invalid match id {match_id!r}: expected a string of 12 characters")
        text = match_id.strip()
        if len(text) != 12 or not set(text) <= _B64:
            raise InvalidInputError(f"invalid match id {match_id!r}: expected 12 characters from A-Z a-z 0-9 + /")
        try:
            key = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):  # pragma: no cover - 12 alphabet characters always decode
            raise InvalidInputError(f"invalid match id {match_id!r}: not base64") from None
        bits = int.from_bytes(key, "little")

        def field(start: int, width: int) -> int:
            return bits >> start & ((1 << width) - 1)

        owner = field(4, 2)
        if owner == 2:
            raise InvalidInputError(f"invalid match id {match_id!r}: cube owner field is 2, expected 0, 1 or 3")
        state = field(8, 3)
        if state > 4:
            raise InvalidInputError(f"invalid match id {match_id!r}: game state field is {state}, expected 0..4")
        d1, d2 = field(15, 3), field(18, 3)
        if d1 > 6 or d2 > 6:
            raise InvalidInputError(f"invalid match id {match_id!r}: dice field is {d1}{d2}, a die above 6")
        if (d1 == 0) != (d2 == 0):
            raise InvalidInputError(f"invalid match id {match_id!r}: dice field is {d1}{d2}, only one die rolled")
        length = field(21, 15)
        try:
            check_match_length(length)
        except InvalidInputError as exc:
            raise InvalidInputError(f"invalid match id {match_id!r}: {exc}") from None
        score = (field(36, 15), field(51, 15))
        problem = _score_problem(length, score, GameState(state))
        if problem:
            raise InvalidInputError(f"invalid match id {match_id!r}: score field is {score[0]}-{score[1]}, {problem}")
        crawford = bool(field(7, 1))
        if crawford and length == 0:
            raise InvalidInputError(f"invalid match id {match_id!r}: crawford field is set in money play")
        return cls(
            cube_value=1 << field(0, 4),
            cube_owner=None if owner == 3 else owner,
            dice_owner=field(6, 1),
            crawford=crawford,
            game_state=GameState(state),
            turn=field(11, 1),
            doubled=bool(field(12, 1)),
            resignation=field(13, 2),
            dice=None if d1 == 0 else (max(d1, d2), min(d1, d2)),
            match_length=length,
            score=score,
            extra_bits=field(66, 6),
        )

    def match_id(self) -> str:
        """Encode as a Match ID; the larger die is written first, as gnubg does."""
        d1, d2 = (0, 0) if self.dice is None else (max(self.dice), min(self.dice))
        fields = (
            (0, self.cube_log),
            (4, 3 if self.cube_owner is None else self.cube_owner),
            (6, self.dice_owner),
            (7, int(self.crawford)),
            (8, int(self.game_state)),
            (11, self.turn),
            (12, int(self.doubled)),
            (13, self.resignation),
            (15, d1),
            (18, d2),
            (21, self.match_length),
            (36, self.score[0]),
            (51, self.score[1]),
            (66, self.extra_bits),
        )
        bits = 0
        for start, value in fields:
            bits |= value << start
        return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")

    def __str__(self) -> str:
        return self.match_id()


def _score_problem(length: int, score: tuple[int, int], state: GameState) -> str | None:
    """Why a score cannot go with this match length, or None.

    gnubg keeps the real final score once a match is over (a 12-point
    backgammon at 1-2 in a 5-point match leaves 1-14 in the Match ID), so a
    score above the length is only wrong while a game is still to be played.
    """
    if not length:
        return None
    if min(score) >= length:
        return f"both sides at or above the match length {length}"
    if max(score) >= length and state in (GameState.NONE, GameState.PLAYING):
        return f"above the match length {length} while the match goes on"
    return None


def parse_gnubg_id(text: str) -> tuple[Position, MatchState]:
    """Read a "GNU BG ID": ``PositionID:MatchID``.

    The Position ID is seen from the player on roll, as gnubg writes it.
    Surrounding blanks and a leading ``GNUBGID`` / ``GNU BG ID`` label are
    accepted.

    >>> position, state = parse_gnubg_id("4HPwATDgc/ABMA:QYkqASAAIAAA")
    >>> position == Position.initial(), state.score
    (True, (2, 4))

    Raises:
        InvalidInputError: if either part is not valid.
        InvalidPositionError: if the Position ID decodes to an impossible position.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"invalid gnubg id {text!r}: expected 'PositionID:MatchID'")
    body = text.strip()
    for label in ("GNUBGID", "GNU BG ID", "GNUBG ID"):
        if body.upper().startswith(label):
            body = body[len(label) :].lstrip(" :=")
            break
    parts = body.split(":")
    if len(parts) != 2:
        raise InvalidInputError(
            f"invalid gnubg id {text!r}: expected 'PositionID:MatchID', as in '4HPwATDgc/ABMA:cAkAAAAAAAAA'"
        )
    position = Position.from_position_id(parts[0])
    return position, MatchState.from_match_id(parts[1])


def format_gnubg_id(position: Position, state: MatchState) -> str:
    """``PositionID:MatchID``, the inverse of :func:`parse_gnubg_id`."""
    return f"{position.position_id()}:{state.match_id()}"


def gnubg_id_of_game(game: Game) -> str:
    """The "GNU BG ID" (``PositionID:MatchID``) of a game; the board is seen from the dice owner.

    Raises:
        InvalidInputError: for a drawn (casual) game.
    """
    from backgammon.game import Player

    state = MatchState.from_game(game)
    return format_gnubg_id(game.board_for(Player.WHITE if state.dice_owner == 1 else Player.BLACK), state)
