"""Players and a seeded match loop shared by the engine benchmarks (benchmarks only).

A player maps ``(board, d1, d2)`` (raw ``(2, 25)`` int8 board, side on roll
first) to the resulting board, flipped (the opponent on roll), as the engine's
move generator returns it. ``gnubg`` players use ``gnubg_nn`` (test and
benchmark only: the product never imports it).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from backgammon._movegen import MAX_PLAYS, successors_py
from backgammon.engine._selfplay import INITIAL, choose_pubeval, mover_won_result
from backgammon.engine.pubeval import WC, WR

Player = Callable[[np.ndarray, int, int], np.ndarray]


def engine_player(plies: int = 0, evaluator=None) -> Player:
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.search import best_board

    ev = evaluator or NetEvaluator.default()
    return lambda b, d1, d2: best_board(b, d1, d2, ev, plies)


def pubeval_player() -> Player:
    cand = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)

    def play(b: np.ndarray, d1: int, d2: int) -> np.ndarray:
        return cand[choose_pubeval(b, d1, d2, WC, WR, cand)].copy()

    return play


def random_player(seed: int = 0) -> Player:
    rng = np.random.default_rng(seed)

    def play(b: np.ndarray, d1: int, d2: int) -> np.ndarray:
        c = successors_py(b, d1, d2)
        return c[rng.integers(len(c))]

    return play


def apply_gnubg_move(b: np.ndarray, move: tuple) -> np.ndarray:
    """Apply gnubg's ``((from, to), ...)`` (25 = bar, 0 = off) to a board; return it flipped."""
    me, opp = b[0].copy(), b[1].copy()
    for src, dst in move:
        me[src - 1] -= 1
        if dst > 0:
            me[dst - 1] += 1
            if opp[24 - dst] == 1:
                opp[24 - dst] = 0
                opp[24] += 1
    return np.array([opp, me], dtype=np.int8)


def gnubg_player(plies: int = 0) -> Player:
    import gnubg_nn

    def play(b: np.ndarray, d1: int, d2: int) -> np.ndarray:
        move = gnubg_nn.best_move([b[1].tolist(), b[0].tolist()], d1, d2, n=plies)
        return apply_gnubg_move(b, move)

    return play


def play_game(first: Player, second: Player, dice: np.random.Generator, check: bool = False) -> float:
    """One cubeless game; points won by ``first`` (who moves first)."""
    board = INITIAL.copy()
    players = (first, second)
    d1, d2 = 0, 0
    while d1 == d2:
        d1, d2 = (int(x) for x in dice.integers(1, 7, 2))
    ply = 0
    res = np.empty(5)
    while True:
        nb = players[ply % 2](board, d1, d2)
        if check:
            legal = {c.tobytes() for c in successors_py(board, d1, d2)}
            if nb.tobytes() not in legal:
                raise AssertionError(f"illegal play by player {ply % 2}")
        if nb[1].sum() == 0:
            pts = mover_won_result(nb, res)
            return pts if ply % 2 == 0 else -pts
        board = nb
        ply += 1
        d1, d2 = (int(x) for x in dice.integers(1, 7, 2))


def duel(a: Player, b: Player, pairs: int, seed: int) -> dict:
    """``pairs`` dice sequences, each played twice with sides swapped; ``a``'s points per game."""
    per_pair = np.empty(pairs)
    wins = 0
    for k in range(pairs):
        g1 = play_game(a, b, np.random.default_rng([seed, k]))
        g2 = -play_game(b, a, np.random.default_rng([seed, k]))
        per_pair[k] = (g1 + g2) / 2
        wins += (g1 > 0) + (g2 > 0)
    se = float(per_pair.std(ddof=1) / math.sqrt(pairs)) if pairs > 1 else float("nan")
    return {"games": 2 * pairs, "ppg": float(per_pair.mean()), "se": se, "win_rate": wins / (2 * pairs)}
