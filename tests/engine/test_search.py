import numpy as np
import pytest

from backgammon import Position
from backgammon.engine.evaluator import NetEvaluator, Probabilities, RandomEvaluator, flip_array
from backgammon.engine.search import ROLLS, EvalContext, MoveFilter, best_play, evaluate_ply, rank_plays
from backgammon.errors import InvalidInputError

from ._helpers import FakeEvaluator, PlainEvaluator


def test_rolls_cover_36() -> None:
    assert len(ROLLS) == 21 and sum(w for _, _, w in ROLLS) == 36


def test_one_ply_is_the_average_of_zero_ply_over_21_rolls() -> None:
    fake = FakeEvaluator()
    p = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 3: 1})
    expected = np.zeros(5)
    for d1, d2, w in ROLLS:
        best = max(p.legal_plays(d1, d2), key=lambda pl: -fake.evaluate(pl.position).equity())
        expected += w / 36 * fake.evaluate(best.position).flip().as_array()
    got = evaluate_ply(p, fake, 1).as_array()
    assert got == pytest.approx(expected, abs=1e-12)
    assert not np.allclose(got, fake.evaluate(p).as_array())


def test_rank_plays_at_zero_ply_orders_by_equity() -> None:
    fake = FakeEvaluator()
    p = Position.initial()
    ranked = rank_plays(p, (6, 5), EvalContext(fake, 0))
    assert len(ranked) == len(p.legal_plays(6, 5))
    eqs = [r.equity for r in ranked]
    assert eqs == sorted(eqs, reverse=True)
    for r in ranked:
        assert r.equity == pytest.approx(fake.evaluate(r.play.position).flip().equity())
        assert r.probabilities.equity() == pytest.approx(r.equity)


def test_filter_keeps_the_best_few() -> None:
    fake = FakeEvaluator()
    ranked = rank_plays(Position.initial(), (4, 2), EvalContext(fake, 1, None, MoveFilter(2, 10.0)))
    top = ranked[:2]
    for r in top:
        assert r.probabilities.as_array() == pytest.approx(
            flip_array(np.array([evaluate_ply(r.play.position, fake, 1).as_array()]))[0]
        )


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_bears_off_rather_than_moves(plies: int) -> None:
    p = Position.from_points({1: 1, 2: 1}, {1: 2, 2: 2, 12: 1})
    assert str(best_play(p, 2, 1, NetEvaluator.default(), plies)) == "2/off 1/off"


@pytest.mark.parametrize("plies", [0, 1])
def test_hits_to_win(plies: int) -> None:
    # the opponent's last checker, a blot on my 4-point, is far ahead in the race: hit it
    p = Position.from_points({8: 2, 6: 2, 5: 2, 4: 0, 3: 2, 2: 2, 1: 2, 13: 3}, {21: 1})
    ranked = rank_plays(p, (4, 1), EvalContext(NetEvaluator.default(), plies))
    assert "*" in str(ranked[0].play)


def test_bad_arguments() -> None:
    ev = RandomEvaluator(1)
    with pytest.raises(InvalidInputError, match="plies"):
        rank_plays(Position.initial(), (3, 1), EvalContext(ev, 7))
    with pytest.raises(InvalidInputError):
        rank_plays(Position.initial(), (0, 1), EvalContext(ev))
    with pytest.raises(InvalidInputError, match="over"):
        rank_plays(Position.from_points({}, {6: 1}), (3, 1), EvalContext(ev))
    with pytest.raises(InvalidInputError, match="CubeInfo"):
        EvalContext(ev, 0, "money")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="MoveFilter"):
        EvalContext(ev, 1, None, (0.1,))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        MoveFilter(0, 0.1)


def test_probabilities_of_finishing_play() -> None:
    p = Position.from_points({1: 1}, {6: 15})
    r = rank_plays(p, (3, 1), EvalContext(NetEvaluator.default(), 1))[0]
    assert r.probabilities == Probabilities(1.0, 1.0, 0.0, 0.0, 0.0) and r.equity == 2.0


def test_pubeval_through_search_plays_like_pubeval() -> None:
    from backgammon.engine.evaluator import PubEval

    from ._helpers import random_positions

    pe = PubEval()
    checked = 0
    for k, p in enumerate(random_positions(120, seed=13)):
        d1, d2 = 1 + k % 6, 1 + (k // 6) % 6
        if p.is_race() or any(pl.position.is_race() for pl in p.legal_plays(d1, d2)):
            continue  # pubeval picks its weights by the board before the play; search sees the boards after
        assert best_play(p, d1, d2, pe).position == pe.choose(p, d1, d2).position
        checked += 1
    assert checked > 50


def test_best_board_at_0_ply_is_rank_boards_first() -> None:
    """best_board's 0-ply shortcut (argmax) takes the play rank_boards ranks first, ties included
    (bear-offs scored from the database often tie)."""
    from backgammon.engine.movegen import board_of, successors_py
    from backgammon.engine.search import best_board, rank_boards

    from ._helpers import random_positions

    ev = NetEvaluator.default()
    # 2-1 from {2: 1, 1: 2} leaves one or two checkers on the ace point: both sure wins, a tie
    bearoffs = [
        Position.from_points({2: 1, 1: 2}, {6: 5}),
        Position.from_points({1: 3, 2: 2, 3: 2, 5: 1}, {6: 2, 4: 2, 1: 4}),
    ]
    ties = 0
    for p in random_positions(60, seed=13) + bearoffs:
        if p.is_game_over():
            continue
        board = board_of(p)
        for d1, d2 in ((2, 1), (6, 5), (4, 4), (3, 1)):
            cands = successors_py(board, d1, d2)
            chosen = best_board(board, d1, d2, ev)
            if len(cands) == 1:
                assert np.array_equal(chosen, cands[0])
                continue
            order, vals, _ = rank_boards(cands, ev, 0)
            assert np.array_equal(chosen, cands[order[0]])
            eq = 2 * vals[:, 0] - 1 + vals[:, 1] - vals[:, 3] + vals[:, 2] - vals[:, 4]
            ties += int((eq == eq.max()).sum() > 1)
    assert ties > 0  # the tie-break was exercised


def test_compiled_one_ply_equals_the_python_path() -> None:
    """1-ply with the network runs compiled, and 2 and 3 plies on the fast labeller's kernels; their values are
    the Python path's (the same plays, the sums in another order), finished games included."""
    from backgammon.engine.movegen import board_of
    from backgammon.engine.search import evaluate_boards_ply

    from ._helpers import random_positions

    ev = NetEvaluator.default()
    positions = random_positions(40, seed=17)
    boards = np.stack([board_of(p) for p in positions] + [board_of(Position.from_points({}, {6: 3}))])
    fast = evaluate_boards_ply(boards, ev, 1)
    slow = evaluate_boards_ply(boards, PlainEvaluator(ev), 1)
    assert np.allclose(fast, slow, rtol=0, atol=1e-12)
    assert np.array_equal(fast[-1], ev.evaluate_boards(boards[-1:])[0])  # over: exact, not looked ahead
    # 2 and 3 plies run on the fast labeller's compiled search, unpruned: the same plays, leaves in float32
    deep = evaluate_boards_ply(boards[:2], ev, 2)
    assert np.abs(deep - evaluate_boards_ply(boards[:2], PlainEvaluator(ev), 2)).max() < 1e-5
    assert np.abs(deep - evaluate_boards_ply(boards[:2], ev, 1)).max() > 1e-3  # 2 plies is not 1 ply


def test_deep_values_from_several_threads_at_once() -> None:
    """The server's worker threads may search at once: the compiled 2-ply search launches no parallel region,
    and each thread gets the values a lone call gets."""
    from concurrent.futures import ThreadPoolExecutor

    from backgammon.engine.movegen import board_of
    from backgammon.engine.search import evaluate_boards_ply

    from ._helpers import random_positions

    ev = NetEvaluator.default()
    boards = np.stack([board_of(p) for p in random_positions(8, seed=23)])
    alone = [evaluate_boards_ply(boards[i : i + 1], ev, 2) for i in range(len(boards))]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda i: evaluate_boards_ply(boards[i : i + 1], ev, 2), range(len(boards))))
    for a, b in zip(alone, together, strict=True):
        assert np.array_equal(a, b)
