"""Evaluators: positions to winning chances.

An evaluator scores a position for the side on roll, *before* it rolls, as
five cumulative probabilities (:class:`Probabilities`, gnubg's outputs). It
offers :meth:`Evaluator.evaluate` for one :class:`~backgammon.Position` and
:meth:`Evaluator.evaluate_boards` for a batch of raw boards (``int8`` arrays of
shape ``(n, 2, 25)``, each from its own side on roll's view, as the core's
move generator produces them).

Implementations: :class:`NetEvaluator` (the trained nets, the bear-off
database for races with both sides home, exact scores for finished games),
:class:`PubEval` (Tesauro's linear benchmark player) and
:class:`RandomEvaluator` (a seeded random player for tests and benchmarks).

>>> p = Probabilities(0.6, 0.2, 0.01, 0.1, 0.005)
>>> round(p.equity(), 3)
0.305
>>> p.flip().flip() == p
True
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
from numba import njit

from backgammon.engine.bearoff import WAYS, BearoffDatabase, race_probs, rank
from backgammon.engine.encoding import MAX_NONZERO, encode_for
from backgammon.engine.movegen import BEAROFF, CONTACT, OVER, RACE, board_of, phase
from backgammon.engine.network import NUM_OUTPUTS, NetArrays, NetPair, forward_sparse, kernel_arrays, outputs_equity5
from backgammon.engine.pubeval import WC, WR, pubeval_score
from backgammon.errors import EngineError, InvalidInputError
from backgammon.position import Position

__all__ = [
    "Evaluator",
    "NetEvaluator",
    "Probabilities",
    "PubEval",
    "RandomEvaluator",
    "board_of",
    "check_boards",
    "default_evaluator",
    "default_weights_path",
]


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Cubeless outcome chances for the side on roll (cumulative, like gnubg).

    ``win_gammon`` includes backgammons and ``lose_gammon`` includes lost
    backgammons; losing chances are ``1 - win``.
    """

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @property
    def lose(self) -> float:
        return 1.0 - self.win

    def equity(self) -> float:
        """Cubeless equity in points per game: ``2*win - 1 + wg - lg + wbg - lbg``."""
        return 2.0 * self.win - 1.0 + self.win_gammon - self.lose_gammon + self.win_backgammon - self.lose_backgammon

    def flip(self) -> Probabilities:
        """The same chances from the opponent's view."""
        return Probabilities(
            1.0 - self.win, self.lose_gammon, self.lose_backgammon, self.win_gammon, self.win_backgammon
        )

    def as_array(self) -> np.ndarray:
        return np.array([self.win, self.win_gammon, self.win_backgammon, self.lose_gammon, self.lose_backgammon])

    @classmethod
    def from_array(cls, a: np.ndarray | tuple[float, ...]) -> Probabilities:
        """From five numbers in gnubg's order.

        Raises:
            InvalidInputError: if there are not five numbers.
        """
        values = [float(v) for v in a]
        if len(values) != NUM_OUTPUTS:
            raise InvalidInputError(f"expected five probabilities, got {len(values)}: {values!r}")
        return cls(*values)

    def __str__(self) -> str:
        return (
            f"win {self.win:.3f} (g {self.win_gammon:.3f}, bg {self.win_backgammon:.3f}) "
            f"lose {self.lose:.3f} (g {self.lose_gammon:.3f}, bg {self.lose_backgammon:.3f}) "
            f"equity {self.equity():+.3f}"
        )


def equities(probs: np.ndarray) -> np.ndarray:
    """Cubeless equities of an ``(n, 5)`` array of outputs."""
    return 2.0 * probs[:, 0] - 1.0 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]


def flip_array(probs: np.ndarray) -> np.ndarray:
    """Flip an ``(n, 5)`` array of outputs to the other side's view."""
    return np.stack([1.0 - probs[:, 0], probs[:, 3], probs[:, 4], probs[:, 1], probs[:, 2]], axis=1)


@runtime_checkable
class Evaluator(Protocol):
    """Anything that scores positions for the side on roll."""

    def evaluate(self, position: Position) -> Probabilities:
        """Chances of the side on roll in ``position``."""
        ...

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        """Outputs ``(n, 5)`` for raw boards ``(n, 2, 25)`` (each from its side on roll's view)."""
        ...


def check_boards(boards: np.ndarray) -> np.ndarray:
    """Validate a batch of raw boards and return it as a contiguous int8 array.

    Raises:
        InvalidInputError: for a wrong shape or impossible checker counts.
    """
    a = np.asarray(boards)
    if a.ndim != 3 or a.shape[1:] != (2, 25):
        raise InvalidInputError(f"expected boards of shape (n, 2, 25), got {a.shape!r}")
    if a.dtype == np.int8 and a.flags.c_contiguous:  # the engine's own boards: one compiled pass
        if not _counts_ok(a):
            raise InvalidInputError("expected 0..15 checkers per side on every board")
        return a
    if a.size and (a.min() < 0 or a.sum(axis=2).max() > 15):
        raise InvalidInputError("expected 0..15 checkers per side on every board")
    return np.ascontiguousarray(a, dtype=np.int8)


@njit(cache=True, nogil=True)
def _counts_ok(boards: np.ndarray) -> bool:
    """Whether every side of every board has 0..15 checkers and no negative count."""
    for i in range(boards.shape[0]):
        for s in range(2):
            total = 0
            for j in range(25):
                n = boards[i, s, j]
                if n < 0:
                    return False
                total += n
            if total > 15:
                return False
    return True


@njit(cache=True, nogil=True)
def terminal_probs(board: np.ndarray, out: np.ndarray) -> None:
    """Exact outcome of a finished game for the side on roll."""
    out[:] = 0.0
    mine_left = 0
    theirs_left = 0
    for i in range(25):
        mine_left += board[0, i]
        theirs_left += board[1, i]
    if mine_left == 0:  # the side on roll has borne off everything
        out[0] = 1.0
        if theirs_left == 15:
            out[1] = 1.0
            for i in range(18, 25):
                if board[1, i] > 0:
                    out[2] = 1.0
    else:
        if mine_left == 15:
            out[3] = 1.0
            for i in range(18, 25):
                if board[0, i] > 0:
                    out[4] = 1.0


@njit(cache=True, nogil=True)
def bearoff_probs(board: np.ndarray, dist: np.ndarray, first: np.ndarray, ways: np.ndarray, out: np.ndarray) -> None:
    """Race with both sides home: from the one-sided database."""
    a = np.zeros(6, dtype=np.int64)
    b = np.zeros(6, dtype=np.int64)
    for p in range(6):
        a[p] = board[0, p]
        b[p] = board[1, p]
    i = rank(a, ways)
    j = rank(b, ways)
    race_probs(dist[i], first[i], dist[j], first[j], out)


@njit(cache=True, nogil=True)
def sanitize(out: np.ndarray) -> None:
    """Make five outputs consistent: 0 <= wbg <= wg <= win, 0 <= lbg <= lg <= 1 - win."""
    w = min(max(out[0], 0.0), 1.0)
    out[0] = w
    out[1] = min(max(out[1], 0.0), w)
    out[2] = min(max(out[2], 0.0), out[1])
    out[3] = min(max(out[3], 0.0), 1.0 - w)
    out[4] = min(max(out[4], 0.0), out[3])


@njit(cache=True, nogil=True)
def settle(b: np.ndarray, ph: int, out: np.ndarray) -> None:
    """A net's five outputs for board ``b`` (phase ``ph``) made consistent (:func:`sanitize`) and exact where the
    board decides them: no gammon for a side with a checker off; in a race, no backgammon for a side with no
    checker left in the other's home board (it cannot be sent back)."""
    sanitize(out)
    mine = 0
    theirs = 0
    for i in range(25):
        mine += b[0, i]
        theirs += b[1, i]
    if theirs < 15:
        out[1] = 0.0
        out[2] = 0.0
    if mine < 15:
        out[3] = 0.0
        out[4] = 0.0
    if ph == RACE:
        back_mine = 0
        back_theirs = 0
        for i in range(18, 25):
            back_mine += b[0, i]
            back_theirs += b[1, i]
        if back_theirs == 0:
            out[2] = 0.0
        if back_mine == 0:
            out[4] = 0.0


@njit(cache=True, nogil=True)
def net_evaluate_one(
    b, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, idx, val, hid, o
) -> None:
    """One board into ``o``: exact if over, database if both sides home, else the phase's net.

    ``idx``/``val`` (:data:`MAX_NONZERO`) and ``hid`` (the larger hidden layer) are scratch.
    """
    ph = phase(b)
    if ph == OVER:
        terminal_probs(b, o)
    elif ph == BEAROFF and use_bearoff:
        bearoff_probs(b, dist, first, ways, o)
    else:
        k = encode_for(b, ph, idx, val)
        if ph == CONTACT:
            forward_sparse(idx, val, k, cw1, cb1, cw2, cb2, hid, o)
        else:
            forward_sparse(idx, val, k, rw1, rb1, rw2, rb2, hid, o)
        settle(b, ph, o)


@njit(cache=True, nogil=True)
def net_choose(
    cand, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, idx, val, hid, o, best
) -> int:
    """The 0-ply play among the results ``cand[:n]`` (each with the opponent on roll): the index of the
    first one of lowest equity for the opponent, as ``argmax`` of the mover's equity takes it; its five
    outputs (the opponent's view) into ``best``. ``o`` is scratch, as in :func:`net_evaluate_one`."""
    chosen = 0
    best_eq = np.inf
    for c in range(n):
        net_evaluate_one(
            cand[c], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, idx, val, hid, o
        )
        eq = outputs_equity5(o)
        if eq < best_eq:
            best_eq = eq
            chosen = c
            best[:] = o
    return chosen


@njit(cache=True, nogil=True)
def net_evaluate_batch(boards, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, out) -> None:
    """Evaluate each board (see :func:`net_evaluate_one`) into the rows of ``out``."""
    idx = np.empty(MAX_NONZERO, dtype=np.int64)
    val = np.empty(MAX_NONZERO, dtype=np.float64)
    hid = np.empty(max(cb1.shape[0], rb1.shape[0]))
    o = np.empty(NUM_OUTPUTS)
    for i in range(boards.shape[0]):
        net_evaluate_one(
            boards[i], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, idx, val, hid, o
        )
        for j in range(NUM_OUTPUTS):
            out[i, j] = o[j]


def default_weights_path() -> Path:
    """The weights shipped with the package (``backgammon/engine/data/weights.npz``)."""
    return Path(str(resources.files("backgammon.engine") / "data" / "weights.npz"))


class _BoardEvaluator:
    """Shared plumbing: :meth:`evaluate` through :meth:`evaluate_boards`."""

    def evaluate(self, position: Position) -> Probabilities:
        """Chances of the side on roll in ``position``."""
        return Probabilities.from_array(self.evaluate_boards(board_of(position)[None])[0])

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


# What NetEvaluator.kernel_args returns: the contact net's and the race net's w1, b1, w2, b2, the bear-off
# database's dist, first and ways, and whether to use it (a fixed length, so that the compiled kernels'
# signatures check the calls that unpack it).
KernelArgs = tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    bool,
]


class NetEvaluator(_BoardEvaluator):
    """The neural-network evaluator (contact net, race net, bear-off database).

    >>> ev = NetEvaluator.default()
    >>> 0.4 < ev.evaluate(Position.initial()).win < 0.6
    True

    Raises:
        EngineError: (at construction) if the weights file is missing or does not fit.
    """

    _default: NetEvaluator | None = None
    _lock = threading.Lock()

    def __init__(self, weights: str | Path | NetPair | None = None, *, bearoff: bool = True) -> None:
        if isinstance(weights, NetPair):
            self.nets = weights
        else:
            path = default_weights_path() if weights is None else Path(weights)
            if not path.exists():
                raise EngineError(f"weights file {str(path)!r} does not exist")
            self.nets = NetPair.load(path)
        self.use_bearoff = bearoff
        if bearoff:
            db = BearoffDatabase.get()
            self._dist, self._first = db.dist, db.first
        else:
            self._dist = self._first = np.zeros((1, 1))
        self._arrays = kernel_arrays(self.nets.contact, self.nets.race)

    @classmethod
    def default(cls) -> NetEvaluator:
        """The shared evaluator with the shipped weights."""
        with cls._lock:
            if cls._default is None:
                cls._default = cls()
            return cls._default

    @property
    def meta(self) -> dict:
        """The weights file's record (games, time, seed, strength...)."""
        return dict(self.nets.meta)

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        """Outputs ``(n, 5)`` for raw boards ``(n, 2, 25)``.

        Raises:
            InvalidInputError: for a wrong shape or impossible counts.
        """
        b = check_boards(boards)
        out = np.empty((b.shape[0], NUM_OUTPUTS))
        net_evaluate_batch(b, *self._arrays, self._dist, self._first, WAYS, self.use_bearoff, out)
        return out

    @property
    def arrays(self) -> NetArrays:
        """The eight net arrays the compiled kernels take (contact, then race: ``w1, b1, w2, b2`` each)."""
        return self._arrays

    def kernel_args(self) -> KernelArgs:
        """The arrays and flags the compiled kernels take after a board: the eight net arrays,
        the bear-off database (``dist``, ``first``, ``ways``) and whether to use it."""
        return (*self._arrays, self._dist, self._first, WAYS, self.use_bearoff)


class RandomEvaluator(_BoardEvaluator):
    """Random (but consistent) chances: a random player, for tests and benchmarks.

    Finished games are still scored exactly.

    >>> RandomEvaluator(1).evaluate(Position.initial()).win == RandomEvaluator(1).evaluate(Position.initial()).win
    True
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        b = check_boards(boards)
        out = np.empty((b.shape[0], NUM_OUTPUTS))
        o = np.empty(NUM_OUTPUTS)
        for i in range(b.shape[0]):
            if phase(b[i]) == OVER:
                terminal_probs(b[i], o)
                out[i] = o
            else:
                w = self.rng.random()
                g = self.rng.random() * 0.3
                out[i] = (w, w * g, 0.0, (1 - w) * g, 0.0)
        return out


class PubEval(_BoardEvaluator):
    """Tesauro's pubeval as an evaluator (see :mod:`backgammon.engine.pubeval`).

    Pubeval scores the board *after* a play, for the player who made it; so a
    board with side X on roll is scored for X's opponent, and X's chances are
    the logistic of minus that score (no gammons). The race weights are used
    when the board is a race. Ordering plays by these chances is pubeval's
    move choice, except at the play that ends contact, where the original
    looks at the board before the play: :meth:`choose` does exactly that.
    """

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        b = check_boards(boards)
        out = np.zeros((b.shape[0], NUM_OUTPUTS))
        o = np.empty(NUM_OUTPUTS)
        for i in range(b.shape[0]):
            ph = phase(b[i])
            if ph == OVER:
                terminal_probs(b[i], o)
                out[i] = o
                continue
            s = pubeval_score(b[i], ph != CONTACT, WC, WR)
            out[i, 0] = 1.0 / (1.0 + np.exp(min(max(s, -50.0), 50.0)))
        return out

    def choose(self, position: Position, die1: int, die2: int):
        """Pubeval's play for a roll (race weights if ``position`` is a race before the play).

        Raises:
            InvalidInputError: if a die is not 1..6.
        """
        plays = position.legal_plays(die1, die2)
        race = position.is_race()
        scores = [pubeval_score(board_of(p.position), race, WC, WR) for p in plays]
        return plays[int(np.argmax(scores))]


def default_evaluator() -> NetEvaluator:
    """The engine's default evaluator: the shipped nets with the bear-off database.

    Raises:
        EngineError: if the shipped weights cannot be loaded.
    """
    return NetEvaluator.default()
