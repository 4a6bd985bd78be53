"""Money cube decisions against the GNU Backgammon program (test-only use of /usr/games/gnubg and gnubg_nn).

gnubg_nn has no money cube, so the answers come from the ``gnubg`` program's
0-ply ``hint`` (benchmarks/_gnubg_cli.py, the driver the cube_agreement
benchmark uses). Ours is :func:`cube_decision` on gnubg's own 0-ply
probabilities, so the cube model alone is compared; on clear decisions
(gnubg's own margins wide) the two must agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from backgammon.engine.cube import CubeAction, CubeInfo, CubeOwner, cube_decision, cube_efficiency
from backgammon.position import Position

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"

gnubg_nn = pytest.importorskip("gnubg_nn")


@pytest.fixture(scope="module")
def cli():
    sys.path.insert(0, str(BENCH))
    try:
        import _gnubg_cli
        import cube_agreement
    finally:
        sys.path.remove(str(BENCH))
    if not _gnubg_cli.available():
        pytest.skip("the gnubg program (/usr/games/gnubg) is not installed")
    return _gnubg_cli, cube_agreement


def gnubg_probs(position: Position) -> tuple[float, ...]:
    return tuple(gnubg_nn.probabilities(gnubg_nn.board_from_position_id(position.position_id()), 0))


# mine: all 15 home and bearing off; theirs: the starting position (a near-certain gammon)
HUGE_LEAD = Position.from_points({6: 5, 5: 4, 4: 3, 3: 3}, {24: 2, 13: 5, 8: 3, 6: 5})


def test_clear_cases_by_hand(cli) -> None:
    g, _ = cli
    requests = [
        (Position.initial(), g.MoneyCube()),
        (Position.initial(), g.MoneyCube(jacoby=True)),
        (HUGE_LEAD, g.MoneyCube()),
        (HUGE_LEAD, g.MoneyCube(2, owned=True)),
    ]
    theirs = g.money_cube_hints(requests)
    assert [(t.doubler, t.take) for t in theirs] == [
        ("no double", True),
        ("no double", True),
        ("too good", False),
        ("too good", False),
    ]
    infos = [CubeInfo.money(), CubeInfo.money(jacoby=True), CubeInfo.money(), CubeInfo.money(2, CubeOwner.ME)]
    for (position, _), info in zip(requests, infos):
        probs = gnubg_probs(position)
        ours = cube_decision(probs, info, cube_efficiency(position))
        expected = CubeAction.NO_DOUBLE if position == Position.initial() else CubeAction.TOO_GOOD_PASS
        assert ours.action is expected, (position.position_id(), info)
    # Jacoby: gammons do not count with the cube centred, so cashing (double, pass) beats playing on
    jacoby = g.money_cube_hints([(HUGE_LEAD, g.MoneyCube(jacoby=True))])[0]
    assert (jacoby.doubler, jacoby.take) == ("double", False)
    assert (
        cube_decision(gnubg_probs(HUGE_LEAD), CubeInfo.money(jacoby=True), cube_efficiency(HUGE_LEAD)).action
        is CubeAction.DOUBLE_PASS
    )


def test_agreement_on_clear_sampled_decisions(cli) -> None:
    """20 self-play positions where gnubg gives 55-90% to win, three cube states each."""
    _, bench = cli
    positions = bench.sample_money_positions(gnubg_nn, 20, 5, 0.55, 0.90)
    rows, details = bench.money_agreement(positions, {"model": gnubg_probs})
    clear = 0
    for _, label, position, ours, theirs, cmp in details:
        answer = min(theirs.double_take, theirs.double_pass)
        wide = abs(theirs.no_double - answer) > 0.05 and abs(theirs.double_take - theirs.double_pass) > 0.05
        # equities per cube unit, gnubg's printed to 3 decimals
        assert abs(ours.no_double - theirs.no_double) < 0.02, (label, position.position_id())
        assert abs(ours.double_take - theirs.double_take) < 0.04, (label, position.position_id())
        if wide:
            clear += 1
            assert cmp["doubler"] and cmp["take"], (label, position.position_id(), ours.action, theirs.proper)
    assert clear >= 30  # of 60: the check is not vacuous
    assert rows[-1][1] == "all" and rows[-1][5] >= 0.9 * rows[-1][2]  # all decisions: 90% agree on both
