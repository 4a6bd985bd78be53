"""Difficulty levels: configs, 0-ply ranking, and weaker levels losing more on a small sample."""

from __future__ import annotations

import random

import pytest

from backgammon.engine.cube import CubeOwner
from backgammon.engine.levels import LEVELS, choose_play, get_level
from backgammon.engine.search import EvalContext, rank_plays
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
    ranked = rank_plays(position, (6, 1), EvalContext(fake_evaluator))
    assert str(ranked[0].play) == "6/off 1/off"
    assert ranked[0].probabilities.as_array().tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert [r.equity for r in ranked] == sorted((r.equity for r in ranked), reverse=True)


def test_expert_takes_the_best_play(fake_evaluator) -> None:
    position = Position.initial()
    best = rank_plays(position, (3, 1), EvalContext(fake_evaluator))[0].play
    assert choose_play(position, (3, 1), "expert", random.Random(1), fake_evaluator) == best


def test_weaker_levels_lose_more(fake_evaluator) -> None:
    rng = random.Random(5)
    decisions = []
    position = Position.initial()
    while len(decisions) < 40:
        if position.is_game_over():
            position = Position.initial()
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        ranked = rank_plays(position, dice, EvalContext(fake_evaluator))
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


def test_cubeful_ranking_at_double_match_point(gnubg_evaluator) -> None:
    """At 1-away/1-away only winning counts: the cubeful ranking is by win chance, not equity."""
    from backgammon.engine.cube import CubeInfo

    position = Position.from_points({24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    dmp = rank_plays(position, (6, 4), EvalContext(gnubg_evaluator, 0, CubeInfo.match(1, 1, post_crawford=True)))
    assert all(r.mwc is not None and r.kind == "cubeful match" for r in dmp)
    for r in dmp:
        assert r.mwc == pytest.approx(r.probabilities.win, abs=1e-9)
    wins = [r.probabilities.win for r in dmp]
    assert wins == sorted(wins, reverse=True)
    money = rank_plays(position, (6, 4), EvalContext(gnubg_evaluator, 0, CubeInfo.money()))
    assert all(r.mwc is None and r.kind == "cubeful money" and -3 <= r.equity <= 3 for r in money)


def test_cubeful_ranking_of_a_winning_play(fake_evaluator) -> None:
    from backgammon.engine.cube import CubeInfo
    from backgammon.engine.met import match_equity

    position = Position.from_points({6: 1, 1: 1}, {1: 3, 2: 2})
    cube = CubeInfo.match(3, 2, value=2, owner=CubeOwner.ME)
    best = rank_plays(position, (6, 1), EvalContext(fake_evaluator, 0, cube))[0]
    assert str(best.play) == "6/off 1/off"
    assert best.mwc == pytest.approx(match_equity(1, 2))  # 1-away/2-away: the Crawford game next
    assert best.equity == pytest.approx(1.0)
    assert best.label == "0-ply cubeful match, EMG"
    jacoby = rank_plays(
        Position.from_points({6: 1, 1: 1}, {1: 15}), (6, 1), EvalContext(fake_evaluator, 0, CubeInfo.money(jacoby=True))
    )
    assert jacoby[0].cubeless == 2.0 and jacoby[0].equity == 1.0  # a gammon counts single with a centred cube


def test_a_noisy_level_picks_only_among_the_deepest_candidates() -> None:
    from backgammon.engine.evaluator import Probabilities
    from backgammon.engine.levels import pick
    from backgammon.engine.search import RankedPlay

    plays = Position.initial().legal_plays(3, 1)
    p = Probabilities(0.5, 0.1, 0.0, 0.1, 0.0)
    # the dropped 0-ply plays carry numbers far above the 1-ply ones: they must not be compared
    ranked = [RankedPlay(pl, p, eq, d, "cubeless", eq) for pl, eq, d in zip(plays, (0.1, 0.0, 5.0, 4.0), (1, 1, 0, 0))]
    rng = random.Random(3)
    chosen = {pick(ranked, "beginner", rng).plies for _ in range(200)}
    assert chosen == {1}
    assert pick(ranked, "expert", None) is ranked[0]
    with pytest.raises(InvalidInputError, match="no candidates"):
        pick([], "expert", None)
