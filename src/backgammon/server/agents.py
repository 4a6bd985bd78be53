"""Computer players behind one small interface.

An :class:`Agent` answers the questions a game asks a player: which play, whether to
double, whether to take, whether to accept a resignation or a draw. Agents are plain
synchronous objects; the server calls them off the event loop (``asyncio.to_thread``).

:class:`GreedyAgent` is a weak built-in player (a one-ply heuristic: hits, made points,
blots, pips). :class:`EngineAgent` uses the engine's difficulty levels
(``backgammon.engine.levels.choose_play``) when the engine is installed, and falls back
to the greedy player when it is not.
"""

from __future__ import annotations

import random
from typing import Protocol

from backgammon.moves import Play
from backgammon.position import BAR, Position

LEVELS = ("beginner", "casual", "intermediate", "advanced", "expert", "world_class")


class Agent(Protocol):
    """What the server asks of a computer player."""

    name: str

    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play:
        """The play to make (``position`` is seen from the agent, who is on roll)."""
        ...

    def wants_to_double(self, position: Position, cube_info: dict) -> bool:
        """Whether to double before rolling."""
        ...

    def takes(self, position: Position, cube_info: dict) -> bool:
        """Whether to take a double (``position`` seen from the agent, the doubler on roll is the opponent)."""
        ...

    def accepts_resignation(self, position: Position, points_per_cube: int) -> bool:
        """Whether to accept the opponent's resignation at 1, 2 or 3 times the cube."""
        ...

    def accepts_draw(self, position: Position) -> bool:
        """Whether to accept a draw (casual mode)."""
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

    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play:
        plays = position.legal_plays(*dice)
        return max(plays, key=lambda p: heuristic(p.position) + self._rng.uniform(0, self._noise))

    def wants_to_double(self, position: Position, cube_info: dict) -> bool:
        mine, theirs = position.pip_counts()
        return position.is_race() and mine > 0 and theirs >= mine * 1.12 and theirs - mine >= 8

    def takes(self, position: Position, cube_info: dict) -> bool:
        mine, theirs = position.pip_counts()
        return mine <= theirs * 1.18 if position.is_race() else True

    def accepts_resignation(self, position: Position, points_per_cube: int) -> bool:
        mine, theirs = position.pip_counts()
        return points_per_cube >= 2 or position.off()[1] > 0 or theirs - mine < 40

    def accepts_draw(self, position: Position) -> bool:
        mine, theirs = position.pip_counts()
        return mine > theirs + 20


class EngineAgent(GreedyAgent):
    """Plays with the engine's difficulty level; the greedy player when the engine is missing."""

    def __init__(self, level: str = "intermediate", seed: int | None = None) -> None:
        super().__init__(seed)
        self.level = level
        self.name = level
        self._levels = None
        try:  # the engine is an optional layer below the apps
            from backgammon.engine import levels as _levels  # type: ignore[attr-defined]

            self._levels = _levels
        except Exception:  # ImportError, or an engine without its weights (EngineError)
            self._levels = None

    @property
    def uses_engine(self) -> bool:
        return self._levels is not None

    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play:
        if self._levels is not None:
            try:
                return self._levels.choose_play(position, dice, self.level, self._rng)
            except Exception:
                self._levels = None  # a broken engine must not stop the game
        return super().choose_play(position, dice)


def make_agent(level: str, seed: int | None = None) -> Agent:
    """The computer player for a level name (``greedy`` or one of :data:`LEVELS`)."""
    if level == "greedy":
        return GreedyAgent(seed)
    return EngineAgent(level, seed)
