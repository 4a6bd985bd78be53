"""Engine speed beside gnubg's (``gnubg_nn``), measured in the same run.

Rows: position evaluations per second (ours batched and one at a time; gnubg
one call per position), 0-ply self-play games per second (all driven by the
same Python game loop; plus our numba training loop and bgsage's own C++
loop), seconds per 2-ply move choice, and rollout games per second (ours
beside Debian gnubg's own ``rollout`` command, one thread, with and without
its lookahead variance reduction). The ratios are ours / theirs (higher
is better for rates, lower for times). bgsage (the Open Sage engine, a
benchmark-only peer) is measured at its raw-net level ("1-ply" in its XG-style
numbering = gnubg's 0-ply) with one thread; its 2-ply row is its "3-ply"
(cubeless); its batched evaluations go through ``batch_evaluate_post_move``,
which also computes a cubeful equity.

    python benchmarks/speed.py
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _players import engine_player, gnubg_player, play_game
from rich.console import Console
from rich.table import Table


def sample_boards(n: int, seed: int) -> np.ndarray:
    from _players import random_boards

    return random_boards(n, seed)


def rate(fn, n: int) -> float:
    t = time.perf_counter()
    fn()
    return n / (time.perf_counter() - t)


def bgsage_pair_loop_rate(games: int) -> float:
    """Games/s of bgsage's own C++ self-play loop at its raw-net level, one thread.

    Its loop takes the 17-net "pair" layout only, so this runs bgsage's stage-9
    standard nets (the production stage-11 model adds 7 back-game nets on top).
    """
    import os

    import bgbot_cpp
    from bgsage.weights import _PAIR_PLANS, MODELS, _models_dir

    cfg = MODELS["stage9"]
    paths = [
        os.path.join(_models_dir(), cfg["pattern"].format(plan=_PAIR_PLANS[cfg["canonical_map"][i]]))
        for i in range(len(_PAIR_PLANS))
    ]
    hidden = list(cfg["hidden"][: len(_PAIR_PLANS)])
    bgbot_cpp.play_games_pair_vs_self(paths, hidden, 2, 1, 1)
    return rate(lambda: bgbot_cpp.play_games_pair_vs_self(paths, hidden, games, 42, 1), games)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--moves2", type=int, default=20, help="positions for the 2-ply timing")
    ap.add_argument("--rollout-trials", type=int, default=720, help="games for the rollout timing")
    ap.add_argument("--no-bgsage", action="store_true", help="leave out the bgsage column")
    ap.add_argument("--move-list-cases", type=int, default=3000, help="position-rolls for the move-list row")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the move-list row (ratio: mean +- spread)")
    ap.add_argument(
        "--only", choices=("all", "move-list", "rollouts"), default="all", help="run only the move-list or rollout rows"
    )
    args = ap.parse_args()

    if args.only == "rollouts":
        print_table(rollout_rows(args.rollout_trials, args.rounds))
        return

    import gnubg_nn

    move_list = move_list_row(args.move_list_cases, args.rounds)
    if args.only == "move-list":
        print_table([move_list])
        return

    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.search import best_board
    from backgammon.training import _selfplay as sp

    sage = None
    if not args.no_bgsage:
        import bgbot_cpp
        from _players import BgsageNet, bgsage_player, to_bgsage
        from bgsage import BgBotAnalyzer

        sage = BgsageNet()
    nan = float("nan")

    ev = NetEvaluator.default()
    boards = sample_boards(args.positions, 1)
    gboards = [[b[1].tolist(), b[0].tolist()] for b in boards]
    ev.evaluate_boards(boards[:10])
    rows = []
    ours = rate(lambda: ev.evaluate_boards(boards), len(boards))
    single = rate(lambda: [ev.evaluate_boards(boards[i : i + 1]) for i in range(2000)], 2000)
    theirs = rate(lambda: [gnubg_nn.probabilities(g, 0) for g in gboards], len(gboards))
    sage_batch = sage_single = nan
    if sage:
        # bgsage evaluates post-move boards from the mover's side: our boards flipped
        sboards = [to_bgsage(b[::-1]) for b in boards]
        centred = bgbot_cpp.CubeOwner.CENTERED
        sage_batch = rate(
            lambda: bgbot_cpp.batch_evaluate_post_move([(x, centred) for x in sboards], sage.strategy, 1), len(sboards)
        )
        ev1 = sage.strategy.evaluate_board
        sage_single = rate(lambda: [ev1(x, x) for x in sboards], len(sboards))
    rows.append(("evaluations/s, batched (gnubg: one call each)", ours, theirs, sage_batch))
    rows.append(("evaluations/s, one call each", single, theirs, sage_single))

    me, gn = engine_player(0, ev), gnubg_player(0)
    play_game(me, me, np.random.default_rng(0))
    ours = rate(lambda: [play_game(me, me, np.random.default_rng([1, k])) for k in range(args.games)], args.games)
    theirs = rate(lambda: [play_game(gn, gn, np.random.default_rng([1, k])) for k in range(args.games)], args.games)
    sage_games = sage_loop = nan
    if sage:
        sp_ = bgsage_player(sage)
        sage_games = rate(
            lambda: [play_game(sp_, sp_, np.random.default_rng([1, k])) for k in range(args.games)], args.games
        )
        sage_loop = bgsage_pair_loop_rate(args.games * 4)
    rows.append(("0-ply self-play games/s (Python game loop)", ours, theirs, sage_games))
    c, r = ev.nets.contact, ev.nets.race
    stats = np.zeros(8)
    arrays = tuple(a.copy() for a in (c.w1, c.b1, c.w2, c.b2, r.w1, r.b1, r.w2, r.b2))
    sp.td_train_games(*arrays, 1, 0, 1, 0.0, stats)
    numba_rate = rate(lambda: sp.td_train_games(*arrays, 1, 1, args.games * 4, 0.0, stats), args.games * 4)
    rows.append(("0-ply self-play games/s (own compiled loop; gnubg: Python loop)", numba_rate, theirs, sage_loop))

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
    sage2 = nan
    if sage:
        # bgsage's "3-ply" is gnubg's 2-ply; cubeless, one thread
        an = BgBotAnalyzer(eval_level="3ply", cubeful=False, parallel_threads=1)
        an.checker_play(to_bgsage(pos[0]), 3, 1)
        t = time.perf_counter()
        for b, (d1, d2) in zip(pos, dice):
            an.checker_play(to_bgsage(b), int(d1), int(d2))
        sage2 = (time.perf_counter() - t) / len(pos)
    rows.append(("seconds per 2-ply move", ours, theirs, sage2))

    rows += rollout_rows(args.rollout_trials, args.rounds)
    rows.append(move_list)
    print_table(rows)


def rollout_rows(trials: int, rounds: int) -> list[tuple[str, float, float, float]]:
    """Rollout games per second of the initial position beside Debian gnubg's own ``rollout`` command (cubeless,
    0-ply plays, games to the end, with and without variance reduction), in ``rounds`` rounds that time every
    variant in turn (gnubg, then ours: the float64 kernel on one thread, the float32 kernels on one thread, the
    float32 kernels on every CPU beside gnubg on as many threads). One thread: games per CPU second of each
    program (on a shared machine CPU time is less disturbed than the wall clock); every CPU: games per
    wall-clock second. Prints each round's ratios and returns the median rates. Variance-reduced rollouts time
    ``trials // 10`` games (at least 36)."""
    import os
    import statistics

    from _gnubg_cli import available, rollout_seconds

    from backgammon import Position
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.rollout import RolloutSettings, rollout_position

    if not available():
        raise SystemExit("the rollout rows need gnubg (/usr/games/gnubg): apt-get install gnubg")
    ev = NetEvaluator.default()
    start = Position.initial()
    cores = len(os.sched_getaffinity(0))
    for f32 in (False, True):  # compile and load both kernels before timing
        rollout_position(start, ev, RolloutSettings(trials=2, truncate=2, float32=f32, threads=1))
    few = max(36, trials // 10)
    variants = [  # (name, float32, threads)
        ("float64 kernel, 1 thread, per CPU second", False, 1),
        ("float32 kernels, 1 thread, per CPU second", True, 1),
        (f"float32 kernels, {cores} threads (gnubg: {cores} threads), per wall second", True, cores),
    ]
    rates: dict[tuple[bool, str], list[tuple[float, float]]] = {}
    for r in range(rounds):
        for vr, n in ((False, trials), (True, few)):
            line = []
            for name, f32, threads in variants:
                cpu = threads == 1
                theirs = n / rollout_seconds(start, n, variance_reduction=vr, threads=threads, cpu=cpu)
                settings = RolloutSettings(trials=n, seed=1 + r, variance_reduction=vr, float32=f32, threads=threads)
                clock = time.process_time if cpu else time.perf_counter
                t = clock()
                rollout_position(start, ev, settings)
                ours = n / (clock() - t)
                rates.setdefault((vr, name), []).append((ours, theirs))
                line.append(f"{name}: {ours:.3g}/{theirs:.3g} = {ours / theirs:.3f}")
            kind = "variance-reduced" if vr else "plain"
            print(f"round {r + 1}, {kind} rollout games/s ours/gnubg: " + "; ".join(line))
    rows = []
    for (vr, name), pairs in rates.items():
        ratios = [a / b for a, b in pairs]
        print(
            f"{'variance-reduced' if vr else 'plain'}, {name}: ratio by round "
            + ", ".join(f"{x:.3f}" for x in ratios)
            + f" (range {min(ratios):.3f}-{max(ratios):.3f})"
        )
        label = f"rollout games/s{', variance-reduced' if vr else ''} ({name})"
        rows.append(
            (label, statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs), float("nan"))
        )
    return rows


def move_list_row(cases: int, rounds: int) -> tuple[str, float, float, float]:
    """``list(Position.legal_plays(d1, d2))`` beside gnubg's generator (``gnubg_nn.moves``, C, returning the
    resulting position keys), position-rolls per second, on ``cases`` position-rolls of the move-generation
    benchmark's corpus (seed 2026: self-play, race, bear-off and bar positions, every roll), the compiled
    generator behind ``legal_plays``. CPU time of this thread, ``rounds`` rounds, each timing both in turn;
    prints each round's ratio and returns the median rates."""
    import random
    import statistics

    import gnubg_nn
    from movegen import build_corpus

    from backgammon.moves import use_accelerator

    use_accelerator(True)
    corpus = build_corpus(max(200, cases // 20), 2026)["all"]
    items = random.Random(45).sample(corpus, min(cases, len(corpus)))
    g_items = [([list(p.theirs), list(p.mine)], d1, d2) for p, d1, d2 in items]
    moves = gnubg_nn.moves

    def ours() -> None:
        for p, d1, d2 in items:
            list(p.legal_plays(d1, d2))

    def theirs() -> None:
        for b, d1, d2 in g_items:
            moves(b, d1, d2)

    ours()  # load the kernel (and each position's key) before timing
    theirs()
    rates: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for fn, out in ((ours, rates[0]), (theirs, rates[1])):
            t = time.process_time()
            fn()
            out.append(len(items) / (time.process_time() - t))
    ratios = [a / b for a, b in zip(*rates, strict=True)]
    print(
        f"list(legal_plays), {len(items)} position-rolls: ours/gnubg by round "
        + ", ".join(f"{r:.3f}" for r in ratios)
        + f" (mean {statistics.fmean(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f})"
    )
    return (
        "list(legal_plays) position-rolls/s (gnubg: gnubg_nn.moves)",
        statistics.median(rates[0]),
        statistics.median(rates[1]),
        float("nan"),
    )


def print_table(rows: list[tuple[str, float, float, float]]) -> None:
    table = Table(title="engine speed (one process, one thread each, this machine)")
    for col in ("measure", "ours", "gnubg_nn", "bgsage", "ours/gnubg", "ours/bgsage"):
        table.add_column(col, justify="right")
    for name, a, b, sg in rows:
        missing = math.isnan(sg)
        table.add_row(
            name,
            f"{a:,.4g}",
            f"{b:,.4g}",
            "n/a" if missing else f"{sg:,.4g}",
            f"{a / b:.3g}",
            "n/a" if missing else f"{a / sg:.3g}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
