"""Partial results of a rollout of candidate plays (``rollout_plays(..., partial=...)``)."""

from __future__ import annotations

import pytest

from backgammon.engine.rollout import PlayRollout, RolloutSettings, rollout_plays
from backgammon.position import Position

MIDGAME = Position.from_points({24: 1, 18: 1, 13: 4, 11: 1, 8: 3, 6: 5}, {24: 2, 13: 4, 10: 1, 8: 3, 6: 5})


def _numbers(results: list[PlayRollout]) -> list[tuple[str, int, tuple[float, ...], tuple[float, ...], float]]:
    return [(str(r.play), r.result.trials, r.result.mean, r.result.se, r.diff) for r in results]


@pytest.mark.parametrize("stop_confidence", [None, 0.95])
def test_partial_results_after_each_chunk_end_with_the_final_ones(fake_evaluator, stop_confidence) -> None:
    plays = list(MIDGAME.legal_plays(3, 1))[:3]
    settings = RolloutSettings(trials=60, truncate=3, seed=5, chunk=12, stop_confidence=stop_confidence, min_trials=24)
    seen: list[list[PlayRollout]] = []
    progress: list[int] = []
    final = rollout_plays(
        MIDGAME, (3, 1), fake_evaluator, settings, plays, lambda d, t: progress.append(d), seen.append
    )
    assert [s[0].result.trials for s in seen] == progress  # one report per chunk, after the progress
    assert progress[:2] == [12, 24] and progress[-1] == final[0].result.trials
    assert _numbers(seen[-1]) == _numbers(final)  # the last report is the result, to the last bit
    # the same seed without the callback gives the same numbers
    assert _numbers(rollout_plays(MIDGAME, (3, 1), fake_evaluator, settings, plays)) == _numbers(final)
    for report in seen:
        assert sorted(str(r.play) for r in report) == sorted(str(p) for p in plays)
        assert [r.diff for r in report] == sorted(r.diff for r in report)  # best first, every time


def test_partial_standard_errors_shrink(fake_evaluator) -> None:
    plays = list(MIDGAME.legal_plays(6, 4))[:2]
    seen: list[list[PlayRollout]] = []
    settings = RolloutSettings(trials=144, truncate=2, seed=2, chunk=36)
    rollout_plays(MIDGAME, (6, 4), fake_evaluator, settings, plays, partial=seen.append)
    assert len(seen) == 4
    for play in plays:
        se = [next(r.result.equity_se for r in report if r.play == play) for report in seen]
        assert se[-1] < se[0] and all(s > 0 for s in se)
        assert se[-1] == pytest.approx(se[0] / 2, rel=0.5)  # about 1 / sqrt(trials)


def test_a_finished_game_is_reported_once(fake_evaluator) -> None:
    finishing = Position.from_points({6: 1, 1: 1}, {1: 3, 2: 2})
    seen: list[list[PlayRollout]] = []
    final = rollout_plays(finishing, (6, 1), fake_evaluator, RolloutSettings(trials=10), partial=seen.append)
    assert len(seen) == 1 and _numbers(seen[0]) == _numbers(final)
