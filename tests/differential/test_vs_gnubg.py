"""Differential test: our legal plays against GNU Backgammon's move generator.

``gnubg_nn`` (tests only) takes a board ``[player not on roll, player on roll]``
(the two halves in the same order as in the Position ID) and returns, for a
roll, the keys of the resulting boards *not* flipped: ``[opponent, mover]``.
Our ``Play.position`` is the same board seen from the opponent, who is then on
roll, so ``Position(mine=board[0], theirs=board[1])``.

Every position of the corpus (seeded self-play, bear-off, bar and arbitrary
positions; ``BG_VERIFY_POSITIONS`` to enlarge) is checked with all 21 rolls.
"""

from __future__ import annotations

import pytest

from backgammon.position import Position

gnubg_nn = pytest.importorskip("gnubg_nn")

ALL_ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7))


def gnubg_results(position: Position, d1: int, d2: int) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """gnubg's resulting boards as (mine, theirs) of the position after the play (opponent on roll)."""
    board = [list(position.theirs), list(position.mine)]
    out = set()
    for key in gnubg_nn.moves(board, d1, d2):
        opponent, mover = gnubg_nn.board_from_position_key(key)
        out.add((tuple(opponent), tuple(mover)))
    if not out:  # no legal move: the turn passes with the board unchanged
        out.add((position.theirs, position.mine))
    return out


def test_board_convention() -> None:
    """Pin down what gnubg's boards mean before trusting the comparison."""
    p = Position.from_position_id("4HPwATDgc/ABMA")
    assert gnubg_nn.board_from_position_id("sGfwATDgc/ABMA")[0][4] == 2  # mover of 8/5 6/5 comes first
    keys = gnubg_nn.moves([list(p.theirs), list(p.mine)], 3, 1)
    after = {Position(tuple(a), tuple(b)) for a, b in map(gnubg_nn.board_from_position_key, keys)}
    assert Position.from_position_id("sGfwATDgc/ABMA") in after
    assert len(keys) == 16


def test_legal_plays_match_gnubg(rules_corpus: list[Position]) -> None:
    mismatches: list[str] = []
    for position in rules_corpus:
        if position.is_game_over():  # gnubg would move on; we give the empty play (tested below)
            continue
        for d1, d2 in ALL_ROLLS:
            ours = [(p.position.mine, p.position.theirs) for p in position.legal_plays(d1, d2)]
            assert len(ours) == len(set(ours)), f"duplicate plays in {position.position_id()} {d1}{d2}"
            theirs = gnubg_results(position, d1, d2)
            if set(ours) != theirs:
                extra = [Position(*b).position_id() for b in set(ours) - theirs]
                missing = [Position(*b).position_id() for b in theirs - set(ours)]
                mismatches.append(f"{position.position_id()} {d1}{d2}: extra {extra} missing {missing}")
    assert not mismatches, f"{len(mismatches)} mismatches, first: " + "\n".join(mismatches[:20])


def test_legal_plays_match_gnubg_reversed_dice(rules_corpus: list[Position]) -> None:
    """The order of the dice never matters (checked on a slice of the corpus)."""
    for position in rules_corpus[::10]:
        for d1, d2 in ALL_ROLLS:
            if d1 != d2:
                a = {p.position for p in position.legal_plays(d1, d2)}
                b = {p.position for p in position.legal_plays(d2, d1)}
                assert a == b, f"{position.position_id()} {d1}{d2}"


def test_game_over_positions_give_the_empty_play(rules_corpus: list[Position]) -> None:
    over = [p for p in rules_corpus if p.is_game_over()]
    over.append(Position.from_points({1: 1}, {}))  # the opponent has borne off everything
    over.append(Position.from_points({}, {6: 3}))  # the side on roll has
    for position in over:
        for d1, d2 in ALL_ROLLS:
            (play,) = position.legal_plays(d1, d2)
            assert play.steps == () and play.position == position.flip()
