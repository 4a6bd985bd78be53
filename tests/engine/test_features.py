"""The tactical input features of encoding version 2 and the game-plan features of version 3, on hand-made
positions, against legal plays and against their definitions."""

import numpy as np
import pytest

from backgammon import Position
from backgammon.engine import encoding
from backgammon.errors import EngineError
from backgammon.training.train import warm_start


def features(position: Position, side: int) -> list[float]:
    """Side 0 = the player on roll; scaled back to counts: shots/36, pip loss, escapes/36, pips, dance."""
    board = np.array([position.mine, position.theirs], dtype=np.int8)
    out = np.empty(encoding.EXTRA)
    encoding.side_features(board[side], board[1 - side], out)
    return [round(v, 9) for v in (out * [36, 36 * 12, 36, 100, 1]).tolist()]


def test_initial_position() -> None:
    f = features(Position.initial(), 0)
    assert f[:2] == [0, 0]  # no blots
    assert f[3] == 167  # every checker is behind the other side's back checkers
    assert f[4] == 0
    # the back checkers must pass the 8-point (7 away): 6-2, 5-3, 6-3, 5-4, 6-4, 6-5, 4-4: 14 rolls,
    # minus nothing blocked on the way (the 7-point and the 4-point are open)... and 5-5 lands on 14: +1
    assert f[2] == 15


def test_direct_and_indirect_shots() -> None:
    # the player on roll has two checkers on 13 and two on 8; the opponent's blot sits on their 19 (my 6)
    p = Position.from_points({13: 2, 8: 2}, {19: 1, 1: 14})
    mine, theirs = features(p, 0), features(p, 1)
    assert mine[:2] == [0, 0]
    # 2 away from the 8 (11 rolls with a 2, plus 1-1) and 7 away from the 13 (6-1, 4-3; 5-2 already)
    assert theirs[0] == 16
    assert theirs[1] == 16 * 6  # a blot on their 19-point loses 6 pips when hit


def test_blocked_indirect_shot() -> None:
    # my single hitter on 20; their blot on their 9 (my 16), 4 away; their 8 (my 17) is made
    p = Position.from_points({20: 1, 6: 14}, {9: 1, 8: 2, 1: 12})
    f = features(p, 1)
    # any 4 (11 rolls), 2-2 (via my 18, open), 3-1 (via 19; via 17 is blocked); 1-1 must pass 17
    assert f[0] == 11 + 1 + 2
    p2 = Position.from_points({20: 1, 6: 14}, {9: 1, 7: 2, 1: 12})
    # now their 7 (my 18) is made: 2-2 and 1-1 pass through it; 3-1 can still go 20/17/16
    assert features(p2, 1)[0] == 11 + 2


def test_trapped_checker_and_dance() -> None:
    p = Position.from_points({24: 1, 6: 14}, {7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 2: 5})
    f = features(p, 0)
    assert f[2] == 2  # only 6-5 jumps the five-point prime
    assert f[0] == 34  # every roll but 3-2 hits the blot on my 24
    q = Position.from_points({"bar": 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    g = features(q, 0)
    assert g[4] == 1.0 and g[2] == 0


def _exact_exposure(position: Position) -> int:
    """Rolls (of 36) on which the player on roll has a legal play that hits."""
    total = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            if any(any(step.hit for step in play.steps) for play in position.legal_plays(d1, d2)):
                total += 1 if d1 == d2 else 2
    return total


def _random_positions(n: int, seed: int) -> list[Position]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        p = Position.initial()
        for _ in range(int(rng.integers(4, 40))):
            plays = p.legal_plays(int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            p = plays[int(rng.integers(len(plays)))].position
            if p.is_game_over():
                break
        if not p.is_game_over() and p.bar()[0] == 0:
            out.append(p)
    return out


def test_exposure_matches_legal_plays() -> None:
    """Exposure counts the rolls whose legal plays include a hit (the opponent's blots, seen by the
    player on roll); it may differ only where a hit is possible but every hitting sequence breaks
    the rule to use both dice, which is rare."""
    positions = _random_positions(150, seed=5)
    agree = 0
    for p in positions:
        approx = features(p, 1)[0]
        exact = _exact_exposure(p)
        assert approx >= exact  # the feature never misses a hit that a legal play makes
        agree += approx == exact
    assert agree >= 0.97 * len(positions)


def test_features_are_inputs() -> None:
    p = Position.from_points({13: 2, 8: 2}, {19: 1, 1: 14})
    x = encoding.encode(p)
    side1 = x[encoding.V1_INPUTS + encoding.EXTRA : encoding.V2_INPUTS]
    assert side1[0] == pytest.approx(16 / 36)
    assert x.shape == (encoding.NUM_INPUTS,)


def _old_nets(path, inputs: int, version: int, seed: int) -> list:
    """Two random 6-hidden nets for ``inputs`` inputs, saved at ``path`` as a weights file of ``version``."""
    from backgammon.engine.network import Net

    rng = np.random.default_rng(seed)
    old = [
        Net(rng.normal(0, 0.3, (inputs, 6)), rng.normal(0, 0.3, 6), rng.normal(0, 0.3, (6, 5)), rng.normal(0, 0.3, 5))
        for _ in range(2)
    ]
    arrays = {
        f"{name}_{part}": getattr(net, part)
        for name, net in zip(("contact", "race"), old)
        for part in ("w1", "b1", "w2", "b2")
    }
    np.savez(path, meta=np.array(f'{{"encoding_version": {version}}}'), **arrays)
    return old


def test_warm_start_keeps_the_old_nets_outputs(tmp_path) -> None:
    path = tmp_path / "old.npz"
    old = _old_nets(path, encoding.V1_INPUTS, 1, seed=3)
    contact, race = warm_start(path, 10, 8, np.random.default_rng(0))
    assert contact.hidden == 10 and race.hidden == 8
    for p in _random_positions(5, seed=2):
        x = encoding.encode(p)
        assert np.allclose(contact.forward(x[None]), old[0].forward(x[None, : encoding.V1_INPUTS]))
        xr = encoding.encode(p, race=True)
        assert np.allclose(race.forward(xr[None]), old[1].forward(x[None, : encoding.V1_INPUTS]))
    with pytest.raises(EngineError, match="cannot fit"):
        warm_start(path, 4, 8, np.random.default_rng(0))
    with pytest.raises(EngineError, match="cannot read"):
        warm_start(tmp_path / "missing.npz", 10, 8, np.random.default_rng(0))


def plan(position: Position, side: int) -> list[float]:
    """Side 0 = the player on roll: containment, its square, mobility * 540, anchor point - 12,
    backgame, free pips, double shots / 36, moment, chance not to enter both."""
    board = np.array([position.mine, position.theirs], dtype=np.int8)
    out = np.empty(encoding.PLAN)
    encoding.plan_features(board[side], board[1 - side], out)
    return [round(v, 9) for v in (out * [1, 1, 36 * 15, 12, 1, 100, 1, 100, 1]).tolist()]


def _escapes_by_definition(mask: int) -> int:
    """Rolls (of 36) with a path of open points to a distance beyond the farthest blocked one in 1..11."""
    blocked = {d for d in range(1, 13) if mask >> (d - 1) & 1}
    far = max((d for d in blocked if d <= 11), default=0)
    if far == 0:
        return 36
    total = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):  # the 36 ordered rolls
            if d1 == d2:
                paths = [[d1 * k for k in range(1, n + 1)] for n in range(1, 5)]
            else:
                paths = [[d1], [d2], [d1, d1 + d2], [d2, d1 + d2]]
            if any(path[-1] > far and not blocked.intersection(path) for path in paths):
                total += 1
    return total


def test_escape_table_matches_its_definition() -> None:
    table = encoding._ESCAPES
    assert [int(table[m]) for m in range(4096)] == [_escapes_by_definition(m) for m in range(4096)]


def test_plan_features_of_the_initial_position() -> None:
    f = plan(Position.initial(), 0)
    assert f == plan(Position.initial(), 1)
    # from my 23-point the midpoint (11 away) is the farthest block: only 5-5 jumps it (5, 10, 15)
    assert f[0] == pytest.approx(35 / 36) and f[1] == pytest.approx((35 / 36) ** 2)
    assert f[3] == 12  # the 24-point anchor
    assert f[4] == 0  # one anchor in their home board is not a backgame
    # 5 on 13 (7 pips each to my home), 3 on 8 (2 each), 2 on 24 (18 each); 3 spares on the 6-point
    assert f[5] == 5 * 7 + 3 * 2 + 2 * 18 + 3 * 5


def test_plan_features_of_a_prime_and_a_backgame() -> None:
    # their six-point prime on their 7..12 (my 13..18) holds my checkers on 20 and 22 completely
    p = Position.from_points({22: 2, 20: 2, 6: 11}, {7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 2, 1: 3})
    f = plan(p, 0)
    assert f[0] == 1 and f[1] == 1
    assert f[2] == 0  # neither anchor can move past the prime
    assert f[3] == 10 and f[4] == 1  # two anchors in their home board (my 20 and 22)
    # without any of their made points in front, everything escapes: mobility is 36 per checker outside home
    q = Position.from_points({22: 2, 20: 2, 6: 11}, {24: 15})
    g = plan(q, 0)
    assert g[0] == 0 and g[2] == 36 * 4
    assert g[5] == 2 * 16 + 2 * 14 + 9 * 5


def test_plan_features_are_inputs() -> None:
    p = Position.from_points({22: 2, 20: 2, 6: 11}, {7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 2, 1: 3})
    x = encoding.encode(p)
    mine = x[encoding.V2_INPUTS : encoding.V2_INPUTS + encoding.PLAN]
    assert mine[0] == 1 and mine[4] == 1
    assert x.shape == (encoding.V2_INPUTS + 2 * encoding.PLAN,)


def test_warm_start_from_encoding_2_keeps_the_outputs(tmp_path) -> None:
    path = tmp_path / "v2.npz"
    old = _old_nets(path, encoding.V2_INPUTS, 2, seed=4)
    contact, race = warm_start(path, 8, 6, np.random.default_rng(0))
    for p in _random_positions(5, seed=3):
        x = encoding.encode(p)
        assert np.allclose(contact.forward(x[None]), old[0].forward(x[None, : encoding.V2_INPUTS]))
        xr = encoding.encode(p, race=True)
        assert np.allclose(race.forward(xr[None]), old[1].forward(x[None, : encoding.V2_INPUTS]))


def test_double_shots_moment_and_bar_entry() -> None:
    # their blots on their 20 and 21 (my 5 and 4); my hitters on 8 and 13 (the ace point cannot hit)
    p = Position.from_points({13: 2, 8: 2, 1: 11}, {20: 1, 21: 1, 1: 13})
    f = plan(p, 1)
    # rolls reaching both blots: 3-1, 3-4, 3-6 (two ways each), 3-3, 1-1, 2-2, 4-4
    assert f[6] * 36 == pytest.approx(10)
    assert plan(Position.from_points({13: 2, 8: 2, 6: 11}, {20: 1, 1: 14}), 1)[6] == 0  # one blot
    # fourteen on the ace point and one on 16: mean 2; (16 - 2)^2 / 15 per checker
    q = Position.from_points({1: 14, 16: 1}, {1: 15})
    assert plan(q, 0)[7] == pytest.approx(196 / 15)
    assert plan(Position.from_points({6: 15}, {1: 15}), 0)[7] == 0
    # two on the bar against four closed points: both enter only with two open dice
    r = Position.from_points({"bar": 2, 6: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 12: 7})
    assert plan(r, 0)[8] == pytest.approx(1 - (2 / 6) ** 2)
    assert plan(Position.from_points({"bar": 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 12: 7}), 0)[8] == 0


def test_inputs_hold_each_sides_features_on_random_positions() -> None:
    """The encoder shares the blot-hitting rolls between exposure and double shots; its feature blocks
    must equal the standalone side_features and plan_features of both sides."""
    from backgammon.engine.movegen import board_of

    f, g = np.empty(encoding.EXTRA), np.empty(encoding.PLAN)
    for p in _random_positions(300, seed=21):
        board = board_of(p)
        x = encoding.encode(p)
        for s in range(2):
            encoding.side_features(board[s], board[1 - s], f)
            encoding.plan_features(board[s], board[1 - s], g)
            lo = encoding.V1_INPUTS + s * encoding.EXTRA
            assert np.array_equal(x[lo : lo + encoding.EXTRA], f)
            lo = encoding.V2_INPUTS + s * encoding.PLAN
            assert np.array_equal(x[lo : lo + encoding.PLAN], g)
