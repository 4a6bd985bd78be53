"""Dice statistics: the chi-squared survival function, roll counts, dancing."""

from __future__ import annotations

import json
import math
import random

import pytest

from backgammon.cli import main
from backgammon.dicestats import (
    ROLLS_21,
    chi2_sf,
    dance_probability,
    dice_report,
    is_dance,
    pips_of,
    player_rolls,
    roll_distribution,
)
from backgammon.errors import InvalidInputError
from backgammon.fairdice import derive_rolls
from backgammon.position import Position

# Critical values from standard chi-squared tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4):
# (dof, upper-tail probability, value)
TABLE = [
    (1, 0.05, 3.841),
    (1, 0.01, 6.635),
    (2, 0.05, 5.991),
    (3, 0.05, 7.815),
    (4, 0.01, 13.277),
    (5, 0.05, 11.070),
    (10, 0.01, 23.209),
    (20, 0.05, 31.410),
    (20, 0.10, 28.412),
    (35, 0.05, 49.802),
    (35, 0.10, 46.059),
]


@pytest.mark.parametrize(("dof", "p", "x"), TABLE)
def test_chi2_sf_matches_tables(dof: int, p: float, x: float) -> None:
    assert chi2_sf(x, dof) == pytest.approx(p, abs=2e-4)


def test_chi2_sf_closed_forms() -> None:
    # dof 2: exp(-x/2); dof 1: erfc(sqrt(x/2))
    for x in (0.1, 1.0, 4.0, 30.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2))
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)))
    # the median of chi2(k) is close to k(1 - 2/(9k))^3
    for k in (5, 20, 35):
        assert chi2_sf(k * (1 - 2 / (9 * k)) ** 3, k) == pytest.approx(0.5, abs=0.01)
    assert chi2_sf(0, 3) == 1.0
    assert chi2_sf(1e6, 35) == 0.0
    # decreasing in x
    values = [chi2_sf(x, 21) for x in range(0, 80, 4)]
    assert values == sorted(values, reverse=True)


def test_chi2_sf_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        chi2_sf(1.0, 0)
    with pytest.raises(InvalidInputError):
        chi2_sf(float("nan"), 3)


def test_pips() -> None:
    assert pips_of((6, 6)) == 24
    assert pips_of((1, 1)) == 4
    assert pips_of((5, 2)) == 7
    # fair dice move 8 1/6 pips a roll on average (49/6)
    report = dice_report([(a, b) for a in range(1, 7) for b in range(1, 7)])
    assert report.pips.observed == 294
    assert report.pips.expected == pytest.approx(294)
    assert report.pips.test is not None and report.pips.test.statistic == pytest.approx(0)


def test_distribution_counts_and_expectations() -> None:
    rolls = [(3, 1), (1, 3), (6, 6), (2, 5)]
    dist = roll_distribution(rolls)
    assert len(dist.labels) == 21 and dist.labels[0] == "66" and dist.labels[-1] == "11"
    assert dist.observed[dist.labels.index("31")] == 2
    assert dist.observed[dist.labels.index("52")] == 1
    assert dist.expected[dist.labels.index("31")] == pytest.approx(4 * 2 / 36)
    assert dist.expected[dist.labels.index("44")] == pytest.approx(4 / 36)
    assert sum(dist.expected) == pytest.approx(4)
    ordered = roll_distribution(rolls, ordered=True)
    assert len(ordered.labels) == 36
    assert ordered.observed[ordered.labels.index("31")] == 1
    assert ordered.observed[ordered.labels.index("13")] == 1
    assert roll_distribution([]).test is None


def test_fair_sample_is_not_flagged_and_a_loaded_one_is() -> None:
    fair = derive_rolls(bytes(range(32)), "stats", 3600)
    report = dice_report(fair)
    assert report.distribution.test is not None and report.distribution.test.p_value > 0.001
    assert report.doubles.test is not None and report.doubles.test.p_value > 0.001
    assert report.pips.test is not None and report.pips.test.p_value > 0.001
    # loaded dice: one die shows 6 half the time
    rng = random.Random(5)
    loaded = [(6 if rng.random() < 0.5 else rng.randint(1, 6), rng.randint(1, 6)) for _ in range(3600)]
    bad = dice_report(loaded)
    assert bad.distribution.test is not None and bad.distribution.test.p_value < 1e-6
    assert bad.pips.observed > bad.pips.expected
    assert bad.pips.test is not None and bad.pips.test.p_value < 1e-6


def test_doubles_statistic() -> None:
    rolls = [(1, 1)] * 10 + [(2, 1)] * 50
    report = dice_report(rolls)
    assert report.doubles.observed == 10
    assert report.doubles.expected == pytest.approx(10)
    assert report.doubles.variance == pytest.approx(60 * 5 / 36)
    all_doubles = dice_report([(4, 4)] * 60)
    assert all_doubles.doubles.test is not None and all_doubles.doubles.test.p_value < 1e-10


def entering_positions() -> list[Position]:
    return [
        Position.from_points({"bar": 1, 6: 14}, {6: 5, 8: 3, 13: 5, 24: 2}),  # 1 closed point
        Position.from_points({"bar": 2, 6: 13}, {2: 2, 4: 2, 6: 11}),  # 3 closed points
        Position.from_points({"bar": 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3}),  # closed board
        Position.from_points({"bar": 1, 6: 14}, {1: 1, 7: 14}),  # open board, a blot
    ]


@pytest.mark.parametrize("position", entering_positions())
def test_dancing_agrees_with_the_rules(position: Position) -> None:
    danced = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            plays = position.legal_plays(d1, d2)
            rules_dance = all(not any(s.source == 25 for s in p.steps) for p in plays)
            assert is_dance(position, (d1, d2)) == rules_dance
            danced += rules_dance
    assert dance_probability(position) == pytest.approx(danced / 36)


def test_dancing_statistic() -> None:
    positions = entering_positions()
    entries = [(positions[1], (2, 4)), (positions[1], (3, 1)), (positions[2], (5, 5)), (positions[0], (6, 6))]
    report = dice_report([r for _, r in entries], entries=entries)
    assert report.dancing is not None
    assert report.dancing.observed == 3  # 24 and 66 blocked, closed board always dances
    assert report.dancing.expected == pytest.approx(0.25 + 0.25 + 1 + 1 / 36)
    assert report.dancing.variance == pytest.approx(2 * 0.25 * 0.75 + (1 / 36) * (35 / 36))
    assert dice_report([(3, 1)]).dancing is None


def test_dancing_needs_a_checker_on_the_bar() -> None:
    with pytest.raises(InvalidInputError):
        dance_probability(Position.initial())
    with pytest.raises(InvalidInputError):
        dice_report([(3, 1)], entries=[(Position.initial(), (3, 1))])


@pytest.mark.parametrize("bad", [[(0, 1)], [(7, 1)], [(1,)], ["31"], [(1.0, 2)], [(True, 2)]])
def test_bad_rolls(bad: list[object]) -> None:
    with pytest.raises(InvalidInputError):
        dice_report(bad)  # type: ignore[arg-type]


def test_report_output() -> None:
    report = dice_report([(3, 1), (6, 6)])
    doc = report.as_dict()
    json.dumps(doc)
    assert doc["rolls"] == 2 and doc["doubles"]["observed"] == 1
    assert "doubles" in report.table() and "21 rolls" in report.table()
    assert set(ROLLS_21) == {(max(a, b), min(a, b)) for a in range(1, 7) for b in range(1, 7)}


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    main(["dice-stats", "31 52 6-6", "--json"])  # success returns normally
    doc = json.loads(capsys.readouterr().out)
    assert doc["pips"]["observed"] == 4 + 7 + 24
    with pytest.raises(SystemExit) as exc:
        main(["dice-stats", "31 99"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_player_rolls_from_games() -> None:
    from backgammon.game import Game, Move, OpeningRoll, Player, Roll

    game = Game.new()
    game = game.apply(OpeningRoll(6, 4))  # white (6) starts with 6-4: an opening roll, left out
    game = game.apply(Move(Player.WHITE, game.play_from_text("24/18 13/9")))
    game = game.apply(Roll(Player.BLACK, (3, 1)))
    game = game.apply(Move(Player.BLACK, game.play_from_text("8/5 6/5")))
    game = game.apply(Roll(Player.WHITE, (6, 6)))
    assert player_rolls([game], Player.WHITE) == ([(6, 6)], [])
    assert player_rolls([game], Player.BLACK) == ([(3, 1)], [])
    with pytest.raises(InvalidInputError):
        player_rolls([game], "white")  # type: ignore[arg-type]


def test_player_rolls_with_entries() -> None:
    from backgammon.game import Game, Move, Player, Roll

    # black, on roll, has a checker on the bar; white holds its 1-, 2- and 6-points
    board = Position.from_points({"bar": 1, 13: 6, 8: 3, 6: 5}, {1: 2, 2: 2, 6: 4, 8: 2, 13: 5})
    start = Game.from_position(board, on_roll=Player.BLACK)
    game = start.apply(Roll(Player.BLACK, (2, 1)))  # both entry points closed: a dance
    game = game.apply(Move(Player.BLACK, game.play_from_text("")))
    game = game.apply(Roll(Player.WHITE, (5, 2)))
    game = game.apply(Move(Player.WHITE, game.legal_plays[0]))
    game = game.apply(Roll(Player.BLACK, (4, 3)))
    rolls, entries = player_rolls([game], Player.BLACK, starts=[start])
    assert rolls == [(2, 1), (4, 3)]
    assert [r for _, r in entries] == [(2, 1), (4, 3)]
    report = dice_report(rolls, entries)
    assert report.dancing is not None
    assert report.dancing.observed == 1
    assert report.dancing.expected == pytest.approx(2 * (3 / 6) ** 2)  # white holds its 1-, 2- and 6-points
    with pytest.raises(InvalidInputError):
        player_rolls([game], Player.BLACK)  # does not replay from a new game


def test_exact_p_values() -> None:
    from backgammon.dicestats import exact_two_sided

    # binomial(3, 1/2): P(X=0) = 1/8 -> two-sided 1/4; the middle is 1
    assert exact_two_sided(0, [0.5] * 3) == pytest.approx(0.25)
    assert exact_two_sided(3, [0.5] * 3) == pytest.approx(0.25)
    assert exact_two_sided(1, [0.5] * 2) == 1.0
    # Poisson-binomial by hand: chances 0.5 and 0.1; P(X=2) = 0.05 -> 0.1
    assert exact_two_sided(2, [0.5, 0.1]) == pytest.approx(0.1)
    # doubles: 5 in 6 rolls, P(X >= 5) = 6 (1/6)^5 (5/6) + (1/6)^6
    report = dice_report([(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 5)])
    tail = 6 * (1 / 6) ** 5 * (5 / 6) + (1 / 6) ** 6
    assert report.doubles.exact_p_value == pytest.approx(2 * tail)
    assert report.pips.exact_p_value is None
    with pytest.raises(InvalidInputError):
        exact_two_sided(4, [0.5] * 3)
    with pytest.raises(InvalidInputError):
        exact_two_sided(0, [1.5])
