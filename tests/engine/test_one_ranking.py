"""One ranking (issue 16): candidates are only compared with candidates evaluated at the same depth,
and the order of the deepest group is a direct evaluation of each result at that depth and cube.

Over 200 seeded positions (every few plies of random games), at six cube and score states with a
live cube (money; 4-away/2-away; 2-away/4-away; post-Crawford, the trailer on roll; an owned cube in
a match and in money), at 0 and 1 ply: with the fast fake evaluator on all of them and the real
network on a part, and at 2 ply with the network on a few.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from backgammon import Position
from backgammon.engine.cube import CubeInfo, CubeOwner, clip_outputs, cube_decision, cube_efficiency
from backgammon.engine.evaluator import NetEvaluator
from backgammon.engine.met import match_equity
from backgammon.engine.search import (
    DEFAULT_FILTERS,
    EvalContext,
    decide_cube,
    evaluate_boards_ply,
    evaluate_play,
    rank_plays,
)

from ._helpers import FakeEvaluator, random_positions

CUBES = {
    "money": CubeInfo.money(),
    "4-away/2-away": CubeInfo.match(4, 2),
    "2-away/4-away": CubeInfo.match(2, 4),
    "post-crawford": CubeInfo.match(3, 1, post_crawford=True),
    "owned, 5-away/3-away": CubeInfo.match(5, 3, value=2, owner=CubeOwner.OPPONENT),
    "owned, money": CubeInfo.money(value=2, owner=CubeOwner.ME),
}


def _positions(count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """Positions (every third ply of random games) with a roll that leaves at least two plays."""
    rng = random.Random(seed)
    out = []
    for p in random_positions(3 * count, seed)[::3]:
        if p.is_game_over():
            continue
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        if len(p.legal_plays(*dice)) >= 2:
            out.append((p, dice))
    return out[:count]


def direct(play, evaluator, plies: int, cube: CubeInfo | None) -> float:
    """The mover's equity after a play, computed from scratch: the result's own n-ply chances
    (opponent on roll), then the opponent's best cube action there (money per cube, or EMG)."""
    after = play.position
    board = np.array([after.mine, after.theirs], dtype=np.int8)[None]
    theirs = clip_outputs(evaluate_boards_ply(board, evaluator, plies)[0])
    w, wg, wb, lg, lb = 1 - theirs[0], theirs[3], theirs[4], theirs[1], theirs[2]
    cubeless = 2 * w - 1 + wg - lg + wb - lb
    if cube is None:
        return cubeless
    if after.is_game_over():  # the mover won: a gammon counts single under Jacoby with a centred cube
        points = 3 if wb >= 1 else 2 if wg >= 1 else 1
        if cube.is_money:
            return cubeless
        a, b = cube.away
        post = cube.crawford or cube.post_crawford
        lo, hi = match_equity(a, b - cube.value, post), match_equity(a - cube.value, b, post)
        return 2 * (match_equity(a - points * cube.value, b, post) - lo) / (hi - lo) - 1
    decision = cube_decision(theirs, cube.flip(), cube_efficiency(after))
    if cube.is_money:
        return -decision.best_equity
    a, b = cube.away
    post = cube.crawford or cube.post_crawford
    mwc = 1 - decision.best_mwc
    lo, hi = match_equity(a, b - cube.value, post), match_equity(a - cube.value, b, post)
    return 2 * (mwc - lo) / (hi - lo) - 1


def check_ranking(position, dice, evaluator, plies: int, cube: CubeInfo | None) -> int:
    """Every property of one ranking; returns how many candidates the filters dropped before the full depth."""
    ranked = rank_plays(position, dice, EvalContext(evaluator, plies, cube))
    assert len(ranked) == len(position.legal_plays(*dice))
    kind = "cubeless" if cube is None else "cubeful money" if cube.is_money else "cubeful match"
    assert all(r.kind == kind and (r.mwc is not None) == (kind == "cubeful match") for r in ranked)
    depths = [r.plies for r in ranked]
    # the deepest stage's survivors first, then the dropped ones grouped by depth: never interleaved
    assert depths[0] == plies and depths == sorted(depths, reverse=True)
    for d in set(depths):
        group = [r.equity for r in ranked if r.plies == d]
        assert group == sorted(group, reverse=True)
    # the top group's order is a direct evaluation of each result at the stated depth and cube
    top = [r for r in ranked if r.plies == plies]
    values = [direct(r.play, evaluator, plies, cube) for r in top]
    assert [r.equity for r in top] == pytest.approx(values, abs=1e-9)
    assert all(values[i] >= values[i + 1] - 1e-9 for i in range(len(values) - 1))
    # each stage kept the best of the previous one: every play dropped at depth d was worth no more,
    # at depth d, than the plays that went on (the filter's keep and threshold hold)
    for d in range(plies):
        went_on = [r for r in ranked if r.plies > d]
        dropped = [r for r in ranked if r.plies == d]
        on_values = [direct(r.play, evaluator, d, cube) for r in went_on]
        f = DEFAULT_FILTERS[min(d, len(DEFAULT_FILTERS) - 1)]
        assert len(went_on) <= f.keep and max(on_values) - min(on_values) <= f.threshold + 1e-9
        if dropped:
            assert max(r.equity for r in dropped) <= min(on_values) + 1e-9
    return sum(1 for d in depths if d < plies)


@pytest.mark.parametrize("name", list(CUBES))
def test_depth_groups_and_direct_order_fake_evaluator(name: str) -> None:
    """210 positions x 6 cube states x 0 and 1 ply with the fast evaluator."""
    ev = FakeEvaluator()
    dropped = 0
    for position, dice in _positions(210, seed=16):
        for plies in (0, 1):
            dropped += check_ranking(position, dice, ev, plies, CUBES[name])
    assert dropped > 100  # the filters did drop plays, so the depth groups were exercised


def test_depth_groups_and_direct_order_network() -> None:
    """The real network, 40 positions x every cube state (and cubeless) x 0 and 1 ply, and 2 ply on a few."""
    ev = NetEvaluator.default()
    cases = _positions(40, seed=161)
    for position, dice in cases:
        for cube in [None, *CUBES.values()]:
            for plies in (0, 1):
                check_ranking(position, dice, ev, plies, cube)
    for position, dice in cases[:3]:
        check_ranking(position, dice, ev, 2, CUBES["4-away/2-away"])


def test_evaluate_play_is_the_direct_value() -> None:
    ev = FakeEvaluator()
    for position, dice in _positions(20, seed=3):
        for cube in (None, CUBES["2-away/4-away"], CUBES["money"]):
            for play in position.legal_plays(*dice)[:3]:
                r = evaluate_play(play, EvalContext(ev, 1, cube))
                assert r.plies == 1 and r.equity == pytest.approx(direct(play, ev, 1, cube), abs=1e-9)


@pytest.mark.slow  # one of the slowest tests: not in the fast tier
def test_labels_state_depth_and_kind() -> None:
    ev = FakeEvaluator()
    p = Position.initial()
    assert rank_plays(p, (3, 1), EvalContext(ev, 1))[0].label == "1-ply cubeless"
    assert rank_plays(p, (3, 1), EvalContext(ev, 0, CubeInfo.money()))[0].label == "0-ply cubeful money"
    assert rank_plays(p, (3, 1), EvalContext(ev, 1, CubeInfo.match(4, 2)))[0].label == "1-ply cubeful match, EMG"
    cube = decide_cube(p, EvalContext(ev, 1, CubeInfo.match(4, 2)))
    assert cube.label == "1-ply cubeful match, EMG" and cube.decision.no_double_mwc is not None
    assert decide_cube(p, EvalContext(ev, 0)).label == "0-ply cubeful money"


def test_opening_31_numbers_say_what_they_are() -> None:
    """The web's +0.198 and `backgammon hint`'s +0.143 for the opening 31 were the same 0-ply search,
    one cubeful (money, centred cube), one cubeless: both now say which, and agree when asked the same."""
    ev = NetEvaluator.default()
    p = Position.initial()
    cubeful = rank_plays(p, (3, 1), EvalContext(ev, 0, CubeInfo.money()))[0]
    cubeless = rank_plays(p, (3, 1), EvalContext(ev, 0))[0]
    assert str(cubeful.play) == str(cubeless.play) == "8/5 6/5"
    assert cubeless.equity == cubeful.cubeless and cubeful.equity > cubeless.equity + 0.03
    assert (cubeful.label, cubeless.label) == ("0-ply cubeful money", "0-ply cubeless")
