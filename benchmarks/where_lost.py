"""Where our 0-ply plays lose equity, judged by gnubg: error per decision by kind of position.

    python benchmarks/where_lost.py [--pairs N] [--seed S] [--judge-plies 0|1] [--weights W.npz]

Plays seeded money games of our engine (0-ply) against gnubg 0-ply (``gnubg_nn``,
benchmark-only), each dice sequence twice with sides swapped. At each of our
decisions with more than one legal play, gnubg scores every play at
``--judge-plies``; the error is its best play's equity minus the equity of ours.
Rows group the decisions by gnubg's class of the position before the play
(contact, crashed, race, bearoff) and, for contact and crashed positions, by
simple tags of the mover's (``my``) and opponent's (``op``) side: checkers back
(in the other home board or on the bar), an anchor there, pip difference
(mine minus theirs), checkers on the bar, checkers off, home points made.
Columns: decisions, error per decision, error per game (the sum over the
games' decisions / games), and ``bias``: our net's equity of the chosen play
minus gnubg's (positive: we think better of our play than gnubg does; chosen
as our best, so it leans positive by selection).
"""

from __future__ import annotations

import argparse
import collections
import sys

import numpy as np
from _players import duel, gnubg_player, load_evaluator
from rich.console import Console
from rich.table import Table

from backgammon.engine.evaluator import equities
from backgammon.engine.movegen import successors_py


def tags(board: np.ndarray, g) -> list[str]:
    """The rows a position (side on roll first) counts in."""
    me, op = board[0].astype(int), board[1].astype(int)  # index i: the side's point i + 1 (24: the bar)
    names = {g.c_over: "over", g.c_bearoff: "bearoff", g.c_race: "race", g.c_crashed: "crashed", g.c_contact: "contact"}
    kind = names.get(g.classify([board[1].tolist(), board[0].tolist()]), "other")
    out = ["class=" + kind]
    if kind in ("contact", "crashed"):
        pips = np.arange(1, 26)
        d = int(pips @ me - pips @ op)
        out += [
            f"myback={min(int(me[18:].sum()), 4)}",
            f"opback={min(int(op[18:].sum()), 4)}",
            f"myanchor={int((me[18:24] >= 2).any())}",
            "pipdiff="
            + (
                "<-40" if d < -40 else "-40..-11" if d < -10 else "-10..9" if d < 10 else "10..39" if d < 40 else ">=40"
            ),
            f"mybar={min(int(me[24]), 2)}",
            f"opbar={min(int(op[24]), 2)}",
            f"myoff={int(me.sum() < 15)}",
            f"opoff={int(op.sum() < 15)}",
            f"myhome={int((me[:6] >= 2).sum())}",
            f"ophome={int((op[:6] >= 2).sum())}",
        ]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=500, help="dice sequences (each played twice)")
    ap.add_argument("--seed", type=int, default=555)
    ap.add_argument("--judge-plies", type=int, choices=(0, 1), default=0)
    ap.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    args = ap.parse_args()
    import gnubg_nn as g

    ev = load_evaluator(args.weights)
    stats: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])

    def ours(board: np.ndarray, d1: int, d2: int) -> np.ndarray:
        cands = successors_py(board, d1, d2)
        if len(cands) == 1:
            return cands[0]
        mine = -equities(ev.evaluate_boards(cands))
        k = int(np.argmax(mine))
        judged = -equities(np.array([g.probabilities([c[1].tolist(), c[0].tolist()], args.judge_plies) for c in cands]))
        err, bias = float(judged.max() - judged[k]), float(mine[k] - judged[k])
        for t in ["all", *tags(board, g)]:
            s = stats[t]
            s[0] += 1
            s[1] += err
            s[2] += bias
        return cands[k]

    r = duel(ours, gnubg_player(0), args.pairs, args.seed)
    games = 2 * args.pairs
    table = Table(
        title=f"our 0-ply plays judged by gnubg {args.judge_plies}-ply: {games} games, "
        f"{r['ppg']:+.3f} ± {r['se']:.3f} points per game against gnubg 0-ply"
    )
    for col in ("positions", "decisions", "error/decision", "error/game", "bias"):
        table.add_column(col, justify="right")
    for t in sorted(stats, key=lambda t: (t != "all", t.split("=")[0], t)):
        n, e, b = stats[t]
        table.add_row(t, str(int(n)), f"{e / n:.4f}", f"{e / games:.4f}", f"{b / n:+.3f}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
