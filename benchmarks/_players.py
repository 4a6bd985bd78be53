"""Players and a seeded match loop shared by the engine benchmarks (benchmarks only).

A player maps ``(board, d1, d2)`` (raw ``(2, 25)`` int8 board, side on roll
first) to the resulting board, flipped (the opponent on roll), as the engine's
move generator returns it. ``gnubg`` players use ``gnubg_nn`` and ``bgsage``
players the Open Sage engine (``bgsage``, MPL-2.0); both are test and benchmark
dependencies only: the product never imports them.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np

from backgammon.engine._movegen import MAX_PLAYS, successors_py
from backgammon.engine._selfplay import INITIAL, choose_pubeval, mover_won_result
from backgammon.engine.pubeval import WC, WR

Player = Callable[[np.ndarray, int, int], np.ndarray]


def engine_player(plies: int = 0, evaluator=None) -> Player:
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.search import best_board

    ev = evaluator or NetEvaluator.default()
    return lambda b, d1, d2: best_board(b, d1, d2, ev, plies)


def load_evaluator(path: str | None):
    """Our network from a weights file (the shipped one for ``None``); a bad file ends the benchmark
    with a one-line error naming it (exit status 2), not a traceback."""
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.errors import BackgammonError

    try:
        return NetEvaluator(path) if path else NetEvaluator.default()
    except BackgammonError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def pubeval_player() -> Player:
    from backgammon.engine._movegen import new_workspace

    cand = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)
    work, table = new_workspace()

    def play(b: np.ndarray, d1: int, d2: int) -> np.ndarray:
        return cand[choose_pubeval(b, d1, d2, WC, WR, cand, work, table)].copy()

    return play


def random_player(seed: int = 0) -> Player:
    rng = np.random.default_rng(seed)

    def play(b: np.ndarray, d1: int, d2: int) -> np.ndarray:
        c = successors_py(b, d1, d2)
        return c[rng.integers(len(c))]

    return play


def random_boards(n: int, seed: int) -> np.ndarray:
    """``n`` positions met in games of random plays (hits, the bar and bear-offs included)."""
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


def to_bgsage(b: np.ndarray) -> list[int]:
    """Our raw board as a bgsage board: 26 ints seen from the side on roll.

    bgsage (as its ``possible_moves`` and ``flip_board`` show): index ``i`` in
    1..24 is the roller's point ``i``, positive for the roller's checkers and
    negative for the opponent's; index 25 is the roller's bar and index 0 the
    opponent's bar, both as positive counts. Our ``b[1][j]`` (the opponent's
    point ``j + 1`` in its own numbering) is the roller's point ``24 - j``.
    """
    me, opp = b[0].astype(int), b[1].astype(int)
    s = [0] * 26
    for i in range(24):
        s[i + 1] = int(me[i]) - int(opp[23 - i])
    s[25] = int(me[24])
    s[0] = int(opp[24])
    return s


def from_bgsage(s) -> np.ndarray:
    """A bgsage board (seen from the side on roll) as our raw board (same side on roll)."""
    me = np.zeros(25, dtype=np.int8)
    opp = np.zeros(25, dtype=np.int8)
    for i in range(24):
        v = int(s[i + 1])
        if v > 0:
            me[i] = v
        elif v < 0:
            opp[23 - i] = -v
    me[24] = int(s[25])
    opp[24] = int(s[0])
    return np.array([me, opp], dtype=np.int8)


class BgsageNet:
    """bgsage's production net at its raw-net level (its "1-ply", gnubg's 0-ply), cubeless.

    Wraps the strategy the way bgsage's own 1-ply analyzer does (the production
    weights behind its exact one-sided bearoff database). ``evaluate(after,
    before)`` gives the 5 probabilities and cubeless equity of a post-move
    board for the side that just moved (bgsage's convention).
    """

    def __init__(self) -> None:
        import bgbot_cpp
        from bgsage.weights import bearoff_db_path, default_weights

        w = default_weights()
        strategy = bgbot_cpp.create_strategy(w.strategy_type, w.weight_paths_list, w.hidden_sizes_list)
        path = bearoff_db_path()
        if path:
            db = bgbot_cpp.BearoffDB()
            if db.load(path):
                strategy = bgbot_cpp.BearoffStrategy(strategy, db)
                self._db = db  # keep it alive beside the strategy that uses it
        self.strategy = strategy
        self.possible_moves = bgbot_cpp.possible_moves

    def best(self, sb: list[int], d1: int, d2: int) -> list[int] | None:
        """bgsage's chosen post-move board (roller's view) by cubeless equity; None if no legal move."""
        cands = self.possible_moves(sb, d1, d2)
        if not cands:
            return None
        if len(cands) == 1:
            return list(cands[0])
        ev = self.strategy.evaluate_board
        best, best_eq = None, -1e9
        for c in cands:
            eq = ev(c, sb)["equity"]
            if eq > best_eq:
                best, best_eq = c, eq
        return list(best)


def bgsage_player(net: BgsageNet | None = None) -> Player:
    """bgsage's cubeless raw-net play (its 1-ply = gnubg's 0-ply), as a Player on our boards."""
    net = net or BgsageNet()

    def play(b: np.ndarray, d1: int, d2: int) -> np.ndarray:
        sb = to_bgsage(b)
        after = net.best(sb, d1, d2)
        nb = b if after is None else from_bgsage(after)
        return nb[::-1].copy()

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


def duel(a: Player, b: Player, pairs: int, seed: int, per_pair_out: list | None = None) -> dict:
    """``pairs`` dice sequences, each played twice with sides swapped; ``a``'s points per game.

    ``per_pair_out``, if given, receives ``a``'s mean result on each dice sequence (for paired comparisons).
    """
    per_pair = np.empty(pairs)
    wins = 0
    for k in range(pairs):
        g1 = play_game(a, b, np.random.default_rng([seed, k]))
        g2 = -play_game(b, a, np.random.default_rng([seed, k]))
        per_pair[k] = (g1 + g2) / 2
        wins += (g1 > 0) + (g2 > 0)
    se = float(per_pair.std(ddof=1) / math.sqrt(pairs)) if pairs > 1 else float("nan")
    if per_pair_out is not None:
        per_pair_out.extend(per_pair.tolist())
    return {"games": 2 * pairs, "ppg": float(per_pair.mean()), "se": se, "win_rate": wins / (2 * pairs)}
