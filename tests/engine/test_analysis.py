"""Match analysis on self-played matches (gnubg 0-ply as the shared evaluator), through the game module's Match."""

from __future__ import annotations

import random

import pytest

import backgammon.game as game_module
import backgammon.match as match_module
from backgammon.engine.analysis import analyze_game, analyze_match, report_json, report_text
from backgammon.engine.search import EvalContext, decide_cube, rank_plays

Player, Rules = game_module.Player, game_module.Rules


def play_match(evaluator, length: int, seed: int, bad_every: int = 0, cube: bool = True):
    """A match where both sides play the best 0-ply cubeful play (every ``bad_every``-th play the worst) and
    double/take by the cube model; returns (match, number of deliberate blunders)."""
    from backgammon.engine.analysis import _cube_info

    G = game_module
    rng = random.Random(seed)
    match = match_module.Match.new(Rules(match_length=length, cube=cube), ("Alice", "Bob"))
    blunders = 0
    plays = 0
    while not match.is_over:
        game = match.game
        if game.phase is G.GamePhase.OPENING:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            match = match.apply(G.OpeningRoll(a, b))
        elif game.phase is G.GamePhase.ROLL:
            player = game.turn
            if cube and game.may_double(player):
                d = decide_cube(game.position, EvalContext(evaluator, 0, _cube_info(game, player))).decision
                if d.should_double:
                    match = match.apply(G.Double(player))
                    continue
            match = match.apply(G.Roll(player, (rng.randint(1, 6), rng.randint(1, 6))))
        elif game.phase is G.GamePhase.DOUBLED:
            player = game.turn
            doubler = player.other
            d = decide_cube(game.position, EvalContext(evaluator, 0, _cube_info(game, doubler))).decision
            match = match.apply(G.Take(player) if d.take else G.Pass(player))
        elif game.phase is G.GamePhase.MOVE:
            ranked = rank_plays(game.position, game.dice, EvalContext(evaluator, 0, _cube_info(game, game.turn)))
            plays += 1
            pick = ranked[0]
            if bad_every and plays % bad_every == 0 and ranked[-1].equity < ranked[0].equity - 0.05:
                pick = ranked[-1]
                blunders += 1
            match = match.apply(G.Move(game.turn, pick.play))
        else:
            raise AssertionError(f"unexpected phase {game.phase}")
    return match, blunders


def test_perfect_play_has_no_play_errors(gnubg_evaluator) -> None:
    match, _ = play_match(gnubg_evaluator, 3, seed=2, cube=False)
    report = analyze_match(match, gnubg_evaluator)
    plays = [d for d in report.decisions if d.kind == "play"]
    moves = sum(isinstance(a, game_module.Move) for g in match.games for a in g.log)
    assert len(plays) == moves
    assert all(d.error == pytest.approx(0.0, abs=1e-12) for d in plays)
    for t in report.totals.values():
        assert t.total_error == pytest.approx(0.0, abs=1e-9) and t.pr == pytest.approx(0.0, abs=1e-6)
    assert sum(t.decisions for t in report.totals.values()) == len(report.decisions)


def test_blunders_are_found_and_counted(gnubg_evaluator) -> None:
    match, blunders = play_match(gnubg_evaluator, 3, seed=3, bad_every=7, cube=False)
    assert blunders > 0
    report = analyze_match(match, gnubg_evaluator)
    bad = [d for d in report.decisions if d.error > 0.05]
    assert len(bad) == blunders
    assert all(d.chosen != d.best for d in bad)
    total = sum(t.total_error for t in report.totals.values())
    assert total == pytest.approx(sum(d.error for d in report.decisions if not d.forced))
    for t in report.totals.values():
        assert t.pr == pytest.approx(500 * t.total_error / t.unforced)
    text = report_text(report, errors_only=True)
    assert "Alice" in text and "Bob" in text
    doc = report_json(report)
    assert len(doc["decisions"]) == len(report.decisions)


def test_cube_decisions_by_the_model_have_no_error(gnubg_evaluator) -> None:
    match, _ = play_match(gnubg_evaluator, 5, seed=11, cube=True)
    report = analyze_match(match, gnubg_evaluator)
    cube = [d for d in report.decisions if d.kind in ("cube", "take")]
    assert cube, "expected some cube decisions in a 5-point match"
    assert all(d.error == pytest.approx(0.0, abs=1e-9) for d in cube)


def test_wrong_cube_actions_are_errors(gnubg_evaluator) -> None:
    G = game_module
    # a 1-away/1-away style: double at once from the opening in a money game is an error (no double)
    game = G.Game.new(Rules()).apply(G.OpeningRoll(3, 1))
    game = game.apply(G.Move(Player.WHITE, rank_plays(game.position, (3, 1), EvalContext(gnubg_evaluator))[0].play))
    game = game.apply(G.Double(Player.BLACK)).apply(G.Pass(Player.WHITE))
    decisions = analyze_game(game, gnubg_evaluator)
    cube = [d for d in decisions if d.kind == "cube"]
    take = [d for d in decisions if d.kind == "take"]
    assert cube[0].chosen == "double" and cube[0].error > 0
    assert take[0].chosen == "pass" and take[0].best == "take" and take[0].error > 0


def test_luck_is_zero_on_average(gnubg_evaluator) -> None:
    from backgammon.engine.analysis import _luck
    from backgammon.position import Position

    position = Position.initial()
    cache: dict = {}
    lucks = [_luck(position, (a, b), gnubg_evaluator, 0, cache) for a in range(1, 7) for b in range(1, 7)]
    assert sum(lucks) / 36 == pytest.approx(0.0, abs=1e-9)
    assert max(lucks) > 0.1 and min(lucks) < -0.05  # 6-5 is lucky, 6-4... less so
    G = game_module
    game = G.Game.new(Rules()).apply(G.OpeningRoll(6, 5))
    best = rank_plays(game.position, (6, 5), EvalContext(gnubg_evaluator))[0].play
    decisions = analyze_game(game.apply(G.Move(Player.WHITE, best)), gnubg_evaluator, luck=True)
    assert decisions[0].luck == pytest.approx(lucks[6 * 5 + 4])


def test_decisions_state_depth_and_kind_and_compare_at_one_depth(fake_evaluator) -> None:
    """At 1 ply every judged number is a 1-ply one (a play the filters dropped is evaluated at 1 ply
    to be compared; cube decisions are made at 1 ply), and says so."""
    from backgammon.engine.analysis import _cube_info
    from backgammon.engine.search import evaluate_play

    G = game_module
    game = G.Game.new(Rules()).apply(G.OpeningRoll(3, 1))
    context = EvalContext(fake_evaluator, 1, _cube_info(game, Player.WHITE))
    ranked = rank_plays(game.position, (3, 1), context)
    worst = ranked[-1]
    assert worst.plies == 0  # dropped by the filters before 1 ply
    game = game.apply(G.Move(Player.WHITE, worst.play))
    before_double = game
    game = game.apply(G.Double(Player.BLACK)).apply(G.Take(Player.WHITE))
    decisions = analyze_game(game, fake_evaluator, plies=1)
    assert [d.kind for d in decisions] == ["play", "cube", "take"]
    assert all(d.plies == 1 and d.equity_kind == "cubeful money" for d in decisions)
    assert decisions[0].equity_label == "1-ply cubeful money"
    full = evaluate_play(worst.play, context)
    assert decisions[0].chosen_equity == pytest.approx(full.equity) and decisions[0].best_equity == ranked[0].equity
    assert full.equity != pytest.approx(worst.equity)  # its 0-ply number would not have been comparable
    assert decisions[0].error == pytest.approx(max(0.0, ranked[0].equity - full.equity))
    cube = decide_cube(
        before_double.position, EvalContext(fake_evaluator, 1, _cube_info(before_double, Player.BLACK))
    ).decision
    assert decisions[1].chosen_equity == pytest.approx(min(cube.double_take, cube.double_pass))
    doc = report_json(analyze_match(_one_game_match(game), fake_evaluator, plies=1))
    assert all(d["plies"] == 1 and d["equity_label"] == "1-ply cubeful money" for d in doc["decisions"])


def _one_game_match(game):
    """A money session whose current game is ``game``."""
    match = match_module.Match.new(Rules(), ("Alice", "Bob"))
    for action in game.log:
        match = match.apply(action)
    return match
