"""Jellyfish position files (``.pos``), as GNU Backgammon exports and imports them.

No published description of the format was found; the layout below was
learnt from files GNU Backgammon 1.07 wrote (``export position pos``) for
positions, dice, cubes and scores set one by one, each checked against the
Position ID and Match ID gnubg printed for the same state
(``tests/formats/test_jfpos.py`` repeats that check; ``c1_*.pos`` in
``tests/data/pos/`` hold the Crawford byte's values). 16-bit little-endian
words, at byte offsets, but for the names and the Crawford byte:

====== =========================================================================
0      126 (the format's mark)
12     cube value
14     cube owner: 0 centred, 1 player 0, 2 player 1
16     state: 1 / 2 player 0 / 1 on roll with the dice rolled, 3 / 4 to roll
24     1 a match, 3 a money session
30     match length (0 for money)
32, 34 scores of player 0 and player 1
36     the names, as two Pascal strings (gnubg always writes "gnubg", "root")
49     one byte, the Crawford rule: 2 the Crawford game, 3 after it (gnubg also
       writes 3 at double match point and in a one-point match), 1 before it
       and in money play
54, 56 the dice, as rolled (0 when not rolled)
58     26 points, each written twice: count + 20, from player 0's side; point
       1-24 in player 0's numbering (negative: player 0's checkers, positive:
       player 1's), 0 player 1's bar, 25 player 0's bar
====== =========================================================================

Players are gnubg's: player 0 (the top, XGID's O) and player 1.
"""

from __future__ import annotations

import struct

from backgammon.errors import InvalidInputError, InvalidPositionError
from backgammon.formats.files import PositionFile
from backgammon.formats.match_id import MatchState
from backgammon.position import Position

__all__ = ["is_jf_position", "read_jf_position"]

MARK = 126
BOARD_AT = 58
SIZE = BOARD_AT + 26 * 4  # 162 bytes, what gnubg writes
CRAWFORD_AT = 49  # a byte: 1 before the Crawford game, 2 in it, 3 after it
CRAWFORD_GAME = 2


def _bad(what: str) -> InvalidInputError:
    return InvalidInputError(
        f"not a readable Jellyfish .pos file: {what}", code="bad_pos_file", params={"problem": what}
    )


def _words(data: bytes) -> tuple[int, ...]:
    return struct.unpack_from(f"<{SIZE // 2}h", data)


def is_jf_position(data: bytes) -> bool:
    """Whether the data looks like a Jellyfish position: the mark, and a board of doubled counts."""
    if len(data) < SIZE or len(data) > 4 * SIZE:
        return False
    w = _words(data)
    if w[0] != MARK:
        return False
    board = w[BOARD_AT // 2 :]
    return all(board[2 * j] == board[2 * j + 1] and 5 <= board[2 * j] <= 35 for j in range(26))


def _names(data: bytes) -> tuple[str, str]:
    names: list[str] = []
    at = 36
    for _ in range(2):
        length = data[at]
        if at + 1 + length > 54:
            return ("", "")
        names.append(data[at + 1 : at + 1 + length].decode("latin-1"))
        at += 1 + length
    return (names[0], names[1])


def read_jf_position(data: bytes) -> PositionFile:
    """The position of a ``.pos`` file, seen from the player on roll, with gnubg's match state.

    Raises:
        InvalidInputError: when the data is not such a file, or holds an
            impossible position or state (the message says which).
    """
    if not is_jf_position(data):
        raise _bad("no position mark, or a board that is not one")
    w = _words(data)
    state_code = w[8]
    if state_code not in (1, 2, 3, 4):
        raise _bad(f"unknown game state {state_code}")
    on_roll = 0 if state_code in (1, 3) else 1
    board = [w[BOARD_AT // 2 + 2 * j] - 20 for j in range(26)]
    player0 = [0] * 25
    player1 = [0] * 25
    for point in range(1, 25):
        count = board[point]
        if count < 0:
            player0[point - 1] = -count
        elif count > 0:
            player1[24 - point] = count
    player0[24] = abs(board[25])
    player1[24] = abs(board[0])
    try:
        position = Position(tuple(player0), tuple(player1))
    except InvalidPositionError as exc:
        raise _bad("; ".join(exc.problems) or str(exc)) from None
    if on_roll == 1:
        position = position.flip()
    money = w[12] == 3
    dice = (w[27], w[28]) if state_code in (1, 2) else None
    if dice is not None and not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
        raise _bad(f"dice {dice[0]}-{dice[1]}")
    owner = w[7]
    if owner not in (0, 1, 2):
        raise _bad(f"cube owner {owner}")
    try:
        state = MatchState(
            cube_value=w[6],
            cube_owner=None if owner == 0 else owner - 1,
            dice_owner=on_roll,
            crawford=not money and data[CRAWFORD_AT] == CRAWFORD_GAME,
            turn=on_roll,
            dice=dice,
            match_length=0 if money else w[15],
            score=(w[16], w[17]),
        )
    except InvalidInputError as exc:
        raise _bad(str(exc)) from None
    return PositionFile(position, state, _names(data))
