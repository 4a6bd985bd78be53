"""Helpers shared by the evaluator/search/training tests (imported, not a conftest)."""

from __future__ import annotations

import random

import numpy as np

from backgammon import Position


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions from random games (every ply of a few random games)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        p = Position.initial()
        while not p.is_game_over() and len(out) < count:
            out.append(p)
            p = rng.choice(p.legal_plays(rng.randint(1, 6), rng.randint(1, 6))).position
    return out


def board(p: Position) -> np.ndarray:
    return np.array([p.mine, p.theirs], dtype=np.int8)


class PlainEvaluator:
    """An evaluator (the network, say) behind a plain ``evaluate_boards``: the search and rollouts take their
    Python paths with it, where with a ``NetEvaluator`` they run compiled kernels. The tests' reference."""

    def __init__(self, evaluator) -> None:
        self._ev = evaluator

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        return self._ev.evaluate_boards(boards)


class FakeEvaluator:
    """A deterministic evaluator whose outputs are a simple function of the board."""

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        b = np.asarray(boards, dtype=np.float64)
        pips = (b[:, :, :24] * np.arange(1, 25)).sum(axis=2) + 25 * b[:, :, 24]
        diff = (pips[:, 1] - pips[:, 0]) / 50.0
        win = 1 / (1 + np.exp(-diff))
        blots = (b[:, 0, :24] == 1).sum(axis=1) / 30.0
        return np.stack([win, win * 0.2, win * 0.01, (1 - win) * 0.2 + blots * 0.1, (1 - win) * 0.01], axis=1)

    def evaluate(self, position: Position):
        from backgammon.engine.evaluator import Probabilities

        return Probabilities.from_array(self.evaluate_boards(board(position)[None])[0])
