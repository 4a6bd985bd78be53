"""XGID, eXtreme Gammon's position ID.

``XGID=PPPPPPPPPPPPPPPPPPPPPPPPPP:CV:CP:T:D:S1:S2:CJ:ML:MC`` (the ``XGID=``
prefix is optional):

- 26 characters of board, always seen from X, the bottom player, whoever is
  on roll: character 0 is O's bar, 1..24 are X's points 1..24 (X moves from
  24 to 1; character *i* is O's point 25 - *i*), 25 is X's bar. ``-`` is
  empty, ``A``..``P`` are 1..16 of X's checkers, ``a``..``p`` O's.
- CV: log2 of the cube (before the double when one is offered).
- CP: cube position, 1 = X owns, -1 = O owns, 0 = centred.
- T: 1 = X on roll, -1 = O on roll; with a double offered, T is the doubler.
- D: ``00`` to roll (or double), two digits = the roll to play (higher first
  when written), ``D`` = double offered; XG also writes ``B`` / ``R`` for a
  pending beaver / raccoon.
- S1, S2: X's and O's score. CJ: in a match 1 = Crawford game; in money play
  a bit field, 1 = Jacoby, 2 = beaver. ML: match length (0 = money).
  MC: maximum cube exponent (XG writes 10).

gnubg's player 1 is X, its player 0 is O: S1 is gnubg's player 1 score.

>>> x = Xgid.parse("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10")
>>> x.position == Position.initial(), x.dice, x.score, x.cube_value
(True, (5, 2), (4, 2), 2)
>>> position, state = x.to_gnubg()
>>> f"{position.position_id()}:{state.match_id()}"
'4HPwATDgc/ABMA:QYkqASAAIAAA'
>>> str(Xgid.from_gnubg(position, state))
'XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from backgammon.dice import check_roll
from backgammon.errors import InvalidInputError, InvalidPositionError
from backgammon.formats.match_id import GameState, MatchState
from backgammon.game import check_match_length
from backgammon.position import Position

if TYPE_CHECKING:
    from backgammon.game import Game

__all__ = ["Xgid"]

_MAX_TEXT = 200
_FIELD = re.compile(r"^-?\d{1,6}$")
_CUBE_ACTIONS = ("D", "B", "R")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Xgid:
    """An XGID, every field kept.

    ``position`` is seen from the player on roll (``turn``: 1 = X, -1 = O;
    the doubler when ``cube_action`` is ``'D'``). ``score`` is ``(X, O)``.
    ``cube_owner`` is 1 (X), -1 (O) or 0 (centred). ``dice`` is None when the
    player is still to roll; ``cube_action`` is None, ``'D'`` (double
    offered), ``'B'`` (beaver pending) or ``'R'`` (raccoon pending).
    ``crawford`` applies in a match, ``jacoby`` / ``beaver`` in money play.

    Raises:
        InvalidInputError: when a field is out of range.
    """

    position: Position
    turn: int = 1
    cube_exponent: int = 0
    cube_owner: int = 0
    dice: tuple[int, int] | None = None
    cube_action: str | None = None
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    match_length: int = 0
    max_cube_exponent: int = 10

    def __post_init__(self) -> None:
        if not isinstance(self.position, Position):
            raise InvalidInputError(f"invalid xgid position {self.position!r}: expected a Position")
        if not _is_int(self.turn) or self.turn not in (1, -1):
            raise InvalidInputError(f"invalid xgid turn {self.turn!r}: expected 1 (X) or -1 (O)")
        if not _is_int(self.cube_exponent) or not 0 <= self.cube_exponent <= 15:
            raise InvalidInputError(f"invalid xgid cube exponent {self.cube_exponent!r}: expected 0..15")
        if not _is_int(self.cube_owner) or self.cube_owner not in (-1, 0, 1):
            raise InvalidInputError(f"invalid xgid cube position {self.cube_owner!r}: expected 1, 0 or -1")
        if self.dice is not None:
            if not isinstance(self.dice, tuple):
                raise InvalidInputError(f"invalid xgid dice {self.dice!r}: expected None or a tuple of two dice")
            check_roll(self.dice)
        if self.cube_action is not None and self.cube_action not in _CUBE_ACTIONS:
            raise InvalidInputError(f"invalid xgid cube action {self.cube_action!r}: expected None, 'D', 'B' or 'R'")
        if self.cube_action is not None and self.dice is not None:
            raise InvalidInputError("invalid xgid: dice and a cube action at the same time")
        check_match_length(self.match_length)
        score = self.score
        if not isinstance(score, tuple) or len(score) != 2 or not all(_is_int(s) and 0 <= s < 1 << 15 for s in score):
            raise InvalidInputError(f"invalid xgid score {score!r}: expected two non-negative integers")
        if self.match_length and max(score) >= self.match_length:
            raise InvalidInputError(
                f"invalid xgid score {score[0]}-{score[1]}: a side has reached the match length {self.match_length}"
            )
        for name in ("crawford", "jacoby", "beaver"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInputError(f"invalid xgid {name} flag {getattr(self, name)!r}: expected True or False")
        if self.crawford and not self.match_length:
            raise InvalidInputError("invalid xgid: a crawford game in money play")
        if self.crawford:
            from backgammon.game import crawford_problem

            problem = crawford_problem(self.match_length, score)
            if problem:
                raise InvalidInputError(f"invalid xgid crawford flag: {problem}")
            if self.cube_exponent or self.cube_owner or self.cube_action:
                raise InvalidInputError("invalid xgid cube: the cube stays centred at 1 in the crawford game")
        if (self.jacoby or self.beaver) and self.match_length:
            raise InvalidInputError("invalid xgid: jacoby and beaver flags apply to money play only")
        if not _is_int(self.max_cube_exponent) or not 0 <= self.max_cube_exponent <= 15:
            raise InvalidInputError(f"invalid xgid maximum cube {self.max_cube_exponent!r}: expected 0..15")

    # ------------------------------------------------------------------ views
    @property
    def cube_value(self) -> int:
        """The cube value (before the double when one is offered)."""
        return 1 << self.cube_exponent

    @property
    def double_offered(self) -> bool:
        """True when a double is offered (``D``), or a beaver/raccoon is pending."""
        return self.cube_action is not None

    @property
    def x_side(self) -> tuple[int, ...]:
        """X's 25 counts in its own numbering (index 24 = bar)."""
        return self.position.mine if self.turn == 1 else self.position.theirs

    @property
    def o_side(self) -> tuple[int, ...]:
        """O's 25 counts in its own numbering (index 24 = bar)."""
        return self.position.theirs if self.turn == 1 else self.position.mine

    @property
    def board(self) -> str:
        """The 26 board characters, seen from X."""
        x, o = self.x_side, self.o_side
        chars = [_cell(0, o[24])]
        for i in range(1, 25):
            if x[i - 1]:
                chars.append(_cell(x[i - 1], 0))
            else:
                chars.append(_cell(0, o[24 - i]))
        chars.append(_cell(x[24], 0))
        return "".join(chars)

    # ------------------------------------------------------------------ text
    @classmethod
    def parse(cls, text: str) -> Xgid:
        """Read an XGID, with or without the ``XGID=`` prefix.

        The maximum-cube field may be left out (it is then 10).

        Raises:
            InvalidInputError: for text that is not a valid XGID; the message
                names the field at fault.
            InvalidPositionError: when the board cannot exist.
        """
        if not isinstance(text, str):
            raise InvalidInputError(f"invalid xgid {text!r}: expected a string")
        if len(text) > _MAX_TEXT:
            raise InvalidInputError(f"invalid xgid {text[:40]!r}...: longer than {_MAX_TEXT} characters")
        body = text.strip()
        if body[:5].upper() == "XGID=":
            body = body[5:]
        parts = body.split(":")
        if len(parts) not in (9, 10):
            raise InvalidInputError(
                f"invalid xgid {text!r}: expected 10 fields 'board:CV:CP:T:D:S1:S2:CJ:ML:MC', got {len(parts)}"
            )
        x, o = _parse_board(parts[0], text)

        def number(index: int, name: str) -> int:
            value = parts[index]
            if not _FIELD.match(value):
                raise InvalidInputError(f"invalid xgid {text!r}: {name} field {value!r} is not a number")
            return int(value)

        cube_exponent = number(1, "cube")
        cube_owner = number(2, "cube position")
        turn = number(3, "turn")
        if turn not in (1, -1):
            raise InvalidInputError(f"invalid xgid {text!r}: turn field {parts[3]!r}, expected 1 or -1")
        dice_text = parts[4]
        dice: tuple[int, int] | None = None
        cube_action: str | None = None
        if dice_text in _CUBE_ACTIONS:
            cube_action = dice_text
        elif re.fullmatch(r"[0-6]{2}", dice_text):
            d1, d2 = int(dice_text[0]), int(dice_text[1])
            if (d1 == 0) != (d2 == 0):
                raise InvalidInputError(f"invalid xgid {text!r}: dice field {dice_text!r} has one die only")
            dice = None if d1 == 0 else (d1, d2)
        else:
            raise InvalidInputError(
                f"invalid xgid {text!r}: dice field {dice_text!r}, expected '00', two dice 1-6 or 'D'"
            )
        score = (number(5, "score 1"), number(6, "score 2"))
        cj = number(7, "crawford/jacoby")
        length = number(8, "match length")
        max_cube = number(9, "maximum cube") if len(parts) == 10 else 10
        if length and cj not in (0, 1):
            raise InvalidInputError(f"invalid xgid {text!r}: crawford field {cj}, expected 0 or 1 in a match")
        if not length and not 0 <= cj <= 3:
            raise InvalidInputError(f"invalid xgid {text!r}: jacoby/beaver field {cj}, expected 0..3 in money play")
        try:
            position = Position(x, o) if turn == 1 else Position(o, x)
        except InvalidPositionError as exc:
            raise InvalidPositionError(f"invalid xgid {text!r}: " + "; ".join(exc.problems), exc.problems) from None
        try:
            return cls(
                position=position,
                turn=turn,
                cube_exponent=cube_exponent,
                cube_owner=cube_owner,
                dice=dice,
                cube_action=cube_action,
                score=score,
                crawford=bool(length and cj == 1),
                jacoby=bool(not length and cj & 1),
                beaver=bool(not length and cj & 2),
                match_length=length,
                max_cube_exponent=max_cube,
            )
        except InvalidInputError as exc:
            raise InvalidInputError(f"{exc} (in {text!r})") from None

    def text(self) -> str:
        """The XGID with its ``XGID=`` prefix; dice are written higher first."""
        if self.cube_action is not None:
            dice = self.cube_action
        elif self.dice is None:
            dice = "00"
        else:
            dice = f"{max(self.dice)}{min(self.dice)}"
        cj = int(self.crawford) if self.match_length else int(self.jacoby) | int(self.beaver) << 1
        fields = (
            self.board,
            self.cube_exponent,
            self.cube_owner,
            self.turn,
            dice,
            self.score[0],
            self.score[1],
            cj,
            self.match_length,
            self.max_cube_exponent,
        )
        return "XGID=" + ":".join(str(f) for f in fields)

    def __str__(self) -> str:
        return self.text()

    # --------------------------------------------------------- gnubg mapping
    def to_gnubg(self) -> tuple[Position, MatchState]:
        """The gnubg view: the position (from the player on roll) and Match ID state.

        X is gnubg's player 1, O its player 0. Jacoby, beaver and the maximum
        cube have no place in a Match ID and are dropped; a pending beaver or
        raccoon is shown as a pending double.

        Raises:
            InvalidInputError: if the cube owner or score cannot go in a Match ID.
        """
        mover = 1 if self.turn == 1 else 0
        return self.position, MatchState(
            cube_value=self.cube_value,
            cube_owner=None if self.cube_owner == 0 else (1 if self.cube_owner == 1 else 0),
            dice_owner=mover,
            crawford=self.crawford,
            game_state=GameState.PLAYING,
            turn=1 - mover if self.double_offered else mover,
            doubled=self.double_offered,
            dice=self.dice,
            match_length=self.match_length,
            score=(self.score[1], self.score[0]),
        )

    @classmethod
    def from_game(cls, game: Game) -> Xgid:
        """The XGID of a :class:`~backgammon.game.Game`: WHITE is X, BLACK is O.

        The maximum cube is the rules' cube limit; a pending resignation is
        not shown (XGID has no field for it). Before the opening roll WHITE
        is shown on roll, without dice.

        Raises:
            InvalidInputError: if the game's state has no XGID (a cube above 2^15).
        """
        from backgammon.game import GamePhase, Player

        on_roll = game.on_roll or Player.WHITE
        rules = game.rules
        owner = game.cube_owner
        return cls(
            position=game.position,
            turn=1 if on_roll is Player.WHITE else -1,
            cube_exponent=game.cube_value.bit_length() - 1,
            cube_owner=_xgid_owner(None if owner is None else owner.gnubg_index),
            dice=game.rolled_dice,
            cube_action="D" if game.phase is GamePhase.DOUBLED else None,
            score=game.score,
            crawford=game.crawford_game,
            jacoby=rules.jacoby_applies,
            beaver=rules.beavers_apply,
            match_length=rules.match_length,
            max_cube_exponent=min(15, rules.cube_limit.bit_length() - 1),
        )

    @classmethod
    def from_gnubg(
        cls,
        position: Position,
        state: MatchState,
        *,
        jacoby: bool = False,
        beaver: bool = False,
        max_cube_exponent: int = 10,
    ) -> Xgid:
        """Build from a gnubg position (seen from ``state.dice_owner``) and Match ID state.

        Raises:
            InvalidInputError: if the state has no XGID equivalent (a match
                already won) or a flag does not fit the kind of play.
        """
        score = (state.score[1], state.score[0])
        return cls(
            position=position,
            turn=1 if state.dice_owner == 1 else -1,
            cube_exponent=state.cube_log,
            cube_owner=_xgid_owner(state.cube_owner),
            dice=state.dice,
            cube_action="D" if state.doubled else None,
            score=score,
            crawford=state.crawford,
            jacoby=jacoby,
            beaver=beaver,
            match_length=state.match_length,
            max_cube_exponent=max_cube_exponent,
        )


def _cell(x_count: int, o_count: int) -> str:
    if x_count:
        return chr(ord("A") + x_count - 1)
    if o_count:
        return chr(ord("a") + o_count - 1)
    return "-"


def _parse_board(board: str, text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if len(board) != 26:
        raise InvalidInputError(f"invalid xgid {text!r}: the board must have 26 characters, got {len(board)}")
    x = [0] * 25
    o = [0] * 25
    for i, ch in enumerate(board):
        if ch == "-":
            continue
        if "A" <= ch <= "P":
            count, is_x = ord(ch) - ord("A") + 1, True
        elif "a" <= ch <= "p":
            count, is_x = ord(ch) - ord("a") + 1, False
        else:
            raise InvalidInputError(f"invalid xgid {text!r}: board character {ch!r}, expected '-', A-P or a-p")
        if i == 0:
            if is_x:
                raise InvalidInputError(f"invalid xgid {text!r}: character 0 is O's bar, found X's checkers")
            o[24] = count
        elif i == 25:
            if not is_x:
                raise InvalidInputError(f"invalid xgid {text!r}: character 25 is X's bar, found O's checkers")
            x[24] = count
        elif is_x:
            x[i - 1] = count
        else:
            o[24 - i] = count
    return tuple(x), tuple(o)


def _xgid_owner(gnubg_owner: int | None) -> int:
    """XGID's cube position (1 = X = white, -1 = O = black, 0 = centred) from gnubg's owner
    (1 = white, 0 = black, None = centred); :meth:`Xgid.to_match_state` is the inverse."""
    return 0 if gnubg_owner is None else (1 if gnubg_owner == 1 else -1)
