"""Equity loss per decision of each difficulty level, against the strongest level's choice.

    python benchmarks/levels.py [--positions N] [--seed S] [--evaluator default|gnubg] [--reference LEVEL]

Positions: met in seeded self-play (both sides play the reference choice), with
a seeded roll each; plays with a single legal choice are skipped. For each
level, ``choose_play`` picks a play (seeded noise); its loss is the reference
level's (default: the strongest, ``world_class``) best equity minus its
equity for the chosen play (cubeless, money, at the reference's depth; plays
its move filter dropped keep their lower-ply value).
Prints a table: level, plies, noise, decisions, mean loss per decision with
its standard error, the share of decisions where the level's play differs, the
mean time per decision (choosing and scoring) and the slowest choice.

``--evaluator default`` uses the engine's own network; ``gnubg`` uses GNU
Backgammon's 0-ply net through gnubg_nn (a benchmark-only dependency) as the
shared evaluator, so the figures measure the levels' noise, not our net.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

import numpy as np

from backgammon.engine.levels import LEVELS, STRONGEST, choose_play
from backgammon.engine.search import EvalContext, evaluate_play, rank_plays
from backgammon.position import Position


class GnubgEvaluator:
    """gnubg_nn's 0-ply evaluation behind the engine's evaluate_boards interface (benchmarks only)."""

    def __init__(self) -> None:
        import gnubg_nn

        self._g = gnubg_nn

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        # gnubg boards are [opponent, side on roll]
        return np.array([self._g.probabilities([b[1].tolist(), b[0].tolist()], 0) for b in boards], dtype=float)


def sample_decisions(evaluator, count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    rng = random.Random(seed)
    out: list[tuple[Position, tuple[int, int]]] = []
    while len(out) < count:
        position = Position.initial()
        while not position.is_game_over() and len(out) < count:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            ranked = rank_plays(position, dice, EvalContext(evaluator, 0))
            if len(ranked) > 1:
                out.append((position, dice))
            position = ranked[0].play.position
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--evaluator", choices=("gnubg", "default"), default="default")
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--reference", default=STRONGEST)
    args = parser.parse_args(argv)
    if args.evaluator == "gnubg":
        evaluator = GnubgEvaluator()
    else:
        from backgammon.engine.evaluator import NetEvaluator

        evaluator = NetEvaluator.default()
    t0 = time.perf_counter()
    decisions = sample_decisions(evaluator, args.positions, args.seed)
    ref_level = LEVELS[args.reference]
    reference = [rank_plays(p, d, EvalContext(evaluator, ref_level.plies)) for p, d in decisions]
    print(
        f"{len(decisions)} decisions (seed {args.seed}, evaluator {args.evaluator}), "
        f"reference: {ref_level.name} ({ref_level.plies}-ply) best play"
    )
    print(
        f"{'level':<14}{'plies':>6}{'noise':>8}{'N':>6}{'loss/decision':>16}{'+-SE':>9}{'differs':>9}{'time/dec':>12}{'max':>10}"
    )
    for name in args.levels.split(","):
        level = LEVELS[name]
        t1 = time.perf_counter()
        rng = random.Random(args.seed + 1)
        losses = []
        differs = 0
        slowest = 0.0
        for (position, dice), ranked in zip(decisions, reference):
            t2 = time.perf_counter()
            play = choose_play(position, dice, level, rng, evaluator)
            slowest = max(slowest, time.perf_counter() - t2)
            chosen = next(r for r in ranked if r.play == play)
            if chosen.plies != ranked[0].plies:  # dropped by the filters: compare it at the reference's depth
                chosen = evaluate_play(play, EvalContext(evaluator, ref_level.plies))
            equity = chosen.equity
            losses.append(ranked[0].equity - equity)
            differs += play != ranked[0].play
        mean = statistics.fmean(losses)
        se = statistics.stdev(losses) / math.sqrt(len(losses)) if len(losses) > 1 else 0.0
        print(
            f"{name:<14}{level.plies:>6}{level.noise:>8.3f}{len(losses):>6}{mean:>16.4f}{se:>9.4f}"
            f"{differs / len(losses):>9.1%}{(time.perf_counter() - t1) / len(losses) * 1000:>9.1f} ms"
            f"{slowest * 1000:>7.0f} ms"
        )
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
