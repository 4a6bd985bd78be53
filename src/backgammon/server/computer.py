"""The computer's turn at the site's tables and chouettes: its decision within a time limit.

What the computer decides is :mod:`backgammon.engine.players` (:func:`~backgammon.engine.players.decide`
for a game, :func:`~backgammon.engine.players.decide_chouette` for a chouette's computer seat), the
one decision that ``backgammon play`` also makes. Here, :func:`in_time` runs a decision on the
engine pool within a time limit; when the engine is too slow or fails, or decides on something the
rules refuse, the quick (greedy) player answers, so a computer's turn always ends in a legal action
and a table never hangs on it. :func:`think` is that for a match table's computer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from backgammon.engine.players import Agent, GreedyAgent, decide, decide_by
from backgammon.game import Action as GameAction
from backgammon.game import Game, Player
from backgammon.server.pools import run_engine

log = logging.getLogger("backgammon.server")
A = TypeVar("A")


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
    search stops there (:func:`~backgammon.engine.players.decide_by`), so the thread is free again within one
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
