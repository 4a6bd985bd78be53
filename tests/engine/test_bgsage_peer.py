"""The bgsage benchmark adapter (benchmarks/_players.py): board layout mapping and legal plays.

bgsage (the Open Sage engine, MPL-2.0) is a test and benchmark dependency only,
like gnubg_nn; these tests check that our boards reach it and come back intact.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from backgammon.engine.movegen import successors_py
from backgammon.position import Position
from backgammon.training._selfplay import INITIAL

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"

bgbot_cpp = pytest.importorskip("bgbot_cpp")


@pytest.fixture(scope="module")
def players():
    sys.path.insert(0, str(BENCH))
    try:
        import _players
    finally:
        sys.path.remove(str(BENCH))
    return _players


def random_boards(players, n: int, seed: int) -> list[np.ndarray]:
    """Positions met in games of random plays (hits, bar, bear-offs included)."""
    return list(players.random_boards(n, seed))


def test_layout_of_known_positions(players) -> None:
    from bgsage import STARTING_BOARD

    assert players.to_bgsage(INITIAL) == list(STARTING_BOARD)
    # mine: 2 on the bar, 13 on my 6-point; theirs: 1 on their bar, a blot on their 20 (my 5), 13 on their 1 (my 24)
    position = Position.from_points({"bar": 2, 6: 13}, {"bar": 1, 20: 1, 1: 13})
    b = np.array([position.mine, position.theirs], dtype=np.int8)
    s = players.to_bgsage(b)
    assert s[25] == 2 and s[0] == 1 and s[6] == 13 and s[5] == -1 and s[24] == -13
    assert sum(s[1:25]) == 13 - 14
    assert (players.from_bgsage(s) == b).all()
    # bgsage's flip agrees with ours
    assert (players.from_bgsage(bgbot_cpp.flip_board(s)) == b[::-1]).all()


def test_same_legal_plays_and_legal_choice(players) -> None:
    """For 1000 positions and rolls: the same set of legal results, and bgsage's choice among them."""
    rng = np.random.default_rng(17)
    sage = players.bgsage_player()
    boards = random_boards(players, 1000, 5)
    on_bar = 0
    for b in boards:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        s = players.to_bgsage(b)
        assert (players.from_bgsage(s) == b).all()
        ours = {c.tobytes() for c in successors_py(b, d1, d2)}
        theirs = {players.from_bgsage(m)[::-1].copy().tobytes() for m in bgbot_cpp.possible_moves(s, d1, d2)}
        if not theirs:  # bgsage lists no result when the roll cannot be played; ours has the unchanged board
            theirs = {b[::-1].copy().tobytes()}
        assert ours == theirs
        assert sage(b, d1, d2).tobytes() in ours
        on_bar += b[0, 24] > 0
    assert on_bar > 20  # the sample does exercise entering from the bar


def test_bgsage_opening_plays(players) -> None:
    """Standard opening replies (any competent net plays these): 31 8/5 6/5, 42 8/4 6/4, 61 13/7 8/7."""
    sage = players.bgsage_player()
    for (d1, d2), text in (((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7")):
        expected = next(p.position for p in Position.initial().legal_plays(d1, d2) if str(p) == text)
        got = sage(INITIAL, d1, d2)
        assert (got == np.array([expected.mine, expected.theirs], dtype=np.int8)).all(), (d1, d2)
