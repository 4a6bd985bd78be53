"""``Position.legal_plays`` returns a lazy ``LegalPlays`` view, backed by the engine's kernel or pure Python.

Both generators must give the same plays in the same order (so seeded games
do not depend on whether numba is installed); the pure-Python one is forced
with ``backgammon.moves.use_accelerator(False)``.
"""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
from collections.abc import Iterator

import pytest

from backgammon.errors import AmbiguousPlayError, IllegalPlayError, InvalidInputError
from backgammon.moves import LegalPlays, Play, use_accelerator
from backgammon.position import Position

ALL_ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, 7))  # both dice orders


@pytest.fixture
def pure() -> Iterator[None]:
    use_accelerator(False)
    try:
        yield
    finally:
        use_accelerator(True)


def _both(position: Position, d1: int, d2: int) -> tuple[LegalPlays, LegalPlays]:
    assert use_accelerator(True), "numba is installed in the test environment: the kernel must load"
    fast = position.legal_plays(d1, d2)
    use_accelerator(False)
    try:
        slow = position.legal_plays(d1, d2)
    finally:
        use_accelerator(True)
    return fast, slow


def test_the_view_is_sized_iterable_and_indexable() -> None:
    plays = Position.initial().legal_plays(3, 1)
    assert isinstance(plays, LegalPlays) and len(plays) == 16 and plays
    listed = list(plays)
    assert all(isinstance(p, Play) for p in listed) and len({p.position for p in listed}) == 16
    assert plays[0] == listed[0] and plays[-1] == listed[-1] and plays[1:3] == tuple(listed[1:3])
    assert plays == tuple(listed) and plays == listed
    assert sorted(plays, key=str)[0] == min(listed, key=str)
    assert random.Random(1).choice(plays) in plays
    assert plays.count(listed[2]) == 1 and plays.index(listed[2]) == 2
    assert repr(plays) == "<LegalPlays 16 plays for 31 in 4HPwATDgc/ABMA>"


def test_membership_and_lookup_by_text_and_position() -> None:
    start = Position.initial()
    plays = start.legal_plays(3, 1)
    point = plays.find("8/5 6/5")
    assert str(point) == "8/5 6/5" and point in plays and point.position in plays
    assert plays.find(point.position) == point and plays.get(point.position) == point
    assert plays.find([(8, 5), (6, 5)]) == point
    assert start not in plays and start.flip() not in plays and "8/5 6/5" not in plays
    other = Position.initial().legal_plays(4, 2)
    assert other.find("8/4 6/4") not in plays  # a play of another roll
    assert plays.get(start) is None
    with pytest.raises(IllegalPlayError):
        plays.find("24/18")
    with pytest.raises(InvalidInputError):
        plays.find("8/5 6/")
    blots = Position.from_points({13: 1}, {18: 1, 15: 1})  # blots on my 7 and 10: 13/4 hits one or the other
    with pytest.raises(AmbiguousPlayError):
        blots.legal_plays(6, 3).find("13/4")
    # a play from a different origin with the same resulting position is not "in" this view
    foreign = Play(Position.from_points({6: 2}, {6: 2}), (3, 1), (), point.position)
    assert foreign not in plays


def test_plays_find_their_steps_lazily_and_are_immutable() -> None:
    plays = Position.initial().legal_plays(6, 5)
    first = plays[0]
    # a listed play is a compact value: its resulting position and its steps are built when first asked for
    assert not hasattr(first, "_steps") and not hasattr(first, "_position")
    assert first == plays[0] and first in plays and not hasattr(first, "_position")  # (compared by key)
    assert first.position is first.position and first.position.key() == plays._source.key(0)
    assert first.steps and first.steps is first.steps
    lover = plays.find("24/13")
    assert [str(s) for s in lover.steps] in (["24/18", "18/13"], ["24/19", "19/13"])
    assert lover.dice_used == 2 and lover.hits == 0
    with pytest.raises(AttributeError):
        lover.position = Position.initial()  # type: ignore[misc]
    copy = pickle.loads(pickle.dumps(lover))
    assert copy == lover and str(copy) == "24/13" and pickle.loads(pickle.dumps(plays)) == plays


def test_bad_dice_are_refused_on_both_paths(pure: None) -> None:
    for bad in ((0, 1), (7, 1), (True, 2), (1.0, 2), ("3", 1)):
        with pytest.raises(InvalidInputError, match="invalid die"):
            Position.initial().legal_plays(*bad)  # type: ignore[arg-type]


def test_both_generators_agree_on_plays_order_and_notation(rules_corpus: list[Position]) -> None:
    rng = random.Random(20261203)
    positions = rng.sample(rules_corpus, min(400, len(rules_corpus)))
    for position in positions:
        for d1, d2 in rng.sample(ALL_ROLLS, 6):
            fast, slow = _both(position, d1, d2)
            assert [p.position for p in fast] == [p.position for p in slow], (position, d1, d2)
            assert [str(p) for p in fast] == [str(p) for p in slow], (position, d1, d2)


def test_both_generators_agree_on_random_boards() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 1500:
        sides = []
        for _ in range(2):
            side = [0] * 25
            for _ in range(rng.randint(1, 15)):
                r = rng.random()
                side[24 if r < 0.1 else rng.randrange(6) if r < 0.5 else rng.randrange(24)] += 1
            sides.append(tuple(side))
        try:
            position = Position(sides[0], sides[1])
        except ValueError:
            continue
        d1, d2 = rng.choice(ALL_ROLLS)
        fast, slow = _both(position, d1, d2)
        assert [p.position for p in fast] == [p.position for p in slow], (position, d1, d2)
        checked += 1


def test_finished_games_and_unplayable_rolls_on_both_paths() -> None:
    over = Position.from_points({6: 3}, {})
    closed = Position.from_points({"bar": 1, 13: 1}, dict.fromkeys(range(1, 7), 2))
    for position in (over, closed, Position.from_points({}, {6: 1})):
        fast, slow = _both(position, 6, 5)
        for plays in (fast, slow):
            assert len(plays) == 1 and plays[0].position == position.flip() and plays[0].steps == ()
            assert str(plays[0]) == "" and plays.find("") == plays[0]


def test_the_environment_variable_forces_pure_python() -> None:
    probe = (
        "import sys, backgammon, backgammon.moves as m; p = backgammon.Position.initial().legal_plays(3, 1); "
        "print(len(p), m._ACCELERATOR == [None], any(n.startswith('numba') for n in sys.modules))"
    )
    env = dict(os.environ, BACKGAMMON_PURE_PYTHON="1")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["16", "True", "False"]


def test_a_play_found_by_position_is_the_same_object_before_and_after_the_list_is_built() -> None:
    from backgammon.position import Position

    for build_first in (False, True):
        plays = Position.initial().legal_plays(6, 4)
        if build_first:
            listed = list(plays)
        target = Position.initial().legal_plays(6, 4)[5].position
        found = plays.get(target)
        assert found is plays.get(target) and found is not None and found.position == target
        listed = list(plays)
        assert listed[5] is found and plays[5] is found and len(listed) == len(plays)


def test_a_play_is_a_value_not_a_sequence() -> None:
    """A listed play is stored as a small pair underneath; none of it shows: no len, iteration, indexing,
    ordering or concatenation, equal to the same play made with the public constructor, pickled whole."""
    plays = Position.initial().legal_plays(6, 4)
    first, second = plays[0], plays[1]
    for attempt in (
        lambda: len(first),
        lambda: list(first),
        lambda: first[0],
        lambda: 1 in first,
        lambda: first < second,
        lambda: first + second,
        lambda: first * 2,
    ):
        with pytest.raises(TypeError):
            attempt()
    assert first and first != second and not (first == second)
    made = Play(first.origin, first.dice, first.steps, first.position)
    assert made == first and hash(made) == hash(first) and made in plays and str(made) == str(first)
    assert made.position is first.position and made.steps == first.steps
    again = pickle.loads(pickle.dumps(first))
    assert again == first and again.steps == first.steps and str(again) == str(first)
    assert first.position is first.position and first.steps is first.steps  # built once, kept
