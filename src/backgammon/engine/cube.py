"""Cube decisions for money and match play, from cubeless probabilities.

The model is Janowski's: the cubeful equity is a mix, with weight ``x`` (the
*cube efficiency*), of a fully **live** cube (every later cube decision is made
at exactly the right moment, so equity moves linearly in the win chance between
the take and cash points) and a **dead** cube (the cubeless result at the
current cube value)::

    cubeful(p) = x * live(p) + (1 - x) * dead

Everything is seen from the player on roll ("A"), ``p`` its winning chance.
The live lines are piecewise linear in ``p`` through points that the model
computes, for money and match alike, from one function ``value(k)``: what A
gets when the game ends with A winning ``k`` points (``k < 0``: losing). For
money ``value(k) = k``; in a match it is the Kazaross-XG2 match equity after
the score moves by ``k`` (:mod:`backgammon.engine.met`), which makes gammons
dead where they win nothing more, forbids doubling in the Crawford game and
lets the trailer double freely after it (the leader's take costs nothing).

Gammon and backgammon rates are held fixed as ``p`` moves (the usual
assumption): ``W(v)`` and ``L(v)`` are A's average result over its wins and
over its losses with the cube at ``v``. A's live lines, with the cube at ``v``:

* A owns the cube: ``(0, L(v))``, ``(cash_A(v), value(v))``, ``(1, W(v))``;
* B owns it: ``(0, L(v))``, ``(cash_B(v), value(-v))``, ``(1, W(v))``;
* centred: ``(0, L(v))``, ``(cash_B(v), value(-v))``, ``(cash_A(v), value(v))``, ``(1, W(v))``,

where ``cash_A(v)`` is the ``p`` at which B is indifferent between passing a
double to ``2v`` and taking it (owning the cube at ``2v``), and ``cash_B(v)``
the same for B's double; each is found on the next cube level's line, down to
the cube limit (or a level where doubling is pointless), where the cube is
dead. With no gammons, money and ``x = 1`` this gives the classic live-cube
take point of 20% and cash point of 80%; with ``x = 0`` the dead-cube 25%.

**Cube efficiency** ``x``: the values Rick Janowski suggested, as the GNU
Backgammon manual ("The cube efficiency") documents them: 0.68 in contact
positions; in races a linear interpolation on the pip count of the player on
roll, 0.6 at 40 pips or fewer to 0.7 at 120 or more; 0.6 once both sides are
bearing off. Callers may pass their own ``x``.

Money with the **Jacoby rule**: while the cube is centred, gammons and
backgammons count as single games, so the centred (no double) line and its
dead part use ``W = 1``, ``L = -1``; once doubled they count again.

Equities in :class:`CubeDecision` are normalised to the current cube: for
money, points per cube unit; in a match, gnubg's "EMG" (equivalent to money:
losing the cube value maps to -1, winning it to +1). Match-winning chances are
given as well. Beavers and the Jacoby-Beaver interplay are not modelled.
"""

from __future__ import annotations

import enum
import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from backgammon.engine.met import MAX_AWAY, match_equity
from backgammon.errors import InvalidInputError
from backgammon.position import Phase, Position

if TYPE_CHECKING:
    import numpy as np

CONTACT_CUBE_EFFICIENCY = 0.68
"""Cube efficiency x for contact positions (see the module docstring)."""

DEFAULT_CUBE_LIMIT = 1024
"""Money cube limit used by the model (the cube is dead beyond it); 1024 is far enough to converge."""


class CubeOwner(enum.Enum):
    """Who holds the cube, seen from the player on roll."""

    CENTRED = "centred"
    ME = "me"
    OPPONENT = "opponent"


class CubeAction(enum.Enum):
    """The right cube action for the player on roll (and the receiver's answer)."""

    NO_DOUBLE = "no double"
    DOUBLE_TAKE = "double, take"
    DOUBLE_PASS = "double, pass"
    TOO_GOOD_TAKE = "too good to double, take"
    TOO_GOOD_PASS = "too good to double, pass"


@dataclass(frozen=True, slots=True)
class CubeInfo:
    """The cube and the score, seen from the player on roll.

    ``away``: ``None`` for money, else ``(points A needs, points B needs)``.
    ``crawford``: this game is the Crawford game (nobody may double).
    ``post_crawford``: the Crawford game has been played.
    ``jacoby``: money only; gammons count single while the cube is centred.

    Raises:
        InvalidInputError: on a cube value that is not a power of two, a bad
            score or flags that contradict each other.
    """

    value: int = 1
    owner: CubeOwner = CubeOwner.CENTRED
    away: tuple[int, int] | None = None
    crawford: bool = False
    post_crawford: bool = False
    jacoby: bool = False
    limit: int = 64

    def __post_init__(self) -> None:
        if not isinstance(self.value, int) or self.value < 1 or self.value & (self.value - 1):
            raise InvalidInputError(f"invalid cube value {self.value!r}: expected 1, 2, 4, 8, ...")
        if not isinstance(self.owner, CubeOwner):
            raise InvalidInputError(f"invalid cube owner {self.owner!r}: expected a CubeOwner")
        if self.away is not None:
            a, b = self.away
            if not (isinstance(a, int) and isinstance(b, int) and 1 <= a <= MAX_AWAY and 1 <= b <= MAX_AWAY):
                raise InvalidInputError(f"invalid score {self.away!r}: expected points to go from 1 to {MAX_AWAY} each")
            if self.jacoby:
                raise InvalidInputError("invalid cube info: the jacoby rule applies to money games only")
            if (self.crawford or self.post_crawford) and 1 not in (a, b):
                raise InvalidInputError(f"invalid score {self.away!r}: crawford needs a side 1-away")
            if self.crawford and self.post_crawford:
                raise InvalidInputError("invalid cube info: a game cannot be both crawford and post-crawford")
        elif self.crawford or self.post_crawford:
            raise InvalidInputError("invalid cube info: crawford applies to matches only")
        if self.crawford and (self.value != 1 or self.owner is not CubeOwner.CENTRED):
            raise InvalidInputError("invalid cube info: the cube cannot have turned in the crawford game")

    @classmethod
    def money(cls, value: int = 1, owner: CubeOwner = CubeOwner.CENTRED, jacoby: bool = False) -> CubeInfo:
        """A money game (no cube limit to speak of)."""
        return cls(value=value, owner=owner, jacoby=jacoby, limit=DEFAULT_CUBE_LIMIT)

    @classmethod
    def match(
        cls,
        away_me: int,
        away_opp: int,
        value: int = 1,
        owner: CubeOwner = CubeOwner.CENTRED,
        crawford: bool = False,
        post_crawford: bool = False,
    ) -> CubeInfo:
        """A match score: points still needed by the player on roll and by the opponent."""
        return cls(value=value, owner=owner, away=(away_me, away_opp), crawford=crawford, post_crawford=post_crawford)

    @property
    def is_money(self) -> bool:
        """True for a money game."""
        return self.away is None

    def flip(self) -> CubeInfo:
        """The same cube and score seen from the opponent."""
        owner = {CubeOwner.ME: CubeOwner.OPPONENT, CubeOwner.OPPONENT: CubeOwner.ME}.get(self.owner, self.owner)
        away = None if self.away is None else (self.away[1], self.away[0])
        return CubeInfo(self.value, owner, away, self.crawford, self.post_crawford, self.jacoby, self.limit)

    def may_double(self) -> bool:
        """Whether the player on roll may double now (ownership, Crawford, limit)."""
        return not (self.crawford or self.owner is CubeOwner.OPPONENT or 2 * self.value > self.limit)


@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The cube decision of the player on roll, with the three cubeful equities.

    Equities are normalised to the current cube (money: points per cube unit,
    match: EMG); ``*_mwc`` are match-winning chances (``None`` for money).
    ``take``: whether the receiver should take if doubled.
    ``may_double``: whether doubling is allowed at all (if not, ``action`` is
    NO_DOUBLE and the other figures are what a double would give).
    """

    action: CubeAction
    take: bool
    no_double: float
    double_take: float
    double_pass: float
    cubeless_equity: float
    may_double: bool
    cube_efficiency: float
    no_double_mwc: float | None = None
    double_take_mwc: float | None = None
    double_pass_mwc: float | None = None

    @property
    def should_double(self) -> bool:
        """True when the right action is to double."""
        return self.action in (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_PASS)

    @property
    def best_equity(self) -> float:
        """The cubeful equity of the right action (no double, or the receiver's best answer)."""
        if self.should_double:
            return min(self.double_take, self.double_pass)
        return self.no_double

    @property
    def best_mwc(self) -> float | None:
        """The match-winning chance of the right action (None for money)."""
        if self.no_double_mwc is None or self.double_take_mwc is None or self.double_pass_mwc is None:
            return None
        if self.should_double:
            return min(self.double_take_mwc, self.double_pass_mwc)
        return self.no_double_mwc

    def error(self, doubled: bool, took: bool | None = None) -> tuple[float, float | None]:
        """Equity lost by the doubler's choice and by the receiver's answer.

        Returns ``(doubler error, receiver error)`` (both >= 0, in the
        decision's normalised units, the receiver's from its own side);
        the receiver's is None when there was no double.
        """
        doubler_best = (
            max(self.no_double, min(self.double_take, self.double_pass)) if self.may_double else self.no_double
        )
        if not doubled:
            return max(0.0, doubler_best - self.no_double), None
        answer = min(self.double_take, self.double_pass)
        got = answer if took is None else (self.double_take if took else self.double_pass)
        doubler_error = max(0.0, doubler_best - answer)
        receiver_error = None if took is None else max(0.0, got - answer)
        return doubler_error, receiver_error


Outputs = tuple[float, float, float, float, float]


def as_outputs(probabilities: object) -> Outputs:
    """The 5 gnubg outputs (win, win_gammon, win_backgammon, lose_gammon, lose_backgammon).

    Accepts a sequence of 5 numbers or an object with those attributes (such
    as :class:`backgammon.engine.evaluator.Probabilities`).

    Raises:
        InvalidInputError: if the values are not 5 probabilities in a consistent order.
    """
    if hasattr(probabilities, "win_gammon"):
        values = tuple(
            float(getattr(probabilities, name))
            for name in ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
        )
    else:
        try:
            values = tuple(float(v) for v in probabilities)  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            raise InvalidInputError(f"invalid probabilities {probabilities!r}: expected 5 numbers") from None
    if len(values) != 5:
        raise InvalidInputError(f"invalid probabilities {probabilities!r}: expected 5 numbers")
    w, wg, wb, lg, lb = values
    eps = 1e-6
    if not (
        -eps <= w <= 1 + eps
        and -eps <= wb <= wg + eps
        and wg <= w + eps
        and -eps <= lb <= lg + eps
        and lg <= 1 - w + eps
    ):
        raise InvalidInputError(f"invalid probabilities {values!r}: expected 0 <= bg <= gammon <= win (and loss)")
    return w, wg, wb, lg, lb


def clip_outputs(values: Sequence[float] | np.ndarray) -> Outputs:
    """Five raw outputs (an evaluator's, which may be slightly off) clipped into a consistent order.

    0 <= win <= 1, 0 <= win_backgammon <= win_gammon <= win and
    0 <= lose_backgammon <= lose_gammon <= 1 - win.

    >>> clip_outputs((1.02, 0.3, 0.4, 0.1, -0.01))
    (1.0, 0.3, 0.3, 0.0, 0.0)
    """
    w = min(1.0, max(0.0, float(values[0])))
    wg = min(w, max(0.0, float(values[1])))
    wb = min(wg, max(0.0, float(values[2])))
    lg = min(1.0 - w, max(0.0, float(values[3])))
    lb = min(lg, max(0.0, float(values[4])))
    return w, wg, wb, lg, lb


def cubeless_equity(probabilities: object) -> float:
    """Cubeless money equity: 2*win - 1 + wg - lg + wbg - lbg.

    Raises:
        InvalidInputError: on bad probabilities.
    """
    w, wg, wb, lg, lb = as_outputs(probabilities)
    return 2 * w - 1 + wg - lg + wb - lb


def cube_efficiency(position: Position) -> float:
    """The cube efficiency x used for a position (see the module docstring)."""
    phase = position.phase()
    if phase is Phase.CONTACT:
        return CONTACT_CUBE_EFFICIENCY
    if phase is Phase.BEAROFF:
        return 0.6
    pips = position.pip_counts()[0]
    return min(0.7, max(0.6, 0.6 + (pips - 40) * 0.1 / 80))


class _Model:
    """The live/dead cube model for one probability vector and one score (player A on roll)."""

    def __init__(self, outputs: Outputs, info: CubeInfo) -> None:
        w, wg, wb, lg, lb = outputs
        self.p = min(1.0, max(0.0, w))
        self.info = info
        # exclusive outcomes, as fractions of the wins and of the losses
        lose = 1.0 - w
        self.win_shape = (
            (max(0.0, w - wg) / w, max(0.0, wg - wb) / w, max(0.0, wb) / w) if w > 1e-12 else (1.0, 0.0, 0.0)
        )
        self.lose_shape = (
            (max(0.0, lose - lg) / lose, max(0.0, lg - lb) / lose, max(0.0, lb) / lose)
            if lose > 1e-12
            else (1.0, 0.0, 0.0)
        )
        # what A gets when the game ends with A winning k points (k < 0: losing): one function per score,
        # each value computed once (a position's candidates share them)
        self.value: Callable[[int], float] = _result_values(info.away, info.crawford or info.post_crawford)
        self._cash_a_memo: dict[int, float] = {}
        self._cash_b_memo: dict[int, float] = {}

    # results ---------------------------------------------------------------

    def win_value(self, v: int, single_only: bool = False) -> float:
        if single_only:
            return self.value(v)
        s, g, bg = self.win_shape
        return s * self.value(v) + g * self.value(2 * v) + bg * self.value(3 * v)

    def lose_value(self, v: int, single_only: bool = False) -> float:
        if single_only:
            return self.value(-v)
        s, g, bg = self.lose_shape
        return s * self.value(-v) + g * self.value(-2 * v) + bg * self.value(-3 * v)

    def dead(self, v: int, single_only: bool = False) -> float:
        return self.p * self.win_value(v, single_only) + (1 - self.p) * self.lose_value(v, single_only)

    # who may double at cube v ------------------------------------------------
    def can_double_a(self, v: int) -> bool:
        info = self.info
        if info.crawford or 2 * v > info.limit:
            return False
        return info.away is None or info.away[0] - v > 0

    def can_double_b(self, v: int) -> bool:
        info = self.info
        if info.crawford or 2 * v > info.limit:
            return False
        return info.away is None or info.away[1] - v > 0

    # live lines ------------------------------------------------------------
    def own_line(self, v: int) -> list[tuple[float, float]]:
        pts = [(0.0, self.lose_value(v))]
        if self.can_double_a(v):
            pts.append((self.cash_a(v), self.value(v)))
        pts.append((1.0, self.win_value(v)))
        return pts

    def unavailable_line(self, v: int) -> list[tuple[float, float]]:
        pts = [(0.0, self.lose_value(v))]
        if self.can_double_b(v):
            pts.append((self.cash_b(v), self.value(-v)))
        pts.append((1.0, self.win_value(v)))
        return pts

    def centred_line(self, v: int, single_only: bool = False) -> list[tuple[float, float]]:
        pts = [(0.0, self.lose_value(v, single_only))]
        if self.can_double_b(v):
            pts.append((self.cash_b(v), self.value(-v)))
        if self.can_double_a(v):
            pts.append((max(self.cash_a(v), pts[-1][0]), self.value(v)))
        pts.append((1.0, self.win_value(v, single_only)))
        return pts

    def cash_a(self, v: int) -> float:
        """:meth:`_cash_a`, each cube level computed once."""
        memo = self._cash_a_memo
        if v not in memo:
            memo[v] = self._cash_a(v)
        return memo[v]

    def cash_b(self, v: int) -> float:
        """:meth:`_cash_b`, each cube level computed once."""
        memo = self._cash_b_memo
        if v not in memo:
            memo[v] = self._cash_b(v)
        return memo[v]

    def _cash_a(self, v: int) -> float:
        """A's cash point at cube v: where B's take of a double to 2v is worth a pass to B."""
        return _solve(self.unavailable_line(2 * v), self.value(v))

    def _cash_b(self, v: int) -> float:
        """B's cash point at cube v, as A's win chance: A indifferent between taking and passing."""
        return _solve(self.own_line(2 * v), self.value(-v))


@functools.cache
def _result_values(away: tuple[int, int] | None, post: bool) -> Callable[[int], float]:
    """The model's ``value(k)`` at one score (``post``: the Crawford game or after it), memoised: money
    gives ``float(k)``, a match the Kazaross-XG2 equity after the score moves by ``k``."""
    if away is None:
        return float
    a, b = away

    def value(k: int) -> float:
        if k >= 0:
            return match_equity(a - k, b, post)
        return match_equity(a, b + k, post)

    return functools.cache(value)


def _interpolate(points: Sequence[tuple[float, float]], p: float) -> float:
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if p <= x1:
            if x1 - x0 < 1e-12:
                return y1
            return y0 + (y1 - y0) * (p - x0) / (x1 - x0)
    return points[-1][1]


def _solve(points: Sequence[tuple[float, float]], target: float) -> float:
    """The smallest p where the (non-decreasing) piecewise-linear line reaches target, clamped to [0, 1]."""
    if target <= points[0][1]:
        return 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if y1 >= target:
            if y1 - y0 < 1e-12:
                return x1
            return x0 + (x1 - x0) * (target - y0) / (y1 - y0)
    return 1.0


def _mix(x: float, live: float, dead: float) -> float:
    return x * live + (1 - x) * dead


def cube_decision(
    probabilities: object, info: CubeInfo | None = None, x: float = CONTACT_CUBE_EFFICIENCY
) -> CubeDecision:
    """The cube decision for the player on roll, from its cubeless probabilities.

    ``probabilities``: the 5 gnubg outputs for the player on roll (a sequence
    or an object with ``win``, ``win_gammon``, ... attributes). ``info``: the
    cube and score (money with a centred cube if omitted). ``x``: the cube
    efficiency (use :func:`cube_efficiency` for a position).

    Raises:
        InvalidInputError: on bad probabilities or an ``x`` outside [0, 1].
    """
    if info is None:
        info = CubeInfo.money()
    if not 0.0 <= x <= 1.0:
        raise InvalidInputError(f"invalid cube efficiency {x!r}: expected a number from 0 to 1")
    outputs = as_outputs(probabilities)
    model = _Model(outputs, info)
    v = info.value
    p = model.p
    jacoby_centred = info.jacoby and info.owner is CubeOwner.CENTRED
    if info.owner is CubeOwner.CENTRED:
        nd = _mix(x, _interpolate(model.centred_line(v, jacoby_centred), p), model.dead(v, jacoby_centred))
    elif info.owner is CubeOwner.ME:
        nd = _mix(x, _interpolate(model.own_line(v), p), model.dead(v))
    else:
        nd = _mix(x, _interpolate(model.unavailable_line(v), p), model.dead(v))
    dt = _mix(x, _interpolate(model.unavailable_line(2 * v), p), model.dead(2 * v))
    dp = model.value(v)
    may_double = info.may_double()
    take = dt <= dp
    if not may_double:
        action = CubeAction.NO_DOUBLE
    elif nd >= dp:
        action = CubeAction.TOO_GOOD_TAKE if take else CubeAction.TOO_GOOD_PASS
    elif min(dt, dp) > nd:
        action = CubeAction.DOUBLE_TAKE if take else CubeAction.DOUBLE_PASS
    else:
        action = CubeAction.NO_DOUBLE
    norm: Callable[[float], float]
    if info.is_money:

        def norm(e: float) -> float:
            return e / v

        mwc: tuple[float | None, float | None, float | None] = (None, None, None)
    else:
        lo, hi = model.value(-v), model.value(v)

        def norm(m: float) -> float:
            return 2 * (m - lo) / (hi - lo) - 1 if hi > lo else 0.0

        mwc = (nd, dt, dp)
    return CubeDecision(
        action=action,
        take=take,
        no_double=norm(nd),
        double_take=norm(dt),
        double_pass=norm(dp),
        cubeless_equity=cubeless_equity(outputs),
        may_double=may_double,
        cube_efficiency=x,
        no_double_mwc=mwc[0],
        double_take_mwc=mwc[1],
        double_pass_mwc=mwc[2],
    )


def cubeful_equity(probabilities: object, info: CubeInfo | None = None, x: float = CONTACT_CUBE_EFFICIENCY) -> float:
    """Cubeful equity of the player on roll with no cube action now (normalised to the cube).

    Raises:
        InvalidInputError: on bad probabilities or ``x``.
    """
    return cube_decision(probabilities, info, x).no_double


def take_decision(probabilities_after_double: object, info: CubeInfo, x: float = CONTACT_CUBE_EFFICIENCY) -> bool:
    """Whether the receiver (``info`` and probabilities from the doubler's side) should take.

    Raises:
        InvalidInputError: on bad probabilities or ``x``.
    """
    return cube_decision(probabilities_after_double, info, x).take


__all__ = [
    "CONTACT_CUBE_EFFICIENCY",
    "CubeAction",
    "CubeDecision",
    "CubeInfo",
    "CubeOwner",
    "as_outputs",
    "clip_outputs",
    "cube_decision",
    "cube_efficiency",
    "cubeful_equity",
    "cubeless_equity",
    "take_decision",
]
