"""Engine strength: seeded cubeless money games against reference players.

Each dice sequence is played twice with the sides swapped; the table gives the
first-named player's points per game with the standard error over sequences
(while a duel runs, a line on stderr every ``--progress`` seconds gives the
sequences done and the running figures).
Peers: GNU Backgammon (``gnubg_nn``) and bgsage (the Open Sage engine, at its
raw-net level, which it calls 1-ply and gnubg calls 0-ply); ``--peer-pairs``
also plays bgsage against gnubg 0-ply with the same method, and
``--gnubg-depth-pairs`` gnubg 2-ply against gnubg 0-ply: what the peer's own
2-ply search is worth in this harness, the yardstick for our default level.

    python benchmarks/strength.py --pairs 500 --gnubg-pairs 300 --gnubg2-pairs 0
    python benchmarks/strength.py --pairs 0 --gnubg-pairs 0 --bgsage-pairs 1000 --peer-pairs 1000

``--compare OTHER.npz`` plays every duel of our engine a second time with
other weights on the same dice and prints the difference (ours minus the
other's) per dice sequence with its standard error: the shared dice cancel
most of the luck, so two nets are told apart with far fewer games.

    python benchmarks/strength.py --pairs 0 --gnubg-pairs 5000 --weights new.npz --compare old.npz

``--vr`` also gives variance-reduced results, as GNU Backgammon's rollouts do:
a fixed judge (the shipped nets, or ``--judge-weights``) scores each roll's
luck for the side on roll (its 0-ply equity after its own best play for the
dice, minus its 1-ply equity before the roll: zero on average in every
position, see ``_players.LuckJudge``), and each game's points minus our lucks
plus the opponent's are averaged over the pairs like the plain points. The
table then also shows those ppg and standard errors and the ratio of the two
standard errors (plain over reduced: the same precision takes the square of it
fewer games); ``--compare`` also gets the reduced difference. The lucks cost a
1-ply evaluation per roll (about 0.1 s per game on one core).

``--level NAME`` plays our engine at a difficulty level of
``backgammon.engine.levels`` (its plies, move filters and noise, as
``choose_play`` picks cubeless) instead of the bare ``--plies`` search:

    python benchmarks/strength.py --pairs 0 --gnubg-pairs 3000 --vr --seed 777
    python benchmarks/strength.py --pairs 0 --gnubg-pairs 800 --level world_class --vr --json wc.json

``--pubeval-pairs N`` plays pubeval alone (with ``--pairs 0``), e.g. to pin the score against it down
with ``--vr`` without the random player's games:

    python benchmarks/strength.py --pairs 0 --gnubg-pairs 0 --pubeval-pairs 3000 --vr --seed 57101
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from _players import (
    LuckJudge,
    Player,
    bgsage_player,
    duel,
    engine_player,
    gnubg_player,
    level_player,
    load_evaluator,
    mean_se,
    pubeval_player,
    random_player,
)
from rich.console import Console
from rich.table import Table

from backgammon.engine.levels import get_level
from backgammon.errors import BackgammonError


def progress_line(what: str, total: int, every: float):
    """A ``duel`` progress callback that prints a line to stderr at most every ``every`` seconds (and at the
    end): the sequences done, the time taken and the running points per game (luck subtracted too with --vr)."""
    start = last = time.perf_counter()

    def show(done: int, plain: np.ndarray, vr: np.ndarray | None) -> None:
        nonlocal last
        now = time.perf_counter()
        if done < total and now - last < every:
            return
        last = now
        ppg, se = mean_se(plain)
        line = f"{what}: {done}/{total} dice sequences, {now - start:.0f} s, {ppg:+.3f} +- {se:.3f}"
        if vr is not None:
            vppg, vse = mean_se(vr)
            line += f" (luck subtracted {vppg:+.3f} +- {vse:.3f})"
        print(line, file=sys.stderr, flush=True)

    return show


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=300, help="dice sequences against random and pubeval (0: skip)")
    ap.add_argument("--pubeval-pairs", type=int, default=0, help="dice sequences against pubeval alone (0: skip)")
    ap.add_argument("--gnubg-pairs", type=int, default=200, help="dice sequences against gnubg 0-ply (0: skip)")
    ap.add_argument("--gnubg2-pairs", type=int, default=0, help="dice sequences against gnubg 2-ply (0: skip)")
    ap.add_argument("--bgsage-pairs", type=int, default=0, help="dice sequences against bgsage 0-ply (0: skip)")
    ap.add_argument("--peer-pairs", type=int, default=0, help="dice sequences bgsage 0-ply vs gnubg 0-ply (0: skip)")
    ap.add_argument(
        "--gnubg-depth-pairs", type=int, default=0, help="gnubg 2-ply vs gnubg 0-ply, a yardstick (0: skip)"
    )
    ap.add_argument("--plies", type=int, default=None, help="our engine's lookahead (default 0)")
    ap.add_argument("--level", default=None, help="play our engine at this difficulty level instead of --plies")
    ap.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    ap.add_argument("--compare", default=None, help="other weights: also play our duels with them, paired")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--vr", action="store_true", help="also give variance-reduced results (luck subtracted)")
    ap.add_argument("--judge-weights", default=None, help="the luck judge's weights (default: the shipped ones)")
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument(
        "--progress", type=float, default=60.0, help="seconds between progress lines on stderr (0: every sequence)"
    )
    args = ap.parse_args()
    if args.pairs and args.pubeval_pairs:
        ap.error("--pubeval-pairs plays pubeval alone: give it with --pairs 0")
    if args.level is not None and args.plies is not None:
        ap.error("give --plies or --level, not both")
    level = None
    if args.level is not None:
        try:
            level = get_level(args.level)
        except BackgammonError as e:
            ap.error(str(e))
    plies = level.plies if level else args.plies or 0

    ev = load_evaluator(args.weights)
    other_ev = load_evaluator(args.compare) if args.compare else None
    judge = LuckJudge(load_evaluator(args.judge_weights)) if args.vr else None

    def our_player(evaluator) -> Player:
        return level_player(level.name, evaluator, args.seed) if level else engine_player(plies, evaluator)

    me = our_player(ev)
    ours = f"ours {level.name}" if level else f"ours {plies}-ply"
    duels = []
    if args.pairs:
        # opponents are made afresh for each duel (the random player's own generator starts over)
        duels += [
            (ours, me, "random", lambda: random_player(args.seed), args.pairs),
            (ours, me, "pubeval", pubeval_player, args.pairs),
        ]
    if args.pubeval_pairs:
        duels.append((ours, me, "pubeval", pubeval_player, args.pubeval_pairs))
    if args.gnubg_pairs:
        duels.append((ours, me, "gnubg 0-ply", lambda: gnubg_player(0), args.gnubg_pairs))
    if args.gnubg2_pairs:
        duels.append((ours, me, "gnubg 2-ply", lambda: gnubg_player(2), args.gnubg2_pairs))
    if args.bgsage_pairs or args.peer_pairs:
        sage = bgsage_player()
        if args.bgsage_pairs:
            duels.append((ours, me, "bgsage 0-ply", lambda: sage, args.bgsage_pairs))
        if args.peer_pairs:
            duels.append(("bgsage 0-ply", sage, "gnubg 0-ply", lambda: gnubg_player(0), args.peer_pairs))
    if args.gnubg_depth_pairs:
        duels.append(("gnubg 2-ply", gnubg_player(2), "gnubg 0-ply", lambda: gnubg_player(0), args.gnubg_depth_pairs))
    how = f"level {level.name} ({level.plies}-ply, noise {level.noise})" if level else f"{plies}-ply"
    table = Table(title=f"engine {how} (weights: {ev.meta.get('games')} training games), cubeless money")
    cols = ["player", "opponent", "games", "points/game", "std. error"]
    if judge:
        cols += ["VR points/game", "VR s.e.", "s.e. ratio"]
    for col in (*cols, "win rate", "seconds"):
        table.add_column(col, justify="right")
    other = our_player(other_ev) if other_ev else None
    results = {}
    paired = []
    for label, player, name, opponent, pairs in duels:
        t = time.perf_counter()
        mine: list[float] = []
        mine_vr: list[float] = []
        shown = progress_line(f"{label} vs {name}", pairs, args.progress)
        r = duel(player, opponent(), pairs, args.seed, mine, judge, mine_vr, shown)
        r["seconds"] = round(time.perf_counter() - t, 1)
        results[name if label == ours else f"{label} vs {name}"] = r
        row = [label, name, str(r["games"]), f"{r['ppg']:+.3f}", f"{r['se']:.3f}"]
        if judge:
            row += [f"{r['vr_ppg']:+.3f}", f"{r['vr_se']:.3f}", f"{r['se_ratio']:.2f}"]
        table.add_row(*row, f"{r['win_rate']:.3f}", f"{r['seconds']}")
        if other is not None and label == ours:
            theirs: list[float] = []
            theirs_vr: list[float] = []
            shown = progress_line(f"{args.compare} vs {name}", pairs, args.progress)
            o = duel(other, opponent(), pairs, args.seed, theirs, judge, theirs_vr, shown)
            diff, dse = paired_difference(mine, theirs)
            r["compare"] = {
                "weights": args.compare,
                "ppg": o["ppg"],
                "se": o["se"],
                "difference": diff,
                "difference_se": dse,
            }
            line = [name, str(r["games"]), f"{o['ppg']:+.3f}", f"{o['se']:.3f}", f"{diff:+.4f}", f"{dse:.4f}"]
            if judge:
                vdiff, vdse = paired_difference(mine_vr, theirs_vr)
                r["compare"].update(vr_ppg=o["vr_ppg"], vr_se=o["vr_se"], vr_difference=vdiff, vr_difference_se=vdse)
                line += [f"{vdiff:+.4f}", f"{vdse:.4f}"]
            paired.append(line)
    console = Console()
    if not console.is_terminal:  # a log file: don't squeeze the columns into 80 characters
        console = Console(width=160)
    console.print(table)
    if paired:
        cmp_table = Table(title=f"paired: these weights minus {args.compare}, same dice")
        cols = ["opponent", "games", "other ppg", "other s.e.", "difference", "s.e. of difference"]
        if judge:
            cols += ["VR difference", "VR s.e. of difference"]
        for col in cols:
            cmp_table.add_column(col, justify="right")
        for line in paired:
            cmp_table.add_row(*line)
        console.print(cmp_table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "plies": plies,
                    "level": level.name if level else None,
                    "seed": args.seed,
                    "weights_games": ev.meta.get("games"),
                    "vr_judge": (args.judge_weights or "shipped") if judge else None,
                    "results": results,
                },
                f,
                indent=1,
            )


def paired_difference(mine: list[float], theirs: list[float]) -> tuple[float, float]:
    """Mean of the per-sequence differences ``mine - theirs`` and its standard error (nan for one sequence)."""
    d = np.array(mine) - np.array(theirs)
    se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    return float(d.mean()), se


if __name__ == "__main__":
    main()
