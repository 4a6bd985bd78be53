"""Dice statistics for one player, each compared with what fair dice give.

- the distribution of the 21 rolls (or of the 36 ordered rolls, when the
  order of the two dice is known), with Pearson's chi-squared test;
- how often doubles came (expected 1 in 6);
- pips rolled (doubles count four times; 8 1/6 per roll on average);
- dancing: rolls where a checker on the bar could not enter, given the
  positions they were rolled in (for each such roll, the chance to dance is
  ``(closed points / 6) ** 2``).

Every figure is a :class:`Statistic` with its expectation and a chi-squared
statistic with its p-value: the probability that fair dice differ from the
expectation at least as much. A small p-value (say below 0.01) is surprising;
among many players some will have one by chance.

The chi-squared survival function is computed here, exactly for integer
degrees of freedom (no scipy).

>>> report = dice_report([(3, 1), (6, 6), (5, 2)])
>>> report.doubles.observed, round(report.doubles.expected, 3)
(1, 0.5)
>>> report.pips.observed
35
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from backgammon.dice import ALL_36, ALL_ROLLS, check_roll
from backgammon.errors import InvalidInputError
from backgammon.position import BAR, Position

if TYPE_CHECKING:
    from backgammon.game import Game, Player

__all__ = [
    "ChiSquared",
    "DiceReport",
    "RollDistribution",
    "Statistic",
    "chi2_sf",
    "dance_probability",
    "dice_report",
    "exact_two_sided",
    "is_dance",
    "pips_of",
    "player_rolls",
    "roll_distribution",
]

ROLLS_21: tuple[tuple[int, int], ...] = tuple(sorted(((hi, lo) for hi, lo, _ in ALL_ROLLS), reverse=True))
"""The 21 rolls as (high, low), from 66 down to 11."""

_PIP_MEAN = sum(4 * a if a == b else a + b for a, b in ALL_36) / 36  # 294/36
_PIP_VAR = sum((4 * a if a == b else a + b) ** 2 for a, b in ALL_36) / 36 - _PIP_MEAN**2


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X chi-squared distributed with ``dof`` (integer) degrees of freedom.

    Exact closed forms: for even ``dof``, a Poisson sum; for odd, the normal
    tail plus a finite series.

    >>> round(chi2_sf(3.841458820694124, 1), 6)
    0.05
    >>> round(chi2_sf(31.410432844230918, 20), 6)
    0.05

    Raises:
        InvalidInputError: if ``dof`` is not a positive integer or ``x`` is not a number.
    """
    if not isinstance(dof, int) or isinstance(dof, bool) or dof < 1:
        raise InvalidInputError(f"invalid degrees of freedom {dof!r}: expected a positive integer")
    if not isinstance(x, (int, float)) or isinstance(x, bool) or math.isnan(x):
        raise InvalidInputError(f"invalid chi-squared value {x!r}: expected a number")
    if x <= 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    half = x / 2
    if dof % 2 == 0:
        # Q = exp(-x/2) * sum_{i < dof/2} (x/2)^i / i!, terms in log space
        total = 0.0
        log_term = -half
        for i in range(dof // 2):
            if i:
                log_term += math.log(half) - math.log(i)
            total += math.exp(log_term)
        return min(1.0, total)
    # odd: Q = erfc(sqrt(x/2)) + sum_{i=1}^{(dof-1)/2} 2 phi(sqrt x) x^(i-1/2) / (1*3*...*(2i-1))
    total = math.erfc(math.sqrt(half))
    log_term = math.log(2) - half + 0.5 * math.log(x) - 0.5 * math.log(2 * math.pi)
    for i in range(1, (dof - 1) // 2 + 1):
        if i > 1:
            log_term += math.log(x) - math.log(2 * i - 1)
        total += math.exp(log_term)
    return min(1.0, total)


@dataclass(frozen=True, slots=True)
class ChiSquared:
    """A chi-squared statistic, its degrees of freedom and p-value (P of a value at least this large)."""

    statistic: float
    dof: int
    p_value: float


@dataclass(frozen=True, slots=True)
class Statistic:
    """A count compared with its expectation under fair dice.

    ``variance`` is the variance of the count under fair dice; ``test`` is
    ``(observed - expected)**2 / variance`` with one degree of freedom (the
    normal approximation), or None when the variance is zero.
    ``exact_p_value`` (for counts of independent events: doubles, dances) is
    the exact two-sided p-value, twice the smaller tail of the exact
    distribution (capped at 1); better than the approximation for the small
    samples of a single game or match. None for pips.
    """

    name: str
    observed: float
    expected: float
    variance: float
    test: ChiSquared | None
    exact_p_value: float | None = None

    @property
    def z(self) -> float | None:
        """Standard score: (observed - expected) / standard deviation."""
        if self.variance <= 0:
            return None
        return (self.observed - self.expected) / math.sqrt(self.variance)


@dataclass(frozen=True, slots=True)
class RollDistribution:
    """Observed and expected counts of each roll, with Pearson's chi-squared test.

    ``labels`` are ``'66'``, ``'65'``, ... (21 rolls, high die first) or
    ``'11'``, ``'12'``, ... (36 ordered rolls). ``test`` is None for no rolls.
    """

    labels: tuple[str, ...]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    test: ChiSquared | None


def pips_of(roll: tuple[int, int]) -> int:
    """Pips a roll moves: the sum of the dice, or four times a die for doubles.

    >>> pips_of((6, 6)), pips_of((3, 1))
    (24, 4)
    """
    a, b = check_roll(roll)
    return 4 * a if a == b else a + b


def roll_distribution(rolls: Iterable[tuple[int, int]], ordered: bool = False) -> RollDistribution:
    """Counts of each roll against their expectation (2/36 for non-doubles, 1/36 for doubles).

    With ``ordered=True`` the 36 ordered outcomes are counted (die 1, die 2),
    each expected 1/36: use it only when the order of the dice is meaningful
    (e.g. verifiable dice draws).

    Pearson's chi-squared needs about five expected per cell: with fewer than
    ~180 rolls (21 cells) the p-value is only indicative.

    Raises:
        InvalidInputError: for something that is not a roll.
    """
    checked = [check_roll(r) for r in rolls]
    n = len(checked)
    if ordered:
        cells = ALL_36
        labels = tuple(f"{a}{b}" for a, b in cells)
        probs = [1 / 36] * 36
        index = {c: i for i, c in enumerate(cells)}
        keys = [index[r] for r in checked]
    else:
        cells = ROLLS_21
        labels = tuple(f"{a}{b}" for a, b in cells)
        probs = [(1 if a == b else 2) / 36 for a, b in cells]
        index = {c: i for i, c in enumerate(cells)}
        keys = [index[(max(r), min(r))] for r in checked]
    observed = [0] * len(cells)
    for k in keys:
        observed[k] += 1
    expected = tuple(n * p for p in probs)
    test = None
    if n:
        stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected))
        dof = len(cells) - 1
        test = ChiSquared(stat, dof, chi2_sf(stat, dof))
    return RollDistribution(labels, tuple(observed), expected, test)


def _statistic(
    name: str, observed: float, expected: float, variance: float, probs: Sequence[float] | None = None
) -> Statistic:
    test = None
    if variance > 0:
        stat = (observed - expected) ** 2 / variance
        test = ChiSquared(stat, 1, chi2_sf(stat, 1))
    exact = None if probs is None else exact_two_sided(int(observed), probs)
    return Statistic(name, observed, expected, variance, test, exact)


def exact_two_sided(observed: int, probs: Sequence[float]) -> float:
    """Two-sided p-value of ``observed`` successes among independent events of chances ``probs``.

    The count has a Poisson-binomial distribution (binomial when the chances
    are equal), computed exactly; the p-value is twice the smaller tail.

    >>> round(exact_two_sided(0, [0.5] * 3), 4)  # P(X = 0) = 1/8, doubled
    0.25

    Raises:
        InvalidInputError: for a chance outside 0..1 or a count out of range.
    """
    if any(not 0 <= q <= 1 for q in probs):
        raise InvalidInputError(f"invalid chances {list(probs)!r}: expected values from 0 to 1")
    if not 0 <= observed <= len(probs):
        raise InvalidInputError(f"invalid count {observed!r}: expected 0 to {len(probs)}")
    dist = [1.0]
    for q in probs:
        nxt = [0.0] * (len(dist) + 1)
        for k, mass in enumerate(dist):
            nxt[k] += mass * (1 - q)
            nxt[k + 1] += mass * q
        dist = nxt
    low = sum(dist[: observed + 1])
    high = sum(dist[observed:])
    return min(1.0, 2 * min(low, high))


def _closed_entry_points(position: Position) -> int:
    # entry points are the opponent's home board: my points 19..24 = my indices 18..23
    # = their indices 5..0 (their points 6..1)
    return sum(1 for i in range(6) if position.theirs[i] >= 2)


def dance_probability(position: Position) -> float:
    """Chance that the player on roll, with a checker on the bar, enters none: ``(closed/6)**2``.

    >>> dance_probability(Position.from_points({"bar": 1, 6: 14}, {2: 2, 4: 2, 6: 11}))
    0.25

    Raises:
        InvalidInputError: if the player on roll has no checker on the bar.
    """
    if not isinstance(position, Position):
        raise InvalidInputError(f"invalid position {position!r}: expected a Position")
    if not position.mine[BAR]:
        raise InvalidInputError(f"no checker on the bar in position {position.position_id()}: dancing needs one")
    return (_closed_entry_points(position) / 6) ** 2


def is_dance(position: Position, roll: tuple[int, int]) -> bool:
    """Whether a roll enters no checker from the bar (both dice land on closed points).

    Raises:
        InvalidInputError: for a bad roll or a position with no checker on the bar.
    """
    a, b = check_roll(roll)
    dance_probability(position)  # validates
    return all(position.theirs[d - 1] >= 2 for d in (a, b))  # die d enters on their point d


def _entries(entries: Iterable[tuple[Position, tuple[int, int]]]) -> list[tuple[Position, tuple[int, int]]]:
    out = []
    for item in entries:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InvalidInputError(f"invalid entry {item!r}: expected (position, roll)")
        position, roll = item
        out.append((position, check_roll(roll)))
    return out


@dataclass(frozen=True, slots=True)
class DiceReport:
    """All dice statistics of one player.

    ``dancing`` is None unless rolls from the bar were given (as
    ``(position, roll)`` pairs, position seen by the roller).
    """

    rolls: int
    distribution: RollDistribution
    doubles: Statistic
    pips: Statistic
    dancing: Statistic | None

    def statistics(self) -> tuple[Statistic, ...]:
        """The count statistics: doubles, pips and (if known) dancing."""
        return (self.doubles, self.pips) + ((self.dancing,) if self.dancing else ())

    def as_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""

        def test(t: ChiSquared | None) -> dict[str, Any] | None:
            return None if t is None else {"statistic": t.statistic, "dof": t.dof, "p_value": t.p_value}

        return {
            "rolls": self.rolls,
            "distribution": {
                "labels": list(self.distribution.labels),
                "observed": list(self.distribution.observed),
                "expected": list(self.distribution.expected),
                "test": test(self.distribution.test),
            },
            **{
                s.name: {
                    "observed": s.observed,
                    "expected": s.expected,
                    "variance": s.variance,
                    "test": test(s.test),
                    "exact_p_value": s.exact_p_value,
                }
                for s in self.statistics()
            },
        }

    def table(self) -> str:
        """A text table for people."""
        lines = [f"rolls: {self.rolls}"]
        lines.append(f"{'':<10}{'observed':>10}{'expected':>10}{'chi2':>9}{'p':>8}{'exact p':>9}")
        for s in self.statistics():
            chi = f"{s.test.statistic:9.2f}{s.test.p_value:8.3f}" if s.test else f"{'-':>9}{'-':>8}"
            exact = f"{s.exact_p_value:9.3f}" if s.exact_p_value is not None else f"{'-':>9}"
            lines.append(f"{s.name:<10}{s.observed:>10.0f}{s.expected:>10.1f}{chi}{exact}")
        d = self.distribution
        if d.test:
            lines.append(
                f"{'21 rolls':<10}{'':>10}{'':>10}{d.test.statistic:9.2f}{d.test.p_value:8.3f}  ({d.test.dof} dof)"
            )
        for label, o, e in zip(d.labels, d.observed, d.expected):
            lines.append(f"  {label:<8}{o:>10}{e:>10.1f}")
        return "\n".join(lines)


def dice_report(
    rolls: Sequence[tuple[int, int]],
    entries: Iterable[tuple[Position, tuple[int, int]]] = (),
    ordered: bool = False,
) -> DiceReport:
    """Statistics of one player's rolls.

    Args:
        rolls: every roll of the player, as (die, die) pairs.
        entries: the rolls made with a checker on the bar, with the position
            they were rolled in (seen by the roller), for the dancing count.
        ordered: count the 36 ordered outcomes instead of the 21 rolls.

    Raises:
        InvalidInputError: for a bad roll, or an entry position without a checker on the bar.
    """
    checked = [check_roll(r) for r in rolls]
    n = len(checked)
    distribution = roll_distribution(checked, ordered)
    n_doubles = sum(1 for a, b in checked if a == b)
    doubles = _statistic("doubles", n_doubles, n / 6, n * (1 / 6) * (5 / 6), [1 / 6] * n)
    pips = _statistic("pips", sum(pips_of(r) for r in checked), n * _PIP_MEAN, n * _PIP_VAR)
    dancing = None
    bar_rolls = _entries(entries)
    if bar_rolls:
        probs = [dance_probability(p) for p, _ in bar_rolls]
        danced = sum(1 for p, r in bar_rolls if is_dance(p, r))
        dancing = _statistic("dancing", danced, sum(probs), sum(q * (1 - q) for q in probs), probs)
    return DiceReport(n, distribution, doubles, pips, dancing)


def player_rolls(
    games: Iterable[Game], player: Player, starts: Iterable[Game] | None = None
) -> tuple[list[tuple[int, int]], list[tuple[Position, tuple[int, int]]]]:
    """One player's rolls in some games, and the rolls made with a checker on the bar.

    Each game's log is replayed from its start, by default
    ``Game.new(game.rules, game.score, game.crawford_game)``; give ``starts``
    (one per game) for games set up with ``Game.from_position``. Opening
    rolls are left out: each side rolls only one die of them. Pass the result
    to :func:`dice_report`: ``dice_report(*player_rolls(games, Player.WHITE))``.

    Raises:
        InvalidInputError: if ``player`` is not a Player or a log does not replay from its start.
    """
    from backgammon.errors import BackgammonError
    from backgammon.game import Game, Player, Roll

    if not isinstance(player, Player):
        raise InvalidInputError(f"invalid player {player!r}: expected Player.WHITE or Player.BLACK")
    game_list = list(games)
    start_list = (
        [Game.new(g.rules, score=g.score, crawford_game=g.crawford_game) for g in game_list]
        if starts is None
        else list(starts)
    )
    if len(start_list) != len(game_list):
        raise InvalidInputError(f"invalid starts: {len(start_list)} for {len(game_list)} games")
    rolls: list[tuple[int, int]] = []
    entries: list[tuple[Position, tuple[int, int]]] = []
    for number, (game, state) in enumerate(zip(game_list, start_list), 1):
        for action in game.log:
            if isinstance(action, Roll) and action.player is player and action.dice is not None:
                board = state.board_for(player)
                rolls.append(action.dice)
                if board.mine[BAR]:
                    entries.append((board, action.dice))
            try:
                state = state.apply(action)
            except BackgammonError as exc:
                raise InvalidInputError(f"game {number}: its log does not replay from its start: {exc}") from None
    return rolls, entries
