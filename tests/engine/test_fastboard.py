import numpy as np

from backgammon import Position
from backgammon.engine._fastboard import BEAROFF, CONTACT, OVER, RACE, phase, successors_py

from ._helpers import board, random_positions


def _as_set(boards: np.ndarray) -> set:
    return {(tuple(int(x) for x in b[0]), tuple(int(x) for x in b[1])) for b in boards}


def test_successors_match_core_legal_plays() -> None:
    positions = random_positions(600, seed=5)
    for k, p in enumerate(positions):
        d1, d2 = 1 + k % 6, 1 + (k * 7 // 6) % 6
        got = successors_py(board(p), d1, d2)
        want = {(pl.position.mine, pl.position.theirs) for pl in p.legal_plays(d1, d2)}
        assert _as_set(got) == want
        assert len(got) == len(want)  # distinct


def test_blocked_roll_gives_the_board_flipped() -> None:
    p = Position.from_points({"bar": 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    got = successors_py(board(p), 6, 6)
    assert got.shape == (1, 2, 25)
    assert (got[0] == board(p.flip())).all()


def test_phase_matches_core() -> None:
    names = {CONTACT: "contact", RACE: "race", BEAROFF: "bearoff", OVER: "over"}
    for p in random_positions(300, seed=9):
        assert names[phase(board(p))] == p.phase().value
    assert phase(board(Position.from_points({}, {6: 1}))) == OVER


def test_same_results_as_the_core_kernel() -> None:
    from backgammon import _movegen

    for k, p in enumerate(random_positions(300, seed=21)):
        d1, d2 = 1 + k % 6, 1 + (k // 6) % 6
        assert _as_set(successors_py(board(p), d1, d2)) == _as_set(_movegen.successors_py(board(p), d1, d2))
