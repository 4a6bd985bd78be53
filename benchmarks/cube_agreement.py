"""Agreement of our match cube decisions with GNU Backgammon's, on the same probabilities.

    python benchmarks/cube_agreement.py [--positions N] [--seed S]

Positions: met every other ply in games where both sides play gnubg 0-ply's
best play (seeded dice). For each position and each match score in the table,
gnubg's 0-ply probabilities go into :func:`backgammon.engine.cube.cube_decision`
(Kazaross-XG2 MET, Janowski model) and the answer (double?, take?) is compared
with ``gnubg_nn.evaluate_cube_decision`` (gnubg's own MET and cube model).
gnubg_nn is a benchmark-only dependency; it has no money cube decisions.
A disagreement is "close" when gnubg's own no-double/double or take/pass
margin is under 0.02 in match-winning chance.
"""

from __future__ import annotations

import argparse
import random
import sys

from backgammon.engine.cube import CubeInfo, cube_decision, cube_efficiency
from backgammon.position import Position

SCORES = [(3, 3), (5, 5), (2, 4), (4, 2), (7, 3), (3, 7), (2, 1), (1, 2), (9, 9), (4, 4)]


def _board(g, position: Position):
    return g.board_from_position_id(position.position_id())


def _equity(p) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def sample_positions(g, count: int, seed: int, every: int = 2) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position, ply = Position.initial(), 0
        while not position.is_game_over() and len(found) < count:
            plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
            position = min(plays, key=lambda p: _equity(g.probabilities(_board(g, p.position), 0))).position
            ply += 1
            if ply % every == 0 and not position.is_game_over():
                found.append(position)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    import gnubg_nn as g

    positions = sample_positions(g, args.positions, args.seed)
    rows = []
    total = agree = close = 0
    for a, b in SCORES:
        n = ok = near = 0
        for position in positions:
            probs = tuple(g.probabilities(_board(g, position), 0))
            g.set.score(a, b, 0)
            theirs = g.evaluate_cube_decision(g.key_of_board(_board(g, position)), 0, i=1)
            ours = cube_decision(probs, CubeInfo.match(a, b, post_crawford=1 in (a, b)), cube_efficiency(position))
            same = (ours.should_double, ours.take) == (bool(theirs[0]), bool(theirs[1]))
            n += 1
            ok += same
            nd, dt, dp = theirs[3], theirs[4], theirs[5]
            near += (not same) and min(abs(nd - min(dt, dp)), abs(dt - dp)) < 0.02
        rows.append((a, b, n, ok, near))
        total, agree, close = total + n, agree + ok, close + near
    print(f"{len(positions)} positions (seed {args.seed}); our answer vs gnubg_nn.evaluate_cube_decision")
    print(f"{'score (away)':<14}{'N':>5}{'agree':>7}{'%':>7}{'close':>7}")
    for a, b, n, ok, near in rows:
        label = f"{a}/{b}" + (" post-Cr." if 1 in (a, b) else "")
        print(f"{label:<14}{n:>5}{ok:>7}{ok / n:>7.1%}{near:>7}")
    print(f"{'all':<14}{total:>5}{agree:>7}{agree / total:>7.1%}{close:>7}  (disagreements: {total - agree})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
