"""Move notation: ``24/18 13/11*``, ``bar/22``, ``6/off``, ``8/5(2)``, ``13/7*/4``.

Printing (:func:`format_steps`) joins the steps of one checker into a single
path (``24/18`` for 6-3 moved by one checker), shows an intermediate point
only where it hit (``13/7*/4``), groups identical paths (``8/5(2)``) and lists
paths from the highest starting point down.

Parsing is strict about syntax (:func:`parse_move_text`) and then matched
against the legal plays (:func:`parse_play`): the text must describe exactly
one legal play.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from backgammon.dice import check_dice
from backgammon.errors import AmbiguousPlayError, IllegalPlayError, InvalidInputError
from backgammon.moves import BAR_POINT, OFF_POINT, Play, Step, _point_text, legal_plays, sequences_along
from backgammon.position import Position

_MAX_TEXT = 200


def format_steps(steps: tuple[Step, ...] | list[Step]) -> str:
    """Standard notation for a sequence of steps (``''`` for none).

    >>> format_steps([Step(8, 5), Step(6, 5)])
    '8/5 6/5'
    >>> format_steps([Step(13, 7, True), Step(7, 4)])
    '13/7*/4'
    """
    paths: list[list[tuple[int, bool]]] = []  # each: [(point, hit_here), ...]
    for step in steps:
        for path in paths:
            if path[-1][0] == step.source and step.source not in (OFF_POINT,):
                path.append((step.destination, step.hit))
                break
        else:
            paths.append([(step.source, False), (step.destination, step.hit)])
    texts: list[tuple[int, int, str]] = []
    for path in paths:
        parts = [_point_text(path[0][0])]
        for point, hit in path[1:-1]:
            if hit:
                parts.append(_point_text(point) + "*")
        last_point, last_hit = path[-1]
        parts.append(_point_text(last_point) + ("*" if last_hit else ""))
        texts.append((path[0][0], last_point, "/".join(parts)))
    texts.sort(key=lambda t: (-t[0], -t[1]))
    out: list[str] = []
    i = 0
    while i < len(texts):
        j = i
        while j < len(texts) and texts[j][2] == texts[i][2]:
            j += 1
        count = j - i
        # a repeated path that hits can hit only once: print each separately
        if count > 1 and "*" not in texts[i][2]:
            out.append(f"{texts[i][2]}({count})")
        else:
            out.extend(t[2] for t in texts[i:j])
        i = j
    return " ".join(out)


@dataclass(frozen=True, slots=True)
class Segment:
    """One checker path of written move text: its points and where it hits."""

    points: tuple[int, ...]  # 25 = bar, 0 = off
    hits: tuple[bool, ...]  # hit marker after each point (first is always False)


_TOKEN = re.compile(r"^([^()]+?)(?:\(([0-9])\))?$")
_POINT = re.compile(r"^(bar|off|[0-9]{1,2})(\*?)$", re.IGNORECASE)


def parse_move_text(text: str) -> tuple[Segment, ...]:
    """Parse move text into checker paths, checking syntax only.

    ``8/5(2)`` gives two segments. Points are 1..24, ``bar`` (or 25) and
    ``off`` (or 0). Empty text is no move.

    Raises:
        InvalidInputError: for anything that is not move notation (code ``invalid_move_text``,
        with the text in ``params``).
    """
    try:
        return _parse_move_text(text)
    except InvalidInputError as exc:
        shown = text[:40] if isinstance(text, str) else repr(text)[:40]
        raise InvalidInputError(str(exc), code="invalid_move_text", params={"text": shown}) from None


def _parse_move_text(text: str) -> tuple[Segment, ...]:
    if not isinstance(text, str):
        raise InvalidInputError(f"invalid move text {text!r}: expected a string")
    if len(text) > _MAX_TEXT:
        raise InvalidInputError(f"invalid move text {text[:40]!r}...: longer than {_MAX_TEXT} characters")
    segments: list[Segment] = []
    for token in text.replace(",", " ").split():
        m = _TOKEN.match(token)
        if not m:
            raise InvalidInputError(f"invalid move text {text!r}: cannot read {token!r}")
        body, repeat = m.group(1), m.group(2)
        parts = body.split("/")
        if len(parts) < 2:
            raise InvalidInputError(
                f"invalid move text {text!r}: {token!r} needs a source and a destination, as in '24/18'"
            )
        points: list[int] = []
        hits: list[bool] = []
        for k, part in enumerate(parts):
            pm = _POINT.match(part)
            if not pm:
                raise InvalidInputError(
                    f"invalid move text {text!r}: {part!r} in {token!r} is not a point, 'bar' or 'off'"
                )
            word, star = pm.group(1).lower(), pm.group(2) == "*"
            point = BAR_POINT if word == "bar" else OFF_POINT if word == "off" else int(word)
            if point > 25:
                raise InvalidInputError(f"invalid move text {text!r}: point {point} in {token!r} is not 1..24")
            if k == 0 and (star or point == OFF_POINT):
                raise InvalidInputError(f"invalid move text {text!r}: {token!r} cannot start at {part!r}")
            if k > 0 and point == BAR_POINT:
                raise InvalidInputError(f"invalid move text {text!r}: {token!r} cannot move to the bar")
            if k > 0 and point >= points[-1] and point != OFF_POINT:
                raise InvalidInputError(f"invalid move text {text!r}: {token!r} moves backwards")
            if k > 0 and points[-1] == OFF_POINT:
                raise InvalidInputError(f"invalid move text {text!r}: {token!r} continues after 'off'")
            if star and point == OFF_POINT:
                raise InvalidInputError(f"invalid move text {text!r}: cannot hit 'off' in {token!r}")
            points.append(point)
            hits.append(star)
        count = int(repeat) if repeat else 1
        if not 1 <= count <= 4:
            raise InvalidInputError(f"invalid move text {text!r}: repeat count in {token!r} must be 1..4")
        segments.extend([Segment(tuple(points), tuple(hits))] * count)
    if len(segments) > 4:
        raise InvalidInputError(f"invalid move text {text!r}: more than four checker moves")
    return tuple(segments)


def parse_play(position: Position, die1: int, die2: int, text: str) -> Play:
    """The legal play that ``text`` describes for this position and roll.

    Intermediate points may be left out (``13/4`` for 6-3); a hit marker
    (``*``) must be on a point where a blot is hit. When the text fits plays
    whose hits are exactly the marked ones, only those count (so ``8/2`` is the
    route that does not hit, ``8/7*/2`` the one that does); otherwise left-out
    hit markers are accepted. The text must then describe exactly one play.

    >>> str(parse_play(Position.initial(), 3, 1, "8/5 6/5"))
    '8/5 6/5'

    Raises:
        InvalidInputError: for text that is not move notation.
        IllegalPlayError: when it describes no legal play.
        AmbiguousPlayError: when it describes more than one.
    """
    check_dice(die1, die2)
    segments = list(parse_move_text(text))
    plays = legal_plays(position, die1, die2)
    if not segments:
        if len(plays) == 1 and not plays[0].steps:
            return plays[0]
        raise IllegalPlayError(
            f"illegal play {text!r} for roll {die1}-{die2} in position {position.position_id()}: "
            "the roll can be played",
            code="roll_can_be_played",
            params={"dice": f"{die1}-{die2}"},
        )
    found: dict[Position, None] = {}
    exact: dict[Position, None] = {}  # matches whose hits are exactly the marked ones
    paths = tuple((seg.points, seg.hits) for seg in segments)
    for _steps, after, unmarked_hits in sequences_along(position, die1, die2, paths, plays):
        found[after] = None
        if not unmarked_hits:
            exact[after] = None
    if exact:
        found = exact
    if not found:
        raise IllegalPlayError(
            f"illegal play {text!r} for roll {die1}-{die2} in position {position.position_id()}",
            code="illegal_play_for_roll",
            params={"play": text.strip()[:40], "dice": f"{die1}-{die2}"},
        )
    if len(found) > 1:
        options = [str(p) for p in plays if p.position in found]
        raise AmbiguousPlayError(
            f"ambiguous play {text!r} for roll {die1}-{die2} in position {position.position_id()}: "
            f"it could be {' or '.join(repr(o) for o in options)}",
            params={"play": text.strip()[:40], "dice": f"{die1}-{die2}", "options": " / ".join(options)},
        )
    target = next(iter(found))
    return next(p for p in plays if p.position == target)
