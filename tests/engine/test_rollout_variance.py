"""Variance-reduced rollouts: the luck of a roll, unbiasedness, smaller variance, early stopping, errors.

Seeded throughout: every figure compared here is a deterministic function of its seed, and the
bounds leave several standard errors of room, so the tests cannot flicker.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from backgammon.engine.rollout import (
    ROLLS21,
    RolloutSettings,
    roll_luck,
    rollout_plays,
    rollout_position,
    rollout_trials,
    separated,
    trial_rolls,
)
from backgammon.errors import InvalidInputError
from backgammon.position import Position

MIDGAME = Position.from_points({24: 1, 18: 1, 13: 4, 11: 1, 8: 3, 6: 5}, {24: 2, 13: 4, 10: 1, 8: 3, 6: 5})
# a race, both sides in the outfield
RACE = Position.from_points({9: 3, 8: 3, 7: 2, 6: 3, 5: 2, 4: 2}, {10: 2, 8: 4, 6: 4, 5: 3, 3: 2})


@pytest.fixture(scope="module")
def net():
    from backgammon.engine.evaluator import NetEvaluator

    return NetEvaluator.default()


def _weighted(table: dict[tuple[int, int], tuple[float, ...]]) -> np.ndarray:
    return sum(w * np.array(table[(int(hi), int(lo))]) for hi, lo, w in ROLLS21) / 36


# ------------------------------------------------------------- the luck of a roll
def test_luck_of_a_roll_averages_to_zero(fake_evaluator, net) -> None:
    """By construction: the 21 rolls' luck, weighted by their chances, sums to zero in every column."""
    from ._helpers import random_positions

    positions = [MIDGAME, RACE, Position.initial(), *random_positions(6, seed=5)]
    for evaluator in (fake_evaluator, net):
        for position in positions:
            if position.is_game_over():
                continue
            table = roll_luck(position, evaluator)
            assert len(table) == 21
            assert np.allclose(_weighted(table), 0.0, atol=1e-12)
            # the equity column is the equity of the outputs' luck
            for luck in table.values():
                w, wg, wb, lg, lb, eq = luck
                assert eq == pytest.approx(2 * w + wg + wb - lg - lb, abs=1e-12)
    # not all zero: some rolls are better than others in the middle game
    table = roll_luck(MIDGAME, net)
    assert max(v[5] for v in table.values()) - min(v[5] for v in table.values()) > 0.1
    with pytest.raises(InvalidInputError):
        roll_luck(Position.from_points({}, {6: 1}), net)


def test_one_roll_trials_lose_all_their_noise(net) -> None:
    """Truncated after one roll, a variance-reduced trial is the roll's result less its luck: the
    1-ply value itself, the same in every trial (the plain trials scatter), in the evaluator's float64
    arithmetic to 1e-9 and in the default float32 kernels' within their rounding."""
    for float32, spread, tolerance in ((False, 1e-12, 1e-9), (True, 2e-6, 2e-6)):
        _one_roll_trials(net, float32, spread, tolerance)


def _one_roll_trials(net, float32: bool, spread: float, tolerance: float) -> None:
    settings = RolloutSettings(trials=20, truncate=1, seed=3, stratify=False, float32=float32)
    trials = rollout_trials(MIDGAME, net, settings)
    plain, reduced = trials.values(False)[:, 5], trials.values(True)[:, 5]
    assert plain.std() > 0.05
    assert reduced.std() < spread
    from backgammon.engine.search import evaluate_boards_ply

    one_ply = evaluate_boards_ply(np.array([[MIDGAME.mine, MIDGAME.theirs]], dtype=np.int8), net, 1)[0]
    exact = 2 * one_ply[0] - 1 + one_ply[1] - one_ply[3] + one_ply[2] - one_ply[4]
    assert reduced.mean() == pytest.approx(exact, abs=tolerance)


# ------------------------------------------------------------- stratified first two rolls
def test_first_two_rolls_form_a_latin_square() -> None:
    """Each block of 36 trials has every ordered roll once as first and once as second roll;
    1,296 trials play every pair once; the order is seeded, not the table's."""
    from backgammon.engine.rollout import ORDERED_ROLLS

    rolls = [trial_rolls(3, t) for t in range(1296)]
    for block in range(36):
        part = rolls[36 * block : 36 * block + 36]
        assert sorted(r[0] for r in part) == sorted(ORDERED_ROLLS)
        assert sorted(r[1] for r in part) == sorted(ORDERED_ROLLS)
    assert len({(a, b) for a, b in rolls}) == 1296
    # the old design gave the opponent's reply only 1-1..1-4 in the first 144 trials
    assert len({r[1] for r in rolls[:144]}) == 36
    assert [r[0] for r in rolls[:36]] != list(ORDERED_ROLLS)
    assert trial_rolls(4, 0, 5) != trial_rolls(3, 0, 5) and trial_rolls(3, 7, 5) == trial_rolls(3, 7, 5)


# ------------------------------------------------------------- unbiased, and less noisy
def test_variance_reduced_mean_agrees_with_the_plain_mean(fake_evaluator) -> None:
    """The luck has mean zero: over many unstratified trials its average is within a few standard
    errors of 0, and a variance-reduced rollout agrees with an independent plain one."""
    settings = RolloutSettings(trials=160, truncate=4, seed=11, stratify=False)
    trials = rollout_trials(MIDGAME, fake_evaluator, settings)
    luck = trials.luck[:, :5]
    se = luck.std(axis=0, ddof=1) / math.sqrt(len(luck))
    assert np.all(np.abs(luck.mean(axis=0)) <= 3.5 * se + 1e-12)
    reduced = trials.values(True)[:, 5]
    plain = rollout_position(MIDGAME, fake_evaluator, replace(settings, seed=12, variance_reduction=False))
    assert not plain.variance_reduced
    both = math.hypot(reduced.std(ddof=1) / math.sqrt(len(reduced)), plain.equity_se)
    assert abs(reduced.mean() - plain.equity) <= 3.5 * both


@pytest.mark.slow  # one of the slowest tests: not in the fast tier
def test_variance_reduced_mean_agrees_with_the_plain_mean_with_the_net(net) -> None:
    """The same with the network, played-out race trials (compiled kernel), and on a truncated
    contact position."""
    for position, truncate in ((RACE, None), (MIDGAME, 8)):
        settings = RolloutSettings(trials=144, seed=21, truncate=truncate, stratify=False)
        trials = rollout_trials(position, net, settings)
        eq_luck = trials.values(False)[:, 5] - trials.values(True)[:, 5]
        assert abs(eq_luck.mean()) <= 3.5 * eq_luck.std(ddof=1) / math.sqrt(len(eq_luck))
        reduced = trials.values(True)[:, 5]
        reduced_se = reduced.std(ddof=1) / math.sqrt(len(reduced))
        plain = rollout_position(position, net, replace(settings, trials=432, seed=22, variance_reduction=False))
        assert abs(reduced.mean() - plain.equity) <= 3.5 * math.hypot(reduced_se, plain.equity_se)


def test_variance_reduction_shrinks_the_spread_on_a_contact_position(net) -> None:
    """The same trials (same games) with and without the luck: the reduced trials vary much less."""
    trials = rollout_trials(MIDGAME, net, RolloutSettings(trials=72, seed=2, truncate=12))
    plain, reduced = trials.values(False), trials.values(True)
    assert reduced[:, 5].std(ddof=1) < 0.6 * plain[:, 5].std(ddof=1)
    assert reduced[:, 0].std(ddof=1) < 0.6 * plain[:, 0].std(ddof=1)  # each output has its own luck
    # the plain estimates are the trials of a rollout without variance reduction: the same games
    off = rollout_position(MIDGAME, net, RolloutSettings(trials=72, seed=2, truncate=12, variance_reduction=False))
    assert off.equity == pytest.approx(plain[:, 5].mean(), abs=1e-12)
    assert off.equity_se == pytest.approx(plain[:, 5].std(ddof=1) / math.sqrt(72), abs=1e-12)


@pytest.mark.slow  # one of the slowest tests: not in the fast tier
def test_cubeful_trials_subtract_a_luck_with_mean_zero(fake_evaluator) -> None:
    """Cubeful trials subtract the cubeless luck in cubeful units; its mean is about zero."""
    from backgammon.engine.cube import CubeInfo

    for cube in (CubeInfo.money(), CubeInfo.match(3, 5)):
        settings = RolloutSettings(trials=100, truncate=4, seed=4, stratify=False, cubeful=True, cube=cube)
        trials = rollout_trials(MIDGAME, fake_evaluator, settings)
        cubeful_luck = trials.luck[:, 5]
        assert np.isfinite(cubeful_luck).all() and np.abs(cubeful_luck).max() > 0
        assert abs(cubeful_luck.mean()) <= 3.5 * cubeful_luck.std(ddof=1) / math.sqrt(len(cubeful_luck))
    result = rollout_position(MIDGAME, fake_evaluator, replace(settings, trials=20))
    assert result.cubeful == pytest.approx(float(np.mean(trials.values(True)[:20, 6])), abs=1e-12)


# ------------------------------------------------------------- errors, intervals, early stopping
def test_standard_errors_and_intervals_are_reported(net) -> None:
    r = rollout_position(MIDGAME, net, RolloutSettings(trials=36, seed=1, truncate=6))
    assert len(r.se) == 6 and len(r.ci95) == 6
    assert all(s > 0 for s in r.se)
    assert r.ci95 == pytest.approx(tuple(1.96 * s for s in r.se))
    low, high = r.equity_interval
    assert low < r.equity < high and high - low == pytest.approx(2 * 1.96 * r.equity_se)
    assert r.cubeful_interval is None and r.cubeful_se is None
    cubeful = rollout_position(MIDGAME, net, RolloutSettings(trials=8, seed=1, truncate=4, cubeful=True))
    assert cubeful.cubeful_se is not None and cubeful.cubeful_se > 0
    assert cubeful.cubeful_ci95 == pytest.approx(1.96 * cubeful.cubeful_se)


def test_early_stopping_on_a_clear_best_play(net) -> None:
    """Bearing off two checkers is clearly better than bearing off one: the rollout stops at the
    first check after the minimum, says so in every candidate's trials, and the best is separated."""
    position = Position.from_points({6: 2, 5: 2, 1: 1}, {6: 3, 5: 2, 4: 2})
    settings = RolloutSettings(trials=720, seed=7, stop_confidence=0.95, min_trials=72)
    seen: list[int] = []
    results = rollout_plays(position, (6, 5), net, settings, progress=lambda d, t: seen.append(d))
    assert str(results[0].play) == "6/off 5/off"
    used = results[0].result.trials
    assert 72 <= used < 720 and seen[-1] == used
    assert all(r.result.trials == used for r in results)
    assert results[0].diff == 0.0
    for r in results[1:]:
        low, high = r.diff_interval
        assert 0 < low <= r.diff <= high
    # without early stopping every trial runs
    full = rollout_plays(position, (6, 5), net, replace(settings, trials=108, stop_confidence=None))
    assert all(r.result.trials == 108 for r in full)


def test_early_stopping_in_cubeful_rollouts(net) -> None:
    """Cubeful candidates are separated on their cubeful results (money and match)."""
    from backgammon.engine.cube import CubeInfo

    position = Position.from_points({6: 2, 5: 2, 1: 1}, {6: 3, 5: 2, 4: 2})
    for cube in (CubeInfo.money(), CubeInfo.match(3, 3)):
        settings = RolloutSettings(
            trials=360, seed=2, stop_confidence=0.95, min_trials=36, chunk=36, cubeful=True, cube=cube
        )
        results = rollout_plays(position, (6, 5), net, settings)
        used = results[0].result.trials
        assert used < 360 and all(r.result.trials == used for r in results)
        assert results[0].result.cubeful_se is not None
        assert results[0].result.cubeful > results[1].result.cubeful
        assert results[1].diff == pytest.approx(results[0].result.cubeful - results[1].result.cubeful, abs=1e-12)


def test_no_early_stop_between_equal_candidates() -> None:
    rng = np.random.default_rng(1)
    noise = rng.normal(size=400)
    same = np.vstack([noise, noise])  # two candidates that always score the same
    assert not separated(same, 1.96)
    apart = np.vstack([noise + 1.0, noise])  # paired: the difference has no noise at all
    assert separated(apart, 1.96)
    independent = np.vstack([rng.normal(size=400) + 0.05, rng.normal(size=400)])
    assert not separated(independent, 1.96)  # 0.05 apart, standard error of the difference ~0.07
    assert not separated(apart[:, :1], 1.96)
    assert separated(noise[None, :], 1.96)  # one candidate: nothing to separate


def test_bad_stopping_settings() -> None:
    for bad in (0.0, 1.0, 1.5, -0.1, True, "0.95"):
        with pytest.raises(InvalidInputError):
            RolloutSettings(stop_confidence=bad)  # type: ignore[arg-type]
    for bad in (0, 1, 2.5):
        with pytest.raises(InvalidInputError):
            RolloutSettings(min_trials=bad)  # type: ignore[arg-type]
