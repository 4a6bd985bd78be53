"""The computer's turn at every kind of table: what it decides, and how it decides in time.

- :func:`cube_for` is the cube and score as an :class:`~backgammon.server.agents.Agent` sees them
  (the one place the server builds that context);
- :func:`decide` is what the computer does now in a game (roll or double, play, take or pass,
  answer a resignation or a draw); :func:`decide_chouette` the same for a computer seat of a
  chouette (its team's consent to a double, its answer to the box's);
- :func:`in_time` runs a decision on the engine pool within a time limit; when the engine is too
  slow or fails, or decides on something the rules refuse, the quick (greedy) player answers, so a
  computer's turn always ends in a legal action and a table never hangs on it. :func:`think` is
  that for a match table's computer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from backgammon.chouette import Chouette, ChouetteAction, ChouetteStage, Consent, Refuse
from backgammon.errors import IllegalActionError
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
from backgammon.server.agents import Agent, GreedyAgent, decide_by
from backgammon.server.pools import run_engine
from backgammon.server.replay import CHOUETTE_BOX

log = logging.getLogger("backgammon.server")
A = TypeVar("A")


def cube_for(game: Game, side: Player, *, post_crawford: bool) -> dict[str, Any]:
    """The cube and score seen from ``side`` (the :class:`Agent` ``cube`` dict)."""
    owner = cube_owner_seen_by(game.cube_owner, side)  # "centred", "me" or "opponent"
    rules = game.rules
    away = None
    if rules.match_length:
        white, black = game.score
        mine, theirs = (white, black) if side is Player.WHITE else (black, white)
        away = (max(1, rules.match_length - mine), max(1, rules.match_length - theirs))
    return {
        "value": game.cube_value,
        "owner": owner,
        "away": away,
        "crawford": game.crawford_game,
        "post_crawford": post_crawford and not game.crawford_game,
        "jacoby": rules.jacoby_applies,
    }


def decide(agent: Agent, game: Game, seat: Player, post_crawford: bool = False) -> GameAction:
    """What the computer player does now (a Roll's dice are filled in by the caller)."""
    phase = game.phase
    me = game.board_for(seat)
    if phase is GamePhase.ROLL:
        if game.may_double(seat) and agent.wants_to_double(me, cube_for(game, seat, post_crawford=post_crawford)):
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
        accept = agent.accepts_resignation(game.board_for(seat.other), points)
        return AcceptResignation(seat) if accept else RejectResignation(seat)
    if phase is GamePhase.DRAW_OFFERED:
        return AcceptDraw(seat) if agent.accepts_draw(me) else RejectDraw(seat)
    raise IllegalActionError(f"the computer has nothing to do: {game.describe()}")


def decide_chouette(agent: Agent, c: Chouette, name: str) -> ChouetteAction:
    """What ``agent`` does for the chouette's computer seat ``name`` (a Roll comes without dice)."""
    box, team = CHOUETTE_BOX, CHOUETTE_BOX.other
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


async def in_time(
    choose: Callable[..., A],
    agent: Agent,
    *args: Any,
    timeout: float,
    who: str,
    check: Callable[[A], object] | None = None,
    fallback: Agent | None = None,
) -> A:
    """``choose(agent, *args)`` on the engine pool within ``timeout`` seconds (time queued for a
    thread included). The table moves on at that deadline, and so does the thread: the engine's
    search stops there (:func:`agents.decide_by`), so the thread is free again within one
    candidate's search instead of thinking on for nobody. When it is too slow, fails, or ``check``
    (the rules) refuses its answer, ``fallback`` (the quick player by default) answers instead,
    off the event loop; ``who`` names the player in the log."""
    deadline = time.monotonic() + timeout
    try:
        answer = await asyncio.wait_for(run_engine(decide_by, deadline, choose, agent, *args), timeout)
        if check is not None:
            check(answer)  # raises if the rules refuse it
        return answer
    except TimeoutError:  # (decide_by's deadline, or the wait's)
        log.warning("%s took over %s s: the quick player answers", who, timeout)
    except Exception:
        log.exception("%s failed: the quick player answers", who)
    return await asyncio.to_thread(choose, fallback or GreedyAgent(), *args)


async def think(
    agent: Agent, game: Game, seat: Player, post_crawford: bool, timeout: float, where: str = ""
) -> GameAction:
    """A match table's computer decision within ``timeout`` seconds (:func:`in_time`)."""
    return await in_time(
        decide, agent, game, seat, post_crawford, timeout=timeout, who=f"computer player on table {where}"
    )
