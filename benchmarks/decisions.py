"""A fixed decision benchmark refereed by GNU Backgammon 2-ply: error per decision by player and phase.

    python benchmarks/decisions.py [--players LIST] [--limit N] [--slow-limit N] [--weights W.npz]
    python benchmarks/decisions.py --build [--chunks K] [--seed S]     (extends the committed set)

**The set** (``benchmarks/data/decisions/chunk-NNNN.npz``, committed; each chunk is built from
``numpy.random.default_rng([seed, chunk])`` alone, so ``--build`` resumes where it stopped and
extends the set chunk by chunk). Positions come from seeded cubeless games between two players
drawn for each game from: gnubg 0-ply, gnubg 0-ply with Gaussian noise (sd 0.08 or 0.25 on each
candidate's equity), pubeval, and our engine at ``expert`` (0-ply), ``casual`` and ``beginner``
(the nets shipped when the chunk was built: they only steer which positions occur). A decision is
kept with a probability that depends on its phase (rare phases more often, see ``KEEP``), so
that priming battles, back games, holding games and blitzes are not drowned by ordinary contact
and races; rolls with a single distinct resulting position are left out. (The keep chances read
an earlier, looser prime tag, kept for the sampling only so that the chunks rebuild the same:
any run of five made points with a checker of the other beyond its front.)

**Phases** (:func:`phase`, first match wins; "side" is either player; points are counted from the
side's own 1 to 24, its home board 1..6): ``bear-off`` and ``race``: gnubg's ``classify`` (no
contact; bear-off: both sides in gnubg's bear-off database); ``back game``: a side holds two or
more points in the other's home board (its points 19..24) and trails by 30 pips or more;
``blitz``: a side has 3 or more home points made, the other has a checker on the bar or two or
more blots in that home board, and no point there; ``prime``: a side has 5 or more consecutive
made points with a checker of the other behind them (still to pass them, or on the bar); ``holding``: a side holds a
point on its 18..21 (the other's bar, 6, 5 or 4 point), trails by 15 pips or more, and the other
has at most 2 checkers back (on its points 19..24 or the bar); ``crashed``: gnubg's class
crashed; ``contact``: the rest.

**Checker referee** (cubeless money equity, gnubg_nn, a benchmark-only dependency): every
distinct resulting position is scored at gnubg 0-ply; up to 8 within 0.16 of the best at 1-ply;
of those, up to 3 within 0.06 of the 1-ply best at 2-ply (the referee's depth). A play's error is
the 2-ply best minus its 2-ply equity; a play filtered out at depth d (0 or 1) gets the error of
that depth's best play plus its shortfall from that play at depth d (so it is never below the
error of the play that beat it). Every candidate's error is stored, so players are scored by
looking their chosen position up.

**Cube referee** (money, Jacoby off, beavers off): some positions before the roll of the same
games (the roller's gnubg 0-ply cubeless equity in 0.2..1.4, ``CUBE_KEEP``) are asked in one cube
state each (drawn: centred 1-cube or a 2-cube the roller owns). gnubg's own program
(``/usr/games/gnubg``, ``hint``; :mod:`_gnubg_cli`) gives the cubeful No double / Double, take /
Double, pass equities (per cube unit, roller's view) at 0, 1 and 2 plies; 2-ply is the referee.
Each position is two decisions: the doubler's (error: its best of no double and the taker's best
answer, minus what its choice gets against the best answer; "too good" counts as no double) and
the taker's (error: its answer's equity minus the better one, for the taker). gnubg 0-ply and
1-ply are scored on their own stored equities (double when the best answer beats no double,
take when taking costs no more than passing).

**The run** prints, per player: checker decisions and mean error per decision ± standard error,
overall and by phase; then the cube decisions (doubler, taker, both). Players (``--players``):
``expert`` (our 0-ply), ``1ply`` (our nets at 1-ply, the default filters), ``world_class``
(2-ply, the default level), the noisy levels ``beginner``, ``casual``, ``intermediate``,
``advanced`` (seeded noise; their cube decisions are the noiseless 0-ply ones), ``supremo`` (3-ply:
slow, not in the default list), ``gnubg0``, ``gnubg1`` (gnubg_nn's best play at 0 and 1 ply).
``--slow-limit`` (default 2000) caps the decisions scored for 2- and 3-ply players: an evenly
spread subset (every k-th), so all phases stay in; ``--limit`` caps every player the same way.
With the committed set (20,000 checker decisions, 3,411 cube positions) the default run took 14
to 16 minutes on this project's 2-core machine beside other jobs (world_class 8 minutes for its 2,000,
our 1-ply 2, gnubg 1-ply 4, the rest seconds). Building the 80 chunks took 26 minutes (about 13
decisions per second, niced, beside a labeller): ``--build --chunks 120`` adds chunks 80..119.

gnubg's own 0-ply and 1-ply share the referee's net and its filter (a play gnubg 0-ply ranks
first is always scored at 2-ply), so the benchmark leans their way; our players' plays that the
filter dropped are judged by gnubg's lower-ply differences. Compare our players with each other
(or nets with ``--weights``) first, and with gnubg with that in mind. Never train on the set, nor
tune on it beyond choosing between finished checkpoints.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "decisions"
SEED = 20261205
CHUNK = 250  # checker decisions per chunk

PHASES = ("contact", "crashed", "holding", "prime", "blitz", "back game", "race", "bear-off")
KEEP = {
    "contact": 0.13,
    "crashed": 0.47,
    "holding": 0.26,
    "prime": 0.36,
    "blitz": 0.17,
    "back game": 0.47,
    "race": 0.35,
    "bear-off": 0.50,
}
"""The chance a decision of each phase met in the sampling games is kept."""
CUBE_KEEP = 0.10
CUBE_WINDOW = (0.2, 1.4)
FILTER1 = (8, 0.16)  # 0-ply -> 1-ply: keep, threshold
FILTER2 = (3, 0.06)  # 1-ply -> 2-ply
CUBE_STATES = ("centred", "owned")  # owned: a 2-cube the roller owns


# ----------------------------------------------------------------------------- phases
def _runs(made: np.ndarray) -> list[tuple[int, int]]:
    """Runs of consecutive True entries: (first index, last index)."""
    out, start = [], None
    for i, m in enumerate(made.tolist() + [False]):
        if m and start is None:
            start = i
        elif not m and start is not None:
            out.append((start, i - 1))
            start = None
    return out


def _pips(side: np.ndarray) -> int:
    return int(np.arange(1, 26) @ side.astype(int))


def _side_phase(a: np.ndarray, b: np.ndarray, sampling: bool = False) -> str | None:
    """The structural phase side ``a`` (index i: its point i + 1, 24: the bar) imposes or plays, or None.

    ``sampling``: the looser prime tag the sampling's keep chances use (any run of five made points
    with a checker of the other beyond its front; kept so that the committed chunks rebuild the same).
    """
    trail = _pips(a) - _pips(b)  # positive: a is behind
    if int((a[18:24] >= 2).sum()) >= 2 and trail >= 30:
        return "back game"
    # b's checkers in a's home board (a's points 1..6 are b's 19..24)
    b_in_home = b[18:24]
    if (
        int((a[:6] >= 2).sum()) >= 3
        and int((b_in_home >= 2).sum()) == 0
        and (b[24] > 0 or int((b_in_home == 1).sum()) >= 2)
    ):
        return "blitz"
    for lo, hi in _runs(a[:24] >= 2):
        if hi - lo + 1 >= 5:
            # b's checker on its point j + 1 is on a's point 24 - j, and b moves towards a's point 24:
            # behind the prime (still to pass it) is below a's point lo + 1, or on the bar
            behind = int(b[24]) + int(b[: max(0, 23 - hi)].sum()) if sampling else int(b[24 - lo : 25].sum())
            if behind > 0:
                return "prime"
    return None


def phase(board: np.ndarray, g, sampling: bool = False) -> str:
    """The phase of a position (side on roll first); see the module docstring (``sampling``: the
    looser prime tag that the sampling's keep chances use, see :func:`_side_phase`)."""
    cls = g.classify([board[1].tolist(), board[0].tolist()])
    if cls == g.c_bearoff:
        return "bear-off"
    if cls in (g.c_race, g.c_over):
        return "race"
    a, b = board[0].astype(int), board[1].astype(int)
    tags = {_side_phase(a, b, sampling), _side_phase(b, a, sampling)}
    for name in ("back game", "blitz", "prime"):
        if name in tags:
            return name
    for x, y in ((a, b), (b, a)):
        if (x[17:21] >= 2).any() and _pips(x) - _pips(y) >= 15 and int(y[18:25].sum()) <= 2:
            return "holding"
    return "crashed" if cls == g.c_crashed else "contact"


# ----------------------------------------------------------------------------- referee
def _gprobs(g, board: np.ndarray, plies: int) -> np.ndarray:
    return np.asarray(g.probabilities([board[1].tolist(), board[0].tolist()], plies), dtype=float)


class Referee:
    """gnubg_nn's cubeless equities of resulting positions for the mover, cached by position and depth."""

    def __init__(self, g) -> None:
        self.g = g
        self.cache: dict[tuple[bytes, int], float] = {}
        self.evals = [0, 0, 0]

    def equity(self, cand: np.ndarray, plies: int) -> float:
        key = (cand.tobytes(), plies)
        e = self.cache.get(key)
        if e is None:
            if len(self.cache) > 400_000:
                self.cache.clear()
            p = _gprobs(self.g, cand, plies)  # the opponent's (on roll) chances
            e = -float(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4])
            self.cache[key] = e
            self.evals[plies] += 1
        return e


def filtered_errors(e0: Sequence[float], deeper: Callable[[int, int], float]) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's referee error and the depth it was scored at.

    ``e0``: every candidate's 0-ply equity (mover's view); ``deeper(i, plies)`` scores candidate
    ``i`` at 1 or 2 plies. Filters :data:`FILTER1` then :data:`FILTER2`; errors as in the module
    docstring (all >= 0, the 2-ply best 0).
    """
    n = len(e0)
    eq: list[dict[int, float]] = [{} for _ in range(n)]
    for i, e in enumerate(e0):
        eq[i][0] = float(e)
    alive = list(range(n))
    best_at: dict[int, int] = {}
    for plies, (keep, thr) in ((1, FILTER1), (2, FILTER2)):
        prev = plies - 1
        alive.sort(key=lambda i: -eq[i][prev])
        best_at[prev] = alive[0]
        top = eq[alive[0]][prev]
        alive = [i for i in alive[:keep] if eq[i][prev] >= top - thr]
        for i in alive:
            eq[i][plies] = deeper(i, plies)
    alive.sort(key=lambda i: -eq[i][2])
    best_at[2] = alive[0]
    err = np.empty(n)
    depth = np.empty(n, dtype=np.int8)
    top2 = eq[alive[0]][2]
    for i in alive:
        err[i], depth[i] = top2 - eq[i][2], 2
    for d in (1, 0):  # the anchor (best at depth d) was scored one ply deeper, so its error is known
        a = best_at[d]
        for i in range(n):
            if max(eq[i]) == d:
                err[i], depth[i] = err[a] + eq[a][d] - eq[i][d], d
    return err, depth


def cube_errors(nd: float, dt: float, dp: float, doubled: bool, took: bool) -> tuple[float, float]:
    """(doubler's error, taker's error) of a choice, from the three cubeful equities (roller's view).

    The doubler is judged against the taker's best answer; the taker on its own answer.
    """
    answer = min(dt, dp)
    best = max(nd, answer)
    doubler = best - (answer if doubled else nd)
    taker = (dt if took else dp) - answer
    return max(0.0, doubler), max(0.0, taker)


def cube_choice(nd: float, dt: float, dp: float) -> tuple[bool, bool]:
    """The (double?, take?) of a player whose own equities are these."""
    return min(dt, dp) > nd, dt <= dp


# ----------------------------------------------------------------------------- sampling players
def _sampling_players(g, rng: np.random.Generator):
    from _players import gnubg_player, level_player, pubeval_player

    from backgammon.engine.movegen import successors_py

    def noisy_gnubg(sd: float):
        def play(b, d1, d2):
            cands = successors_py(b, d1, d2)
            if len(cands) == 1:
                return cands[0]
            eq = np.array([-_eq(_gprobs(g, c, 0)) for c in cands]) + rng.normal(0, sd, len(cands))
            return cands[int(np.argmax(eq))]

        return play

    seed = int(rng.integers(1 << 30))
    return {
        "gnubg0": gnubg_player(0),
        "gnubg0+0.08": noisy_gnubg(0.08),
        "gnubg0+0.25": noisy_gnubg(0.25),
        "pubeval": pubeval_player(),
        "expert": level_player("expert"),
        "casual": level_player("casual", seed=seed),
        "beginner": level_player("beginner", seed=seed + 1),
    }


def _eq(p: np.ndarray) -> float:
    return float(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4])


def build_chunk(k: int, seed: int, g, log: Callable[[str], None] = print) -> dict[str, np.ndarray]:
    """Sample and referee chunk ``k`` (:data:`CHUNK` checker decisions plus the cube positions met)."""
    from _gnubg_cli import MoneyCube, money_cube_hints

    from backgammon.engine.movegen import successors_py
    from backgammon.position import Position
    from backgammon.training._selfplay import INITIAL

    rng = np.random.default_rng([seed, k])
    players = _sampling_players(g, rng)
    names = list(players)
    ref = Referee(g)
    boards, dice, phases, offsets, cboards, cerr, cdepth, sources = [], [], [], [0], [], [], [], []
    cube_boards, cube_phase, cube_owned = [], [], []
    games = 0
    t0 = time.perf_counter()
    while len(boards) < CHUNK:
        pa, pb = rng.choice(len(names), 2)
        side = (players[names[pa]], players[names[pb]])
        games += 1
        b = INITIAL.copy()
        d1, d2 = 0, 0
        while d1 == d2:
            d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        ply = 0
        while len(boards) < CHUNK:
            if ply > 0 and rng.random() < CUBE_KEEP:
                e = _eq(_gprobs(g, b, 0))
                if CUBE_WINDOW[0] <= e <= CUBE_WINDOW[1]:
                    cube_boards.append(b.copy())
                    cube_phase.append(PHASES.index(phase(b, g)))
                    cube_owned.append(bool(rng.integers(2)))
            cands = successors_py(b, d1, d2)
            if len(cands) > 1:
                if rng.random() < KEEP[phase(b, g, sampling=True)]:
                    ph = phase(b, g)
                    e0 = [ref.equity(c, 0) for c in cands]
                    err, depth = filtered_errors(e0, lambda i, n, cands=cands: ref.equity(cands[i], n))
                    boards.append(b.copy())
                    dice.append((d1, d2))
                    phases.append(PHASES.index(ph))
                    sources.append((pa, pb, ply))
                    cboards.append(cands.copy())
                    cerr.append(err.astype(np.float32))
                    cdepth.append(depth)
                    offsets.append(offsets[-1] + len(cands))
            nb = side[ply % 2](b, d1, d2)
            if nb[1].sum() == 0:
                break
            b = nb
            ply += 1
            d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
    t_checker = time.perf_counter() - t0
    positions = [Position(tuple(int(x) for x in c[0]), tuple(int(x) for x in c[1])) for c in cube_boards]
    reqs = [(p, MoneyCube(2, owned=True) if o else MoneyCube()) for p, o in zip(positions, cube_owned)]
    cube_eq = np.zeros((len(reqs), 3, 3), dtype=np.float32)
    for plies in (0, 1, 2):
        if reqs:
            for j, h in enumerate(money_cube_hints(reqs, plies=plies)):
                cube_eq[j, plies] = (h.no_double, h.double_take, h.double_pass)
    log(
        f"chunk {k}: {len(boards)} checker decisions from {games} games ({t_checker:.0f} s, gnubg evaluations "
        f"0/1/2-ply {ref.evals}), {len(reqs)} cube positions ({time.perf_counter() - t0 - t_checker:.0f} s)"
    )
    return {
        "board": np.stack(boards).astype(np.int8),
        "dice": np.array(dice, dtype=np.int8),
        "phase": np.array(phases, dtype=np.int8),
        "source": np.array(sources, dtype=np.int16),
        "offset": np.array(offsets, dtype=np.int32),
        "cand": np.concatenate(cboards).astype(np.int8),
        "err": np.concatenate(cerr).astype(np.float32),
        "depth": np.concatenate(cdepth).astype(np.int8),
        "cube_board": np.array(cube_boards, dtype=np.int8).reshape(-1, 2, 25),
        "cube_phase": np.array(cube_phase, dtype=np.int8),
        "cube_owned": np.array(cube_owned, dtype=bool),
        "cube_eq": cube_eq,
        "seed": np.array([seed, k], dtype=np.int64),
    }


def build(chunks: int, seed: int, data: Path = DATA, reverse: bool = False) -> None:
    """Build chunks 0..chunks-1 that are not on disk yet (each written atomically when done; ``reverse``:
    last first, so that a second process can work from the other end)."""
    import gnubg_nn as g

    data.mkdir(parents=True, exist_ok=True)
    for k in reversed(range(chunks)) if reverse else range(chunks):
        path = data / f"chunk-{k:04d}.npz"
        if path.exists():
            continue
        arrays = build_chunk(k, seed, g, log=lambda s: print(s, flush=True))
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(path)


# ----------------------------------------------------------------------------- the set
class DecisionSet:
    """The checker and cube decisions of the chunks on disk, concatenated."""

    def __init__(self, parts: Sequence[dict[str, np.ndarray]]) -> None:
        cat = lambda key: np.concatenate([p[key] for p in parts]) if parts else np.zeros(0)  # noqa: E731
        self.board = cat("board")
        self.dice = cat("dice")
        self.phase = cat("phase")
        self.cand = cat("cand")
        self.err = cat("err")
        self.depth = cat("depth")
        offs, base = [np.zeros(1, dtype=np.int64)], 0
        for p in parts:
            offs.append(p["offset"][1:].astype(np.int64) + base)
            base += int(p["offset"][-1])
        self.offset = np.concatenate(offs)
        self.cube_board = cat("cube_board").reshape(-1, 2, 25)
        self.cube_phase = cat("cube_phase")
        self.cube_owned = cat("cube_owned").astype(bool)
        self.cube_eq = cat("cube_eq").reshape(-1, 3, 3)

    @classmethod
    def load(cls, data: Path = DATA) -> DecisionSet:
        parts = []
        for path in sorted(data.glob("chunk-*.npz")):
            if ".tmp" in path.name:
                continue
            with np.load(path) as z:
                parts.append({key: z[key] for key in z.files})
        return cls(parts)

    def __len__(self) -> int:
        return len(self.board)

    def candidates(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.offset[i], self.offset[i + 1]
        return self.cand[lo:hi], self.err[lo:hi]

    def error_of(self, i: int, chosen: np.ndarray) -> float:
        """The referee's error of the resulting position ``chosen`` (opponent on roll) at decision ``i``.

        Raises:
            KeyError: if ``chosen`` is not one of the decision's candidates (an illegal play).
        """
        cands, err = self.candidates(i)
        hit = np.flatnonzero((cands.reshape(len(cands), -1) == chosen.reshape(1, -1)).all(axis=1))
        if len(hit) == 0:
            raise KeyError(f"decision {i}: the chosen position is not a legal result of the roll")
        return float(err[hit[0]])


def spread(n: int, limit: int | None) -> list[int]:
    """An evenly spread subset of ``range(n)`` of at most ``limit`` indices (all for None)."""
    if limit is None or limit >= n:
        return list(range(n))
    return sorted({int(x) for x in np.linspace(0, n - 1, limit)})


# ----------------------------------------------------------------------------- players scored
PLAYERS = ("expert", "1ply", "world_class", "advanced", "intermediate", "casual", "beginner", "gnubg0", "gnubg1")
SLOW = {"world_class", "supremo"}


def checker_player(name: str, evaluator, seed: int):
    """A function ``(board, d1, d2) -> resulting board`` for a player name of ``--players``."""
    from _players import engine_player, gnubg_player, level_player

    if name == "1ply":
        return engine_player(1, evaluator)
    if name == "expert+os":
        return one_sided_reranked(evaluator)
    if name in ("gnubg0", "gnubg1"):
        return gnubg_player(int(name[-1]))
    return level_player(name, evaluator, seed=seed)


def one_sided_reranked(evaluator, top: int = 2, trials: int = 288):
    """``expert+os`` (issue 46, an experiment, not a level): our 0-ply choice, except in a pure race, where the
    one-sided method (``engine.race.race_outputs``, ``trials`` trials beyond the 6-point database, the same
    dice for every candidate) picks among the 0-ply ranking's ``top`` best plays."""
    from backgammon.engine.evaluator import equities
    from backgammon.engine.movegen import RACE, phase, successors_py
    from backgammon.engine.race import race_outputs

    def play(b: np.ndarray, d1: int, d2: int) -> np.ndarray:
        cands = successors_py(b, d1, d2)
        eq = equities(evaluator.evaluate_boards(np.array(cands)))  # each from the opponent's view
        order = np.argsort(eq, kind="stable")
        if len(cands) == 1 or phase(b) != RACE:
            return cands[order[0]]
        best = order[:top]
        os_eq = equities(np.array([race_outputs(cands[j], trials=trials, seed=7) for j in best]))
        return cands[best[int(np.argmin(os_eq))]]

    return play


def cube_player(name: str, evaluator):
    """A function ``(board, owned, eq3x3) -> (double?, take?)``, or None for a player without one."""
    from backgammon.engine.cube import CubeInfo, CubeOwner
    from backgammon.engine.levels import get_level
    from backgammon.engine.search import EvalContext, decide_cube
    from backgammon.position import Position

    if name in ("gnubg0", "gnubg1"):
        plies = int(name[-1])
        return lambda _b, _o, eq: cube_choice(*(float(x) for x in eq[plies]))
    if name == "expert+os":
        name = "expert"  # its cube is the 0-ply one
    plies = 1 if name == "1ply" else get_level(name).plies

    def decide(b: np.ndarray, owned: bool, _eq) -> tuple[bool, bool]:
        pos = Position(tuple(int(x) for x in b[0]), tuple(int(x) for x in b[1]))
        cube = CubeInfo.money(2, CubeOwner.ME) if owned else CubeInfo.money()
        d = decide_cube(pos, EvalContext(evaluator, plies, cube)).decision
        return d.should_double, d.take

    return decide


def score_checker(ds: DecisionSet, play, indices: Sequence[int]) -> np.ndarray:
    """Each decision's referee error of ``play``'s choice."""
    return np.array([ds.error_of(i, play(ds.board[i], int(ds.dice[i][0]), int(ds.dice[i][1]))) for i in indices])


def score_cube(ds: DecisionSet, decide, indices: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Doubler's and taker's referee errors of ``decide``'s choices (2-ply equities)."""
    dbl, tk = [], []
    for j in indices:
        doubled, took = decide(ds.cube_board[j], bool(ds.cube_owned[j]), ds.cube_eq[j])
        a, b = cube_errors(*(float(x) for x in ds.cube_eq[j, 2]), doubled, took)
        dbl.append(a)
        tk.append(b)
    return np.array(dbl), np.array(tk)


def mean_se(x: np.ndarray) -> tuple[float, float]:
    n = len(x)
    if n == 0:
        return float("nan"), float("nan")
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")


def _fmt(x: np.ndarray, sep: str = " ± ", digits: int = 1) -> str:
    """Mean ± standard error in millipoints (thousandths of a point per decision)."""
    m, se = mean_se(x)
    return "" if not len(x) else f"{1000 * m:.{digits}f}{sep}{1000 * se:.{digits}f}"


def run(args) -> int:
    from _players import load_evaluator
    from rich.console import Console
    from rich.table import Table

    ds = DecisionSet.load(args.data)
    if not len(ds):
        print(f"error: no decisions under {args.data}: build them with --build", file=sys.stderr)
        return 2
    ev = load_evaluator(args.weights)
    old = load_evaluator(None if args.compare == "shipped" else args.compare) if args.compare else None
    console = Console(width=200)
    names = [n.strip() for n in args.players.split(",") if n.strip()]
    counts = np.bincount(ds.phase, minlength=len(PHASES))
    console.print(
        f"{len(ds)} checker decisions, {len(ds.cube_board)} cube positions ({2 * len(ds.cube_board)} cube "
        f"decisions) in {args.data}; by phase: " + ", ".join(f"{p} {c}" for p, c in zip(PHASES, counts))
    )
    checker = Table(
        title="Checker play: referee (gnubg 2-ply) error per decision, millipoints of cubeless money equity (± SE)"
    )
    for col in ("player", "N", "all", *PHASES, "wrong", "s / dec"):
        checker.add_column(col, justify="right")
    cube = Table(
        title="Cube (money, Jacoby off, beavers off): referee (gnubg 2-ply) error per decision, "
        "millipoints per cube unit (± SE)"
    )
    for col in ("player", "positions", "doubler", "taker", "both", "doubler wrong", "taker wrong"):
        cube.add_column(col, justify="right")
    wanted = [PHASES.index(p) for p in args.phases] if args.phases else list(range(len(PHASES)))
    keep = np.flatnonzero(np.isin(ds.phase, wanted))  # the decisions scored (all phases by default)
    ckeep = np.flatnonzero(np.isin(ds.cube_phase, wanted))
    if not len(keep):
        print(f"error: no decisions of the phases {', '.join(args.phases)} under {args.data}", file=sys.stderr)
        return 2
    for name in names:
        limit = args.limit
        if name in SLOW:
            limit = min(args.slow_limit, limit) if limit is not None else args.slow_limit
        idx = [int(i) for i in keep[spread(len(keep), limit)]]
        t = time.perf_counter()
        errs = score_checker(ds, checker_player(name, ev, args.seed), idx)
        per = (time.perf_counter() - t) / max(1, len(idx))
        ph = ds.phase[idx]
        cells = [_fmt(errs[ph == k], "±") for k in range(len(PHASES))]
        checker.add_row(name, str(len(idx)), _fmt(errs), *cells, f"{(errs > 1e-6).mean():.1%}", f"{per:.3f}")
        cidx = [int(i) for i in ckeep[spread(len(ckeep), limit)]]
        decide = cube_player(name, ev)
        d, k = score_cube(ds, decide, cidx)
        if old is not None and not name.startswith("gnubg"):
            # the same decisions with the --compare weights: the paired difference, this player's own noise gone
            diff = errs - score_checker(ds, checker_player(name, old, args.seed), idx)
            cells = [_fmt(diff[ph == k], "±", 2) for k in range(len(PHASES))]
            checker.add_row(f"{name} − compare", str(len(idx)), _fmt(diff, digits=2), *cells, "", "")
            od, ok = score_cube(ds, cube_player(name, old), cidx)
            both = np.concatenate([d - od, k - ok])
            cube.add_row(
                f"{name} − compare", str(len(cidx)), *(_fmt(v, digits=2) for v in (d - od, k - ok, both)), "", ""
            )
        cube.add_row(
            name,
            str(len(cidx)),
            _fmt(d),
            _fmt(k),
            _fmt(np.concatenate([d, k])),
            f"{(d > 1e-9).mean():.1%}" if len(d) else "",
            f"{(k > 1e-9).mean():.1%}" if len(k) else "",
        )
        console.print(f"  {name}: {time.perf_counter() - t:.0f} s", style="dim")
    console.print(checker)
    console.print(
        "(decisions per phase as above, fewer for players run with a limit: an evenly spread subset; "
        "wrong: the share of decisions with a positive error)"
    )
    console.print(cube)
    return 0


def _phases(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in names if x not in PHASES]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"unknown phase {', '.join(bad) or text!r}: expected some of {', '.join(PHASES)}"
        )
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="store_true", help="sample and referee chunks missing from the set")
    ap.add_argument("--chunks", type=int, default=80, help="with --build: chunks 0..K-1 (250 decisions each)")
    ap.add_argument("--reverse", action="store_true", help="with --build: build the last missing chunks first")
    ap.add_argument("--seed", type=int, default=SEED, help="build seed; in a run, the noisy levels' seed")
    ap.add_argument("--data", type=Path, default=DATA, help="the set's folder")
    ap.add_argument("--players", default=",".join(PLAYERS))
    ap.add_argument("--limit", type=int, default=None, help="score at most N decisions per player (evenly spread)")
    ap.add_argument("--slow-limit", type=int, default=2000, help="at most N decisions for 2- and 3-ply players")
    ap.add_argument("--weights", default=None, help="our weights file (default: the shipped one)")
    ap.add_argument(
        "--phases",
        type=_phases,
        default=None,
        help="score only the decisions of these phases, comma-separated (e.g. 'race'); --limit then counts those",
    )
    ap.add_argument(
        "--compare",
        default=None,
        help="another weights file ('shipped': the package's): each of our players' rows is followed by the paired "
        "difference, these weights' errors minus those of --compare's on the same decisions",
    )
    args = ap.parse_args(argv)
    if args.build:
        build(args.chunks, args.seed, args.data, args.reverse)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
