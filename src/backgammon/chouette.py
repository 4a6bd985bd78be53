"""Chouette: backgammon for three or more players, one board.

One player, the *box*, plays alone against a *team*. The team's first member
in line, the *captain*, moves for the team on the shared board; the box
plays WHITE and the team BLACK. Every team member has a cube of its own and
settles with the box separately. The rules modelled here (simplified, and
all documented):

- **Team doubles need unanimity.** When the captain doubles, every other
  active member must :class:`Consent`; one :class:`Refuse` withdraws the
  double and the captain goes on to roll: the team may not offer it again
  before its next turn (:meth:`Chouette.may_double`). Once every member
  consents, the box takes or passes against the whole team (passing pays each
  active member its cube value).
- **Box doubles are answered one by one.** Each active member takes or
  passes on its own, in any order. A member who passes pays the box its
  current cube value at once and is out of the game. Those who take hold
  a cube of twice the value. If the captain passes, the first member in line
  who took becomes captain and the old captain goes to the end of the line.
  If everyone passes, the game ends.
- **Settlement.** When the game ends, the box settles with each member still
  in it: that member's cube value times 1, 2 or the backgammon value (the
  Jacoby rule, if on, applies to each member's own cube). Running scores
  always sum to zero.
- **Rotation.** If the box wins, the box stays and the captain goes to the
  end of the line (the next member becomes captain). If the team wins, the
  captain becomes the box and the old box goes to the end of the line.
  The next game starts at once.
- Beavers are not used in a chouette; it is a money game (no match length,
  no casual mode).

Actions are the ordinary :mod:`backgammon.game` actions plus
:class:`Consent` and :class:`Refuse`, applied with the acting player's name:
``chouette.apply("carol", Take(Player.BLACK))``. The action's ``player`` must
be the side of that name (WHITE for the box, BLACK for team members).

>>> from backgammon.game import OpeningRoll, Double, Take, Pass, Player
>>> c = Chouette.new(["Ann", "Bob", "Cat"])
>>> c.box, c.captain, c.team
('Ann', 'Bob', ('Bob', 'Cat'))
>>> c = c.apply("Ann", OpeningRoll(5, 2))
>>> c = c.apply("Ann", c.game.move_from_text("13/8 13/11"))
>>> c = c.apply("Bob", Double(Player.BLACK)).apply("Cat", Consent(Player.BLACK))
>>> c = c.apply("Ann", Pass(Player.WHITE))
>>> c.scores
{'Ann': -2, 'Bob': 1, 'Cat': 1}
>>> c.box, c.team
('Bob', ('Cat', 'Ann'))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum

from backgammon.errors import IllegalActionError, InvalidInputError, NotYourTurnError
from backgammon.game import (
    ACTION_TYPES,
    Action,
    Beaver,
    Double,
    Ending,
    Game,
    GamePhase,
    OpeningRoll,
    Pass,
    Player,
    ResultKind,
    Rules,
    Take,
    _check_rules,
)

__all__ = ["Chouette", "ChouetteAction", "ChouetteGame", "ChouetteStage", "Consent", "Member", "Refuse"]

BOX_SIDE = Player.WHITE
TEAM_SIDE = Player.BLACK


@dataclass(frozen=True, slots=True)
class Consent:
    """A team member agrees to the captain's double."""

    player: Player = TEAM_SIDE

    def __str__(self) -> str:
        return "consents to the double"


@dataclass(frozen=True, slots=True)
class Refuse:
    """A team member refuses the captain's double (it is withdrawn)."""

    player: Player = TEAM_SIDE

    def __str__(self) -> str:
        return "refuses the double"


# What Chouette.apply takes: a game action, or a team member's answer to the captain's double.
ChouetteAction = Action | Consent | Refuse


class ChouetteStage(Enum):
    """What the chouette waits for, beyond the board game itself."""

    PLAYING = "playing"  # the board game goes on (box vs captain)
    TEAM_CONSENT = "team_consent"  # the captain wants to double: the other members consent or refuse
    BOX_DOUBLED = "box_doubled"  # the box doubled: each member takes or passes


@dataclass(frozen=True, slots=True)
class Member:
    """A team member's stake in the current game: its cube value, and whether it is still in."""

    name: str
    cube_value: int
    active: bool = True


@dataclass(frozen=True, slots=True)
class ChouetteGame:
    """A finished chouette game: the board game, who played, and what each member won from the box.

    ``settlements`` maps each team member to its winnings from the box
    (negative when it paid the box); the box's result is minus their sum.
    """

    game: Game
    box: str
    captain: str
    settlements: tuple[tuple[str, int], ...]

    @property
    def box_result(self) -> int:
        """What the box won in total (negative when it lost)."""
        return -sum(amount for _, amount in self.settlements)


@dataclass(frozen=True, slots=True)
class Chouette:
    """An immutable chouette session; :meth:`apply` returns the next state.

    ``team`` is the line of team members, captain first. ``members`` holds
    each member's cube in the current game (same order as ``team``).
    ``pending`` names who still has to answer in TEAM_CONSENT or
    BOX_DOUBLED. ``score_list`` holds the running scores (see :attr:`scores`).
    ``double_refused`` is True from a refused team double until the captain
    rolls: the team may not double again in that turn. Build it with :meth:`new`.
    """

    rules: Rules
    players: tuple[str, ...]
    box: str
    team: tuple[str, ...]
    members: tuple[Member, ...]
    game: Game
    stage: ChouetteStage
    pending: tuple[str, ...]
    settled: tuple[tuple[str, int], ...]  # member settlements already made in this game (passes)
    score_list: tuple[tuple[str, int], ...]
    games: tuple[ChouetteGame, ...]
    double_refused: bool = False

    @classmethod
    def new(cls, players: Sequence[str], rules: Rules | None = None) -> Chouette:
        """A chouette: ``players[0]`` is the first box, ``players[1]`` the first captain, then the line.

        Raises:
            InvalidInputError: for fewer than 3 players, bad or repeated names,
                or rules that are not a money game with the cube.
        """
        rules = _check_rules(rules)
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise InvalidInputError(f"invalid players {players!r}: expected a list of at least 3 names")
        names = tuple(players)
        if len(names) < 3:
            raise InvalidInputError(f"invalid players {names!r}: a chouette needs at least 3 players")
        if not all(isinstance(n, str) and n.strip() for n in names):
            raise InvalidInputError(f"invalid players {names!r}: every name must be a non-empty string")
        if len(set(names)) != len(names):
            raise InvalidInputError(f"invalid players {names!r}: names must be different")
        if not rules.is_money or rules.casual:
            raise InvalidInputError(
                f"invalid rules for a chouette: expected money play without casual mode, got {rules!r}"
            )
        rules = replace(rules, beavers=False)
        scores = tuple((n, 0) for n in names)
        return cls._start(rules, names, names[0], names[1:], scores, ())

    @classmethod
    def _start(
        cls,
        rules: Rules,
        players: tuple[str, ...],
        box: str,
        team: tuple[str, ...],
        scores: tuple[tuple[str, int], ...],
        games: tuple[ChouetteGame, ...],
    ) -> Chouette:
        game = Game.new(rules)
        return cls(
            rules=rules,
            players=players,
            box=box,
            team=team,
            members=tuple(Member(n, game.cube_value) for n in team),
            game=game,
            stage=ChouetteStage.PLAYING,
            pending=(),
            settled=(),
            score_list=scores,
            games=games,
        )

    # ----------------------------------------------------------------- queries
    @property
    def captain(self) -> str:
        """The team member who moves for the team."""
        return self.team[0]

    @property
    def scores(self) -> dict[str, int]:
        """Running scores per player (a new dict; they sum to zero)."""
        return dict(self.score_list)

    def member(self, name: str) -> Member:
        """The cube state of team member ``name`` in the current game.

        Raises:
            InvalidInputError: if ``name`` is not a team member.
        """
        for m in self.members:
            if m.name == name:
                return m
        raise InvalidInputError(f"invalid team member {name!r}: the team is {self.team!r}")

    @property
    def active_members(self) -> tuple[str, ...]:
        """Team members still in the current game (who have not passed)."""
        return tuple(m.name for m in self.members if m.active)

    def side_of(self, name: str) -> Player:
        """WHITE for the box, BLACK for a team member.

        Raises:
            InvalidInputError: if ``name`` is not a player.
        """
        if name == self.box:
            return BOX_SIDE
        if name in self.team:
            return TEAM_SIDE
        raise InvalidInputError(f"invalid player {name!r}: expected one of {self.players!r}")

    def to_act(self) -> tuple[str, ...]:
        """The names who may act now."""
        if self.stage is not ChouetteStage.PLAYING:
            return self.pending
        turn = self.game.turn
        if self.game.phase is GamePhase.OPENING:
            return (self.box, self.captain)
        if turn is BOX_SIDE:
            return (self.box,)
        if turn is TEAM_SIDE:
            return (self.captain,)
        return ()

    def may_double(self, name: str) -> bool:
        """True if ``name`` may double now (the box, or the captain for the team).

        Beyond the board game's own cube rules, the team may not double again in
        a turn in which one of its members refused the captain's double.

        Raises:
            InvalidInputError: if ``name`` is not a player.
        """
        return self._double_refusal(name) is None

    def legal_actions(self, name: str) -> tuple[Action | Consent | Refuse, ...]:
        """What ``name`` may do now (empty when it is not theirs to act).

        Like :meth:`Game.legal_actions`, rolls appear as templates (dice None)
        for the caller to fill in; every legal play appears as a ``Move``.

        Raises:
            InvalidInputError: if ``name`` is not a player.
        """
        side = self.side_of(name)
        if name not in self.to_act():
            return ()
        if self.stage is ChouetteStage.TEAM_CONSENT:
            return (Consent(), Refuse())
        if self.stage is ChouetteStage.BOX_DOUBLED:
            return (Take(TEAM_SIDE), Pass(TEAM_SIDE))
        if self.game.phase is GamePhase.OPENING:
            return (OpeningRoll(),)
        return tuple(
            a
            for a in self.game.legal_actions()
            if a.player is side and not isinstance(a, Beaver) and (not isinstance(a, Double) or self.may_double(name))
        )

    def _double_refusal(self, name: str) -> str | None:
        """Why ``name`` may not double now, or None if they may."""
        side = self.side_of(name)
        if self.stage is not ChouetteStage.PLAYING:
            return f"the chouette waits for {', '.join(self.pending)} to answer a double"
        if name not in self.to_act():
            return f"{name} is not to act ({', '.join(self.to_act()) or 'nobody'} to act)"
        refusal = self.game._cube_refusal(side)
        if refusal is not None:
            return refusal
        if side is TEAM_SIDE and self.double_refused:
            return "a team member refused the captain's double this turn: the captain must roll"
        return None

    # ------------------------------------------------------------------ apply
    def apply(self, name: str, action: ChouetteAction) -> Chouette:
        """The chouette after player ``name`` does ``action``.

        Raises:
            InvalidInputError: for an unknown name, something that is not an
                action, or an action for the wrong side.
            NotYourTurnError: when ``name`` is not the one to act.
            IllegalActionError: for an action the flow does not allow now
                (including beavers, not used in a chouette).
            IllegalPlayError: for an illegal play.
        """
        side = self.side_of(name)
        if not isinstance(action, (*ACTION_TYPES, Consent, Refuse)):
            raise InvalidInputError(f"invalid action {action!r}: expected a game action, Consent or Refuse")
        if not isinstance(action, OpeningRoll) and action.player is not side:
            raise InvalidInputError(f"invalid action {action!r} by {name!r}: {name} plays {str(side).lower()}")
        if isinstance(action, Beaver):
            raise IllegalActionError(f"{name} cannot beaver: beavers are not used in a chouette")
        if self.stage is ChouetteStage.TEAM_CONSENT:
            return self._on_consent(name, action)
        if self.stage is ChouetteStage.BOX_DOUBLED:
            return self._on_answer(name, action)
        if isinstance(action, (Consent, Refuse)):
            verb = "consent to" if isinstance(action, Consent) else "refuse"
            raise IllegalActionError(f"{name} cannot {verb} a double: the captain has not doubled")
        if name not in self.to_act():
            raise NotYourTurnError(
                f"{name} cannot act now: {', '.join(self.to_act()) or 'nobody'} to act ({self.game.describe()})"
            )
        if isinstance(action, Double) and side is TEAM_SIDE and self.double_refused:
            raise IllegalActionError(f"{name} cannot double: {self._double_refusal(name)}")
        if isinstance(action, Double) and side is TEAM_SIDE and len(self.active_members) > 1:
            self.game.apply(action)  # raises if the team may not double now
            others = tuple(n for n in self.active_members if n != name)
            return self._replace(stage=ChouetteStage.TEAM_CONSENT, pending=others)
        game = self.game.apply(action)
        if isinstance(action, Double) and side is BOX_SIDE:
            return self._replace(game=game, stage=ChouetteStage.BOX_DOUBLED, pending=self.active_members)
        return self._after(game)

    def _on_consent(self, name: str, action: object) -> Chouette:
        if not isinstance(action, (Consent, Refuse)):
            raise IllegalActionError(
                f"{name} cannot {str(action).lower()!r} now: waiting for {', '.join(self.pending)} "
                "to consent to the captain's double"
            )
        if name not in self.pending:
            raise NotYourTurnError(f"{name} has no say now: waiting for {', '.join(self.pending)} to consent")
        if isinstance(action, Refuse):  # the double is withdrawn for this turn: the captain rolls
            return self._replace(stage=ChouetteStage.PLAYING, pending=(), double_refused=True)
        pending = tuple(n for n in self.pending if n != name)
        if pending:
            return self._replace(pending=pending)
        game = self.game.apply(Double(TEAM_SIDE))
        return self._replace(game=game, stage=ChouetteStage.PLAYING, pending=())

    def _on_answer(self, name: str, action: object) -> Chouette:
        if not isinstance(action, (Take, Pass)):
            raise IllegalActionError(
                f"{name} cannot {str(action).lower()!r} now: waiting for {', '.join(self.pending)} "
                "to take or pass the box's double"
            )
        if name not in self.pending:
            raise NotYourTurnError(f"{name} cannot answer: waiting for {', '.join(self.pending)} to take or pass")
        pending = tuple(n for n in self.pending if n != name)
        members = self.members
        settled = self.settled
        scores = self.score_list
        if isinstance(action, Pass):
            value = self.member(name).cube_value
            members = tuple(replace(m, active=False) if m.name == name else m for m in members)
            settled = (*settled, (name, -value))
            scores = _transfer(scores, payer=name, payee=self.box, amount=value)
        state = self._replace(members=members, settled=settled, score_list=scores, pending=pending)
        if pending:
            return state
        takers = state.active_members
        if not takers:  # everyone passed: the box wins the game
            game = self.game.apply(Pass(TEAM_SIDE))
            return state._replace(stage=ChouetteStage.PLAYING)._finish(game)
        game = self.game.apply(Take(TEAM_SIDE))
        team = self.team
        if self.captain not in takers:  # the captain passed: the first taker in line takes over
            new_captain = takers[0]
            rest = tuple(n for n in team if n not in (new_captain, self.captain))
            team = (new_captain, *rest, self.captain)
        by_name = {m.name: m for m in state.members}
        members = tuple(
            replace(by_name[n], cube_value=game.cube_value) if by_name[n].active else by_name[n] for n in team
        )
        return state._replace(game=game, team=team, members=members, stage=ChouetteStage.PLAYING)

    # ---------------------------------------------------------------- helpers
    def _replace(self, **changes: object) -> Chouette:
        return replace(self, **changes)  # type: ignore[arg-type]

    def _after(self, game: Game) -> Chouette:
        """Carry a board action through: keep the active members' cubes in step, end the game if over.

        A refused team double stays refused until the team's turn moves on (its roll);
        a resignation offered and rejected meanwhile does not lift it.
        """
        members = tuple(replace(m, cube_value=game.cube_value) if m.active else m for m in self.members)
        refused = self.double_refused and game.phase in (GamePhase.ROLL, GamePhase.RESIGNATION)
        state = self._replace(game=game, members=members, double_refused=refused)
        if game.is_over:
            return state._finish(game)
        return state

    def _finish(self, game: Game) -> Chouette:
        result = game.result
        assert result is not None and result.winner is not None
        scores = self.score_list
        settlements = dict(self.settled)
        for m in self.members:
            if not m.active:
                continue
            if result.ending is Ending.PASSED:
                amount = m.cube_value
            else:
                amount = m.cube_value * game.multiplier(result.kind or ResultKind.SINGLE)
            if result.winner is BOX_SIDE:
                scores = _transfer(scores, payer=m.name, payee=self.box, amount=amount)
                settlements[m.name] = settlements.get(m.name, 0) - amount
            else:
                scores = _transfer(scores, payer=self.box, payee=m.name, amount=amount)
                settlements[m.name] = settlements.get(m.name, 0) + amount
        record = ChouetteGame(game, self.box, self.captain, tuple((n, settlements.get(n, 0)) for n in self.team))
        captain, rest = self.team[0], self.team[1:]
        if result.winner is BOX_SIDE:
            box, team = self.box, (*rest, captain)
        else:
            box, team = captain, (*rest, self.box)
        return Chouette._start(self.rules, self.players, box, team, scores, (*self.games, record))

    def __repr__(self) -> str:
        return f"<Chouette box={self.box!r} team={self.team!r} stage={self.stage.name} {self.game!r}>"


def _transfer(
    scores: tuple[tuple[str, int], ...], *, payer: str, payee: str, amount: int
) -> tuple[tuple[str, int], ...]:
    return tuple((n, s - amount if n == payer else s + amount if n == payee else s) for n, s in scores)
