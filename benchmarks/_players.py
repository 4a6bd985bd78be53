"""Players and a seeded match loop shared by the engine benchmarks (benchmarks only).

A player maps ``(board, d1, d2)`` (raw ``(2, 25)`` int8 board, side on roll
first) to the resulting board, flipped (the opponent on roll), as the engine's
move generator returns it. ``gnubg`` players use ``gnubg_nn`` and ``bgsage``
players the Open Sage engine (``bgsage``, MPL-2.0); both are test and benchmark
dependencies only: the product never imports them. A :class:`LuckJudge` scores
each roll's luck, so that :func:`duel` can also give variance-reduced results.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from backgammon.engine.movegen import MAX_PLAYS, successors_py
from backgammon.engine.pubeval import WC, WR
from backgammon.engine.search import ROLLS
from backgammon.training._selfplay import INITIAL, choose_pubeval, mover_won_result

Player = Callable[[np.ndarray, int, int], np.ndarray]


def engine_player(plies: int = 0, evaluator=None) -> Player:
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.search import best_board

    ev = evaluator or NetEvaluator.default()
    return lambda b, d1, d2: best_board(b, d1, d2, ev, plies)


def level_player(level: str, evaluator=None, seed: int = 0) -> Player:
    """Our engine at a difficulty level of :mod:`backgammon.engine.levels`, on raw boards.

    The same choice as ``choose_play`` without a cube: the level's plies with the default move
    filters (:func:`backgammon.engine.search.rank_boards`, the fast path of ``rank_plays``), then
    ``levels.pick``: the first for noiseless levels, the best by equity plus the level's Gaussian
    noise (drawn from ``random.Random(seed)``) among the candidates scored at the top one's depth
    for the others. Raises ``InvalidInputError`` for an unknown level.
    """
    from backgammon.engine.evaluator import NetEvaluator, equities
    from backgammon.engine.levels import get_level, pick
    from backgammon.engine.search import rank_boards

    lv = get_level(level)
    ev = evaluator or NetEvaluator.default()
    if lv.noise == 0:
        return engine_player(lv.plies, ev)
    rng = random.Random(seed)

    def play(b: np.ndarray, d1: int, d2: int) -> np.ndarray:
        cands = successors_py(b, d1, d2)
        if len(cands) == 1:
            return cands[0]
        order, vals, depth = rank_boards(cands, ev, lv.plies)
        eq = equities(vals)
        # pick reads only .plies and .equity of the ranking (best first) and returns the entry it chose
        ranked = [_Ranked(int(depth[j]), float(eq[j]), j) for j in order]
        return cands[pick(ranked, lv, rng).index]

    return play


class _Ranked(NamedTuple):
    """One candidate of a raw-board ranking, with the two fields ``levels.pick`` compares."""

    plies: int
    equity: float
    index: int


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
    from backgammon.engine.movegen import new_workspace

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


class LuckJudge:
    """A fixed evaluator that scores the luck of each roll, as GNU Backgammon's variance-reduced rollouts do.

    The luck of dice ``(d1, d2)`` for the side on roll in raw board ``b``
    (mover's view), in cubeless money points (gammon 2, backgammon 3, as
    :func:`play_game` scores games): ``E0 - E1``, where ``E0`` is the judge's
    0-ply equity, from the mover's view, of the position after the judge's own
    best 0-ply play for those dice (``best_board``; a roll with no legal play
    leaves the board as it is, a finished game is valued exactly), and ``E1``
    the judge's 1-ply equity of ``b`` before the roll (``evaluate_boards_ply``:
    ``E0`` averaged over the 21 rolls, weighted 1/36 and 2/36). So the luck
    averages to zero over the dice in every position, for any judge, and a
    game's points minus one side's lucks plus the other's keeps its expected
    value while most of the dice's noise goes.

    The opening roll cannot be a double: its ``E1`` is the mean of ``E0`` over
    the 15 other rolls (equally likely), so its luck averages to zero too. (In
    a duplicate pair both games start with the same board and roll, so the
    opening's luck cancels from the pair's mean whatever its baseline.)

    ``evaluator``: the judge (a ``NetEvaluator``: its 1-ply runs compiled).
    1-ply values are memoised by board (cleared past ``memo_size`` boards): the
    two games of a pair share their positions while the players agree.
    """

    def __init__(self, evaluator, memo_size: int = 200_000) -> None:
        self.evaluator = evaluator
        self.memo_size = memo_size
        self._e1: dict[bytes, float] = {}
        rolls = [(hi, lo) for lo, hi, _ in ROLLS if hi != lo]
        self.opening_e1 = sum(self.after_best(INITIAL, hi, lo) for hi, lo in rolls) / len(rolls)

    def after_best(self, board: np.ndarray, d1: int, d2: int) -> float:
        """``E0``: the judge's 0-ply equity (mover's view) after its best 0-ply play of ``(d1, d2)``."""
        from backgammon.engine.evaluator import equities
        from backgammon.engine.search import best_board

        after = best_board(board, d1, d2, self.evaluator, 0)  # the opponent on roll
        return -float(equities(self.evaluator.evaluate_boards(after[None]))[0])

    def before_roll(self, board: np.ndarray) -> float:
        """``E1``: the judge's 1-ply equity of ``board`` (side on roll first, before rolling)."""
        from backgammon.engine.evaluator import equities
        from backgammon.engine.search import evaluate_boards_ply

        key = board.tobytes()
        e1 = self._e1.get(key)
        if e1 is None:
            if len(self._e1) >= self.memo_size:
                self._e1.clear()
            e1 = self._e1[key] = float(equities(evaluate_boards_ply(board[None], self.evaluator, 1))[0])
        return e1

    def luck(self, board: np.ndarray, d1: int, d2: int, opening: bool = False) -> float:
        """The luck of ``(d1, d2)`` for the side on roll in ``board`` (``opening``: the game's first roll)."""
        base = self.opening_e1 if opening else self.before_roll(board)
        return self.after_best(board, d1, d2) - base


def play_game(
    first: Player,
    second: Player,
    dice: np.random.Generator,
    check: bool = False,
    judge: LuckJudge | None = None,
    luck_out: np.ndarray | None = None,
) -> float:
    """One cubeless game; points won by ``first`` (who moves first).

    With a ``judge``, ``luck_out`` (2 floats) receives the sum of each side's
    lucks (:meth:`LuckJudge.luck`): ``first``'s, then ``second``'s.
    """
    if judge is not None and luck_out is None:
        raise ValueError("a judge needs luck_out to write the lucks to")
    board = INITIAL.copy()
    players = (first, second)
    d1, d2 = 0, 0
    while d1 == d2:
        d1, d2 = (int(x) for x in dice.integers(1, 7, 2))
    ply = 0
    res = np.empty(5)
    if luck_out is not None:
        luck_out[:] = 0.0
    while True:
        if judge is not None and luck_out is not None:
            luck_out[ply % 2] += judge.luck(board, d1, d2, opening=ply == 0)
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


def mean_se(per_pair: np.ndarray) -> tuple[float, float]:
    """Mean and its standard error (sample standard deviation over the root of the count; nan for one)."""
    n = len(per_pair)
    se = float(per_pair.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    return float(per_pair.mean()), se


def duel(
    a: Player,
    b: Player,
    pairs: int,
    seed: int,
    per_pair_out: list | None = None,
    judge: LuckJudge | None = None,
    vr_per_pair_out: list | None = None,
    progress: Callable[[int, np.ndarray, np.ndarray | None], None] | None = None,
) -> dict:
    """``pairs`` dice sequences, each played twice with sides swapped; ``a``'s points per game.

    ``per_pair_out``, if given, receives ``a``'s mean result on each dice sequence (for paired comparisons).
    With a ``judge``, also the variance-reduced results: each game's points for ``a`` minus ``a``'s lucks
    plus ``b``'s, combined over pairs the same way (``vr_ppg``, ``vr_se``, and ``se_ratio``: plain s.e.
    over VR s.e.); ``vr_per_pair_out`` receives their per-sequence means. ``progress``, if given, is called
    after each sequence with the count done and the per-sequence results so far (plain, and variance-reduced
    or None).
    """
    per_pair = np.empty(pairs)
    vr_pair = np.empty(pairs)
    luck = np.zeros(2)
    wins = 0
    for k in range(pairs):
        g1 = play_game(a, b, np.random.default_rng([seed, k]), judge=judge, luck_out=luck if judge else None)
        v1 = g1 - luck[0] + luck[1]  # a moved first
        g2 = -play_game(b, a, np.random.default_rng([seed, k]), judge=judge, luck_out=luck if judge else None)
        v2 = g2 - luck[1] + luck[0]  # a moved second
        per_pair[k] = (g1 + g2) / 2
        vr_pair[k] = (v1 + v2) / 2
        wins += (g1 > 0) + (g2 > 0)
        if progress is not None:
            progress(k + 1, per_pair[: k + 1], vr_pair[: k + 1] if judge else None)
    ppg, se = mean_se(per_pair)
    if per_pair_out is not None:
        per_pair_out.extend(per_pair.tolist())
    out = {"games": 2 * pairs, "ppg": ppg, "se": se, "win_rate": wins / (2 * pairs)}
    if judge is not None:
        vr_ppg, vr_se = mean_se(vr_pair)
        out.update(vr_ppg=vr_ppg, vr_se=vr_se, se_ratio=se / vr_se if vr_se > 0 else float("nan"))
        if vr_per_pair_out is not None:
            vr_per_pair_out.extend(vr_pair.tolist())
    return out
