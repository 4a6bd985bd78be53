"""Cube decisions: hand-made cases and a comparison with GNU Backgammon (test-only)."""

from __future__ import annotations

import pytest

from backgammon.engine.cube import (
    CubeAction,
    CubeInfo,
    CubeOwner,
    cube_decision,
    cube_efficiency,
    cubeless_equity,
)
from backgammon.errors import InvalidInputError
from backgammon.position import Position

NO_GAMMONS = 0.0, 0.0, 0.0, 0.0


def race(p: float) -> tuple[float, ...]:
    return (p, *NO_GAMMONS)


def test_sure_gammon_is_too_good() -> None:
    d = cube_decision((1.0, 0.9, 0.0, 0.0, 0.0))
    assert d.action is CubeAction.TOO_GOOD_PASS
    assert not d.take
    assert d.no_double == pytest.approx(1.9)
    assert d.double_pass == 1.0


def test_hopeless_position_no_double() -> None:
    d = cube_decision(race(0.1))
    assert d.action is CubeAction.NO_DOUBLE
    assert d.take


def test_dead_cube_window_by_hand() -> None:
    # x = 0: ND = 2p - 1, DT = 2(2p - 1), DP = 1: double above 50%, pass above 75%
    assert cube_decision(race(0.49), x=0).action is CubeAction.NO_DOUBLE
    assert cube_decision(race(0.55), x=0).action is CubeAction.DOUBLE_TAKE
    assert cube_decision(race(0.74), x=0).action is CubeAction.DOUBLE_TAKE
    assert cube_decision(race(0.76), x=0).action is CubeAction.DOUBLE_PASS
    d = cube_decision(race(0.6), x=0)
    assert (d.no_double, d.double_take) == pytest.approx((0.2, 0.4))


def test_live_cube_take_and_cash_points() -> None:
    # fully live cube, no gammons: the classic 20% take point / 80% cash point
    d = cube_decision(race(0.79), x=1)
    assert d.take and d.double_take < 1
    assert not cube_decision(race(0.81), x=1).take
    # with a centred live cube the no-double line is -1 at 20% and +1 at 80%
    assert cube_decision(race(0.5), x=1).no_double == pytest.approx(0.0, abs=1e-5)
    assert cube_decision(race(0.8), x=1).no_double == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("x", [0.5, 0.68, 0.8])
def test_janowski_window_by_hand(x: float) -> None:
    # no gammons, centred cube: ND = x(-1 + (p - .2)/.3) + (1 - x)(2p - 1),
    # DT = x(5p - 3) + (1 - x)(4p - 2): take point (3 + x)/(4 + x), double point (3 + x)/(6 - x)
    take_point = (3 + x) / (4 + x)
    double_point = (3 + x) / (6 - x)
    for p in (0.3, 0.5, 0.65, 0.72, 0.78):
        d = cube_decision(race(p), x=x)
        nd = x * (-1 + (p - 0.2) / 0.3) + (1 - x) * (2 * p - 1)
        dt = x * (5 * p - 3) + (1 - x) * (4 * p - 2)
        assert d.no_double == pytest.approx(nd, abs=1e-4)
        assert d.double_take == pytest.approx(dt, abs=1e-4)
    assert cube_decision(race(double_point - 0.01), x=x).action is CubeAction.NO_DOUBLE
    assert cube_decision(race(double_point + 0.01), x=x).action is CubeAction.DOUBLE_TAKE
    assert cube_decision(race(take_point - 0.005), x=x).action is CubeAction.DOUBLE_TAKE
    assert cube_decision(race(take_point + 0.005), x=x).action is CubeAction.DOUBLE_PASS


def test_owned_cube_and_unavailable_cube() -> None:
    p = race(0.7)
    centred = cube_decision(p, CubeInfo.money())
    owned = cube_decision(p, CubeInfo.money(value=2, owner=CubeOwner.ME))
    theirs = cube_decision(p, CubeInfo.money(value=2, owner=CubeOwner.OPPONENT))
    assert theirs.action is CubeAction.NO_DOUBLE and not theirs.may_double
    # owning the cube is worth more than sharing it, which is worth more than not having it
    assert owned.no_double > centred.no_double > theirs.no_double


def test_jacoby_ignores_gammons_with_centred_cube() -> None:
    gammonish = (0.75, 0.45, 0.02, 0.05, 0.0)
    plain = cube_decision(gammonish, CubeInfo.money())
    jacoby = cube_decision(gammonish, CubeInfo.money(jacoby=True))
    assert plain.action is CubeAction.TOO_GOOD_PASS  # playing on for the gammon beats cashing
    assert jacoby.action is CubeAction.DOUBLE_PASS  # gammons would not count: cash
    assert jacoby.no_double < plain.no_double
    assert jacoby.double_take == pytest.approx(plain.double_take)  # after a double gammons count again


def test_crawford_game_no_double() -> None:
    d = cube_decision(race(0.7), CubeInfo.match(2, 1, crawford=True))
    assert not d.may_double
    assert d.action is CubeAction.NO_DOUBLE


def test_post_crawford_trailer_doubles() -> None:
    # trailer 4-away vs leader 1-away: the leader's take costs nothing (a win still wins the match)
    for p in (0.3, 0.4, 0.5):
        d = cube_decision((p, 0.1 * p, 0.0, 0.1 * (1 - p), 0.0), CubeInfo.match(4, 1, post_crawford=True))
        assert d.action is CubeAction.DOUBLE_TAKE, p
    # the leader has nothing to gain from doubling
    leader = cube_decision(race(0.6), CubeInfo.match(1, 4, post_crawford=True))
    assert not leader.should_double


def test_match_dead_gammons() -> None:
    # 2-away/2-away: doubling to 2 makes gammons worthless; equities are match-winning chances
    d = cube_decision((0.6, 0.2, 0.0, 0.1, 0.0), CubeInfo.match(2, 2))
    assert d.double_pass_mwc == pytest.approx(0.67736)  # 1-away/2-away Crawford
    assert d.double_take_mwc == pytest.approx(0.6)  # cube at 2 decides the match: mwc = win chance
    assert d.double_pass == 1.0


def test_cubeless_equity_and_validation() -> None:
    assert cubeless_equity((0.6, 0.2, 0.05, 0.1, 0.01)) == pytest.approx(0.2 + 0.2 - 0.1 + 0.05 - 0.01)
    with pytest.raises(InvalidInputError):
        cube_decision((0.5, 0.6, 0.0, 0.0, 0.0))  # more gammons than wins
    with pytest.raises(InvalidInputError):
        cube_decision((0.5, 0.1))
    with pytest.raises(InvalidInputError):
        cube_decision(race(0.5), x=1.5)
    with pytest.raises(InvalidInputError):
        CubeInfo(value=3)
    with pytest.raises(InvalidInputError):
        CubeInfo.match(3, 3, crawford=True)
    with pytest.raises(InvalidInputError):
        CubeInfo(away=(3, 3), jacoby=True)


def test_cube_efficiency_by_phase() -> None:
    assert cube_efficiency(Position.initial()) == pytest.approx(0.68)
    short_race = Position.from_points({1: 2, 2: 2}, {1: 2, 2: 2})
    assert cube_efficiency(short_race) == pytest.approx(0.6)
    # a race: 0.6 at 40 pips to 0.7 at 120, linear (the player on roll's count)
    race80 = Position.from_points({13: 4, 12: 2, 2: 1, 1: 2}, {1: 15})
    assert race80.is_race() and race80.pip_counts()[0] == 80
    assert cube_efficiency(race80) == pytest.approx(0.65)
    long_race = Position.from_points({12: 10, 11: 5}, {6: 15})
    assert cube_efficiency(long_race) == pytest.approx(0.7)


def test_agreement_with_gnubg(gnubg_tools) -> None:
    """gnubg's match cube decisions (its own MET and cube model) vs ours from gnubg's probabilities."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    gnubg_board, gnubg_probabilities = gnubg_tools.gnubg_board, gnubg_tools.gnubg_probabilities
    sample_positions = gnubg_tools.sample_positions

    scores = [(3, 3), (5, 5), (2, 4), (4, 2), (7, 3), (2, 1), (1, 2)]
    agree = total = 0
    for position in sample_positions(30, seed=7, every=2):
        probs = gnubg_probabilities(position)
        key = gnubg_nn.key_of_board(gnubg_board(position))
        for a, b in scores:
            gnubg_nn.set.score(a, b, 0)
            theirs = gnubg_nn.evaluate_cube_decision(key, 0, i=1)
            info = CubeInfo.match(a, b, post_crawford=1 in (a, b))
            ours = cube_decision(probs, info, cube_efficiency(position))
            total += 1
            agree += (ours.should_double, ours.take) == (bool(theirs[0]), bool(theirs[1]))
    print(f"cube agreement with gnubg 0-ply: {agree}/{total}")
    assert agree / total >= 0.8
