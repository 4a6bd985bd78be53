"""Test helper: realistic positions from seeded self-play with gnubg's 0-ply net (test-only use of gnubg_nn)."""

from __future__ import annotations

import random

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
