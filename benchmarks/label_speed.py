"""2-ply label speed: the labeller (labels v2) with and without pruning, on the same positions.

The positions are sampled as ``backgammon label`` samples them (0-ply self-play of the shipped nets,
near-best exploration) from ``--seed``. Rows: labels/s by wall clock and by CPU time (all threads'
CPU time, so "per core"), and CPU milliseconds per label, for each labeller at 1 and 2 threads. The
CPU columns are the ones to trust on a loaded machine (other processes stretch the wall clock).
(The labeller of labels v1, float64 nets without the bear-off database at the leaves, is gone from
the tree; the README keeps its last figures.)

Then the agreement of the pruned labels with the unpruned ones: the mean absolute difference of the
cubeless equity and of each output. Last, how often the pruned choice of a reply differs from the
unpruned one (every roll of every position, the choice both ways by the 0-ply net) and the mean
equity it loses.

With ``--three N``, 3-ply labels of the first N positions too: the full label and the sampled-roll
estimates (``backgammon label --plies 3 --rolls K``, K = 3, 5, 7), timed the same way, with each
estimate's rms equity difference from the full label.

    python benchmarks/label_speed.py [--positions 200] [--seed 20261203] [--prune 12] [--three 60]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit
from rich.console import Console
from rich.table import Table

from backgammon.engine._kernels import nply
from backgammon.engine.evaluator import default_weights_path
from backgammon.engine.movegen import successors_ws
from backgammon.training import _distill
from backgammon.training.labels import fit_pruner, label_boards_fast, leaf_arrays, net_arrays, sanitized


def timed(fn) -> tuple[np.ndarray, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


@njit(cache=False)
def pruned_choices(boards, keep, pw, leaf, stats) -> None:
    """``stats``: choices, choices where pruning changed the play, equity lost summed, choices pruned."""
    levels, shared = nply.fast_scratch(leaf[1], leaf[5])
    cand, work, table = levels[0]
    o = np.empty(5)
    exact = np.empty(5)
    pruned = np.empty(5)
    for i in range(boards.shape[0]):
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                n = successors_ws(boards[i], d1, d2, cand, work, table)
                a = nply.choose_pruned(cand, n, 0, pw, leaf, shared, o, exact)
                b = nply.choose_pruned(cand, n, keep, pw, leaf, shared, o, pruned)
                stats[0] += 1
                stats[3] += n > keep
                if a != b:
                    stats[1] += 1
                    # the opponent's equities after the play: the pruned play leaves it more
                    e_exact = 2 * exact[0] - 1 + exact[1] - exact[3] + exact[2] - exact[4]
                    e_pruned = 2 * pruned[0] - 1 + pruned[1] - pruned[3] + pruned[2] - pruned[4]
                    stats[2] += e_pruned - e_exact


def equity(t: np.ndarray) -> np.ndarray:
    return 2 * t[:, 0] - 1 + t[:, 1] - t[:, 3] + t[:, 2] - t[:, 4]


def three_ply(boards, arrays, prune, pruner, threads_list, console) -> None:
    """3-ply labels of ``boards``: the full label and the sampled-roll estimates (``backgammon label --plies 3
    --rolls K``), their speed and how far the estimates stray from the full label."""
    label_boards_fast(boards[:2], arrays, 3, 1, prune, pruner, rolls=3)  # compile
    speed = Table(title=f"3-ply labels of {len(boards)} positions")
    for col in ("labeller", "threads", "labels/s (wall)", "labels/s per core (CPU)", "CPU ms / label", "rms Δ equity"):
        speed.add_column(col, justify="right" if col != "labeller" else "left")
    full = None
    for rolls in (0, 3, 5, 7):
        name = "3-ply, every roll" if rolls == 0 else f"3-ply, --rolls {rolls}"
        for threads in threads_list:
            out, wall, cpu = timed(lambda r=rolls, t=threads: label_boards_fast(boards, arrays, 3, t, prune, pruner, r))
            full = out if full is None else full
            rms = float(np.sqrt(np.mean((equity(out) - equity(full)) ** 2)))
            n = len(boards)
            speed.add_row(
                name, str(threads), f"{n / wall:.1f}", f"{n / cpu:.1f}", f"{1000 * cpu / n:.1f}", f"{rms:.4f}"
            )
    console.print(speed)
    console.print("(rms Δ equity: from the full 3-ply label of the same positions)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--prune", type=int, default=12, help="replies kept per roll at the inner ply")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument(
        "--three",
        type=int,
        default=0,
        help="also time 3-ply labels (full, and with --rolls 3, 5 and 7) on this many of the positions",
    )
    args = ap.parse_args()
    console = Console(width=150)

    arrays = net_arrays(default_weights_path())
    boards = np.empty((args.positions, 2, 25), dtype=np.int8)
    _distill.sample_positions(*arrays, args.seed, 0, 0.1, boards, 0.25, 0.1)
    t0 = time.process_time()
    pruner = fit_pruner(arrays)
    fit_s = time.process_time() - t0
    # compile / warm up every path on two boards
    label_boards_fast(boards[:2], arrays, 2, 1, 0)
    label_boards_fast(boards[:2], arrays, 2, 2, args.prune, pruner)

    speed = Table(title=f"2-ply labels of {args.positions} positions (seed {args.seed})")
    for col in ("labeller", "threads", "labels/s (wall)", "labels/s per core (CPU)", "CPU ms / label"):
        speed.add_column(col, justify="right" if col != "labeller" else "left")
    results: dict[str, np.ndarray] = {}
    runs = [
        ("v2, no pruning", lambda t: sanitized(label_boards_fast(boards, arrays, 2, t, 0))),
        (f"v2, prune {args.prune}", lambda t: sanitized(label_boards_fast(boards, arrays, 2, t, args.prune, pruner))),
    ]
    for name, fn in runs:
        for threads in args.threads:
            out, wall, cpu = timed(lambda fn=fn, threads=threads: fn(threads))
            results.setdefault(name, out)
            assert np.allclose(results[name], out, atol=0, rtol=0), "labels depend on the thread count"
            n = args.positions
            speed.add_row(name, str(threads), f"{n / wall:.1f}", f"{n / cpu:.1f}", f"{1000 * cpu / n:.2f}")
    console.print(speed)
    console.print(f"(the pruning model's fit: {fit_s:.1f} s CPU, once per process)")

    agree = Table(title="agreement: mean |difference| of the labels")
    for col in ("labels", "against", "equity", "max |Δ equity|", "win", "win g", "win bg", "lose g", "lose bg"):
        agree.add_column(col, justify="right" if col not in ("labels", "against") else "left")
    exact = results["v2, no pruning"]
    pruned = results[f"v2, prune {args.prune}"]
    for name, new, ref, ref_name in ((f"v2, prune {args.prune}", pruned, exact, "v2, no pruning"),):
        d = np.abs(equity(new) - equity(ref))
        each = np.abs(new - ref).mean(axis=0)
        agree.add_row(name, ref_name, f"{d.mean():.5f}", f"{d.max():.4f}", *(f"{x:.5f}" for x in each))
    console.print(agree)
    signed = float(np.mean(equity(pruned) - equity(exact)))
    console.print(f"mean signed equity difference, pruned - unpruned: {signed:+.5f}")

    if args.three:
        three_ply(boards[: args.three], arrays, args.prune, pruner, args.threads, console)

    stats = np.zeros(4)
    pruned_choices(boards, args.prune, pruner, leaf_arrays(arrays), stats)
    console.print(
        f"pruned reply choices (keep {args.prune}; {int(stats[0])} rolls, {int(stats[3])} of them with more "
        f"results than that): the pruned best differs from the unpruned best in {stats[1] / stats[0]:.2%} "
        f"of the rolls; mean equity lost {stats[2] / stats[0]:.5f} per roll "
        f"({stats[2] / max(stats[1], 1):.4f} where it differs)"
    )


if __name__ == "__main__":
    main()
