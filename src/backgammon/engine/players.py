"""The computer player, one for every app: agents behind one small interface, and the computer's turn.

The web site (its tables and chouettes, :mod:`backgammon.server.computer`) and ``backgammon play``
(:mod:`backgammon.cli.play_cmd`) both ask this module what the computer does; neither has its
own copy of the decision.

An :class:`Agent` answers the questions a game asks a player: which play, whether to
double, whether to take, whether to accept a resignation or a draw. Agents are plain
synchronous objects; the server calls them off the event loop, on its engine pool, through
:func:`decide_by`, whose deadline stops the engine's search
(:func:`backgammon.engine.search.time_limit`) so that a thread never thinks past its limit.

:class:`GreedyAgent` is a weak built-in player (a one-ply heuristic: hits, made points,
blots, pips). :class:`EngineAgent` uses the engine's difficulty levels
(``backgammon.engine.levels.choose_play``, which ranks through the one ranking,
``backgammon.engine.search.rank_plays``, cubefully when given the cube) and decides
doubles and takes through ``backgammon.engine.search.decide_cube`` at its level's depth;
when the engine cannot be loaded it falls back to the greedy player (the site's choice) or
raises (``fall_back=False``, the terminal's choice).

The turn itself:

- :func:`cube_for` is the cube and score as an :class:`Agent` sees them (the one place that
  context is built from a game);
- :func:`decide` is what the computer does now in a game (roll or double, play, take or pass,
  answer a resignation or a draw); :func:`decide_chouette` the same for a computer seat of a
  chouette (its team's consent to a double, its answer to the box's).

This module imports only the rules core at load time (the engine's modules are imported when
an :class:`EngineAgent` is made), so a site without numpy or numba still has its quick player.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import Any, Protocol

from backgammon.chouette import BOX_SIDE, Chouette, ChouetteAction, ChouetteStage, Consent, Refuse
from backgammon.errors import EngineError, IllegalActionError
from backgammon.game import (
    AcceptDraw,
    AcceptResignation,
    Double,
    Game,
    GamePhase,
    Move,
    Pass,
    Player,
    RejectDraw,
    RejectResignation,
    Roll,
    Take,
    cube_owner_seen_by,
)
from backgammon.game import Action as GameAction
from backgammon.moves import Play
from backgammon.position import BAR, Position

LEVELS = ("beginner", "casual", "intermediate", "advanced", "expert", "world_class", "supremo")
log = logging.getLogger("backgammon.players")


class Agent(Protocol):
    """What the server asks of a computer player.

    ``cube`` dicts describe the cube and score from the side on roll of the position
    passed with them: ``value``, ``owner`` ("centred", "me" or "opponent"; None = centred),
    ``away`` ((points the side on roll needs, points the other needs) or None for
    money), ``crawford``, ``post_crawford``, ``jacoby``.
    """

    name: str

    def choose_play(self, position: Position, dice: tuple[int, int], cube: dict | None = None) -> Play:
        """The play to make (``position`` is seen from the agent, who is on roll); ``cube``: the
        cube and score from the agent's side, for players that rank by cubeful equity."""
        ...

    def wants_to_double(self, position: Position, cube: dict) -> bool:
        """Whether to double before rolling (``position`` seen from the agent, on roll)."""
        ...

    def takes(self, doubler_position: Position, cube: dict) -> bool:
        """Whether to take a double; ``doubler_position`` and ``cube`` are seen from the doubler."""
        ...

    def accepts_resignation(self, resigner_position: Position, points_per_cube: int) -> bool:
        """Whether to accept a resignation worth 1, 2 or 3 times the cube (position seen from the resigner)."""
        ...

    def accepts_draw(self, position: Position) -> bool:
        """Whether to accept a draw (casual mode; ``position`` seen from the agent)."""
        ...


def _blot_score(side: tuple[int, ...], other: tuple[int, ...]) -> float:
    """Exposed blots of ``side`` (own numbering), weighted by how far into its home they sit."""
    # opponent checkers at index j in their numbering sit at 23 - j in ours
    opp_points = [23 - j for j in range(24) if other[j]]
    opp_bar = other[BAR] > 0
    score = 0.0
    for i in range(24):
        if side[i] == 1:
            # the opponent moves from its high points to low points, i.e. from our low index to high
            shots = sum(1 for o in opp_points if 0 < i - o <= 11) + (1 if opp_bar and i >= 18 else 0)
            if shots or opp_bar:
                score += (1.0 + (i / 23.0)) * (1 + min(shots, 3))
    return score


def heuristic(after: Position) -> float:
    """Score of a position seen from the side that just moved (``after`` has the opponent on roll)."""
    me, opp = after.theirs, after.mine  # after.mine is the opponent (on roll now)
    pips_me, pips_opp = after.pip_counts()[1], after.pip_counts()[0]
    score = 0.0
    score += 6.0 * opp[BAR]  # opponent checkers on the bar
    score += 1.5 * sum(1 for i in range(6) if me[i] >= 2)  # home-board points
    score += 1.0 * sum(1 for i in range(6, 24) if me[i] >= 2)
    score -= 2.0 * _blot_score(me, opp)
    score += 0.05 * (pips_opp - pips_me)
    score += 3.0 * (15 - sum(me))  # borne off
    return score


class GreedyAgent:
    """A weak one-ply player: best heuristic score, with some noise for variety."""

    def __init__(self, seed: int | None = None, noise: float = 0.5) -> None:
        self.name = "greedy"
        self._rng = random.Random(seed)
        self._noise = noise

    def choose_play(self, position: Position, dice: tuple[int, int], cube: dict | None = None) -> Play:
        plays = position.legal_plays(*dice)
        return max(plays, key=lambda p: heuristic(p.position) + self._rng.uniform(0, self._noise))

    def wants_to_double(self, position: Position, cube: dict) -> bool:
        mine, theirs = position.pip_counts()
        return position.is_race() and mine > 0 and theirs >= mine * 1.12 and theirs - mine >= 8

    def takes(self, doubler_position: Position, cube: dict) -> bool:
        doubler, me = doubler_position.pip_counts()
        return me <= doubler * 1.18 if doubler_position.is_race() else True

    def accepts_resignation(self, resigner_position: Position, points_per_cube: int) -> bool:
        resigner, me = resigner_position.pip_counts()
        return points_per_cube >= 2 or resigner_position.off()[0] > 0 or resigner - me < 40

    def accepts_draw(self, position: Position) -> bool:
        mine, theirs = position.pip_counts()
        return mine > theirs + 20


UNAVAILABLE_NAME = "quick player (engine unavailable)"
"""The name of a computer player whose engine could not be loaded."""

_reported: set[str] = set()


def _report_unavailable(level: str, exc: BaseException) -> None:
    """Log an engine load failure at ERROR, once per process for each distinct cause."""
    cause = f"{type(exc).__name__}: {exc}"
    if cause in _reported:
        return
    _reported.add(cause)
    log.error("the engine cannot be loaded for level %r (%s): the quick player plays instead", level, cause)


class EngineAgent(GreedyAgent):
    """Plays with the engine: its difficulty levels, cube decisions and evaluations.

    ``evaluator_factory`` (the shipped nets by default) is called once, at the first decision.
    With ``fall_back`` (the site's choice) an engine that cannot be loaded or fails makes this the
    greedy player, so a game never stops for want of an engine, but never silently: the failure
    is logged at ERROR (once per process and cause), the agent's ``name`` says
    :data:`UNAVAILABLE_NAME`, and ``/api/health`` reports the engine unavailable. Without it (the
    terminal's choice) the failure is raised.

    Raises:
        InvalidInputError: for an unknown level, without ``fall_back``.
    """

    def __init__(
        self,
        level: str = "intermediate",
        seed: int | None = None,
        evaluator_factory: Callable[[], Any] | None = None,
        fall_back: bool = True,
    ) -> None:
        super().__init__(seed)
        self.level = level
        self.name = level
        self._fall_back = fall_back
        self._loaded: Any = None
        try:  # the engine is an optional layer below the apps
            from backgammon.engine import levels as _levels
            from backgammon.engine.evaluator import NetEvaluator

            _levels.get_level(level)
            self._levels: Any = _levels
            self._factory: Callable[[], Any] = evaluator_factory or NetEvaluator.default
        except Exception as exc:
            if not fall_back:
                raise
            self._levels = None
            self.name = UNAVAILABLE_NAME
            _report_unavailable(level, exc)

    @property
    def uses_engine(self) -> bool:
        return self._levels is not None

    def _evaluator(self) -> Any:
        if self._loaded is None:
            self._loaded = self._factory()
        return self._loaded

    def load(self) -> None:
        """Load the engine's evaluator now, so that a missing one is known before the first decision.

        Raises:
            BackgammonError: if it cannot be loaded (an agent that falls back becomes the greedy player instead).
        """
        self._guard(lambda: None, self._evaluator)

    def _cube_info(self, cube: dict) -> Any:
        from backgammon.engine.cube import CubeInfo, CubeOwner

        owner = CubeOwner(cube.get("owner") or "centred")  # backgammon.game.cube_owner_seen_by's answer
        away = cube.get("away")
        if away is None:
            return CubeInfo.money(cube.get("value", 1), owner, jacoby=bool(cube.get("jacoby")))
        return CubeInfo.match(
            away[0],
            away[1],
            cube.get("value", 1),
            owner,
            crawford=bool(cube.get("crawford")),
            post_crawford=bool(cube.get("post_crawford")),
        )

    def _cube_or_none(self, cube: dict | None) -> Any:
        return None if cube is None else self._cube_info(cube)

    def _decision(self, position: Position, cube: dict) -> Any:
        """The cube decision of the side on roll in ``position`` (the one home,
        :func:`backgammon.engine.search.decide_cube`, at this level's depth)."""
        from backgammon.engine.search import EvalContext, decide_cube

        plies = self._levels.get_level(self.level).plies
        return decide_cube(position, EvalContext(self._evaluator(), plies, self._cube_info(cube))).decision

    def _guard(self, fallback: Callable[[], Any], engine: Callable[[], Any]) -> Any:
        if self._levels is None:
            return fallback()
        try:
            return engine()
        except Exception as exc:
            from backgammon.engine.search import SearchTimeout

            if isinstance(exc, SearchTimeout) or not self._fall_back:
                raise  # out of time (decide_by's deadline): not a broken engine
            log.exception("engine failed; the greedy player takes over")
            self._levels = None  # a broken engine must not stop the game
            return fallback()

    def choose_play(self, position: Position, dice: tuple[int, int], cube: dict | None = None) -> Play:
        """The level's play; with ``cube`` (the :class:`Agent` cube dict) ranked by cubeful equity at
        that cube and score, else by cubeless equity."""
        return self._guard(
            lambda: GreedyAgent.choose_play(self, position, dice),
            lambda: self._levels.choose_play(
                position, dice, self.level, self._rng, self._evaluator(), self._cube_or_none(cube)
            ),
        )

    def wants_to_double(self, position: Position, cube: dict) -> bool:
        return self._guard(
            lambda: GreedyAgent.wants_to_double(self, position, cube),
            lambda: self._decision(position, cube).should_double,
        )

    def takes(self, doubler_position: Position, cube: dict) -> bool:
        return self._guard(
            lambda: GreedyAgent.takes(self, doubler_position, cube),
            lambda: self._decision(doubler_position, cube).take,
        )

    def accepts_resignation(self, resigner_position: Position, points_per_cube: int) -> bool:
        def engine() -> bool:
            mine = self._evaluator().evaluate(resigner_position).flip()  # the acceptor's chances
            return points_per_cube >= float(mine.equity()) - 0.02

        return self._guard(lambda: GreedyAgent.accepts_resignation(self, resigner_position, points_per_cube), engine)

    def accepts_draw(self, position: Position) -> bool:
        return self._guard(
            lambda: GreedyAgent.accepts_draw(self, position),
            lambda: float(self._evaluator().evaluate(position).equity()) < -0.05,
        )

    def ranked_plays(
        self, position: Position, dice: tuple[int, int], cube: dict | None = None, plies: int = 1
    ) -> list[Any]:
        """The engine's ranking (:func:`backgammon.engine.search.rank_plays`), best first: each entry
        has its play, equity, depth and kind (``label``); cubeful with ``cube``, else cubeless.

        Raises:
            EngineError: when the engine is not available.
        """
        if self._levels is None:
            raise EngineError("the engine is not available")
        from backgammon.engine.search import EvalContext, rank_plays

        return rank_plays(position, dice, EvalContext(self._evaluator(), plies, self._cube_or_none(cube)))

    def ranked(
        self, position: Position, dice: tuple[int, int], limit: int = 8, cube: dict | None = None
    ) -> list[tuple[Play, float, float, float]]:
        """The engine's ranked plays (1-ply; cubeful with ``cube``), best first: ``(play, equity, win,
        gammon)`` (:meth:`ranked_plays` has each one's depth and kind).

        Raises:
            EngineError: when the engine is not available.
        """
        return [
            (r.play, float(r.equity), float(r.probabilities.win), float(r.probabilities.win_gammon))
            for r in self.ranked_plays(position, dice, cube)[:limit]
        ]


def warm_up() -> bool:
    """Load the engine's weights and compile its kernels (slow the first time); True if it works."""
    agent = EngineAgent("world_class", seed=0)
    if not agent.uses_engine:
        return False
    try:
        agent.choose_play(Position.initial(), (3, 1))
        agent.wants_to_double(Position.initial(), {"value": 1})
        return agent.uses_engine
    except Exception:  # noqa: BLE001 - warming up is best effort: games fall back to the greedy player
        return False


def decide_by(deadline: float, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` (an agent's decision) with every engine search in it stopping at ``deadline``
    (``time.monotonic()``; :func:`backgammon.engine.search.time_limit`).

    Raises:
        TimeoutError: at the deadline, or when it passed before the decision started (e.g. while
            queued for a thread). The caller answers with the quick player then.
    """
    if time.monotonic() >= deadline:
        raise TimeoutError("no time left to think")
    agent = args[0] if args else None
    if not (isinstance(agent, EngineAgent) and agent.uses_engine):
        return fn(*args)
    from backgammon.engine.search import SearchTimeout, time_limit

    try:
        with time_limit(deadline):
            return fn(*args)
    except SearchTimeout as exc:
        raise TimeoutError(str(exc)) from exc


def make_agent(level: str, seed: int | None = None) -> Agent:
    """The computer player for a level name (``greedy`` or one of :data:`LEVELS`)."""
    if level == "greedy":
        return GreedyAgent(seed)
    return EngineAgent(level, seed)


# ------------------------------------------------------------------ the computer's turn
def cube_for(game: Game, side: Player, *, post_crawford: bool) -> dict[str, Any]:
    """The cube and score seen from ``side`` (the :class:`Agent` ``cube`` dict)."""
    owner = cube_owner_seen_by(game.cube_owner, side)  # "centred", "me" or "opponent"
    rules = game.rules
    away = _away(game, side)
    return {
        "value": game.cube_value,
        "owner": owner,
        "away": away,
        "crawford": game.crawford_game,
        "post_crawford": post_crawford and not game.crawford_game,
        "jacoby": rules.jacoby_applies,
    }


def _away(game: Game, side: Player) -> tuple[int, int] | None:
    """(points ``side`` needs, points the other side needs) to win the match; None for money."""
    length = game.rules.match_length
    if not length:
        return None
    white, black = game.score
    mine, theirs = (white, black) if side is Player.WHITE else (black, white)
    return max(1, length - mine), max(1, length - theirs)


def _cube_is_dead(game: Game, side: Player) -> bool:
    """Whether doubling cannot gain ``side`` anything: in a match, a win at the current cube wins it."""
    away = _away(game, side)
    return away is not None and away[0] <= game.cube_value


def decide(agent: Agent, game: Game, seat: Player, post_crawford: bool = False) -> GameAction:
    """What the computer player on ``seat`` does now (a Roll comes without its dice: the caller rolls).

    Two answers need no agent: it never doubles a dead cube, and it accepts a resignation that
    wins it the match.

    Raises:
        IllegalActionError: when ``seat`` has nothing to do in ``game``.
    """
    phase = game.phase
    me = game.board_for(seat)
    if phase is GamePhase.ROLL:
        if (
            game.may_double(seat)
            and not _cube_is_dead(game, seat)
            and agent.wants_to_double(me, cube_for(game, seat, post_crawford=post_crawford))
        ):
            return Double(seat)
        return Roll(seat, None)
    if phase is GamePhase.MOVE:
        assert game.dice is not None  # (a game to move has its dice)
        return Move(seat, agent.choose_play(me, game.dice, cube_for(game, seat, post_crawford=post_crawford)))
    if phase is GamePhase.DOUBLED:
        doubler = seat.other
        cube = cube_for(game, doubler, post_crawford=post_crawford)
        return Take(seat) if agent.takes(game.board_for(doubler), cube) else Pass(seat)
    if phase is GamePhase.RESIGNATION:
        level = game.resignation.value if game.resignation else 1
        points = game.multiplier(game.resignation) if game.resignation else level
        away = _away(game, seat)
        wins_match = away is not None and away[0] <= points * game.cube_value
        accept = wins_match or agent.accepts_resignation(game.board_for(seat.other), points)
        return AcceptResignation(seat) if accept else RejectResignation(seat)
    if phase is GamePhase.DRAW_OFFERED:
        return AcceptDraw(seat) if agent.accepts_draw(me) else RejectDraw(seat)
    raise IllegalActionError(f"the computer has nothing to do: {game.describe()}")


def decide_chouette(agent: Agent, c: Chouette, name: str) -> ChouetteAction:
    """What ``agent`` does for the chouette's computer seat ``name`` (a Roll comes without dice)."""
    box, team = BOX_SIDE, BOX_SIDE.other
    game = c.game
    if c.stage is ChouetteStage.TEAM_CONSENT:
        wants = game.may_double(team) and agent.wants_to_double(
            game.board_for(team), cube_for(game, team, post_crawford=False)
        )
        return Consent() if wants else Refuse()
    if c.stage is ChouetteStage.BOX_DOUBLED:
        takes = agent.takes(game.board_for(box), cube_for(game, box, post_crawford=False))
        return Take(team) if takes else Pass(team)
    side = c.side_of(name)
    action = decide(agent, game, side)
    if isinstance(action, Double) and not c.may_double(name):  # e.g. the team refused it this turn
        return Roll(side, None)
    return action
