"""The float32 rollout kernels (engine/_kernels/fastnet.py) and the threaded compiled trials: the same
evaluations within float32 rounding, statistically the same rollouts as the float64 path, and results that
do not depend on the number of threads."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from backgammon import Position
from backgammon.engine._kernels.fastnet import fast_evaluate_batch, fast_nets
from backgammon.engine.evaluator import NetEvaluator
from backgammon.engine.movegen import BEAROFF, CONTACT, OVER, RACE, phase
from backgammon.engine.rollout import (
    RolloutSettings,
    position_to_board,
    rollout_plays,
    rollout_position,
    rollout_trials,
)
from backgammon.errors import InvalidInputError

from ._helpers import random_positions

MIDGAME = Position.from_points({24: 1, 18: 1, 13: 4, 11: 1, 8: 3, 6: 5}, {24: 2, 13: 4, 10: 1, 8: 3, 6: 5})
RACE_POSITION = Position.from_points({9: 3, 8: 3, 6: 4, 5: 3, 3: 2}, {11: 2, 8: 4, 6: 4, 4: 3, 2: 2})
POSITIONS = [Position.initial(), MIDGAME, RACE_POSITION]


@pytest.fixture(scope="module")
def net() -> NetEvaluator:
    return NetEvaluator.default()


def test_float32_evaluations_match_the_evaluator(net) -> None:
    positions = random_positions(3000, seed=21)
    boards = np.array([position_to_board(p) for p in positions], dtype=np.int8)
    phases = {int(phase(b)) for b in boards}
    assert {CONTACT, RACE, BEAROFF} <= phases  # every kind of evaluation is compared
    out = np.empty((len(boards), 5))
    fast_evaluate_batch(boards, fast_nets(net), out)
    ref = net.evaluate_boards(boards)
    diff = np.abs(out - ref)
    assert diff.max() < 2e-6
    assert diff.max() > 0.0  # really the float32 nets, not the float64 ones again
    over = np.array([[[0] * 25, [2] + [0] * 24]], dtype=np.int8)  # side on roll has borne off: exact
    assert phase(over[0]) == OVER
    fast_evaluate_batch(over, fast_nets(net), out[:1])
    assert np.array_equal(out[0], net.evaluate_boards(over)[0])


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of the paired differences of two trials' columns."""
    d = a - b
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d)))


@pytest.mark.parametrize("position", POSITIONS, ids=["initial", "midgame", "race"])
@pytest.mark.parametrize(
    "settings",
    [
        RolloutSettings(trials=72, seed=11, variance_reduction=False, float32=False),
        RolloutSettings(trials=12, seed=12, truncate=6, float32=False),
    ],
    ids=["plain", "variance-reduced"],
)
def test_float32_rollouts_are_statistically_the_float64_ones(net, position, settings) -> None:
    """Same positions and dice: the float32 kernels play (nearly always) the same games; the means agree
    within their standard errors, paired (same dice) and unpaired (another seed)."""
    slow = rollout_trials(position, net, settings)
    fast = rollout_trials(position, net, replace(settings, float32=True))
    vr = settings.variance_reduction
    a, b = fast.values(vr)[:, :6], slow.values(vr)[:, :6]  # column 6, the cubeful result, is nan here
    same = np.all(np.abs(a - b) < 1e-5, axis=1).mean()
    assert same >= 0.9  # a game differs only where two plays tie within float32 rounding
    for col in range(6):
        mean, se = _paired(a[:, col], b[:, col])
        assert abs(mean) <= 3 * se + 1e-5, (col, mean, se)
    other = rollout_position(position, net, replace(settings, float32=True, seed=settings.seed + 100))
    base = rollout_position(position, net, settings)
    for col in range(6):
        bound = 4 * math.hypot(other.se[col], base.se[col]) + 1e-5
        assert abs(other.mean[col] - base.mean[col]) <= bound, (col, other.mean[col], base.mean[col])


@pytest.mark.parametrize("float32", [False, True])
def test_results_do_not_depend_on_threads(net, float32) -> None:
    settings = RolloutSettings(trials=20, seed=5, truncate=10, chunk=7, threads=1, float32=float32)
    one = rollout_position(MIDGAME, net, settings)
    assert rollout_position(MIDGAME, net, replace(settings, threads=3)) == one
    assert rollout_position(MIDGAME, net, replace(settings, threads=0)) == one
    assert rollout_position(MIDGAME, net, replace(settings, threads=2, variance_reduction=False)) == rollout_position(
        MIDGAME, net, replace(settings, variance_reduction=False)
    )


def test_candidates_do_not_depend_on_threads(net) -> None:
    """Several roots (the candidates of a roll): threads take games of any trial and root, same results."""
    settings = RolloutSettings(trials=9, seed=6, truncate=8, chunk=4, threads=1, float32=True)
    one = rollout_plays(MIDGAME, (3, 1), net, settings)
    assert len(one) > 3
    assert rollout_plays(MIDGAME, (3, 1), net, replace(settings, threads=2)) == one
    assert rollout_plays(MIDGAME, (3, 1), net, replace(settings, threads=5, float32=False)) == rollout_plays(
        MIDGAME, (3, 1), net, replace(settings, float32=False)
    )


def test_bad_threads_and_flags() -> None:
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidInputError, match="threads"):
            RolloutSettings(threads=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="float32"):
        RolloutSettings(float32="yes")  # type: ignore[arg-type]
