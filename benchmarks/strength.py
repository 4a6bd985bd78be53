"""Engine strength: seeded cubeless money games against reference players.

Each dice sequence is played twice with the sides swapped; the table gives the
first-named player's points per game with the standard error over sequences.
Peers: GNU Backgammon (``gnubg_nn``) and bgsage (the Open Sage engine, at its
raw-net level, which it calls 1-ply and gnubg calls 0-ply); ``--peer-pairs``
also plays bgsage against gnubg 0-ply with the same method.

    python benchmarks/strength.py --pairs 500 --gnubg-pairs 300 --gnubg2-pairs 0
    python benchmarks/strength.py --pairs 0 --gnubg-pairs 0 --bgsage-pairs 1000 --peer-pairs 1000

``--compare OTHER.npz`` plays every duel of our engine a second time with
other weights on the same dice and prints the difference (ours minus the
other's) per dice sequence with its standard error: the shared dice cancel
most of the luck, so two nets are told apart with far fewer games.

    python benchmarks/strength.py --pairs 0 --gnubg-pairs 5000 --weights new.npz --compare old.npz
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _players import bgsage_player, duel, engine_player, gnubg_player, load_evaluator, pubeval_player, random_player
from rich.console import Console
from rich.table import Table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=300, help="dice sequences against random and pubeval (0: skip)")
    ap.add_argument("--gnubg-pairs", type=int, default=200, help="dice sequences against gnubg 0-ply (0: skip)")
    ap.add_argument("--gnubg2-pairs", type=int, default=0, help="dice sequences against gnubg 2-ply (0: skip)")
    ap.add_argument("--bgsage-pairs", type=int, default=0, help="dice sequences against bgsage 0-ply (0: skip)")
    ap.add_argument("--peer-pairs", type=int, default=0, help="dice sequences bgsage 0-ply vs gnubg 0-ply (0: skip)")
    ap.add_argument("--plies", type=int, default=0, help="our engine's lookahead")
    ap.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    ap.add_argument("--compare", default=None, help="other weights: also play our duels with them, paired")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args()

    ev = load_evaluator(args.weights)
    other_ev = load_evaluator(args.compare) if args.compare else None
    me = engine_player(args.plies, ev)
    ours = f"ours {args.plies}-ply"
    duels = []
    if args.pairs:
        # opponents are made afresh for each duel (the random player's own generator starts over)
        duels += [
            (ours, me, "random", lambda: random_player(args.seed), args.pairs),
            (ours, me, "pubeval", pubeval_player, args.pairs),
        ]
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
    table = Table(title=f"engine {args.plies}-ply (weights: {ev.meta.get('games')} training games), cubeless money")
    for col in ("player", "opponent", "games", "points/game", "std. error", "win rate", "seconds"):
        table.add_column(col, justify="right")
    other = engine_player(args.plies, other_ev) if other_ev else None
    results = {}
    paired = []
    for label, player, name, opponent, pairs in duels:
        t = time.perf_counter()
        mine: list[float] = []
        r = duel(player, opponent(), pairs, args.seed, mine)
        r["seconds"] = round(time.perf_counter() - t, 1)
        results[name if label == ours else f"{label} vs {name}"] = r
        table.add_row(
            label,
            name,
            str(r["games"]),
            f"{r['ppg']:+.3f}",
            f"{r['se']:.3f}",
            f"{r['win_rate']:.3f}",
            f"{r['seconds']}",
        )
        if other is not None and label == ours:
            theirs: list[float] = []
            o = duel(other, opponent(), pairs, args.seed, theirs)
            d = np.array(mine) - np.array(theirs)
            se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
            r["compare"] = {
                "weights": args.compare,
                "ppg": o["ppg"],
                "se": o["se"],
                "difference": float(d.mean()),
                "difference_se": se,
            }
            paired.append((name, r["games"], o["ppg"], o["se"], float(d.mean()), se))
    Console().print(table)
    if paired:
        cmp_table = Table(title=f"paired: these weights minus {args.compare}, same dice")
        for col in ("opponent", "games", "other ppg", "other s.e.", "difference", "s.e. of difference"):
            cmp_table.add_column(col, justify="right")
        for name, games, ppg, se, diff, dse in paired:
            cmp_table.add_row(name, str(games), f"{ppg:+.3f}", f"{se:.3f}", f"{diff:+.4f}", f"{dse:.4f}")
        Console().print(cmp_table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"plies": args.plies, "seed": args.seed, "weights_games": ev.meta.get("games"), "results": results},
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()
