"""Error rate (PR) as gnubg and eXtreme Gammon define it: which decisions count, checker and cube apart,
and agreement with gnubg's own analysis of the same matches (gnubg's 0-ply net as the evaluator for both)."""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest

import backgammon.game as G
from backgammon.engine.analysis import analyze_game, cube_is_live, report_json, report_text, totals
from backgammon.engine.cube import CubeInfo, CubeOwner
from backgammon.engine.search import EvalContext, rank_plays

Player, Rules = G.Player, G.Rules

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
GNUBG_DATA = ROOT / "tests" / "data" / "gnubg"


def test_cube_is_live_follows_the_dead_cube_cases() -> None:
    assert cube_is_live(CubeInfo.money())
    assert cube_is_live(CubeInfo.money(value=4, owner=CubeOwner.ME))
    assert not cube_is_live(CubeInfo.money(value=2, owner=CubeOwner.OPPONENT))
    assert cube_is_live(CubeInfo.match(5, 3))
    assert not cube_is_live(CubeInfo.match(1, 3, crawford=True))
    # post-Crawford: dead for the leader (1-away), live for the trailer
    assert not cube_is_live(CubeInfo.match(1, 4, post_crawford=True))
    assert cube_is_live(CubeInfo.match(4, 1, post_crawford=True))
    # the cube already wins the match for the side on roll
    assert not cube_is_live(CubeInfo.match(2, 5, value=2, owner=CubeOwner.ME))
    assert not cube_is_live(CubeInfo.match(4, 5, value=4, owner=CubeOwner.ME))
    assert cube_is_live(CubeInfo.match(3, 5, value=2, owner=CubeOwner.ME))
    assert not cube_is_live(CubeInfo(value=64, owner=CubeOwner.ME, limit=64))


def _play_out(game, evaluator, rng: random.Random, turns: int):
    """Roll and play the best 0-ply play, never doubling, for ``turns`` turns."""
    if game.phase is G.GamePhase.OPENING:
        game = game.apply(G.OpeningRoll(3, 1))
    for _ in range(turns):
        if game.phase is G.GamePhase.OVER:
            break
        if game.phase is G.GamePhase.ROLL:
            game = game.apply(G.Roll(game.turn, (rng.randint(1, 6), rng.randint(1, 6))))
        ranked = rank_plays(game.position, game.dice, EvalContext(evaluator, 0))
        game = game.apply(G.Move(game.turn, ranked[0].play))
    return game


def test_dead_cube_no_doubles_are_not_decisions(gnubg_evaluator) -> None:
    # a 5-point match after the Crawford game: white leads 4-2 (1-away), so white's cube is dead
    game = _play_out(G.Game.new(Rules(match_length=5), score=(4, 2)), gnubg_evaluator, random.Random(5), 24)
    decisions = analyze_game(game, gnubg_evaluator)
    white_rolls = sum(isinstance(a, G.Roll) and a.player is Player.WHITE for a in game.log)
    assert white_rolls >= 8
    assert not [d for d in decisions if d.kind == "cube" and d.player is Player.WHITE]
    # the trailer's cube is live: not doubling post-Crawford is a counted error
    black = [d for d in decisions if d.kind == "cube" and d.player is Player.BLACK]
    assert black and all(d.chosen == "no double" for d in black)
    assert any(d.error > 0 for d in black)
    # the Crawford game: no cube decision for anyone; a casual game: none either
    crawford = _play_out(
        G.Game.new(Rules(match_length=5), score=(4, 2), crawford_game=True), gnubg_evaluator, random.Random(6), 16
    )
    assert not [d for d in analyze_game(crawford, gnubg_evaluator) if d.kind != "play"]
    casual = _play_out(G.Game.new(Rules(casual=True)), gnubg_evaluator, random.Random(7), 16)
    assert not [d for d in analyze_game(casual, gnubg_evaluator) if d.kind != "play"]


def test_checker_and_cube_pr_are_split(gnubg_evaluator) -> None:
    # an early double in a money game: a cube error; then the receiver passes: a take error
    game = G.Game.new(Rules()).apply(G.OpeningRoll(3, 1))
    game = game.apply(G.Move(Player.WHITE, rank_plays(game.position, (3, 1), EvalContext(gnubg_evaluator))[0].play))
    game = game.apply(G.Double(Player.BLACK)).apply(G.Take(Player.WHITE))
    game = game.apply(G.Roll(Player.BLACK, (6, 2)))
    worst = rank_plays(game.position, (6, 2), EvalContext(gnubg_evaluator))[-1].play
    game = game.apply(G.Move(Player.BLACK, worst))
    decisions = analyze_game(game, gnubg_evaluator)
    t = totals(decisions, Player.BLACK, "Bob")
    assert t.unforced_plays == 1 and t.cube_decisions == 1 and t.unforced == 2
    assert t.play_error > 0.05 and t.cube_error > 0.05
    assert t.pr_checker == pytest.approx(500 * t.play_error)
    assert t.pr_cube == pytest.approx(500 * t.cube_error)
    assert t.pr == pytest.approx(500 * (t.play_error + t.cube_error) / 2)
    w = totals(decisions, Player.WHITE, "Alice")
    assert w.cube_decisions == 1 and w.unforced_plays == 1  # the take is a decision
    from backgammon.match import Match

    match = Match.new(Rules(), ("Alice", "Bob"))
    from backgammon.engine.analysis import match_report

    doc = report_json(match_report(match, decisions))
    black = doc["players"][str(Player.BLACK)]
    assert black["cube_decisions"] == 1 and black["pr_cube"] == pytest.approx(t.pr_cube, abs=0.01)
    assert "checker" in report_text(match_report(match, decisions))


@pytest.fixture(scope="module")
def pr_vs_gnubg():
    if not Path("/usr/games/gnubg").exists() or shutil.which("/usr/games/gnubg") is None:
        pytest.skip("needs Debian's gnubg (/usr/games/gnubg)")
    sys.path.insert(0, str(BENCH))
    try:
        import pr_vs_gnubg as module
    finally:
        sys.path.remove(str(BENCH))
    return module


@pytest.mark.parametrize("name", ["match7_seed3.mat", "match9_seed4.mat", "money_jacoby_seed8.mat"])
def test_pr_agrees_with_gnubg_on_its_matches(name, gnubg_evaluator, pr_vs_gnubg) -> None:
    pairs = pr_vs_gnubg.compare(GNUBG_DATA / name, gnubg_evaluator)
    assert len(pairs) == 2
    for ours, theirs in pairs:
        assert ours.name == theirs.name
        assert ours.unforced_plays == theirs.unforced_plays
        assert abs(ours.cube_decisions - theirs.cube_decisions) <= 1
        assert abs(ours.pr - theirs.pr) < 0.5, (name, ours, theirs)


def test_pr_agrees_with_gnubg_on_a_random_players_match(gnubg_evaluator, pr_vs_gnubg) -> None:
    # a random 7-point match: PR about 150-170, so the error figures themselves are compared, not only zeros
    pairs = pr_vs_gnubg.compare(ROOT / "tests" / "data" / "mat" / "written_by_us.mat", gnubg_evaluator)
    for ours, theirs in pairs:
        assert ours.unforced_plays == theirs.unforced_plays
        assert ours.cube_decisions == theirs.cube_decisions
        assert ours.pr > 100
        assert abs(ours.pr - theirs.pr) < 0.03 * theirs.pr, (ours, theirs)


def test_gnubg_statistics_are_parsed(pr_vs_gnubg) -> None:
    text = """
Player                                   Bob Black               Wendy White

Chequerplay statistics

Unforced moves                            62                      68
Error total EMG (MWC)                        -21.462 (-30.100%)      -21.408 (-29.000%)

Cube statistics

Close or actual cube decisions            12                      27
Error total EMG (MWC)                         -3.627 ( -5.000%)       -7.858 (-10.000%)
"""
    bob, wendy = pr_vs_gnubg.parse_statistics(text)
    assert (bob.name, wendy.name) == ("Bob Black", "Wendy White")
    assert (bob.unforced_plays, bob.cube_decisions, wendy.cube_decisions) == (62, 12, 27)
    assert bob.checker_error == pytest.approx(21.462) and wendy.cube_error == pytest.approx(7.858)
    assert bob.pr == pytest.approx(500 * (21.462 + 3.627) / 74)
    with pytest.raises(ValueError):
        pr_vs_gnubg.parse_statistics("no statistics here")
