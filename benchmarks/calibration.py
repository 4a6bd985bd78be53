"""How well the nets' 0-ply values predict what their own play goes on to score, by kind of position.

    python benchmarks/calibration.py [--positions N] [--seed S] [--weights W.npz] [--vr]

Plays 0-ply self-play games with the nets (cubeless; the same kernel as ``backgammon refine
--lambda`` samples with) and keeps every position after the opening move. For each one, the
*bias* is the cubeless points the side on roll went on to score in that game minus the
evaluator's 0-ply equity of the position. A well-calibrated evaluator has a bias near 0 in every
row; a positive bias means the positions turn out better than the nets think. The standard error
treats each game as one sample (a game's positions share its result). Rows: the phase, then
contact positions by checkers on the bar, checkers back (in the other home board or on the bar),
pip lead (theirs minus mine) and the evaluator's own equity.

``--vr`` scores each position with the game's result less the luck of every later roll instead
(``_distill.lambda_returns`` with lambda 1: the position's 1-ply value plus the later positions'
differences between their 1- and 0-ply values, the luck judged by the same nets). Its mean is
the same, what the nets' own play goes on to score, at a fraction of the noise (standard errors
several times smaller), for a 1-ply label of every position (about 650 positions a second on one
core against some 10,000 without).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from _players import load_evaluator
from rich.console import Console
from rich.table import Table

from backgammon.engine.evaluator import equities
from backgammon.engine.movegen import BEAROFF, CONTACT, RACE, phase
from backgammon.training import _distill
from backgammon.training.labels import label_boards_fast


def outcomes(boards: np.ndarray, last: np.ndarray, final: np.ndarray) -> np.ndarray:
    """Cubeless points each position's side on roll scored: ``final[i]`` where the move from ``boards[i]``
    ended the game (the mover's points), the sign turning back along the game."""
    out = np.empty(len(boards))
    cur = 0.0
    for i in range(len(boards) - 1, -1, -1):
        cur = final[i] if last[i] else -cur
        out[i] = cur
    return out


def final_points(loser: np.ndarray) -> float:
    """Points won against ``loser``'s checkers (its own numbering) when the other side bears off its last."""
    if loser.sum() < 15:
        return 1.0
    return 3.0 if loser[18:].sum() > 0 else 2.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200_000, help="positions sampled (whole games)")
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    ap.add_argument("--vr", action="store_true", help="score with the luck-free result (lambda-1 returns)")
    args = ap.parse_args()
    if args.positions < 1:
        print("error: --positions must be at least 1", file=sys.stderr)
        return 2
    ev = load_evaluator(args.weights)
    arrays = ev.kernel_args()[:8]
    n = args.positions + 400  # room for the last game, dropped if it does not fit
    boards = np.empty((n, 2, 25), dtype=np.int8)
    random_move, last = np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_)
    _distill.sample_games(*arrays, args.seed, 0, 0.0, boards, random_move, last)
    end = int(np.flatnonzero(last)[-1]) + 1
    boards, last = boards[:end], last[:end]
    game = np.concatenate([[0], np.cumsum(last)[:-1]])
    v0 = ev.evaluate_boards(boards)
    value = equities(v0)
    if args.vr:
        v1 = label_boards_fast(boards, arrays, 1, prune=0)
        returns = np.empty_like(v1)
        _distill.lambda_returns(v1, v0, random_move[:end], last, 1.0, returns)
        scored = equities(returns)
    else:
        # the mover at a game's last position wins; the loser's checkers are as they stand before that move
        # (a finishing double that also hits is not seen: it would turn a gammon into a backgammon)
        final = np.zeros(end)
        for i in np.flatnonzero(last):
            final[i] = final_points(boards[i, 1])
        scored = outcomes(boards, last, final)
    bias = scored - value
    ph = np.array([phase(b) for b in boards])
    me_back = boards[:, 0, 18:].sum(axis=1)
    pips = np.arange(1, 26)
    lead = boards[:, 1] @ pips - boards[:, 0] @ pips
    games = int(last.sum())
    kind = "luck-free results (lambda-1 returns)" if args.vr else "results"
    table = Table(title=f"0-ply values against the {kind} of the nets' own play: {games} games, {end} positions")
    table.add_column("positions of", justify="left")
    for col in ("positions", "share", "equity", "result", "bias", "s.e."):
        table.add_column(col, justify="right")

    def row(name: str, mask: np.ndarray) -> None:
        k = int(mask.sum())
        if k == 0:
            return
        mean = bias[mask].mean()
        per_game = np.bincount(game[mask], bias[mask] - mean, minlength=games)
        se = float(np.sqrt((per_game**2).sum())) / k
        table.add_row(
            name,
            str(k),
            f"{k / end:.3f}",
            f"{value[mask].mean():+.3f}",
            f"{scored[mask].mean():+.3f}",
            f"{mean:+.4f}",
            f"{se:.4f}",
        )

    contact = ph == CONTACT
    row("all", np.ones(end, dtype=bool))
    row("contact", contact)
    row("race", ph == RACE)
    row("bear-off", ph == BEAROFF)
    row("contact, on roll on the bar", contact & (boards[:, 0, 24] > 0))
    row("contact, opponent on the bar", contact & (boards[:, 1, 24] > 0) & (boards[:, 0, 24] == 0))
    for lo, hi in ((0, 0), (1, 2), (3, 4), (5, 15)):
        row(f"contact, checkers back {lo}-{hi}", contact & (me_back >= lo) & (me_back <= hi))
    for lo, hi in ((-200, -40), (-40, -15), (-15, 15), (15, 40), (40, 200)):
        row(f"contact, pip lead {lo}..{hi - 1}", contact & (lead >= lo) & (lead < hi))
    for lo, hi in ((-3.0, -1.0), (-1.0, -0.6), (-0.6, -0.2), (-0.2, 0.2), (0.2, 0.6), (0.6, 1.0), (1.0, 3.0)):
        row(f"contact, equity {lo:+.1f}..{hi:+.1f}", contact & (value >= lo) & (value < hi))
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
