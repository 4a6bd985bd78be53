"""Engine speed beside gnubg's (``gnubg_nn``), measured in the same run.

Rows: position evaluations per second (ours batched and one at a time; gnubg
one call per position), 0-ply self-play games per second (both driven by the
same Python game loop; plus our numba training loop), and seconds per 2-ply
move choice. The ratio is ours / gnubg's (higher is better for rates, lower
for times).

    python benchmarks/speed.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _players import engine_player, gnubg_player, play_game
from rich.console import Console
from rich.table import Table


def sample_boards(n: int, seed: int) -> np.ndarray:
    from _players import random_player

    from backgammon.engine._selfplay import INITIAL

    rng = np.random.default_rng(seed)
    rand = random_player(seed)
    out = []
    while len(out) < n:
        b = INITIAL.copy()
        while len(out) < n:
            nb = rand(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            if nb[0].sum() == 0 or nb[1].sum() == 0:
                break
            out.append(nb)
            b = nb
    return np.stack(out)


def rate(fn, n: int) -> float:
    t = time.perf_counter()
    fn()
    return n / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--moves2", type=int, default=20, help="positions for the 2-ply timing")
    args = ap.parse_args()

    import gnubg_nn

    from backgammon.engine import _selfplay as sp
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.search import best_board

    ev = NetEvaluator.default()
    boards = sample_boards(args.positions, 1)
    gboards = [[b[1].tolist(), b[0].tolist()] for b in boards]
    ev.evaluate_boards(boards[:10])
    rows = []
    ours = rate(lambda: ev.evaluate_boards(boards), len(boards))
    single = rate(lambda: [ev.evaluate_boards(boards[i : i + 1]) for i in range(2000)], 2000)
    theirs = rate(lambda: [gnubg_nn.probabilities(g, 0) for g in gboards], len(gboards))
    rows.append(("evaluations/s, batched (gnubg: one call each)", ours, theirs, ours / theirs))
    rows.append(("evaluations/s, one call each", single, theirs, single / theirs))

    me, gn = engine_player(0, ev), gnubg_player(0)
    play_game(me, me, np.random.default_rng(0))
    ours = rate(lambda: [play_game(me, me, np.random.default_rng([1, k])) for k in range(args.games)], args.games)
    theirs = rate(lambda: [play_game(gn, gn, np.random.default_rng([1, k])) for k in range(args.games)], args.games)
    rows.append(("0-ply self-play games/s (Python game loop)", ours, theirs, ours / theirs))
    c, r = ev.nets.contact, ev.nets.race
    stats = np.zeros(8)
    arrays = tuple(a.copy() for a in (c.w1, c.b1, c.w2, c.b2, r.w1, r.b1, r.w2, r.b2))
    sp.td_train_games(*arrays, 1, 0, 1, 0.0, stats)
    numba_rate = rate(lambda: sp.td_train_games(*arrays, 1, 1, args.games * 4, 0.0, stats), args.games * 4)
    rows.append(("0-ply self-play games/s (our numba training loop)", numba_rate, theirs, numba_rate / theirs))

    pos = boards[:: max(1, len(boards) // args.moves2)][: args.moves2]
    dice = np.random.default_rng(5).integers(1, 7, (len(pos), 2))
    best_board(pos[0], 3, 1, ev, 2)
    t = time.perf_counter()
    for b, (d1, d2) in zip(pos, dice):
        best_board(b, int(d1), int(d2), ev, 2)
    ours = (time.perf_counter() - t) / len(pos)
    t = time.perf_counter()
    for b, (d1, d2) in zip(pos, dice):
        gnubg_nn.best_move([b[1].tolist(), b[0].tolist()], int(d1), int(d2), n=2)
    theirs = (time.perf_counter() - t) / len(pos)
    rows.append(("seconds per 2-ply move", ours, theirs, ours / theirs))

    table = Table(title="engine speed (one process, this machine)")
    for col in ("measure", "ours", "gnubg_nn", "ratio ours/gnubg"):
        table.add_column(col, justify="right")
    for name, a, b, ratio in rows:
        table.add_row(name, f"{a:,.4g}", f"{b:,.4g}", f"{ratio:.3g}")
    Console().print(table)


if __name__ == "__main__":
    main()
