"""Computer players: the engine-backed agent, the greedy fallback, and decide() for every phase."""

from __future__ import annotations

import random

import pytest

from backgammon.engine.players import EngineAgent, GreedyAgent, cube_for, decide, heuristic, make_agent
from backgammon.game import (
    AcceptResignation,
    Double,
    Game,
    Move,
    OfferDraw,
    Pass,
    Player,
    Resign,
    ResultKind,
    Roll,
    Rules,
    Take,
)
from backgammon.position import Position

# races, side on roll 60 pips: vs 66 a double and a take, vs 80 a double and a pass (engine's verdicts;
# gnubg 2-ply gives the doubler 75.7% and 93.3% cubeless)
DOUBLE_TAKE = Position.from_position_id("encXAADu7g4AAA")
DOUBLE_PASS = Position.from_position_id("3LuDAQDu7g4AAA")
HOPELESS = Position.from_points({1: 2}, {6: 15})  # the side on roll bears off next roll; the other has 90 pips


@pytest.fixture(scope="module")
def engine_agent():
    agent = EngineAgent("world_class", seed=1)
    assert agent.uses_engine, "backgammon.engine should be installed with its weights"
    return agent


def test_engine_agent_plays_legal_moves(engine_agent):
    p = Position.initial()
    play = engine_agent.choose_play(p, (3, 1))
    assert play in p.legal_plays(3, 1)
    assert str(play) == "8/5 6/5"  # the standard opening play


def test_engine_cube_decisions(engine_agent):
    money = {"value": 1, "owner": None, "away": None}
    assert DOUBLE_TAKE.pip_counts() == (60, 66) and DOUBLE_PASS.pip_counts() == (60, 80)
    assert engine_agent.wants_to_double(DOUBLE_TAKE, money)
    assert engine_agent.takes(DOUBLE_TAKE, money)
    assert engine_agent.wants_to_double(DOUBLE_PASS, money)
    assert not engine_agent.takes(DOUBLE_PASS, money)
    assert not engine_agent.wants_to_double(HOPELESS, money)  # too good: play on for the gammon
    assert not engine_agent.takes(HOPELESS, money)  # seen from the doubler: pass
    assert engine_agent.takes(Position.initial(), money)  # an early double: take
    assert not engine_agent.wants_to_double(Position.initial(), money)


def test_engine_cube_goes_through_decide_cube(engine_agent, monkeypatch):
    # the agent's doubles and takes are search.decide_cube's at the level's depth, for money and match cubes
    from backgammon.engine import search
    from backgammon.engine.cube import CubeInfo, CubeOwner
    from backgammon.engine.evaluator import NetEvaluator

    calls = []
    real = search.decide_cube

    def spy(position, context):
        calls.append(context.plies)
        return real(position, context)

    monkeypatch.setattr(search, "decide_cube", spy)
    cubes = [
        ({"value": 1, "owner": None, "away": None}, CubeInfo.money()),
        ({"value": 2, "owner": "me", "away": None}, CubeInfo.money(2, CubeOwner.ME)),
        ({"value": 1, "owner": None, "away": (2, 4)}, CubeInfo.match(2, 4)),
        ({"value": 1, "owner": None, "away": (4, 1), "post_crawford": True}, CubeInfo.match(4, 1, post_crawford=True)),
    ]
    for position in (DOUBLE_TAKE, DOUBLE_PASS, Position.initial()):
        for wire, info in cubes:
            expected = real(position, search.EvalContext(NetEvaluator.default(), 2, info)).decision
            assert engine_agent.wants_to_double(position, wire) == expected.should_double
            assert engine_agent.takes(position, wire) == expected.take
    assert calls and set(calls) == {2}  # world_class decides at 2 plies, through decide_cube


def test_choose_play_ranks_with_the_cube():
    # at double match point gammons count for nothing: the cubeful ranking picks another play
    agent = EngineAgent("expert", seed=0)
    # (a blitz for the gammon at money; at DMP the quiet point: found by a search over self-play
    # positions with the stage-5 nets)
    position = Position.from_position_id("9zQCQA47+UEGAA")
    dmp = {"value": 1, "owner": None, "away": (1, 1), "crawford": False, "post_crawford": True}
    assert str(agent.choose_play(position, (6, 4))) == "11/5*/1"
    assert str(agent.choose_play(position, (6, 4), dmp)) == "13/7 11/7"
    greedy = GreedyAgent(seed=0)
    assert greedy.choose_play(position, (6, 4), dmp) in position.legal_plays(6, 4)


def test_engine_resignations(engine_agent):
    # the resigner is hopeless: a single-game resignation is refused when a gammon is likely
    resigner = Position.from_points({6: 15}, {1: 2})
    assert not engine_agent.accepts_resignation(resigner, 1)
    assert engine_agent.accepts_resignation(resigner, 3)


def test_engine_hints(engine_agent):
    ranked = engine_agent.ranked(Position.initial(), (6, 5))
    assert str(ranked[0][0]) == "24/13"
    assert 1 < len(ranked) <= 8 and ranked[0][1] == max(r[1] for r in ranked)
    assert all(0 <= win <= 1 and 0 <= gammon <= win for _, _, win, gammon in ranked)


def test_unknown_level_falls_back_to_greedy():
    agent = make_agent("no-such-level")
    assert isinstance(agent, EngineAgent) and not agent.uses_engine
    p = Position.initial()
    assert agent.choose_play(p, (6, 6)) in p.legal_plays(6, 6)


def test_greedy_prefers_hits():
    # a blot within reach: the greedy player hits it
    p = Position.from_points({13: 2, 8: 13}, {20: 1, 1: 14})  # their 20 = our 5
    play = GreedyAgent(seed=0, noise=0).choose_play(p, (3, 1))
    assert any(step.hit for step in play.steps)
    assert heuristic(play.position) >= max(heuristic(q.position) for q in p.legal_plays(3, 1)) - 1e-9


class Scripted:
    name = "scripted"

    def __init__(self, double=False, take=True, accept=True, draw=True):
        self.double, self.take, self.accept, self.draw = double, take, accept, draw
        self.seen = []

    def choose_play(self, position, dice, cube=None):
        return position.legal_plays(*dice)[0]

    def wants_to_double(self, position, cube):
        self.seen.append(("double", cube))
        return self.double

    def takes(self, position, cube):
        self.seen.append(("take", cube))
        return self.take

    def accepts_resignation(self, position, points):
        self.seen.append(("resign", points))
        return self.accept

    def accepts_draw(self, position):
        return self.draw


def test_decide_every_phase():
    rules = Rules(match_length=5)
    g = Game.from_position(Position.initial(), on_roll=Player.BLACK, rules=rules, score=(1, 3))
    agent = Scripted(double=True)
    assert decide(agent, g, Player.BLACK) == Double(Player.BLACK)
    assert agent.seen[-1][1]["away"] == (2, 4)  # black needs 2, white 4
    assert decide(Scripted(double=False), g, Player.BLACK) == Roll(Player.BLACK, None)
    doubled = g.apply(Double(Player.BLACK))
    assert decide(Scripted(take=True), doubled, Player.WHITE) == Take(Player.WHITE)
    assert decide(Scripted(take=False), doubled, Player.WHITE) == Pass(Player.WHITE)
    moving = g.apply(Roll(Player.BLACK, (3, 1)))
    action = decide(Scripted(), moving, Player.BLACK)
    assert isinstance(action, Move) and action.play in moving.legal_plays
    resigned = g.apply(Resign(Player.BLACK, ResultKind.GAMMON))
    agent = Scripted(accept=True)
    assert decide(agent, resigned, Player.WHITE) == AcceptResignation(Player.WHITE)
    assert agent.seen[-1] == ("resign", 2)
    casual = Game.new(Rules(casual=True)).apply(OfferDraw(Player.WHITE))
    assert type(decide(Scripted(draw=False), casual, Player.BLACK)).__name__ == "RejectDraw"


def test_decide_never_doubles_a_dead_cube_and_takes_a_resignation_that_wins_the_match():
    """Two answers of the one computer's turn (shared by the site and ``backgammon play``) need no agent."""
    # black needs 2 points and the cube is at 2: a win already wins the match, doubling gains nothing
    dead = Game.from_position(
        Position.initial(),
        on_roll=Player.BLACK,
        rules=Rules(match_length=5),
        score=(1, 3),
        cube_value=2,
        cube_owner=Player.BLACK,
    )
    agent = Scripted(double=True)
    assert decide(agent, dead, Player.BLACK) == Roll(Player.BLACK, None) and not agent.seen
    # white resigns a single game at 2 points, which is all black needs: accepted without asking
    resigned = dead.apply(Roll(Player.BLACK, (3, 1)))
    resigned = resigned.apply(decide(Scripted(), resigned, Player.BLACK)).apply(Resign(Player.WHITE, ResultKind.SINGLE))
    refuser = Scripted(accept=False)
    assert decide(refuser, resigned, Player.BLACK) == AcceptResignation(Player.BLACK) and not refuser.seen
    # one point short of the match: the agent is asked, and its answer stands
    short = Game.from_position(Position.initial(), on_roll=Player.WHITE, rules=Rules(match_length=5), score=(0, 2))
    short = short.apply(Resign(Player.WHITE, ResultKind.SINGLE))
    assert decide(refuser, short, Player.BLACK).__class__.__name__ == "RejectResignation" and refuser.seen


def test_an_engine_agent_that_may_not_fall_back_raises():
    """``backgammon play`` wants an error, not the quick player, when the engine cannot be loaded."""
    from backgammon.errors import EngineError, InvalidInputError

    def broken():
        raise EngineError("no weights here")

    with pytest.raises(InvalidInputError):
        EngineAgent("grandmaster", fall_back=False)
    agent = EngineAgent("beginner", seed=1, evaluator_factory=broken, fall_back=False)
    with pytest.raises(EngineError, match="no weights here"):
        agent.load()
    with pytest.raises(EngineError):
        agent.choose_play(Position.initial(), (3, 1))
    lenient = EngineAgent("beginner", seed=1, evaluator_factory=broken)
    lenient.load()  # logged; the greedy player plays on
    assert not lenient.uses_engine and lenient.choose_play(
        Position.initial(), (3, 1)
    ) in Position.initial().legal_plays(3, 1)


def test_cube_for_owner_and_money():
    g = Game.from_position(Position.initial(), cube_value=2, cube_owner=Player.WHITE, rules=Rules())
    assert cube_for(g, Player.WHITE, post_crawford=False)["owner"] == "me"
    assert cube_for(g, Player.BLACK, post_crawford=False)["owner"] == "opponent"
    assert cube_for(g, Player.BLACK, post_crawford=False)["away"] is None


def test_seeded_greedy_is_reproducible():
    p = Position.initial()
    a = [str(GreedyAgent(seed=3).choose_play(p, (d1, d2))) for d1, d2 in [(2, 1), (5, 5)]]
    b = [str(GreedyAgent(seed=3).choose_play(p, (d1, d2))) for d1, d2 in [(2, 1), (5, 5)]]
    assert a == b
    assert random.Random(3).random() == random.Random(3).random()


def _hint_table(agent, game, mode="ai"):
    from types import SimpleNamespace

    from backgammon.server.table_config import TableConfig

    config = TableConfig(mode, {})
    return SimpleNamespace(flow=SimpleNamespace(game=game, is_post_crawford=False), config=config, agent=agent)


def test_hints_use_the_one_ranking_with_depth_and_kind(engine_agent):
    from backgammon.engine.cube import CubeInfo
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.search import EvalContext, rank_plays
    from backgammon.errors import IllegalActionError
    from backgammon.server.api.tables import hints_for

    # a 5-point match at 2-1 (white needs 3, black 4): cubeful match equities
    game = Game.from_position(Position.initial(), on_roll=Player.WHITE, rules=Rules(match_length=5), score=(2, 1))
    game = game.apply(Roll(Player.WHITE, (6, 5)))
    hint = hints_for(_hint_table(engine_agent, game), Player.WHITE)
    assert hint["type"] == "hint" and hint["source"] == "engine"
    expected = rank_plays(game.position, (6, 5), EvalContext(NetEvaluator.default(), 1, CubeInfo.match(3, 4)))
    assert [p["play"] for p in hint["plays"]] == [str(r.play) for r in expected[:8]]
    top = hint["plays"][0]
    assert top["play"] == "24/13" and top["label"] == "1-ply cubeful match, EMG"
    assert top["plies"] == 1 and top["kind"] == "cubeful match" and 0 < top["mwc"] < 1
    assert top["equity"] == round(expected[0].equity, 3)
    assert {p["label"] for p in hint["plays"]} <= {"1-ply cubeful match, EMG", "0-ply cubeful match, EMG"}
    # money: cubeful money; a seat that is not on roll, or a game between people, gets no hint
    money = Game.from_position(Position.initial(), on_roll=Player.WHITE, rules=Rules()).apply(
        Roll(Player.WHITE, (3, 1))
    )
    assert hints_for(_hint_table(engine_agent, money), Player.WHITE)["plays"][0]["label"] == "1-ply cubeful money"
    with pytest.raises(IllegalActionError):
        hints_for(_hint_table(engine_agent, money), Player.BLACK)
    with pytest.raises(IllegalActionError):
        hints_for(_hint_table(engine_agent, money, mode="human"), Player.WHITE)


def test_hints_fall_back_to_the_heuristic():
    from backgammon.server.api.tables import hints_for

    game = Game.from_position(Position.initial(), on_roll=Player.WHITE, rules=Rules()).apply(Roll(Player.WHITE, (3, 1)))
    hint = hints_for(_hint_table(GreedyAgent(seed=0), game), Player.WHITE)
    assert hint["source"] == "heuristic" and 1 < len(hint["plays"]) <= 8
    assert hint["plays"][0]["score"] == 0.0 and all(p["score"] <= 0 for p in hint["plays"])
    assert all(p["label"] == "heuristic score" and "equity" not in p for p in hint["plays"])


def test_engine_load_failure_is_loud_and_the_quick_player_plays(monkeypatch, caplog):
    # issue 19: an engine that cannot be loaded is logged at ERROR once and named, never silent
    from backgammon.engine import levels
    from backgammon.engine import players as agents
    from backgammon.errors import EngineError

    def broken(level):
        raise EngineError("the weights file is missing")

    monkeypatch.setattr(agents, "_reported", set())
    monkeypatch.setattr(levels, "get_level", broken)
    with caplog.at_level("ERROR", logger="backgammon.players"):
        first, second = EngineAgent("expert", seed=1), EngineAgent("expert", seed=2)
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "the engine cannot be loaded for level 'expert'" in errors[0].getMessage()
    assert "EngineError: the weights file is missing" in errors[0].getMessage()
    for agent in (first, second):
        assert not agent.uses_engine and agent.name == agents.UNAVAILABLE_NAME == "quick player (engine unavailable)"
    play = first.choose_play(Position.initial(), (3, 1))
    assert play in Position.initial().legal_plays(3, 1)


def test_the_computer_player_module_loads_only_the_core():
    """The site's quick player works without numpy or numba: importing the one computer player
    (``backgammon.engine.players``) and making a greedy agent loads neither, nor any server module."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from backgammon.engine.players import make_agent\n"
        "make_agent('greedy', 1)\n"
        "print(sorted(m for m in ('numpy', 'numba') if m in sys.modules),"
        " any(m.startswith('backgammon.server') for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[] False", out.stdout + out.stderr
