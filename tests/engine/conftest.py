"""Engine test helpers: realistic positions from seeded self-play with gnubg's 0-ply net (test-only use
of gnubg_nn), exposed as the ``gnubg_tools`` fixture (test modules cannot import conftest files)."""

from __future__ import annotations

import random
import types

import pytest

from backgammon.position import Position


def gnubg_board(position: Position) -> object:
    import gnubg_nn

    return gnubg_nn.board_from_position_id(position.position_id())


def gnubg_probabilities(position: Position) -> tuple[float, ...]:
    import gnubg_nn

    return tuple(gnubg_nn.probabilities(gnubg_board(position), 0))


def sample_positions(count: int, seed: int, every: int = 3) -> list[Position]:
    """Positions met in games where both sides play gnubg 0-ply's best play, every few plies."""
    import gnubg_nn

    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position.initial()
        ply = 0
        while not position.is_game_over() and len(found) < count:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = position.legal_plays(d1, d2)
            if len(plays) == 1:
                position = plays[0].position
            else:
                position = min(
                    plays, key=lambda p: _equity(gnubg_nn.probabilities(gnubg_board(p.position), 0))
                ).position
            ply += 1
            if ply % every == 0 and not position.is_game_over():
                found.append(position)
    return found


def _equity(p: tuple[float, ...]) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


@pytest.fixture(scope="session")
def gnubg_tools() -> types.SimpleNamespace:
    """``gnubg_board``, ``gnubg_probabilities``, ``sample_positions`` (skips if gnubg_nn is missing)."""
    pytest.importorskip("gnubg_nn")
    return types.SimpleNamespace(
        gnubg_board=gnubg_board, gnubg_probabilities=gnubg_probabilities, sample_positions=sample_positions
    )


class FakeEvaluator:
    """A cheap, deterministic evaluator for engine tests: a logistic in the pip difference.

    Gammon chances grow with the lead; scores exactly 0/1 outputs for finished games.
    """

    def __init__(self, scale: float = 15.0) -> None:
        self.scale = scale
        self.calls = 0

    def _one(self, mine: "np.ndarray", theirs: "np.ndarray") -> list[float]:
        import math

        if int(theirs.sum()) == 0:
            return [0.0, 0.0, 0.0, 0.0, 0.0]
        if int(mine.sum()) == 0:
            return [1.0, 0.0, 0.0, 0.0, 0.0]
        pips_me = sum((i + 1) * int(c) for i, c in enumerate(mine))
        pips_them = sum((i + 1) * int(c) for i, c in enumerate(theirs))
        lead = pips_them - pips_me + 4  # the side on roll is worth about 4 pips
        win = 1.0 / (1.0 + math.exp(-lead / self.scale))
        wg = win * max(0.0, min(0.3, lead / 300))
        lg = (1 - win) * max(0.0, min(0.3, -lead / 300))
        return [win, wg, 0.0, lg, 0.0]

    def evaluate_boards(self, boards: "np.ndarray") -> "np.ndarray":
        import numpy as np

        self.calls += len(boards)
        return np.array([self._one(b[0], b[1]) for b in boards], dtype=float).reshape(len(boards), 5)

    def evaluate(self, position: Position) -> tuple[float, ...]:
        import numpy as np

        return tuple(self.evaluate_boards(np.array([[position.mine, position.theirs]], dtype=np.int8))[0])


@pytest.fixture()
def fake_evaluator() -> FakeEvaluator:
    return FakeEvaluator()
