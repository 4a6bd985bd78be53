"""Move notation: printing, strict parsing, ambiguity and illegal plays."""

from __future__ import annotations

import pytest

from backgammon import AmbiguousPlayError, IllegalPlayError, InvalidInputError, Position
from backgammon.moves import Step
from backgammon.notation import Segment, format_steps, parse_move_text, parse_play


# ------------------------------------------------------------------- printing
@pytest.mark.parametrize(
    ("steps", "text"),
    [
        ([Step(24, 18), Step(13, 11, True)], "24/18 13/11*"),
        ([Step(13, 11, True), Step(24, 18)], "24/18 13/11*"),  # highest source first
        ([Step(25, 22)], "bar/22"),
        ([Step(6, 0)], "6/off"),
        ([Step(8, 5), Step(8, 5)], "8/5(2)"),
        ([Step(8, 5), Step(6, 3), Step(8, 5), Step(6, 3)], "8/5(2) 6/3(2)"),
        ([Step(13, 7, True), Step(7, 4)], "13/7*/4"),
        ([Step(13, 7), Step(7, 4)], "13/4"),  # intermediate point shown only where it hits
        ([Step(24, 18), Step(18, 12), Step(24, 18), Step(18, 12)], "24/12(2)"),
        ([Step(6, 0), Step(6, 0), Step(5, 0), Step(4, 0)], "6/off(2) 5/off 4/off"),
        ([Step(25, 20), Step(25, 22)], "bar/22 bar/20"),
        ([], ""),
    ],
)
def test_format_steps(steps, text: str) -> None:
    assert format_steps(steps) == text


# -------------------------------------------------------------------- syntax
def test_parse_move_text_segments() -> None:
    assert parse_move_text("24/18 13/11*") == (
        Segment((24, 18), (False, False)),
        Segment((13, 11), (False, True)),
    )
    assert parse_move_text("8/5(2)") == (Segment((8, 5), (False, False)),) * 2
    assert parse_move_text("bar/22 6/off") == (Segment((25, 22), (False, False)), Segment((6, 0), (False, False)))
    assert parse_move_text("BAR/22, 6/OFF") == parse_move_text("bar/22 6/off")
    assert parse_move_text("13/7*/4") == (Segment((13, 7, 4), (False, True, False)),)
    assert parse_move_text("") == () and parse_move_text("   ") == ()
    assert parse_move_text("25/22") == parse_move_text("bar/22")
    assert parse_move_text("6/0") == parse_move_text("6/off")


@pytest.mark.parametrize(
    "bad",
    [
        "24-18",
        "24/",
        "/18",
        "24",
        "24/18/",
        "18/24",  # backwards
        "24/24",
        "off/3",
        "bar/bar",
        "3/bar",
        "6/off/3",
        "6/off*",
        "24*/18",
        "26/20",
        "99/1",
        "24/18(5)",
        "24/18(0)",
        "24/18(2",
        "24/18 x",
        "8/5(3) 6/5(2)",  # five checker moves
        "24/18)(",
        "١٣/٧",  # non-ASCII digits
        "24/18" * 60,  # longer than 200 characters
        "24\x00/18",
    ],
)
def test_parse_move_text_rejects(bad: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        parse_move_text(bad)
    assert str(info.value).startswith("invalid move text")


@pytest.mark.parametrize("bad", [None, 24, b"24/18", ["24/18"]])
def test_parse_move_text_rejects_non_strings(bad) -> None:
    with pytest.raises(InvalidInputError):
        parse_move_text(bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------- parsing
def test_parse_opening_plays() -> None:
    start = Position.initial()
    play = parse_play(start, 3, 1, "8/5 6/5")
    assert play.position.position_id() == "sGfwATDgc/ABMA"
    assert parse_play(start, 1, 3, "6/5 8/5") == play  # order of dice and of paths is free
    assert str(parse_play(start, 6, 5, "24/13")) == "24/13"
    assert str(parse_play(start, 6, 5, "24/18/13")) == "24/13"  # intermediate point may be given
    assert str(parse_play(start, 3, 3, "8/5(2) 6/3(2)")) == "8/5(2) 6/3(2)"
    assert str(parse_play(start, 3, 3, "8/5 8/5 6/3 6/3")) == "8/5(2) 6/3(2)"


def test_parse_bar_and_off(pos) -> None:
    assert str(parse_play(pos("x bar:1 6:2; o 6:2"), 3, 1, "bar/22 6/5")) == "bar/22 6/5"
    assert str(parse_play(pos("x 6:1 2:1; o 12:2"), 6, 2, "6/off 2/off")) == "6/off 2/off"


def test_parse_hit_through_intermediate(pos) -> None:
    p = pos("x 13:1; o 18:1")  # blot on x's 7
    hit = parse_play(p, 6, 3, "13/7*/4")
    assert hit.hits == 1 and str(hit) == "13/7*/4"


def test_unmarked_path_prefers_the_play_without_hidden_hits(pos) -> None:
    # '13/4' is what the non-hitting play prints: it must read back as that play
    p = pos("x 13:1; o 18:1")
    quiet = parse_play(p, 6, 3, "13/4")
    assert quiet.hits == 0 and str(quiet) == "13/4"


def test_omitted_hit_marker_accepted_when_unique(pos) -> None:
    p = pos("x 13:1; o 19:1")  # blot on x's 6: 13/6 hits whatever the route
    play = parse_play(p, 4, 3, "13/6")
    assert play.hits == 1 and str(play) == "13/6*"


def test_ambiguous_play(pos) -> None:
    p = pos("x 13:1; o 18:1 15:1")  # blots on x's 7 and 10: 13/4 hits one or the other
    with pytest.raises(AmbiguousPlayError) as info:
        parse_play(p, 6, 3, "13/4")
    assert "13/7*/4" in str(info.value) and "13/10*/4" in str(info.value)
    assert isinstance(info.value, IllegalPlayError) and isinstance(info.value, ValueError)
    assert parse_play(p, 6, 3, "13/10*/4").hits == 1


@pytest.mark.parametrize(
    ("text", "dice"),
    [
        ("24/18", (3, 1)),  # wrong distance
        ("24/22", (3, 1)),  # no way to move 2 with 3 and 1
        ("24/21", (3, 1)),
        ("8/5", (3, 1)),
        ("8/5 6/5 13/12", (3, 1)),
        ("8/5*", (3, 1)),  # no blot to hit on 5
        ("", (3, 1)),  # the roll can be played
        ("6/off", (6, 1)),  # not all checkers home
        ("bar/22", (3, 1)),  # nobody on the bar
        ("24/18(2)", (6, 5)),
    ],
)
def test_illegal_plays(text: str, dice: tuple[int, int]) -> None:
    with pytest.raises(IllegalPlayError) as info:
        parse_play(Position.initial(), *dice, text)
    assert not isinstance(info.value, AmbiguousPlayError)
    assert str(info.value).startswith("illegal play")
    assert "4HPwATDgc/ABMA" in str(info.value)


def test_empty_text_for_a_dance(pos) -> None:
    p = pos("x bar:1 6:2; o 1:2 2:2 3:2 4:2 5:2 6:2")
    play = parse_play(p, 6, 5, "")
    assert play.steps == () and play.position == p.flip()
    with pytest.raises(IllegalPlayError):
        parse_play(p, 6, 5, "6/1")


def test_must_use_higher_die_when_parsing(pos) -> None:
    p = pos("x 13:1; o 23:2")
    assert str(parse_play(p, 6, 5, "13/7")) == "13/7"
    with pytest.raises(IllegalPlayError):
        parse_play(p, 6, 5, "13/8")


def test_parse_validates_dice() -> None:
    with pytest.raises(InvalidInputError):
        parse_play(Position.initial(), 0, 3, "8/5")
