import numpy as np
import pytest

from backgammon import Position
from backgammon.engine.evaluator import NetEvaluator, Probabilities, PubEval, RandomEvaluator
from backgammon.errors import EngineError, InvalidInputError

from ._helpers import board


def test_probabilities_equity_and_flip() -> None:
    p = Probabilities(0.6, 0.2, 0.05, 0.1, 0.01)
    assert p.equity() == pytest.approx(2 * 0.6 - 1 + 0.2 - 0.1 + 0.05 - 0.01)
    f = p.flip()
    assert f == Probabilities(pytest.approx(0.4), 0.1, 0.01, 0.2, 0.05)
    assert f.equity() == pytest.approx(-p.equity())
    assert p.lose == pytest.approx(0.4)
    with pytest.raises(InvalidInputError, match="five"):
        Probabilities.from_array([0.1, 0.2])


def test_finished_games_are_scored_exactly() -> None:
    ev = NetEvaluator.default()
    # the opponent has borne off everything; I still have 15 checkers, one in its home board: backgammon
    lost_bg = Position.from_points({20: 1, 6: 14}, {})
    assert ev.evaluate(lost_bg) == Probabilities(0.0, 0.0, 0.0, 1.0, 1.0)
    lost_single = Position.from_points({6: 3}, {})
    assert ev.evaluate(lost_single) == Probabilities(0.0, 0.0, 0.0, 0.0, 0.0)
    lost_gammon = Position.from_points({6: 15}, {})
    assert ev.evaluate(lost_gammon).equity() == -2.0


def test_bearoff_positions_come_from_the_database() -> None:
    ev = NetEvaluator.default()
    # one checker on my ace point, opponent far from done: I win on this roll
    p = Position.from_points({1: 1}, {6: 10})
    assert ev.evaluate(p).win == 1.0
    # both need exactly... 2 on my 6-point against 1 on their 1-point: I win iff I roll 3-3..6-6 doubles
    p = Position.from_points({6: 2}, {1: 1})
    assert ev.evaluate(p).win == pytest.approx(4 / 36)


def test_net_evaluator_batch_matches_single() -> None:
    ev = NetEvaluator.default()
    ps = [Position.initial(), Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 2, 6: 5, 5: 1})]
    batch = ev.evaluate_boards(np.stack([board(p) for p in ps]))
    for p, row in zip(ps, batch):
        assert ev.evaluate(p).as_array() == pytest.approx(row)
        assert 0 <= row[2] <= row[1] <= row[0] <= 1 and 0 <= row[4] <= row[3] <= 1 - row[0] + 1e-12
    assert 0.4 < batch[0][0] < 0.62


def test_bad_boards_are_refused() -> None:
    ev = NetEvaluator.default()
    with pytest.raises(InvalidInputError, match="shape"):
        ev.evaluate_boards(np.zeros((3, 25), dtype=np.int8))
    good = np.zeros((2, 2, 25), dtype=np.int8)
    good[:, :, 5] = 15
    for where, n in (((1, 0, 3), 16), ((1, 1, 24), -1), ((0, 1, 0), 1)):  # too many, negative, 16 in all
        for layout in ("int8", "int64", "strided"):
            bad = good.copy()
            bad[where] = n
            if layout == "int64":
                bad = bad.astype(np.int64)
            elif layout == "strided":
                bad = np.repeat(bad, 2, axis=0)[::2]
            with pytest.raises(InvalidInputError, match=r"0\.\.15 checkers"):
                ev.evaluate_boards(bad)
    assert ev.evaluate_boards(good).shape == (2, 5)
    assert np.array_equal(ev.evaluate_boards(good.astype(np.int64)), ev.evaluate_boards(good))


def test_missing_weights_file() -> None:
    with pytest.raises(EngineError, match="does not exist"):
        NetEvaluator("/nonexistent/weights.npz")


def test_random_evaluator_is_seeded() -> None:
    a = RandomEvaluator(3).evaluate_boards(np.stack([board(Position.initial())] * 4))
    b = RandomEvaluator(3).evaluate_boards(np.stack([board(Position.initial())] * 4))
    assert (a == b).all() and len(set(a[:, 0])) == 4


def test_pubeval_matches_gnubg_scores() -> None:
    g = pytest.importorskip("gnubg_nn")
    from backgammon.engine.pubeval import WC, WR, pubeval_score

    from ._helpers import random_positions

    checked = 0
    for p in random_positions(400, seed=11):
        if p.is_race():
            continue
        b = board(p)
        # our boards are after a play, seen by the side now on roll; gnubg wants [mover... ] as below
        assert pubeval_score(b, False, WC, WR) == pytest.approx(
            g.pub_eval_score([list(p.mine), list(p.theirs)][::-1]), abs=2e-3
        )
        checked += 1
    assert checked > 100
    # the evaluator ranks the same way: higher score for the mover = lower chances for the side on roll
    pe = PubEval()
    x, y = Position.initial(), Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 2, 6: 4, 5: 2})
    sx, sy = (pubeval_score(board(q), False, WC, WR) for q in (x, y))
    assert (pe.evaluate(x).win < pe.evaluate(y).win) == (sx > sy)
