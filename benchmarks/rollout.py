"""Rollout speed and result: trials per second at 0- and 1-ply play choice, with 1 and more workers.

    python benchmarks/rollout.py [--trials N] [--trials-1ply N] [--truncate P] [--workers K] [--position ID]

Cubeless rollouts with the engine's network, seed 1: plays chosen at 0-ply
(``--trials``) and at 1-ply (``--trials-1ply``, fewer by default: each play
then looks at every reply of the best few candidates), each plain and with
variance reduction (``vr``: each roll's luck subtracted, the default of
:class:`RolloutSettings`; the standard errors at equal trials are compared on
20 positions by ``benchmarks/rollout_variance.py``). For scale,
the table also shows gnubg's own 2-ply evaluation of the position (gnubg_nn,
benchmark-only). gnubg_nn 1.1.0a11's ``rollout`` is not used: in this
environment it returned nonsense or crashed the process, so there is no
side-by-side rollout speed ratio.
"""

from __future__ import annotations

import argparse
import sys
import time

from backgammon.engine.evaluator import NetEvaluator
from backgammon.engine.rollout import RolloutSettings, rollout_position
from backgammon.position import Position


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=144, help="trials at 0-ply (default 144)")
    parser.add_argument("--trials-1ply", type=int, default=36, help="trials at 1-ply (default 36)")
    parser.add_argument("--truncate", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--position", default="4HPwATDgc/ABMA")
    args = parser.parse_args(argv)
    position = Position.from_position_id(args.position)
    evaluator = NetEvaluator.default()
    for ply in (0, 1):  # compile/warm up
        rollout_position(position, evaluator, RolloutSettings(trials=2, truncate=2, ply=ply))
    print(f"position {args.position}, truncate {args.truncate or 'none'}, seed 1")
    print(
        f"{'ply':>4}{'vr':>4}{'workers':>8}{'trials':>8}{'seconds':>10}{'trials/s':>10}{'equity':>9}"
        f"{'s.e.':>8}{'win':>8}"
    )
    for ply, trials in ((0, args.trials), (1, args.trials_1ply)):
        for vr in (False, True):
            for workers in sorted({1, args.workers}):
                settings = RolloutSettings(
                    trials=trials,
                    truncate=args.truncate or None,
                    seed=1,
                    workers=workers,
                    chunk=12,
                    ply=ply,
                    variance_reduction=vr,
                )
                t0 = time.perf_counter()
                r = rollout_position(position, evaluator, settings)
                dt = time.perf_counter() - t0
                print(
                    f"{ply:>4}{'yes' if vr else 'no':>4}{workers:>8}{trials:>8}{dt:>10.2f}{trials / dt:>10.1f}"
                    f"{r.equity:>+9.3f}{r.equity_se:>8.3f}{r.mean[0]:>8.3f}"
                )
    try:
        import gnubg_nn

        board = gnubg_nn.board_from_position_id(args.position)
        p = gnubg_nn.probabilities(board, 2)
        eq = 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]
        print(f"gnubg 2-ply evaluation (for scale): equity {eq:+.3f}, win {p[0]:.3f}")
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
