"""Which rule an illegal play breaks, in English and Japanese.

:func:`diagnose` takes move text that :func:`backgammon.notation.parse_play`
rejected and replays it step by step under lenient rules that record each
broken rule instead of refusing: checkers on the bar first, blocked points,
bearing off with checkers outside or with a higher die while a higher point
is occupied, hit markers without a blot, then the play-wide duties (use both
dice when possible, the higher die when only one can be played).

Every way of splitting the text into dice steps is tried (the order of the
dice and of the checker paths); the reading that breaks the fewest rules is
the one reported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import permutations

from backgammon.dice import check_dice
from backgammon.errors import AmbiguousPlayError, IllegalPlayError, InvalidInputError
from backgammon.lessons.text import Text
from backgammon.moves import BAR_POINT, OFF_POINT, Play, find_play
from backgammon.notation import Segment, parse_move_text
from backgammon.position import BAR, Position

__all__ = ["Diagnosis", "Rule", "diagnose"]


class Rule(Enum):
    """The rule (or reading problem) that makes a play text unacceptable."""

    NOTATION = "notation"  # not move text at all
    AMBIGUOUS = "ambiguous"  # more than one legal play fits the text
    MUST_PLAY = "must_play"  # no move written, but the roll can be played
    CANNOT_PLAY = "cannot_play"  # a move written, but the roll cannot be played at all
    DICE = "dice"  # the distances do not fit the dice
    NO_CHECKER = "no_checker"  # no own checker on the starting point
    BAR_FIRST = "bar_first"  # a checker on the bar must enter first
    BLOCKED = "blocked"  # landing (or stopping on the way) on a point the opponent holds
    BEAR_OFF_OUTSIDE = "bear_off_outside"  # bearing off with a checker outside the home board
    BEAR_OFF_HIGHER = "bear_off_higher"  # a higher die bears off only from the highest point
    NO_HIT = "no_hit"  # a hit marker where there is no blot
    BOTH_DICE = "both_dice"  # must use both dice (all four with doubles) when possible
    HIGHER_DIE = "higher_die"  # only one die playable: it must be the higher one if possible
    ILLEGAL = "illegal"  # illegal for a reason not identified above


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """The rule broken, where (a point number, or None) and the explanation in both languages."""

    rule: Rule
    point: int | None
    message: Text


# ------------------------------------------------------------------ lenient replay
@dataclass(frozen=True, slots=True)
class _Violation:
    rule: Rule
    point: int | None
    detail: int | None = None  # another point, for messages
    intermediate: bool = False


def _point_name_en(point: int) -> str:
    return "the bar" if point == BAR_POINT else f"the {point}-point"


def _point_name_ja(point: int) -> str:
    return "バー" if point == BAR_POINT else f"{point}ポイント"


def _legs(segment: Segment) -> list[tuple[int, int, bool]]:
    """(from, to, hit marked at 'to') for each written leg of a checker path."""
    pts, hits = segment.points, segment.hits
    return [(pts[i], pts[i + 1], hits[i + 1]) for i in range(len(pts) - 1)]


class _Replay:
    def __init__(self, position: Position) -> None:
        self.mine = list(position.mine)
        self.theirs = list(position.theirs)
        self.violations: list[_Violation] = []

    def step(self, src_point: int, die: int, marked_hit_at: int | None, intermediate: bool) -> int:
        """Move one checker from ``src_point`` by ``die``; return the destination point (0 = off)."""
        mine, theirs = self.mine, self.theirs
        src = src_point - 1  # index; bar = 24
        if src != BAR and mine[BAR]:
            self.violations.append(_Violation(Rule.BAR_FIRST, src_point))
        if mine[src] <= 0:
            self.violations.append(_Violation(Rule.NO_CHECKER, src_point))
            mine[src] += 1  # pretend, to keep replaying
        dst = src - die
        if dst >= 0:
            dst_point = dst + 1
            if theirs[23 - dst] >= 2:
                self.violations.append(_Violation(Rule.BLOCKED, dst_point, src_point, intermediate))
            mine[src] -= 1
            mine[dst] += 1
            if theirs[23 - dst] == 1:
                theirs[23 - dst] = 0
                theirs[BAR] += 1
            elif marked_hit_at == dst_point:
                self.violations.append(_Violation(Rule.NO_HIT, dst_point))
            return dst_point
        outside = next((i for i in range(24, 5, -1) if mine[i] and not (i == src and mine[i] == 1)), None)
        if outside is not None or src > 5:
            where = src_point if src > 5 else outside + 1  # type: ignore[operator]
            self.violations.append(_Violation(Rule.BEAR_OFF_OUTSIDE, src_point, where))
        elif dst < -1:
            higher = next((i for i in range(5, src, -1) if mine[i]), None)
            if higher is not None:
                self.violations.append(_Violation(Rule.BEAR_OFF_HIGHER, src_point, higher + 1))
        mine[src] -= 1
        return OFF_POINT


def _replay(position: Position, segments: list[Segment], dice: list[int]) -> tuple[list[_Violation], int] | None:
    """Replay segments in order consuming ``dice`` in order; None if the distances do not fit."""
    replay = _Replay(position)
    k = 0
    for segment in segments:
        for a, b, marked in _legs(segment):
            here = a
            while True:
                if k >= len(dice):
                    return None
                die = dice[k]
                k += 1
                if b != OFF_POINT and here - die < b:
                    return None
                intermediate = b != OFF_POINT and here - die != b
                if b == OFF_POINT:
                    intermediate = here - die > 0
                if intermediate and here - die <= 0:
                    return None
                here = replay.step(here, die, b if marked else None, intermediate)
                if here == b:
                    break
    return replay.violations, k


def _messages(v: _Violation, d1: int, d2: int) -> Text:
    p = v.point
    if v.rule is Rule.BAR_FIRST:
        return Text(
            "you have a checker on the bar: it must enter before any other checker may move",
            "バーにチェッカーがあるときは、それをエンターするまで他のチェッカーは動かせません",
        )
    if v.rule is Rule.NO_CHECKER:
        assert p is not None
        return Text(
            f"you have no checker on {_point_name_en(p)}",
            f"{_point_name_ja(p)}にあなたのチェッカーはありません",
        )
    if v.rule is Rule.BLOCKED:
        assert p is not None
        if v.intermediate:
            return Text(
                f"each die is a separate move: on the way the checker would stop on {_point_name_en(p)}, "
                "which the opponent holds with two or more checkers (a blocked point)",
                f"2つの目は1つずつ別々に動かします。途中で止まる{_point_name_ja(p)}には相手のチェッカーが"
                "2枚以上あり、ブロックされています",
            )
        return Text(
            f"{_point_name_en(p)} is blocked: the opponent has two or more checkers there",
            f"{_point_name_ja(p)}には相手のチェッカーが2枚以上あり、ブロックされています（止まれません）",
        )
    if v.rule is Rule.BEAR_OFF_OUTSIDE:
        where = v.detail if v.detail is not None else p
        assert where is not None
        return Text(
            "you may bear off only when all fifteen checkers are in your home board (points 1 to 6); "
            f"you still have a checker on {_point_name_en(where)}",
            "ベアオフできるのは、15枚すべてのチェッカーがインナーボード（1〜6ポイント）に入ってからです。"
            f"まだ{_point_name_ja(where)}にチェッカーがあります",
        )
    if v.rule is Rule.BEAR_OFF_HIGHER:
        assert p is not None and v.detail is not None
        return Text(
            f"a die higher than the point bears off only from the highest occupied point; you still have a "
            f"checker on {_point_name_en(v.detail)}, so move a checker from there (or higher) instead",
            f"ポイントより大きい目でベアオフできるのは、いちばん高いポイントのチェッカーだけです。"
            f"まだ{_point_name_ja(v.detail)}にチェッカーがあるので、そちらを動かさなければなりません",
        )
    if v.rule is Rule.NO_HIT:
        assert p is not None
        return Text(
            f"there is no blot to hit on {_point_name_en(p)}",
            f"{_point_name_ja(p)}にはヒットできる相手のブロット（1枚だけのチェッカー）がありません",
        )
    return _generic(d1, d2)


def _generic(d1: int, d2: int) -> Text:
    return Text(f"that play is not legal with {d1}-{d2}", f"その動かし方は{d1}-{d2}では反則です")


def _example(plays: Sequence[Play], predicate: Callable[[Play], bool] | None = None) -> str:
    chosen = [str(p) for p in plays if predicate is None or predicate(p)]
    return chosen[0] if chosen else ""


def diagnose(position: Position, die1: int, die2: int, text: str) -> Diagnosis | None:
    """Why ``text`` is not a legal play of ``position`` for ``die1``-``die2``; None if it is legal.

    >>> diagnose(Position.initial(), 6, 6, "24/12").rule
    <Rule.BLOCKED: 'blocked'>
    >>> diagnose(Position.initial(), 6, 5, "24/18 13/8") is None
    True

    Raises:
        InvalidInputError: if a die is not 1..6.
    """
    check_dice(die1, die2)
    try:
        segments = list(parse_move_text(text))
    except InvalidInputError as exc:
        return Diagnosis(
            Rule.NOTATION,
            None,
            Text(
                f"that is not move notation ({exc}); write plays like '24/18 13/11'",
                f"動かし方の表記が読み取れません（{exc}）。'24/18 13/11' のように書いてください",
            ),
        )
    try:
        find_play(position, die1, die2, text)  # a legal play as the program prints it, or notation for one
        return None
    except AmbiguousPlayError as exc:
        return Diagnosis(
            Rule.AMBIGUOUS,
            None,
            Text(
                f"the text fits more than one play ({exc}); write the points the checkers stop on",
                f"その書き方では複数の動かし方に当てはまります（{exc}）。途中で止まるポイントも書いてください",
            ),
        )
    except IllegalPlayError:
        pass
    plays = position.legal_plays(die1, die2)
    max_used = plays[0].dice_used
    if not segments:
        return Diagnosis(
            Rule.MUST_PLAY,
            None,
            Text(
                f"the roll can be played, so you must play it (for example {_example(plays)})",
                f"この目は動かせるので、必ず動かさなければなりません（例: {_example(plays)}）",
            ),
        )
    if max_used == 0:
        return Diagnosis(
            Rule.CANNOT_PLAY,
            None,
            Text(
                f"no checker can move with {die1}-{die2}: the turn passes without a move",
                f"{die1}-{die2}ではどのチェッカーも動かせないので、何も動かさずに手番が終わります",
            ),
        )
    dice = [die1] * 4 if die1 == die2 else [die1, die2]
    best: tuple[list[_Violation], int] | None = None
    for seg_order in dict.fromkeys(permutations(range(len(segments)))):
        ordered = [segments[i] for i in seg_order]
        for dice_order in dict.fromkeys(permutations(dice)):
            result = _replay(position, ordered, list(dice_order))
            if result is None:
                continue
            if best is None or len(result[0]) < len(best[0]):
                best = result
    if best is None:
        return Diagnosis(
            Rule.DICE,
            None,
            Text(
                f"the move does not fit the roll {die1}-{die2}: each checker moves exactly the number on a die "
                + ("(four times with doubles)" if die1 == die2 else "(or on both dice, one after the other)"),
                f"その動きは{die1}-{die2}の目と合いません。チェッカーはサイコロの目の数だけ進みます"
                + ("（ゾロ目なら4回）" if die1 == die2 else "（2つの目を続けて1枚で使うこともできます）"),
            ),
        )
    violations, used = best
    if violations:
        v = violations[0]
        return Diagnosis(v.rule, v.point, _messages(v, die1, die2))
    if used < max_used:
        example = _example(plays)
        if die1 == die2:
            return Diagnosis(
                Rule.BOTH_DICE,
                None,
                Text(
                    f"you must play as many of the four {die1}s as you can: {max_used} can be played here "
                    f"(for example {example})",
                    "ゾロ目は4回分をできるだけ多く使わなければなりません。"
                    f"ここでは{max_used}回動かせます（例: {example}）",
                ),
            )
        return Diagnosis(
            Rule.BOTH_DICE,
            None,
            Text(
                f"you must use both dice when you can, and here you can (for example {example})",
                f"両方の目を使える場合は、必ず両方使わなければなりません。ここでは使えます（例: {example}）",
            ),
        )
    if max_used == 1 and die1 != die2:
        high = max(die1, die2)
        if any(p.steps and abs(p.steps[0].source - p.steps[0].destination) != min(die1, die2) for p in plays):
            example = _example(plays)
            return Diagnosis(
                Rule.HIGHER_DIE,
                None,
                Text(
                    f"only one die can be played, and then it must be the higher one if possible: play the {high} "
                    f"(for example {example})",
                    f"片方の目しか使えないときは、使えるなら大きい方の目を使わなければなりません。"
                    f"{high}を使ってください（例: {example}）",
                ),
            )
    return Diagnosis(Rule.ILLEGAL, None, _generic(die1, die2))


def describe_play(play: Play) -> Text:
    """What a legal play does, in rules terms: hits, points made, blots left.

    >>> describe_play(find_play(Position.initial(), 3, 1, "8/5 6/5")).en
    'legal play 8/5 6/5: makes the 5-point'
    >>> describe_play(find_play(Position.initial(), 3, 1, "24/20")).ja
    '24/20 はルール上正しい動かし方です。24、20ポイントにブロットが残ります'


    Raises:
        InvalidInputError: if ``play`` is not a Play.
    """
    if not isinstance(play, Play):
        raise InvalidInputError(f"invalid play {play!r}: expected a Play")
    if not play.steps:
        return Text("no checker can move: the turn passes", "動かせるチェッカーがないので、手番が終わります")
    before = play.origin.mine
    after = play.position.theirs  # the mover's checkers, in the mover's numbering
    made = [i + 1 for i in range(23, -1, -1) if after[i] >= 2 and before[i] < 2]
    blots = [i + 1 for i in range(23, -1, -1) if after[i] == 1]
    en = [f"legal play {play}"]
    ja = [f"{play} はルール上正しい動かし方です"]
    details_en: list[str] = []
    details_ja: list[str] = []
    if play.hits:
        details_en.append(f"hits {play.hits} checker{'s' if play.hits > 1 else ''}")
        details_ja.append(f"{play.hits}枚ヒットします")
    off = play.position.off()[1] - play.origin.off()[0]
    if off:
        details_en.append(f"bears off {off} checker{'s' if off > 1 else ''}")
        details_ja.append(f"{off}枚ベアオフします")
    if made:
        details_en.append("makes the " + ", ".join(f"{p}-point" for p in made))
        details_ja.append("、".join(f"{p}ポイント" for p in made) + "を作ります")
    if blots:
        details_en.append("leaves blots on " + ", ".join(str(p) for p in blots))
        details_ja.append("、".join(str(p) for p in blots) + "ポイントにブロットが残ります")
    text_en = en[0] + (": " + ", ".join(details_en) if details_en else "")
    text_ja = ja[0] + ("。" + "。".join(details_ja) if details_ja else "")
    return Text(text_en, text_ja)
