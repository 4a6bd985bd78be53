"""Move-generation speed: Position.legal_plays (with the kernel and pure Python), the numba kernel and gnubg.

    python benchmarks/movegen.py [--positions N] [--seed S] [--repeat R]

The corpus is fixed by the seed: positions met in random self-play from the
start (split into contact and race/bear-off by phase), random bear-off
positions and random positions with checkers on the bar; every position is
paired with all 21 rolls, and the doubles are also timed on their own. Each
method is timed on the same position-rolls in the same run (``--repeat``
rounds; the rates shown are each method's best round):

- ``legal_plays``: the public API, ``len(Position.legal_plays(d1, d2))``, backed
  by the engine's compiled generator (the default when numba is installed);
- ``list(legal_plays)``: the public move list materialised, ``list(Position.legal_plays(d1, d2))``
  (every :class:`Play` object made; their positions and steps are built when first asked for);
- ``legal_plays+positions``: the same, also building every resulting
  ``Position`` (``[play.position for play in plays]``), as gnubg builds its keys;
- ``pure Python``: ``len(Position.legal_plays(d1, d2))`` with the pure-Python
  fallback (``backgammon.moves.use_accelerator(False)``);
- ``kernel``: ``backgammon.engine.movegen.successors_ws`` called from Python once per
  position-roll (with a reused workspace);
- ``kernel (njit loop)``: the same kernel driven by a compiled loop, the way
  the engine calls it (no Python per call);
- ``gnubg``: GNU Backgammon's generator through ``gnubg_nn.moves`` (C, called
  from Python, returning the resulting position keys). gnubg_nn is a
  benchmark/test dependency only.

Prints position-rolls per second, resulting plays per second and each
method's throughput as a fraction of gnubg's. Times are this process's CPU
time (``time.process_time``), so other programs sharing the cores disturb
the figures less; single-threaded throughout. The methods are timed in
rounds, each round timing every method once in turn, so that each round's
ratio to gnubg compares runs made close together; the ratio is printed as the
mean over the rounds ± its standard error.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from backgammon.moves import use_accelerator
from backgammon.position import BAR, Phase, Position

ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7))


# ------------------------------------------------------------------- corpus
def self_play(count: int, rng: random.Random) -> list[Position]:
    seen: set[Position] = set()
    out: list[Position] = []
    position = Position.initial()
    while len(out) < count:
        if position.is_game_over():
            position = Position.initial()
            continue
        if position not in seen:
            seen.add(position)
            out.append(position)
        position = rng.choice(position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))).position
    return out


def bearoff(rng: random.Random) -> Position:
    sides = []
    for _ in range(2):
        side = [0] * 25
        for _ in range(rng.randint(1, 15)):
            side[rng.randrange(6)] += 1
        sides.append(tuple(side))
    return Position(sides[0], sides[1])


def on_bar(rng: random.Random) -> Position:
    while True:
        mine, theirs = [0] * 25, [0] * 25
        mine[BAR] = rng.randint(1, 3)
        for _ in range(rng.randint(4, 13)):
            theirs[rng.choice((0, 1, 2, 3, 4, 5, rng.randrange(24)))] += 1
        for _ in range(15 - mine[BAR]):
            i = rng.randrange(24)
            if theirs[23 - i] == 0:
                mine[i] += 1
        try:
            return Position(tuple(mine), tuple(theirs))
        except ValueError:
            continue


def build_corpus(n: int, seed: int) -> dict[str, list[tuple[Position, int, int]]]:
    """Named sets of (position, d1, d2)."""
    rng = random.Random(seed)
    played = self_play(n, rng)
    contact = [p for p in played if p.phase() is Phase.CONTACT and not p.mine[BAR]]
    race = [p for p in played if p.phase() in (Phase.RACE, Phase.BEAROFF)]
    bear = [bearoff(rng) for _ in range(max(1, n // 5))]
    bar = [on_bar(rng) for _ in range(max(1, n // 5))]
    sets = {
        "contact": contact,
        "race": race,
        "bear-off": bear,
        "bar": bar,
    }
    out = {name: [(p, d1, d2) for p in ps for d1, d2 in ROLLS] for name, ps in sets.items() if ps}
    everything = [p for ps in sets.values() for p in ps]
    out["doubles only"] = [(p, d, d) for p in everything for d in range(1, 7)]
    out["all"] = [(p, d1, d2) for p in everything for d1, d2 in ROLLS]
    return out


# ------------------------------------------------------------------ methods
def run_legal_plays(items: list[tuple[Position, int, int]]) -> int:
    total = 0
    for p, d1, d2 in items:
        total += len(p.legal_plays(d1, d2))
    return total


def run_list(items: list[tuple[Position, int, int]]) -> int:
    total = 0
    for p, d1, d2 in items:
        total += len(list(p.legal_plays(d1, d2)))
    return total


def run_legal_positions(items: list[tuple[Position, int, int]]) -> int:
    total = 0
    for p, d1, d2 in items:
        total += len([play.position for play in p.legal_plays(d1, d2)])
    return total


def run_pure(items: list[tuple[Position, int, int]]) -> int:
    use_accelerator(False)
    try:
        return run_legal_plays(items)
    finally:
        use_accelerator(True)


def make_kernel_runners() -> tuple[Callable[..., int], Callable[..., int]] | None:
    try:
        from backgammon.engine import movegen  # noqa: I001  (first: it sets numba's cache directory)

        from numba import njit
    except ImportError:
        return None
    out = np.empty((movegen.MAX_PLAYS, 2, 25), dtype=np.int8)
    work, table = movegen.new_workspace()
    successors_ws = movegen.successors_ws

    def per_call(arrays: tuple[np.ndarray, np.ndarray]) -> int:
        boards, dice = arrays
        total = 0
        for k in range(len(dice)):
            total += successors_ws(boards[k], int(dice[k, 0]), int(dice[k, 1]), out, work, table)
        return total

    @njit(cache=False)
    def loop(boards: np.ndarray, dice: np.ndarray, out: np.ndarray, work: np.ndarray, table: np.ndarray) -> int:
        total = 0
        for k in range(dice.shape[0]):
            total += successors_ws(boards[k], dice[k, 0], dice[k, 1], out, work, table)
        return total

    def compiled(arrays: tuple[np.ndarray, np.ndarray]) -> int:
        boards, dice = arrays
        return loop(boards, dice, out, work, table)

    return per_call, compiled


def to_arrays(items: list[tuple[Position, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    boards = np.array([[p.mine, p.theirs] for p, _, _ in items], dtype=np.int8)
    dice = np.array([[d1, d2] for _, d1, d2 in items], dtype=np.int64)
    return boards, dice


def make_gnubg_runner() -> Callable[..., int] | None:
    try:
        import gnubg_nn
    except ImportError:
        return None
    moves = gnubg_nn.moves

    def run(items: list[tuple[list[list[int]], int, int]]) -> int:
        total = 0
        for board, d1, d2 in items:
            total += len(moves(board, d1, d2)) or 1  # a roll that cannot be played counts as one play
        return total

    return run


def timed(fn: Callable[[object], int], arg: object) -> tuple[float, int]:
    t0 = time.process_time()
    count = fn(arg)
    return time.process_time() - t0, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=400, help="self-play positions (default 400)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    args = parser.parse_args(argv)

    corpus = build_corpus(args.positions, args.seed)
    accelerated = use_accelerator(True)
    kernel = make_kernel_runners()
    gnubg = make_gnubg_runner()
    warm = corpus["all"][:50]
    run_legal_plays(warm)  # load (and compile) the kernels before timing
    if kernel is not None:
        kernel[0](to_arrays(warm))
        kernel[1](to_arrays(warm))

    header = f"{'set':<13} {'method':<22} {'pos-rolls':>9} {'plays':>8} {'pos-rolls/s':>12} {'plays/s':>11} "
    header += f"{'vs gnubg':>15}"
    print(
        f"move generation, seed {args.seed}, {args.repeat} rounds (each round times every method once, in turn), "
        "CPU time of one thread"
    )
    print("rates: the best round; vs gnubg: the mean of the rounds' ratios +- its standard error")
    print(f"legal_plays uses {'the compiled kernel' if accelerated else 'pure Python (numba is not installed)'}")
    print(header)
    print("-" * len(header))
    for name, items in corpus.items():
        methods: list[tuple[str, Callable[[object], int], object]] = [
            ("legal_plays", run_legal_plays, items),  # type: ignore[list-item]
            ("list(legal_plays)", run_list, items),  # type: ignore[list-item]
            ("legal_plays+positions", run_legal_positions, items),  # type: ignore[list-item]
            ("pure Python", run_pure, items),  # type: ignore[list-item]
        ]
        if kernel is not None:
            arrays = to_arrays(items)
            methods += [("kernel (per call)", kernel[0], arrays), ("kernel (njit loop)", kernel[1], arrays)]
        if gnubg is not None:
            g_items = [([list(p.theirs), list(p.mine)], d1, d2) for p, d1, d2 in items]
            methods.append(("gnubg (gnubg_nn)", gnubg, g_items))
        times: dict[str, list[float]] = {method: [] for method, _, _ in methods}
        counts: dict[str, int] = {}
        for _ in range(args.repeat):
            for method, fn, arg in methods:
                t, counts[method] = timed(fn, arg)
                times[method].append(t)
        if len(set(counts.values())) > 1:
            print(f"warning: {name}: play counts differ: {counts}", file=sys.stderr)
        for method, _, _ in methods:
            best = min(times[method])
            rate = len(items) / best
            ratio = f"{'n/a':>15}"
            if gnubg is not None:
                ratios = [g / t for t, g in zip(times[method], times["gnubg (gnubg_nn)"], strict=True)]
                mean = statistics.fmean(ratios)
                se = statistics.stdev(ratios) / math.sqrt(len(ratios)) if len(ratios) > 1 else float("nan")
                ratio = f"{mean:8.3f} ± {se:5.3f}"
            print(
                f"{name:<13} {method:<22} {len(items):>9} {counts[method]:>8} {rate:>12,.0f} "
                f"{counts[method] / best:>11,.0f} {ratio}"
            )
        print()
    if gnubg is None:
        print("gnubg_nn is not installed: no gnubg column", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
