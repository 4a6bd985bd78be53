"""Engine test helpers: realistic positions from seeded self-play with gnubg's 0-ply net (test-only use
of gnubg_nn), exposed as the ``gnubg_tools`` fixture (test modules cannot import conftest files)."""

from __future__ import annotations

import random
import sys
import types
from pathlib import Path

import pytest

from backgammon.position import Position

sys.path.insert(0, str(Path(__file__).parent))  # for fake_evaluator (also used by subprocesses)
from fake_evaluator import FakeEvaluator, GnubgEvaluator


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


@pytest.fixture()
def fake_evaluator() -> FakeEvaluator:
    return FakeEvaluator()


@pytest.fixture(scope="session")
def gnubg_evaluator() -> GnubgEvaluator:
    """gnubg's 0-ply net as an evaluator (skips if gnubg_nn is missing)."""
    pytest.importorskip("gnubg_nn")
    return GnubgEvaluator()
