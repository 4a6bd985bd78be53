"""A cheap deterministic evaluator for engine tests (also loadable by the CLI:
BACKGAMMON_EVALUATOR=fake_evaluator:FakeEvaluator)."""

from __future__ import annotations

import numpy as np

from backgammon.position import Position


class FakeEvaluator:
    """A cheap, deterministic evaluator for engine tests: a logistic in the pip difference.

    Gammon chances grow with the lead; scores exactly 0/1 outputs for finished games.
    """

    def __init__(self, scale: float = 15.0) -> None:
        self.scale = scale
        self.calls = 0

    def _one(self, mine: np.ndarray, theirs: np.ndarray) -> list[float]:
        import math

        if int(theirs.sum()) == 0:  # they have borne off: the side on roll lost
            gammon = int(mine.sum()) == 15
            backgammon = gammon and int(mine[18:25].sum()) > 0
            return [0.0, 0.0, 0.0, float(gammon), float(backgammon)]
        if int(mine.sum()) == 0:
            gammon = int(theirs.sum()) == 15
            backgammon = gammon and int(theirs[18:25].sum()) > 0
            return [1.0, float(gammon), float(backgammon), 0.0, 0.0]
        pips_me = sum((i + 1) * int(c) for i, c in enumerate(mine))
        pips_them = sum((i + 1) * int(c) for i, c in enumerate(theirs))
        lead = pips_them - pips_me + 4  # the side on roll is worth about 4 pips
        win = 1.0 / (1.0 + math.exp(-lead / self.scale))
        wg = win * max(0.0, min(0.3, lead / 300))
        lg = (1 - win) * max(0.0, min(0.3, -lead / 300))
        return [win, wg, 0.0, lg, 0.0]

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        self.calls += len(boards)
        return np.array([self._one(b[0], b[1]) for b in boards], dtype=float).reshape(len(boards), 5)

    def evaluate(self, position: Position) -> tuple[float, ...]:
        return tuple(self.evaluate_boards(np.array([[position.mine, position.theirs]], dtype=np.int8))[0])


class GnubgEvaluator:
    """GNU Backgammon's 0-ply net (gnubg_nn, a test-only dependency) behind ``evaluate_boards``.

    Plays sensibly, so self-played games end in a normal number of moves.
    """

    def __init__(self) -> None:
        import gnubg_nn

        self._g = gnubg_nn

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        # gnubg boards are [opponent, side on roll]
        return np.array([self._g.probabilities([b[1].tolist(), b[0].tolist()], 0) for b in boards], dtype=float)
