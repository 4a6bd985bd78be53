"""Tests for backgammon.dice: sources of dice and the roll table."""

from __future__ import annotations

from collections import Counter

import pytest

from backgammon.dice import ALL_36, ALL_ROLLS, DiceSource, RandomDice, ScriptedDice, check_die, check_roll
from backgammon.errors import BackgammonError, InvalidInputError


def test_all_rolls_has_21_distinct_rolls_weighted_to_36() -> None:
    assert len(ALL_ROLLS) == 21
    assert len({(high, low) for high, low, _ in ALL_ROLLS}) == 21
    assert sum(w for _, _, w in ALL_ROLLS) == 36
    for high, low, weight in ALL_ROLLS:
        assert 1 <= low <= high <= 6
        assert weight == (1 if high == low else 2)


def test_all_36_matches_all_rolls() -> None:
    assert len(ALL_36) == 36
    counts = Counter((max(a, b), min(a, b)) for a, b in ALL_36)
    assert counts == {(high, low): w for high, low, w in ALL_ROLLS}


def test_random_dice_seeded_is_reproducible_and_in_range() -> None:
    a, b = RandomDice(42), RandomDice(42)
    rolls_a = [a.roll() for _ in range(200)]
    assert rolls_a == [b.roll() for _ in range(200)]
    assert all(1 <= d <= 6 for roll in rolls_a for d in roll)
    assert {d for roll in rolls_a for d in roll} == {1, 2, 3, 4, 5, 6}


def test_random_dice_unseeded_uses_system_randomness() -> None:
    dice = RandomDice()
    values = {dice.die() for _ in range(300)}
    assert values == {1, 2, 3, 4, 5, 6}
    assert isinstance(dice, DiceSource)


def test_scripted_dice_follows_the_script() -> None:
    dice = ScriptedDice([(5, 2), (6, 6), 4, 3])
    assert isinstance(dice, DiceSource)
    assert dice.die() == 5 and dice.die() == 2  # an opening roll uses one pair
    assert dice.roll() == (6, 6)
    assert dice.roll() == (4, 3)
    assert dice.remaining == 0
    with pytest.raises(BackgammonError, match="exhausted"):
        dice.roll()
    with pytest.raises(BackgammonError, match="exhausted"):
        dice.die()


@pytest.mark.parametrize("bad", [[(0, 1)], [(7, 1)], [(1,)], ["ab"], [True], [(1.0, 2)]])
def test_scripted_dice_rejects_bad_script(bad: list[object]) -> None:
    with pytest.raises(InvalidInputError):
        ScriptedDice(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, 7, -1, 2.0, "3", None, True])
def test_check_die_rejects(bad: object) -> None:
    with pytest.raises(InvalidInputError, match="invalid die"):
        check_die(bad)


@pytest.mark.parametrize("bad", [(1,), (1, 2, 3), "31", None, (0, 3), (3, 9)])
def test_check_roll_rejects(bad: object) -> None:
    with pytest.raises(InvalidInputError):
        check_roll(bad)


def test_check_roll_accepts_list() -> None:
    assert check_roll([6, 1]) == (6, 1)
