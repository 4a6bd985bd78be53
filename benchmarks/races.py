"""Race benchmark: the error of race evaluations against rolled-out reference values.

    python benchmarks/races.py [--limit N] [--trials T] [--points P]     (the table)
    python benchmarks/races.py --build [--chunks K]                      (extends the committed set)

**The set** (``benchmarks/data/races/chunk-NNNN.npz``, committed, 100 positions a chunk; each chunk
built from ``numpy.random.default_rng([seed, chunk])`` alone, so ``--build`` resumes and extends it
chunk by chunk): one position per seeded cubeless game between our engine's 0-ply player and
itself, each play replaced by a random legal one with probability 0.15 while there is contact (so
that races of every shape occur), taken uniformly among the game's pure-race positions (no contact,
not both sides home: those are the exact database's) with the side on roll to play. **Reference**:
a cubeless rollout of each position by our engine (``rollout.rollout_position``, 0-ply plays,
luck subtracted, ``--ref-trials`` trials, 144 by default: 0.003 standard error of equity), the mean
and standard error of the five outputs and the equity stored.

**The run** scores, on the same positions, the rms error against the reference of win, win-gammon
(wg) and cubeless equity, with the reference's own mean squared standard error subtracted (the
``rms*`` columns: the evaluation's error alone, as far as the reference noise is known) beside the
plain rms, for: our race net (``NetEvaluator`` with the shipped weights, its race branch as it is
now, and the race net alone); the one-sided method (``engine.race.race_outputs``: exact database of
``--points`` points, one-sided rollouts of ``--trials`` trials beyond it); gnubg 0-ply
(``gnubg_nn.probabilities``; a benchmark-only oracle) and gnubg's own one-sided race evaluation
(``p_osr``). The reference plays with our nets, which leans its way; in races the plays matter little.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from backgammon.engine.movegen import RACE
from backgammon.training.race_labels import game_races

DATA = Path(__file__).parent / "data" / "races"
SEED = 46
CHUNK = 100
RANDOM_PLAY = 0.15


def sample_race(rng: np.random.Generator, ev) -> np.ndarray | None:
    """One race position (side on roll first) of a seeded game, or None if the game had none."""
    races = game_races(rng, ev, RANDOM_PLAY)
    if not races:
        return None
    return races[int(rng.integers(len(races)))]


def build(chunks: int, seed: int, data: Path, ref_trials: int) -> None:
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.rollout import RolloutSettings, board_to_position, rollout_position

    ev = NetEvaluator.default()
    data.mkdir(parents=True, exist_ok=True)
    for c in range(chunks):
        path = data / f"chunk-{c:04d}.npz"
        if path.exists():
            continue
        t0 = time.perf_counter()
        rng = np.random.default_rng([seed, c])
        boards, means, ses = [], [], []
        while len(boards) < CHUNK:
            b = sample_race(rng, ev)
            if b is None:
                continue
            r = rollout_position(
                board_to_position(b), ev, RolloutSettings(trials=ref_trials, seed=int(rng.integers(2**31)))
            )
            boards.append(b)
            means.append(r.mean)
            ses.append(np.array(r.ci95) / 1.96)
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez_compressed(
            tmp,
            boards=np.array(boards, dtype=np.int8),
            mean=np.array(means),
            se=np.array(ses),
            trials=np.array(ref_trials),
        )
        tmp.replace(path)
        print(f"chunk {c}: {CHUNK} positions in {time.perf_counter() - t0:.0f} s", flush=True)


def load(data: Path, limit: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    files = sorted(data.glob("chunk-*.npz"))
    if not files:
        sys.exit(f"no race positions in {data}: build them with --build")
    parts = [np.load(f) for f in files]
    boards = np.concatenate([p["boards"] for p in parts])
    mean = np.concatenate([p["mean"] for p in parts])
    se = np.concatenate([p["se"] for p in parts])
    if limit is not None and limit < len(boards):
        keep = np.linspace(0, len(boards) - 1, limit).round().astype(int)
        boards, mean, se = boards[keep], mean[keep], se[keep]
    return boards, mean, se


def equity(p: np.ndarray) -> np.ndarray:
    return 2.0 * p[:, 0] - 1.0 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]


def errors(pred: np.ndarray, mean: np.ndarray, se: np.ndarray) -> list[float]:
    """rms of win, wg, equity; then the same with the reference's mean squared error taken out."""
    cols = [
        (pred[:, 0], mean[:, 0], se[:, 0]),
        (pred[:, 1], mean[:, 1], se[:, 1]),
        (equity(pred), mean[:, 5], se[:, 5]),
    ]
    plain = [float(np.sqrt(np.mean((p - m) ** 2))) for p, m, _ in cols]
    net = [float(np.sqrt(max(np.mean((p - m) ** 2) - np.mean(s**2), 0.0))) for p, m, s in cols]
    return plain + net


def race_net_only(boards: np.ndarray) -> np.ndarray:
    """The shipped race net on every board (the contact net never: these are races)."""
    from backgammon.engine.encoding import MAX_NONZERO, encode_for
    from backgammon.engine.evaluator import NetEvaluator, sanitize
    from backgammon.engine.network import forward_sparse

    ev = NetEvaluator.default()
    _, _, _, _, rw1, rb1, rw2, rb2 = ev.arrays
    idx = np.empty(MAX_NONZERO, dtype=np.int64)
    val = np.empty(MAX_NONZERO)
    hid = np.empty(rb1.shape[0])
    out = np.empty((len(boards), 5))
    o = np.empty(5)
    for i, b in enumerate(boards):
        k = encode_for(b, RACE, idx, val)
        forward_sparse(idx, val, k, rw1, rb1, rw2, rb2, hid, o)
        sanitize(o)
        out[i] = o
    return out


def run(args: argparse.Namespace) -> None:
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.race import race_outputs

    boards, mean, se = load(args.data, args.limit)
    n = len(boards)
    print(
        f"{n} race positions from {args.data}; reference: rollouts, mean standard error of equity "
        f"{float(np.sqrt(np.mean(se[:, 5] ** 2))):.4f}"
    )
    rows = []

    def timed(name: str, fn) -> None:
        t = time.perf_counter()
        pred = fn()
        rows.append((name, errors(pred, mean, se), (time.perf_counter() - t) / n * 1e3))

    race_net_only(boards[:2])  # compile first
    timed("race net (shipped)", lambda: race_net_only(boards))
    timed("NetEvaluator (as now)", lambda: NetEvaluator.default().evaluate_boards(boards))
    net = rows[-1]
    net_pred = NetEvaluator.default().evaluate_boards(boards)
    for pts in args.points:
        t = time.perf_counter()
        pred = np.array([race_outputs(b, points=pts, trials=args.trials, seed=i) for i, b in enumerate(boards)])
        ms = (time.perf_counter() - t) / n * 1e3
        rows.append((f"one-sided, {pts}-pt db, {args.trials} trials", errors(pred, mean, se), ms))
        # the one-sided winning chance with the net's gammon and backgammon rates (per win, per loss)
        hyb = net_pred.copy()
        w, nw = pred[:, 0], np.clip(net_pred[:, 0], 1e-9, 1.0)
        nl = np.clip(1.0 - net_pred[:, 0], 1e-9, 1.0)
        hyb[:, 0] = w
        hyb[:, 1:3] = net_pred[:, 1:3] / nw[:, None] * w[:, None]
        hyb[:, 3:5] = net_pred[:, 3:5] / nl[:, None] * (1.0 - w)[:, None]
        rows.append((f"one-sided win ({pts}-pt), net gammon rates", errors(hyb, mean, se), ms + net[2]))
    try:
        import gnubg_nn
    except ImportError:
        gnubg_nn = None
    if gnubg_nn is not None:
        gb = [[b[1].tolist(), b[0].tolist()] for b in boards]
        timed("gnubg 0-ply", lambda: np.array([gnubg_nn.probabilities(g, 0) for g in gb]))
        timed("gnubg one-sided (p_osr)", lambda: np.array([gnubg_nn.probabilities(g, gnubg_nn.p_osr) for g in gb]))
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"Race evaluation error against rollouts ({n} positions; rms*: reference noise taken out)")
    for col in ("evaluation", "win rms", "wg rms", "equity rms", "win rms*", "wg rms*", "equity rms*", "ms/pos"):
        t.add_column(col, justify="left" if col == "evaluation" else "right")
    for name, e, ms in rows:
        t.add_row(name, *(f"{x:.4f}" for x in e), f"{ms:.2f}")
    Console(width=150).print(t)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="store_true", help="sample and roll out chunks missing from the set")
    ap.add_argument("--chunks", type=int, default=20, help="with --build: chunks 0..K-1 (100 positions each)")
    ap.add_argument("--ref-trials", type=int, default=144, help="with --build: reference rollout trials")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=None, help="at most N positions (evenly spread)")
    ap.add_argument("--trials", type=int, default=1296, help="one-sided rollout trials beyond the database")
    ap.add_argument(
        "--points", type=lambda s: [int(x) for x in s.split(",")], default=[6], help="database sizes, e.g. 6,8"
    )
    args = ap.parse_args(argv)
    if args.build:
        build(args.chunks, args.seed, args.data, args.ref_trials)
        return 0
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
