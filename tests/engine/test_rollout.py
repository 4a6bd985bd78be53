"""Rollouts on a FakeEvaluator: determinism, stratification, CI coverage, exact endings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from backgammon.engine._kernels.rollout_trials import play_trial64
from backgammon.engine.rollout import (
    ORDERED_ROLLS,
    RolloutSettings,
    position_to_board,
    rollout_plays,
    rollout_position,
    successor_boards,
)
from backgammon.engine.rollout_dice import dice_of_trial
from backgammon.errors import InvalidInputError
from backgammon.position import Position

from ._helpers import PlainEvaluator

# a mid-game position with contact (after 24/18 13/11 and a reply)
MIDGAME = Position.from_points({24: 1, 18: 1, 13: 4, 11: 1, 8: 3, 6: 5}, {24: 2, 13: 4, 10: 1, 8: 3, 6: 5})


def one_ply_exact(position: Position, evaluator) -> float:
    """Exact cubeless equity after one roll and a greedy play (what truncate=1 estimates)."""
    total = 0.0
    for d1, d2 in ORDERED_ROLLS:
        plays = position.legal_plays(d1, d2)
        boards = np.array([[p.position.mine, p.position.theirs] for p in plays], dtype=np.int8)
        probs = evaluator.evaluate_boards(boards)
        eq = 2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]
        total += -eq.min()
    return total / 36


@pytest.mark.slow  # one of the slowest tests: not in the fast tier
def test_same_seed_same_result_any_workers(fake_evaluator) -> None:
    settings = RolloutSettings(trials=40, truncate=6, seed=3, chunk=10)
    a = rollout_position(MIDGAME, fake_evaluator, settings)
    b = rollout_position(MIDGAME, fake_evaluator, settings)
    c = rollout_position(MIDGAME, fake_evaluator, RolloutSettings(trials=40, truncate=6, seed=3, chunk=10, workers=2))
    assert a == b == c
    d = rollout_position(MIDGAME, fake_evaluator, RolloutSettings(trials=40, truncate=6, seed=4, chunk=10))
    assert d.mean != a.mean


def test_stratified_first_roll_is_exact(fake_evaluator) -> None:
    result = rollout_position(MIDGAME, fake_evaluator, RolloutSettings(trials=36, truncate=1))
    assert result.equity == pytest.approx(one_ply_exact(MIDGAME, fake_evaluator), abs=1e-12)


def test_confidence_intervals_cover_the_truth(fake_evaluator) -> None:
    truth = one_ply_exact(MIDGAME, fake_evaluator)
    covered = 0
    runs = 40
    for seed in range(runs):
        settings = RolloutSettings(trials=30, truncate=1, seed=seed, stratify=False, variance_reduction=False)
        r = rollout_position(MIDGAME, fake_evaluator, settings)
        assert r.equity_ci95 > 0
        covered += abs(r.equity - truth) <= r.equity_ci95
    assert covered >= 33  # nominal 95%: 38 of 40 expected


def test_sure_backgammon_is_scored_exactly(fake_evaluator) -> None:
    # one checker left on my 1-point; all of theirs still in my home board
    position = Position.from_points({1: 1}, {23: 15})
    r = rollout_position(position, fake_evaluator, RolloutSettings(trials=10))
    assert r.probabilities == (1.0, 1.0, 1.0, 0.0, 0.0)
    assert r.equity == 3.0 and r.equity_ci95 == 0.0


def test_rollout_plays_duplicate_dice_and_ranking(fake_evaluator) -> None:
    position = Position.from_points({6: 1, 4: 1, 1: 1}, {1: 3, 2: 2})
    results = rollout_plays(position, (6, 1), fake_evaluator, RolloutSettings(trials=36, truncate=4))
    assert len(results) == len(position.legal_plays(6, 1))
    # nothing wins at once here; every candidate saw the same 36 opening replies
    assert all(r.result.trials == 36 for r in results)
    finishing = rollout_plays(Position.from_points({6: 1, 1: 1}, {1: 3, 2: 2}), (6, 1), fake_evaluator)
    assert str(finishing[0].play) == "6/off 1/off"
    assert finishing[0].result.mean[:5] == (1.0, 0.0, 0.0, 0.0, 0.0)
    equities = [r.result.equity for r in results]
    assert equities == sorted(equities, reverse=True)


def test_cubeful_money_rollout(fake_evaluator) -> None:
    settings = RolloutSettings(trials=36, truncate=8, cubeful=True, seed=1)
    r = rollout_position(MIDGAME, fake_evaluator, settings)
    assert r.cubeful is not None and r.cubeful_ci95 is not None
    assert -3 * 64 <= r.cubeful <= 3 * 64
    again = rollout_position(MIDGAME, fake_evaluator, settings)
    assert again == r


def test_progress_callback(fake_evaluator) -> None:
    seen: list[tuple[int, int]] = []
    rollout_position(
        MIDGAME,
        fake_evaluator,
        RolloutSettings(trials=20, truncate=1, chunk=8),
        progress=lambda d, t: seen.append((d, t)),
    )
    assert seen == [(8, 20), (16, 20), (20, 20)]


def test_bad_settings() -> None:
    with pytest.raises(InvalidInputError):
        RolloutSettings(trials=0)
    with pytest.raises(InvalidInputError):
        RolloutSettings(truncate=-1)
    with pytest.raises(InvalidInputError):
        RolloutSettings(ply=2)
    with pytest.raises(InvalidInputError):
        rollout_position(Position.from_points({}, {6: 1}), None, RolloutSettings(trials=1))  # type: ignore[arg-type]


def test_board_conversion() -> None:
    board = position_to_board(Position.initial())
    assert board.shape == (2, 25) and board.dtype == np.int8 and board.sum() == 30


@pytest.mark.slow  # one of the slowest tests: not in the fast tier
def test_cubeful_match_rollout_gives_match_winning_chances(fake_evaluator) -> None:
    from backgammon.engine.cube import CubeInfo

    settings = RolloutSettings(trials=36, truncate=6, cubeful=True, seed=2, cube=CubeInfo.match(3, 5))
    r = rollout_position(MIDGAME, fake_evaluator, settings)
    assert r.cubeful is not None and 0.0 <= r.cubeful <= 1.0
    # candidates' results are turned back to the mover: mwc + opponent's mwc = 1
    some = list(MIDGAME.legal_plays(3, 1))[:3]
    plays = rollout_plays(MIDGAME, (3, 1), fake_evaluator, settings, some)
    assert len(plays) == 3 and all(0.0 <= p.result.cubeful <= 1.0 for p in plays)


def test_cubeful_sure_wins(fake_evaluator) -> None:
    # I bear off my last two checkers with any roll; they have borne off some: a single win either
    # way (double and they pass, or play on): 1 point per cube
    position = Position.from_points({1: 2}, {6: 3, 5: 3, 4: 3})
    r = rollout_position(position, fake_evaluator, RolloutSettings(trials=36, cubeful=True))
    assert r.cubeful == pytest.approx(1.0) and r.cubeful_ci95 == pytest.approx(0.0)
    # they have borne off none: the model plays on for the sure gammon (too good to double)
    gammon = Position.from_points({1: 2}, {6: 5, 5: 5, 4: 5})
    r = rollout_position(gammon, fake_evaluator, RolloutSettings(trials=36, cubeful=True))
    assert r.cubeful == pytest.approx(2.0) and r.mean[:2] == (1.0, 1.0)


# ------------------------------------------------------------- 1-ply play choice
@pytest.fixture(scope="module")
def net_evaluator():
    from backgammon.engine.evaluator import NetEvaluator

    return NetEvaluator.default()


def _zero_ply_choice(evaluator, boards: np.ndarray) -> int:
    probs = evaluator.evaluate_boards(boards)  # each board from the opponent's view: take the worst for them
    return int(np.argmin(2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]))


def _one_ply_choice(evaluator, boards: np.ndarray) -> int:
    from backgammon.engine.search import rank_boards

    return rank_boards(boards, evaluator, 1)[0][0]


def _disagreement(evaluator) -> Position:
    """A position met in random play where 0-ply and 1-ply choose different plays for some roll."""
    from ._helpers import random_positions

    for position in random_positions(200, seed=11):
        board = position_to_board(position)
        for d1, d2 in ORDERED_ROLLS:
            boards = successor_boards(board, d1, d2)
            if len(boards) > 1 and _zero_ply_choice(evaluator, boards) != _one_ply_choice(evaluator, boards):
                return position
    raise AssertionError("no position where 0-ply and 1-ply disagree")


def _truncated_at_one(position: Position, evaluator, choose) -> float:
    """Exact mean equity after each of the 36 rolls and the play ``choose`` picks (what truncate=1, 36 trials gives)."""
    total = 0.0
    for d1, d2 in ORDERED_ROLLS:
        boards = successor_boards(position_to_board(position), d1, d2)
        chosen = boards[choose(evaluator, boards) if len(boards) > 1 else 0]
        p = evaluator.evaluate_boards(chosen[None])[0]
        total -= 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]
    return total / 36


def test_one_ply_rollout_is_seeded_and_chooses_at_one_ply(net_evaluator) -> None:
    position = _disagreement(net_evaluator)
    one = RolloutSettings(trials=36, truncate=1, seed=2, ply=1)
    r1 = rollout_position(position, net_evaluator, one)
    assert rollout_position(position, net_evaluator, one) == r1
    r0 = rollout_position(position, net_evaluator, RolloutSettings(trials=36, truncate=1, seed=2, float32=False))
    # every first roll is played once (stratified): the result is exact for each choice rule (float64: the
    # evaluator's arithmetic)
    assert r1.equity == pytest.approx(_truncated_at_one(position, net_evaluator, _one_ply_choice), abs=1e-9)
    assert r0.equity == pytest.approx(_truncated_at_one(position, net_evaluator, _zero_ply_choice), abs=1e-9)
    # 0-ply takes the best 0-ply value for each roll; 1-ply takes another play for at least one roll
    assert r1.equity < r0.equity


def test_one_ply_rollout_same_result_in_worker_processes(net_evaluator) -> None:
    # a position where 0-ply and 1-ply choose differently for some first roll, which every 36 trials play once:
    # so the 1-ply result must differ from the 0-ply one, whatever the nets
    position = _disagreement(net_evaluator)
    settings = RolloutSettings(trials=36, truncate=2, seed=9, ply=1, chunk=4)
    here = rollout_position(position, net_evaluator, settings)
    assert rollout_position(position, net_evaluator, replace(settings, workers=2)) == here
    assert rollout_position(position, net_evaluator, replace(settings, ply=0)) != here


# ------------------------------------------------------------- the compiled 0-ply trials


@pytest.mark.parametrize(
    "settings",
    [
        RolloutSettings(trials=40, seed=3, variance_reduction=False, float32=False),
        RolloutSettings(trials=30, seed=4, truncate=9, stratify=False, variance_reduction=False, float32=False),
        RolloutSettings(trials=5, truncate=0, float32=False),
        RolloutSettings(trials=6, seed=5, float32=False),
        RolloutSettings(trials=8, seed=6, truncate=7, stratify=False, float32=False),
    ],
)
def test_compiled_trials_equal_the_python_loop(net_evaluator, settings) -> None:
    """Cubeless 0-ply rollouts with the network run compiled; with ``float32=False`` every trial (outputs,
    equity, luck) is the Python loop's, for played-out, truncated and unstratified trials, over several
    roots, with and without variance reduction (the float32 default is compared statistically, in
    test_fast_rollout.py)."""
    from backgammon.engine import rollout as R

    roots = [position_to_board(Position.initial()), position_to_board(MIDGAME)]
    compiled = R._run_chunk((net_evaluator, roots, settings, 0, settings.trials))
    python = R._run_chunk((PlainEvaluator(net_evaluator), roots, settings, 0, settings.trials))
    assert np.array_equal(compiled[..., :6], python[..., :6])
    assert np.isnan(compiled[..., 6]).all()
    assert np.allclose(compiled[..., 7:12], python[..., 7:12], rtol=0, atol=1e-12)
    assert compiled[..., 7:12].any() == (settings.variance_reduction and settings.truncate != 0)
    assert rollout_position(MIDGAME, net_evaluator, settings) == rollout_position(
        MIDGAME, PlainEvaluator(net_evaluator), settings
    )


def test_compiled_trial_asks_for_more_dice() -> None:
    """A trial longer than its dice array stops and resumes where it was, with the same result."""
    from backgammon.engine import rollout as R
    from backgammon.engine.evaluator import NetEvaluator

    ev = NetEvaluator.default()
    dice, _ = dice_of_trial(5, 7, True, 400)
    cand = np.empty((R.MAX_PLAYS, 2, 25), dtype=np.int8)
    work, table = R.new_workspace()
    whole, parts = np.empty(5), np.empty(5)
    state = np.zeros(2, dtype=np.int64)
    board = position_to_board(MIDGAME).copy()
    luck = np.zeros(5)
    assert play_trial64(board, state, dice, -1, *ev.kernel_args(), cand, work, table, R._NO_ROLLS, luck, whole)
    plies = int(state[0])
    assert plies > 4
    state[:] = 0
    board = position_to_board(MIDGAME).copy()
    assert not play_trial64(board, state, dice[:3], -1, *ev.kernel_args(), cand, work, table, R._NO_ROLLS, luck, parts)
    assert state[0] == 3 and state[1] == 1
    assert play_trial64(board, state, dice, -1, *ev.kernel_args(), cand, work, table, R._NO_ROLLS, luck, parts)
    assert state[0] == plies and np.array_equal(whole, parts) and not luck.any()
    # with variance reduction: the same game, and the luck summed over its rolls, also when resumed
    board, state[:] = position_to_board(MIDGAME).copy(), 0
    assert play_trial64(board, state, dice, -1, *ev.kernel_args(), cand, work, table, R.ROLLS21, luck, parts)
    assert state[0] == plies and np.array_equal(whole, parts) and luck.any()
    resumed = np.zeros(5)
    board, state[:] = position_to_board(MIDGAME).copy(), 0
    assert not play_trial64(board, state, dice[:3], -1, *ev.kernel_args(), cand, work, table, R.ROLLS21, resumed, parts)
    assert play_trial64(board, state, dice, -1, *ev.kernel_args(), cand, work, table, R.ROLLS21, resumed, parts)
    assert np.array_equal(resumed, luck)
