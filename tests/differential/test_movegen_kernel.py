"""The numba kernel ``backgammon.engine.movegen`` against ``Position.legal_plays`` (and so gnubg).

Same corpus as the gnubg differential test (``BG_VERIFY_POSITIONS`` to enlarge),
all 21 rolls, both orders of the dice: the sets of resulting boards must be
identical, with no duplicates in the kernel's output.
"""

from __future__ import annotations

import numpy as np
import pytest

from backgammon.engine import movegen
from backgammon.position import Position

ALL_ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7))


def kernel_results(
    position: Position, d1: int, d2: int, out: np.ndarray
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    board = np.array([position.mine, position.theirs], dtype=np.int8)
    n = movegen.successors(board, d1, d2, out)
    assert n >= 1, f"{position.position_id()} {d1}{d2}: kernel returned {n}"
    assert (board == np.array([position.mine, position.theirs], dtype=np.int8)).all(), "input board modified"
    return [(tuple(int(c) for c in out[k, 0]), tuple(int(c) for c in out[k, 1])) for k in range(n)]


@pytest.mark.slow  # the whole corpus, all rolls, both orders; the fast tier has test_vs_gnubg
def test_kernel_matches_legal_plays(rules_corpus: list[Position]) -> None:
    out = np.empty((movegen.MAX_PLAYS, 2, 25), dtype=np.int8)
    mismatches: list[str] = []
    for position in rules_corpus:
        if position.is_game_over():  # legal_plays stops there; the engine never asks the kernel
            continue
        for d1, d2 in ALL_ROLLS:
            ours = {(p.position.mine, p.position.theirs) for p in position.legal_plays(d1, d2)}
            for a, b in ((d1, d2), (d2, d1)):
                got = kernel_results(position, a, b, out)
                if len(got) != len(set(got)) or set(got) != ours:
                    extra = [Position(*x).position_id() for x in set(got) - ours]
                    missing = [Position(*x).position_id() for x in ours - set(got)]
                    dup = len(got) - len(set(got))
                    mismatches.append(f"{position.position_id()} {a}{b}: extra {extra} missing {missing} dup {dup}")
    assert not mismatches, f"{len(mismatches)} mismatches, first: " + "\n".join(mismatches[:20])


def test_kernel_no_move_and_wrapper() -> None:
    closed = Position.from_points({"bar": 1, 6: 2}, dict.fromkeys(range(1, 7), 2))
    boards = movegen.successors_py(movegen.board_of(closed), 6, 5)
    assert boards.shape == (1, 2, 25)
    assert Position(tuple(int(c) for c in boards[0, 0]), tuple(int(c) for c in boards[0, 1])) == closed.flip()
    start = movegen.successors_py(movegen.board_of(Position.initial()), 3, 1)
    assert start.shape == (16, 2, 25) and start.dtype == np.int8


def test_phase_matches_position_phase(rules_corpus: list[Position]) -> None:
    names = {movegen.CONTACT: "contact", movegen.RACE: "race", movegen.BEAROFF: "bearoff", movegen.OVER: "over"}
    seen = set()
    for position in rules_corpus:
        got = names[movegen.phase(movegen.board_of(position))]
        assert got == position.phase().value, position.position_id()
        seen.add(got)
    assert {"contact", "race", "bearoff"} <= seen  # the corpus exercises every live phase
    assert movegen.phase(movegen.board_of(Position.from_points({}, {6: 1}))) == movegen.OVER


def test_wrapper_reuses_its_buffer_without_aliasing() -> None:
    first = movegen.successors_py(movegen.board_of(Position.initial()), 3, 1)
    kept = first.copy()
    movegen.successors_py(movegen.board_of(Position.initial()), 6, 6)
    assert (first == kept).all()  # a later call does not overwrite an earlier result
