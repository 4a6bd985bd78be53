"""Tests for backgammon.chouette: rotation, unanimity, individual takes, separate settlement."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.chouette import Chouette, ChouetteStage, Consent, Refuse
from backgammon.errors import IllegalActionError, InvalidInputError, NotYourTurnError
from backgammon.game import (
    AcceptResignation,
    Beaver,
    Double,
    GamePhase,
    Move,
    OpeningRoll,
    Pass,
    Player,
    RejectResignation,
    Resign,
    ResignLevel,
    Roll,
    Rules,
    Take,
)

W, B = Player.WHITE, Player.BLACK
NAMES = ["Ann", "Bob", "Cat", "Dan"]


def box_opens(c: Chouette) -> Chouette:
    """The box wins the opening roll and plays; the captain is then on roll."""
    c = c.apply(c.box, OpeningRoll(5, 2))
    return c.apply(c.box, c.game.move_from_text("13/8 13/11"))


def team_opens(c: Chouette) -> Chouette:
    """The captain wins the opening roll and plays; the box is then on roll."""
    c = c.apply(c.captain, OpeningRoll(2, 5))
    return c.apply(c.captain, c.game.move_from_text("13/8 13/11"))


def assert_zero_sum(c: Chouette) -> None:
    assert sum(c.scores.values()) == 0
    for record in c.games:
        assert record.box_result == -sum(a for _, a in record.settlements)


def test_new_chouette() -> None:
    c = Chouette.new(NAMES)
    assert c.box == "Ann" and c.captain == "Bob" and c.team == ("Bob", "Cat", "Dan")
    assert c.scores == dict.fromkeys(NAMES, 0)
    assert c.side_of("Ann") is W and c.side_of("Cat") is B
    assert set(c.to_act()) == {"Ann", "Bob"} and c.stage is ChouetteStage.PLAYING


@pytest.mark.parametrize(
    "players, rules",
    [
        (["Ann", "Bob"], None),
        (["Ann", "Bob", "Ann"], None),
        (["Ann", "", "Cat"], None),
        ("AnnBobCat", None),
        (NAMES, Rules(match_length=5)),
        (NAMES, Rules(casual=True)),
    ],
)
def test_bad_chouettes(players: object, rules: Rules | None) -> None:
    with pytest.raises(InvalidInputError):
        Chouette.new(players, rules)  # type: ignore[arg-type]


def test_only_the_captain_plays_for_the_team() -> None:
    c = box_opens(Chouette.new(NAMES))
    assert c.to_act() == ("Bob",)
    with pytest.raises(NotYourTurnError):
        c.apply("Cat", Roll(B, (3, 1)))
    with pytest.raises(NotYourTurnError):
        c.apply("Ann", Roll(W, (3, 1)))
    with pytest.raises(InvalidInputError, match="plays black"):
        c.apply("Bob", Roll(W, (3, 1)))
    with pytest.raises(InvalidInputError, match="invalid player"):
        c.apply("Zed", Roll(B, (3, 1)))
    assert c.apply("Bob", Roll(B, (3, 1))).game.phase is GamePhase.MOVE


def test_team_double_needs_every_member() -> None:
    c = box_opens(Chouette.new(NAMES))
    c = c.apply("Bob", Double(B))
    assert c.stage is ChouetteStage.TEAM_CONSENT and set(c.pending) == {"Cat", "Dan"}
    assert c.game.phase is GamePhase.ROLL  # the double is not on the board yet
    with pytest.raises(NotYourTurnError):
        c.apply("Bob", Consent())
    with pytest.raises(IllegalActionError):
        c.apply("Cat", Roll(B, (3, 1)))
    c1 = c.apply("Cat", Consent())
    assert c1.pending == ("Dan",)
    # one refusal withdraws the double: the captain rolls
    refused = c1.apply("Dan", Refuse())
    assert refused.stage is ChouetteStage.PLAYING and refused.game.phase is GamePhase.ROLL
    assert refused.to_act() == ("Bob",)
    refused.apply("Bob", Roll(B, (6, 5)))
    # all consent: the box must answer
    agreed = c1.apply("Dan", Consent())
    assert agreed.game.phase is GamePhase.DOUBLED and agreed.to_act() == ("Ann",)
    taken = agreed.apply("Ann", Take(W))
    assert taken.game.cube_value == 2 and taken.game.cube_owner is W
    assert all(taken.member(n).cube_value == 2 for n in taken.team)


def test_consent_without_double() -> None:
    c = box_opens(Chouette.new(NAMES))
    with pytest.raises(IllegalActionError, match="Cat cannot consent to a double: the captain has not doubled"):
        c.apply("Cat", Consent())


def test_box_passes_team_double_pays_each_member() -> None:
    c = box_opens(Chouette.new(NAMES))
    c = c.apply("Bob", Double(B)).apply("Cat", Consent()).apply("Dan", Consent())
    c = c.apply("Ann", Pass(W))
    assert c.scores == {"Ann": -3, "Bob": 1, "Cat": 1, "Dan": 1}
    # the captain won: Bob is the new box, Ann goes to the end of the line
    assert c.box == "Bob" and c.team == ("Cat", "Dan", "Ann") and c.captain == "Cat"
    assert len(c.games) == 1 and c.games[0].box == "Ann" and c.games[0].captain == "Bob"
    assert c.game.phase is GamePhase.OPENING
    assert_zero_sum(c)


def test_box_double_individual_takes_and_passes() -> None:
    c = team_opens(Chouette.new(NAMES))  # Ann (box) on roll
    c = c.apply("Ann", Double(W))
    assert c.stage is ChouetteStage.BOX_DOUBLED and set(c.to_act()) == {"Bob", "Cat", "Dan"}
    c = c.apply("Cat", Pass(B))  # any order
    assert c.scores["Cat"] == -1 and c.scores["Ann"] == 1 and not c.member("Cat").active
    with pytest.raises(NotYourTurnError):
        c.apply("Cat", Take(B))
    with pytest.raises(IllegalActionError):
        c.apply("Bob", Roll(B, (3, 1)))
    c = c.apply("Bob", Take(B)).apply("Dan", Take(B))
    assert c.stage is ChouetteStage.PLAYING and c.game.cube_value == 2 and c.game.cube_owner is B
    assert c.member("Bob").cube_value == 2 and c.member("Dan").cube_value == 2 and c.member("Cat").cube_value == 1
    assert c.active_members == ("Bob", "Dan")
    # Ann (box) goes on and resigns a gammon: the box pays each active member 2 x 2
    c = c.apply("Ann", Roll(W, (6, 4)))
    c = c.apply("Ann", Resign(W, ResignLevel.GAMMON)).apply("Bob", AcceptResignation(B))
    assert c.scores == {"Ann": 1 - 8, "Bob": 4, "Cat": -1, "Dan": 4}
    assert dict(c.games[0].settlements) == {"Bob": 4, "Cat": -1, "Dan": 4}
    assert c.games[0].box_result == -7
    assert c.box == "Bob" and c.team == ("Cat", "Dan", "Ann")
    assert_zero_sum(c)


def test_captain_passes_next_taker_becomes_captain() -> None:
    c = team_opens(Chouette.new(NAMES)).apply("Ann", Double(W))
    c = c.apply("Bob", Pass(B)).apply("Cat", Pass(B)).apply("Dan", Take(B))
    # the old captain goes to the end of the line
    assert c.captain == "Dan" and c.team == ("Dan", "Cat", "Bob")
    c = c.apply("Ann", Roll(W, (3, 1)))
    c = c.apply("Ann", c.game.legal_actions()[0])  # Ann plays; Dan on roll as captain
    assert c.to_act() == ("Dan",)
    # the team (Dan) resigns: Dan pays 2, the others already paid 1 each
    c = c.apply("Dan", Resign(B)).apply("Ann", AcceptResignation(W))
    assert c.scores == {"Ann": 4, "Bob": -1, "Cat": -1, "Dan": -2}
    # the box won: Ann stays, Dan (captain at the end) goes to the end of the line
    assert c.box == "Ann" and c.team == ("Cat", "Bob", "Dan")
    assert_zero_sum(c)


def test_everyone_passes_ends_the_game() -> None:
    c = team_opens(Chouette.new(NAMES)).apply("Ann", Double(W))
    for name in ("Dan", "Bob", "Cat"):
        c = c.apply(name, Pass(B))
    assert c.scores == {"Ann": 3, "Bob": -1, "Cat": -1, "Dan": -1}
    assert c.box == "Ann" and c.team == ("Cat", "Dan", "Bob")
    assert len(c.games) == 1 and c.games[0].game.result.winner is W  # type: ignore[union-attr]
    assert_zero_sum(c)


def test_box_stays_when_it_wins_and_captain_rotates() -> None:
    c = box_opens(Chouette.new(NAMES))
    c = c.apply("Bob", Resign(B)).apply("Ann", AcceptResignation(W))
    assert c.box == "Ann" and c.team == ("Cat", "Dan", "Bob") and c.captain == "Cat"
    assert c.scores == {"Ann": 3, "Bob": -1, "Cat": -1, "Dan": -1}
    c = box_opens(c)
    c = c.apply("Cat", Resign(B)).apply("Ann", AcceptResignation(W))
    assert c.team == ("Dan", "Bob", "Cat") and c.scores["Ann"] == 6
    assert_zero_sum(c)


def test_three_player_rotation_cycle() -> None:
    c = Chouette.new(["A", "B", "C"])
    boxes, scores = [], []
    for _ in range(3):  # the team wins every game: each captain becomes box in turn
        c = team_opens(c)
        c = c.apply(c.box, Resign(W)).apply(c.captain, AcceptResignation(B))
        boxes.append(c.box)
        scores.append(c.scores)
    assert boxes == ["B", "C", "A"]
    assert scores == [{"A": -2, "B": 1, "C": 1}, {"A": -1, "B": -1, "C": 2}, {"A": 0, "B": 0, "C": 0}]
    assert_zero_sum(c)


def test_no_beavers_in_chouette() -> None:
    c = team_opens(Chouette.new(NAMES, Rules(beavers=True))).apply("Ann", Double(W))
    with pytest.raises(IllegalActionError, match="beaver"):
        c.apply("Bob", Beaver(B))


def test_single_active_member_doubles_without_consent() -> None:
    c = team_opens(Chouette.new(["A", "B", "C"])).apply("A", Double(W))
    c = c.apply("C", Pass(B)).apply("B", Take(B))
    c = c.apply("A", Roll(W, (3, 1)))
    c = c.apply("A", c.game.legal_actions()[0])
    c = c.apply("B", Double(B))  # only B is in the game: no consent needed
    assert c.stage is ChouetteStage.PLAYING and c.game.phase is GamePhase.DOUBLED
    c = c.apply("A", Pass(W))
    assert c.scores == {"A": 1 - 2, "B": 2, "C": -1}
    assert_zero_sum(c)


def test_jacoby_per_member_cube() -> None:
    c = box_opens(Chouette.new(NAMES, Rules(jacoby=True)))
    c = c.apply("Bob", Resign(B, ResignLevel.GAMMON)).apply("Ann", AcceptResignation(W))
    assert c.scores["Ann"] == 3  # gammons count single with centred cubes


def test_team_double_not_allowed_when_box_owns_cube() -> None:
    c = box_opens(Chouette.new(NAMES))
    c = c.apply("Bob", Double(B)).apply("Cat", Consent()).apply("Dan", Consent()).apply("Ann", Take(W))
    c = c.apply("Bob", Roll(B, (3, 1)))
    c = c.apply("Bob", c.game.legal_actions()[0])
    c = c.apply("Ann", Roll(W, (2, 1)))
    c = c.apply("Ann", c.game.legal_actions()[0])
    with pytest.raises(IllegalActionError, match="white owns the cube"):
        c.apply("Bob", Double(B))


# ------------------------------------------------- refused team doubles
def refused(c: Chouette, refuser: str = "Dan") -> Chouette:
    """The captain (Bob, on roll) doubles and ``refuser`` refuses (the others consent first)."""
    c = c.apply("Bob", Double(B))
    for name in c.pending:
        if name != refuser:
            c = c.apply(name, Consent())
    return c.apply(refuser, Refuse())


@pytest.mark.parametrize("refuser", ["Cat", "Dan"])
def test_refused_team_double_returns_to_the_roll_with_no_open_double(refuser: str) -> None:
    before = box_opens(Chouette.new(NAMES))
    c = refused(before, refuser)
    assert c.stage is ChouetteStage.PLAYING and c.pending == ()
    assert c.game == before.game  # the double never reached the board
    assert c.game.phase is GamePhase.ROLL and c.game.doubled_by is None
    assert c.game.cube_value == 1 and c.game.cube_owner is None
    assert all(c.member(n).cube_value == 1 and c.member(n).active for n in c.team)
    assert c.to_act() == ("Bob",) and c.double_refused
    assert not c.may_double("Bob") and before.may_double("Bob")
    assert c.legal_actions("Bob") == tuple(a for a in before.legal_actions("Bob") if not isinstance(a, Double))
    assert Roll(B) in c.legal_actions("Bob")


def test_refused_team_double_cannot_be_offered_again_that_turn() -> None:
    c = refused(box_opens(Chouette.new(NAMES)))
    with pytest.raises(IllegalActionError, match="refused the captain's double this turn"):
        c.apply("Bob", Double(B))
    with pytest.raises(IllegalActionError, match="not doubled"):  # the refusal closed the consent round
        c.apply("Cat", Consent())
    with pytest.raises(NotYourTurnError):
        c.apply("Cat", Double(B))


def test_three_players_refusal_by_the_only_other_member() -> None:
    c = box_opens(Chouette.new(["A", "B", "C"]))
    c = c.apply("B", Double(B)).apply("C", Refuse())
    assert c.stage is ChouetteStage.PLAYING and c.game.phase is GamePhase.ROLL and not c.may_double("B")
    with pytest.raises(IllegalActionError, match="must roll"):
        c.apply("B", Double(B))
    c = c.apply("B", Roll(B, (6, 5)))
    assert c.game.phase is GamePhase.MOVE and not c.double_refused


def test_rejected_resignation_does_not_lift_the_refusal() -> None:
    c = refused(box_opens(Chouette.new(NAMES)))
    c = c.apply("Bob", Resign(B)).apply("Ann", RejectResignation(W))
    assert c.game.phase is GamePhase.ROLL and c.to_act() == ("Bob",)
    with pytest.raises(IllegalActionError, match="refused"):
        c.apply("Bob", Double(B))


def test_team_may_double_again_next_turn() -> None:
    c = refused(box_opens(Chouette.new(NAMES)))
    c = c.apply("Bob", Roll(B, (3, 1)))
    c = c.apply("Bob", c.game.move_from_text("8/5 6/5"))
    assert not c.double_refused
    c = c.apply("Ann", Roll(W, (2, 1)))
    c = c.apply("Ann", c.game.legal_actions()[0])
    assert c.to_act() == ("Bob",) and c.may_double("Bob") and Double(B) in c.legal_actions("Bob")
    c = c.apply("Bob", Double(B))
    assert c.stage is ChouetteStage.TEAM_CONSENT and set(c.pending) == {"Cat", "Dan"}
    c = c.apply("Cat", Consent()).apply("Dan", Consent())
    assert c.game.phase is GamePhase.DOUBLED and c.to_act() == ("Ann",)


def test_box_double_some_take_some_pass_then_no_second_double() -> None:
    c = team_opens(Chouette.new(NAMES))  # Ann (box) on roll
    assert c.may_double("Ann") and not c.may_double("Bob")
    c = c.apply("Ann", Double(W))
    assert not c.may_double("Ann") and c.legal_actions("Ann") == ()
    assert c.legal_actions("Cat") == (Take(B), Pass(B))
    c = c.apply("Dan", Pass(B)).apply("Bob", Take(B)).apply("Cat", Take(B))
    assert c.stage is ChouetteStage.PLAYING and c.pending == () and c.to_act() == ("Ann",)
    assert c.game.phase is GamePhase.ROLL and c.game.cube_owner is B
    assert c.active_members == ("Bob", "Cat") and c.member("Dan").cube_value == 1
    # the box's double was answered: it cannot be offered again (the team owns the cube now)
    assert not c.may_double("Ann") and Double(W) not in c.legal_actions("Ann")
    with pytest.raises(IllegalActionError, match="black owns the cube"):
        c.apply("Ann", Double(W))
    assert_zero_sum(c)


def test_legal_actions_of_who_is_not_to_act() -> None:
    c = box_opens(Chouette.new(NAMES))
    assert c.legal_actions("Ann") == () and c.legal_actions("Cat") == ()
    assert Chouette.new(NAMES).legal_actions("Bob") == (OpeningRoll(),)
    with pytest.raises(InvalidInputError):
        c.legal_actions("Zed")


# ------------------------------------------------------------- properties
def random_chouette_step(c: Chouette, rng: Random) -> Chouette:
    """One random legal step: somebody who may act does something legal."""
    if c.stage is ChouetteStage.TEAM_CONSENT:
        name = rng.choice(c.pending)
        return c.apply(name, Consent() if rng.random() < 0.8 else Refuse())
    if c.stage is ChouetteStage.BOX_DOUBLED:
        name = rng.choice(c.pending)
        return c.apply(name, Take(B) if rng.random() < 0.6 else Pass(B))
    game = c.game
    if game.phase is GamePhase.OPENING:
        return c.apply(rng.choice(c.to_act()), OpeningRoll(rng.randint(1, 6), rng.randint(1, 6)))
    name = c.to_act()[0]
    actions = [a for a in c.legal_actions(name) if not isinstance(a, Resign) or rng.random() < 0.005]
    if game.phase is GamePhase.ROLL and rng.random() < 0.9:
        actions = [a for a in actions if isinstance(a, Roll)]
    action = rng.choice(actions)
    if isinstance(action, Roll):
        action = Roll(action.player, (rng.randint(1, 6), rng.randint(1, 6)))
    return c.apply(name, action)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 5))
def test_random_chouettes_stay_zero_sum(seed: int, players: int) -> None:
    rng = Random(seed)
    names = [f"p{i}" for i in range(players)]
    c = Chouette.new(names)
    for _ in range(3000):
        if len(c.games) >= 3:
            break
        before = c
        c = random_chouette_step(c, rng)
        assert sum(c.scores.values()) == 0
        assert sorted((c.box, *c.team)) == sorted(names) and c.box not in c.team
        if len(c.games) > len(before.games):  # a game ended: check the rotation
            record = c.games[-1]
            assert record.box == before.box
            won_by_box = record.game.result.winner is W  # type: ignore[union-attr]
            if won_by_box:
                assert c.box == before.box and c.team[-1] == before.captain
            else:
                assert c.box == before.captain and c.team[-1] == before.box
            for name, amount in record.settlements:
                assert amount != 0 and abs(amount) in {v * k for v in (1, 2, 4, 8, 16, 32, 64) for k in (1, 2, 3)}, (
                    name,
                    amount,
                )
    assert len(c.games) >= 1


def state_key(c: Chouette) -> tuple:
    """Everything that decides what can happen next (the game's log left out)."""
    g = c.game
    return (
        c.stage,
        c.pending,
        c.box,
        c.team,
        c.members,
        c.double_refused,
        g.phase,
        g.turn,
        g.position.position_id(),
        g.dice,
        g.cube_value,
        g.cube_owner,
    )


def concrete(action: object, rng: Random) -> object:
    """Fill in the dice of a roll template."""
    if isinstance(action, OpeningRoll):
        return OpeningRoll(rng.randint(1, 6), rng.randint(1, 6))
    if isinstance(action, Roll):
        return Roll(action.player, (rng.randint(1, 6), rng.randint(1, 6)))
    return action


def uniform_step(c: Chouette, rng: Random) -> tuple[str, object]:
    """Somebody to act picks uniformly among their legal actions (no resignations: in the
    board game itself a rejected resignation may be offered again, which is not the chouette's rule)."""
    name = rng.choice(c.to_act())
    actions = [a for a in c.legal_actions(name) if not isinstance(a, Resign)]
    return name, concrete(rng.choice(actions), rng)


def stubborn_step(c: Chouette, rng: Random) -> tuple[str, object]:
    """Computers that disagree about the cube: the captain doubles whenever it may, every
    other member refuses, the box never doubles and takes; plays are random."""
    name = rng.choice(c.to_act())
    actions = [a for a in c.legal_actions(name) if not isinstance(a, Resign)]
    for preferred in (Double(B), Refuse(), Take(W), Take(B)):
        if preferred in actions:
            return name, preferred
    if any(isinstance(a, Move) for a in actions):
        return name, rng.choice(actions)
    rolls = [a for a in actions if isinstance(a, (Roll, OpeningRoll))]
    assert rolls, (name, actions)
    return name, concrete(rolls[0], rng)


TURN_ENDERS = (OpeningRoll, Roll, Move)
MAX_GAME_TURNS = 2000


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 6), stubborn=st.booleans())
def test_games_end_and_no_state_repeats_within_a_turn(seed: int, players: int, stubborn: bool) -> None:
    rng = Random(seed)
    c = Chouette.new([f"p{i}" for i in range(players)])
    step = stubborn_step if stubborn else uniform_step
    for _game in range(2):
        games = len(c.games)
        for _ in range(MAX_GAME_TURNS):
            seen = {state_key(c)}
            # one turn: answers and cube actions, until dice are rolled or a play is made
            for _ in range(players + 3):
                name, action = step(c, rng)
                assert action in c.legal_actions(name) or isinstance(action, TURN_ENDERS)
                c = c.apply(name, action)
                if isinstance(action, TURN_ENDERS) or len(c.games) > games:
                    break
                key = state_key(c)
                assert key not in seen, f"state repeated within a turn after {name} {action}"
                seen.add(key)
            else:
                raise AssertionError(f"a turn took more than {players + 3} actions")
            if len(c.games) > games:
                break
        else:
            raise AssertionError(f"a game took more than {MAX_GAME_TURNS} turns")
        assert sum(c.scores.values()) == 0
