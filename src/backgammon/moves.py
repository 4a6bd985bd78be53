"""Steps, plays and legal-play generation.

Glossary: a *step* moves one checker by one die; a *play* is all the steps of
a roll. Plays are identified by the position they produce, so two step
sequences that end in the same position are one play.

Rules enforced here: each die is a separate step (intermediate points must be
open), doubles give four steps, as many dice as possible must be used, when
only one die can be used the higher one must be if it can, checkers on the bar
enter before anything else, blocked points (2+ opposing checkers), hits, and
bearing off (exact die, a higher die from the highest point, only with every
checker home).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backgammon.errors import IllegalPlayError, InvalidInputError
from backgammon.position import BAR, Position

BAR_POINT = 25  # point number of the bar in notation
OFF_POINT = 0  # point number of "off" in notation


@dataclass(frozen=True, slots=True)
class Step:
    """One checker moved by one die, in the mover's point numbers.

    ``source`` is 1..24 or 25 for the bar; ``destination`` is 1..24 or 0 for
    borne off; ``hit`` is True when a blot was sent to the bar.
    """

    source: int
    destination: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{_point_text(self.source)}/{_point_text(self.destination)}{'*' if self.hit else ''}"


@dataclass(frozen=True, slots=True, eq=False)
class Play:
    """A legal play: its steps and the position it produces.

    ``position`` is the position after the play, seen from the opponent, who
    is now on roll. Two plays are equal when they produce the same position
    from the same position.

    ``str(play)`` is the standard move notation, e.g. ``'24/18 13/11*'``; a
    roll that cannot be played gives the empty play, whose text is ``''``.
    """

    origin: Position
    dice: tuple[int, int]
    steps: tuple[Step, ...]
    position: Position

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self.position == other.position and self.origin == other.origin

    def __hash__(self) -> int:
        return hash((self.origin, self.position))

    def __str__(self) -> str:
        from backgammon.notation import format_steps

        return format_steps(self.steps)

    def __repr__(self) -> str:
        return f"<Play {str(self) or '(no move)'!r} dice={self.dice[0]}{self.dice[1]}>"

    @property
    def dice_used(self) -> int:
        """How many dice the play uses (0 when the roll cannot be played)."""
        return len(self.steps)

    @property
    def hits(self) -> int:
        """How many opposing checkers the play sends to the bar."""
        return sum(1 for step in self.steps if step.hit)


def _point_text(point: int) -> str:
    if point == BAR_POINT:
        return "bar"
    if point == OFF_POINT:
        return "off"
    return str(point)


def check_dice(die1: object, die2: object) -> tuple[int, int]:
    """Validate a roll and return it as a tuple.

    Raises:
        InvalidInputError: if a die is not an integer from 1 to 6.
    """
    for die in (die1, die2):
        if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
            raise InvalidInputError(f"invalid die {die!r}: expected an integer from 1 to 6")
    return die1, die2  # type: ignore[return-value]


# A raw step inside the generator: (source index, destination index, hit)
# with indices 0..23 for points 1..24, 24 for the bar and -1 for off.
_RawStep = tuple[int, int, bool]


def _can_step(mine: list[int], theirs: list[int], src: int, die: int) -> int:
    """Destination index for moving from ``src`` by ``die``, or -2 if illegal."""
    dst = src - die
    if dst >= 0:
        if theirs[23 - dst] >= 2:
            return -2
        return dst
    # bearing off: every checker must be home (indices 0..5), none on the bar
    for i in range(6, 25):
        if mine[i]:
            return -2
    if dst == -1:
        return -1
    for i in range(src + 1, 6):  # a higher die only from the highest point
        if mine[i]:
            return -2
    return -1


def _apply(mine: list[int], theirs: list[int], src: int, dst: int) -> bool:
    mine[src] -= 1
    if dst < 0:
        return False
    mine[dst] += 1
    if theirs[23 - dst] == 1:
        theirs[23 - dst] = 0
        theirs[BAR] += 1
        return True
    return False


def _undo(mine: list[int], theirs: list[int], src: int, dst: int, hit: bool) -> None:
    mine[src] += 1
    if dst >= 0:
        mine[dst] -= 1
        if hit:
            theirs[23 - dst] = 1
            theirs[BAR] -= 1


def generate(
    mine_t: tuple[int, ...], theirs_t: tuple[int, ...], die1: int, die2: int
) -> dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[_RawStep, ...]]:
    """All legal resulting (mine, theirs) boards, each with one step sequence.

    The boards are from the mover's view (not flipped). Unchecked: the
    caller validates the dice.
    """
    mine = list(mine_t)
    theirs = list(theirs_t)
    results: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[_RawStep, ...]] = {}
    used_die: dict[tuple[tuple[int, ...], tuple[int, ...]], set[int]] = {}
    best = [0]
    steps: list[_RawStep] = []

    def record(depth: int, first_die: int) -> None:
        if depth < best[0]:
            return
        if depth > best[0]:
            best[0] = depth
            results.clear()
            used_die.clear()
        key = (tuple(mine), tuple(theirs))
        if key not in results:
            results[key] = tuple(steps)
            used_die[key] = {first_die}
        else:
            used_die[key].add(first_die)

    def rec(dice: tuple[int, ...], depth: int, min_src: int) -> None:
        if depth == len(dice):
            record(depth, dice[0])
            return
        die = dice[depth]
        moved = False
        if mine[BAR]:
            sources: range | tuple[int, ...] = (BAR,)
        else:
            # doubles: steps in non-increasing source order cover every play
            sources = range(min(min_src, 23), -1, -1)
        for src in sources:
            if not mine[src]:
                continue
            dst = _can_step(mine, theirs, src, die)
            if dst == -2:
                continue
            moved = True
            hit = _apply(mine, theirs, src, dst)
            steps.append((src, dst, hit))
            rec(dice, depth + 1, src if dice[0] == dice[-1] and len(dice) == 4 else 24)
            steps.pop()
            _undo(mine, theirs, src, dst, hit)
        if not moved:
            record(depth, dice[0])

    if die1 == die2:
        rec((die1,) * 4, 0, 24)
    else:
        rec((die1, die2), 0, 24)
        rec((die2, die1), 0, 24)
        if best[0] == 1:
            high = max(die1, die2)
            if any(high in d for d in used_die.values()):
                for key in [k for k, d in used_die.items() if high not in d]:
                    del results[key]
    return results


def _make_step(raw: _RawStep) -> Step:
    src, dst, hit = raw
    return Step(src + 1, dst + 1 if dst >= 0 else OFF_POINT, hit)


# Steps are immutable values: build each possible one once and share it
# (building them per play was about a quarter of legal_plays' time).
_STEPS: dict[_RawStep, Step] = {
    (src, dst, hit): _make_step((src, dst, hit)) for src in range(25) for dst in range(-1, 24) for hit in (False, True)
}
_to_step = _STEPS.__getitem__


def legal_plays(position: Position, die1: int, die2: int) -> tuple[Play, ...]:
    """The distinct legal plays of ``position`` for the roll ``die1``-``die2``.

    See :meth:`Position.legal_plays`.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    dice = check_dice(die1, die2)
    if position.is_game_over():
        # nothing to play once a side has borne off all its checkers (moving
        # on would build a board with both sides off, which is not a position)
        return (Play(position, dice, (), position.flip()),)
    results = generate(position.mine, position.theirs, die1, die2)
    plays = []
    for (mine, theirs), raw in results.items():
        after = Position._trusted(theirs, mine)
        plays.append(Play(position, dice, tuple(map(_to_step, raw)), after))
    return tuple(plays)


def play_from_position(position: Position, die1: int, die2: int, after: Position) -> Play:
    """The legal play of ``position`` and roll that produces ``after`` (seen from the opponent).

    Raises:
        IllegalPlayError: if no legal play produces that position.
    """
    for play in legal_plays(position, die1, die2):
        if play.position == after:
            return play
    raise IllegalPlayError(
        f"no legal play for roll {die1}-{die2} in position {position.position_id()} "
        f"gives position {after.position_id()}"
    )


def find_play(
    position: Position,
    die1: int,
    die2: int,
    query: str | Position | Sequence[tuple[int, int]],
    plays: tuple[Play, ...] | None = None,
) -> Play:
    """The legal play a user means: the one place that turns what a person or program gives
    into a :class:`Play` of ``position`` for the roll.

    ``query`` is one of:

    - move text (``"24/18 13/11*"``; :func:`backgammon.notation.parse_play` rules; the text the
      program prints for a play, ``str(play)``, always finds that play);
    - the resulting :class:`Position` (seen from the opponent, as ``Play.position``);
    - a clicked path: the complete list of ``(from, to)`` steps in the mover's numbering
      (25 = bar, 0 = off), in the order played; ``()`` when the roll cannot be played.

    ``plays`` may pass ``legal_plays(position, die1, die2)`` when the caller has them.

    >>> from backgammon.position import Position
    >>> str(find_play(Position.initial(), 3, 1, [(8, 5), (6, 5)]))
    '8/5 6/5'

    Raises:
        InvalidInputError: for a malformed query.
        IllegalPlayError: when no legal play matches.
        AmbiguousPlayError: when move text matches several.
    """
    dice = check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, *dice)
    if isinstance(query, Position):
        for play in plays:
            if play.position == query:
                return play
        raise IllegalPlayError(
            f"illegal move: no legal play for {dice[0]}-{dice[1]} in position {position.position_id()} "
            f"gives position {query.position_id()}"
        )
    if isinstance(query, str):
        text = query.strip()
        for play in plays:
            if str(play) == text:
                return play
        from backgammon.notation import parse_play

        return parse_play(position, dice[0], dice[1], text)
    steps = _check_path(query)
    if not steps and len(plays) == 1 and not plays[0].steps:
        return plays[0]
    for seq, after in all_step_sequences(position, dice[0], dice[1], plays):
        if tuple((s.source, s.destination) for s in seq) == steps:
            return next(play for play in plays if play.position == after)
    text = " ".join(f"{a}/{b}" for a, b in steps) or "(no move)"
    raise IllegalPlayError(f"illegal move {text!r} for {dice[0]}-{dice[1]}: expected a complete legal play")


def _check_path(value: object) -> tuple[tuple[int, int], ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or len(value) > 4:
        raise InvalidInputError("invalid steps: expected a list of up to 4 [from, to] pairs")
    steps = []
    for item in value:
        if (
            not isinstance(item, Sequence)
            or isinstance(item, str | bytes)
            or len(item) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 25 for x in item)
        ):
            raise InvalidInputError("invalid step: expected [from, to] with points 0..25")
        steps.append((item[0], item[1]))
    return tuple(steps)


def all_step_sequences(
    position: Position, die1: int, die2: int, plays: tuple[Play, ...] | None = None
) -> list[tuple[tuple[Step, ...], Position]]:
    """Every legal step sequence (not deduplicated), with the position it produces.

    Slow; used to match hand-written move text against the legal plays.
    ``plays`` may pass in ``legal_plays(position, die1, die2)`` if already known.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, die1, die2)
    best_len = max((p.dice_used for p in plays), default=0)
    allowed = {p.position for p in plays}
    mine = list(position.mine)
    theirs = list(position.theirs)
    out: list[tuple[tuple[Step, ...], Position]] = []
    steps: list[_RawStep] = []
    orders = [(die1,) * 4] if die1 == die2 else [(die1, die2), (die2, die1)]

    def rec(dice: tuple[int, ...], depth: int) -> None:
        if depth == best_len:
            after = Position._trusted(tuple(theirs), tuple(mine))
            if after in allowed:
                out.append((tuple(_to_step(s) for s in steps), after))
            return
        die = dice[depth]
        sources = (BAR,) if mine[BAR] else tuple(range(23, -1, -1))
        for src in sources:
            if not mine[src]:
                continue
            dst = _can_step(mine, theirs, src, die)
            if dst == -2:
                continue
            hit = _apply(mine, theirs, src, dst)
            steps.append((src, dst, hit))
            rec(dice, depth + 1)
            steps.pop()
            _undo(mine, theirs, src, dst, hit)

    for order in orders:
        rec(order, 0)
    return out


def sequences_along(
    position: Position,
    die1: int,
    die2: int,
    paths: tuple[tuple[tuple[int, ...], tuple[bool, ...]], ...],
    plays: tuple[Play, ...] | None = None,
) -> list[tuple[tuple[Step, ...], Position, int]]:
    """The legal step sequences that move checkers along written paths.

    Each path is ``(points, hits)``: the points one checker visits in order
    (25 = bar, 0 = off; the first is where it starts, the last where it ends,
    the others must be passed or touched on the way) and, per point, whether a
    hit is marked there (a marked point must be reached by a hitting step).
    Every path must be completed, the sequence must use as many dice as the
    roll allows and produce one of the legal plays. Only steps along the
    paths are tried, so this is fast even for doubles.

    Returns ``(steps, position after, unmarked hits)`` triples, where the last
    counts hits on points that the hitting checker's path does not mark.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, die1, die2)
    best_len = max((p.dice_used for p in plays), default=0)
    allowed = {p.position for p in plays}
    mine = list(position.mine)
    theirs = list(position.theirs)
    at = [points[0] for points, _ in paths]
    nxt = [1] * len(paths)
    marked = [{point for point, hit in zip(points, hits, strict=True) if hit} for points, hits in paths]
    out: list[tuple[tuple[Step, ...], Position, int]] = []
    steps: list[_RawStep] = []
    orders = [(die1,) * 4] if die1 == die2 else [(die1, die2), (die2, die1)]

    def rec(dice: tuple[int, ...], depth: int, unmarked: int) -> None:
        if depth == best_len:
            if all(n == len(points) for n, (points, _) in zip(nxt, paths, strict=True)):
                after = Position._trusted(tuple(theirs), tuple(mine))
                if after in allowed:
                    out.append((tuple(_to_step(s) for s in steps), after, unmarked))
            return
        die = dice[depth]
        for i, (points, hits) in enumerate(paths):
            if nxt[i] >= len(points):
                continue
            here = at[i]
            if mine[BAR] and here != BAR_POINT:
                continue
            src = BAR if here == BAR_POINT else here - 1
            if not 0 <= src <= BAR or not mine[src]:
                continue
            dst = _can_step(mine, theirs, src, die)
            if dst == -2:
                continue
            dst_point = dst + 1 if dst >= 0 else OFF_POINT
            target = points[nxt[i]]
            if dst_point < target:  # overshoots the next written point
                continue
            hit = _apply(mine, theirs, src, dst)
            if dst_point == target and hits[nxt[i]] and not hit:
                _undo(mine, theirs, src, dst, hit)
                continue
            steps.append((src, dst, hit))
            at[i] = dst_point
            nxt[i] += dst_point == target
            rec(dice, depth + 1, unmarked + (hit and dst_point not in marked[i]))
            nxt[i] -= dst_point == target
            at[i] = here
            steps.pop()
            _undo(mine, theirs, src, dst, hit)

    for order in orders:
        rec(order, 0, 0)
    return out
