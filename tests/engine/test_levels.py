"""Difficulty levels: configs, 0-ply ranking, and weaker levels losing more on a small sample."""

from __future__ import annotations

import random

import pytest

from backgammon.engine.levels import LEVELS, choose_play, get_level, rank_plays
from backgammon.errors import InvalidInputError
from backgammon.position import Position


def test_levels_are_ordered_configs() -> None:
    names = list(LEVELS)
    assert names[:6] == ["beginner", "casual", "intermediate", "advanced", "expert", "world_class"]
    noises = [LEVELS[n].noise for n in names]
    assert noises == sorted(noises, reverse=True)
    assert get_level("World-Class") is LEVELS["world_class"]
    with pytest.raises(InvalidInputError, match="unknown level"):
        get_level("godlike")
    with pytest.raises(AttributeError):
        LEVELS["expert"].noise = 1.0  # type: ignore[misc]


def test_rank_plays_bears_off_to_win(fake_evaluator) -> None:
    position = Position.from_points({6: 1, 1: 1}, {1: 3, 2: 2})
    ranked = rank_plays(position, (6, 1), fake_evaluator)
    assert str(ranked[0].play) == "6/off 1/off"
    assert ranked[0].probabilities == (1.0, 0.0, 0.0, 0.0, 0.0)
    assert [r.equity for r in ranked] == sorted((r.equity for r in ranked), reverse=True)


def test_expert_takes_the_best_play(fake_evaluator) -> None:
    position = Position.initial()
    best = rank_plays(position, (3, 1), fake_evaluator)[0].play
    assert choose_play(position, (3, 1), "expert", random.Random(1), fake_evaluator) == best


def test_weaker_levels_lose_more(fake_evaluator) -> None:
    rng = random.Random(5)
    decisions = []
    position = Position.initial()
    while len(decisions) < 40:
        if position.is_game_over():
            position = Position.initial()
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        ranked = rank_plays(position, dice, fake_evaluator)
        if len(ranked) > 1:
            decisions.append((position, dice, ranked))
        position = ranked[0].play.position
    loss = {}
    for name in ("beginner", "intermediate", "expert"):
        noise_rng = random.Random(9)
        total = 0.0
        for position, dice, ranked in decisions:
            play = choose_play(position, dice, name, noise_rng, fake_evaluator)
            total += ranked[0].equity - next(r.equity for r in ranked if r.play == play)
        loss[name] = total / len(decisions)
    assert loss["expert"] == 0.0
    assert loss["beginner"] > loss["intermediate"] > loss["expert"]
