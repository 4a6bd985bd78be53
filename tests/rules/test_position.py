"""Position: construction, validation, Position ID (FORMATS.md vectors), flip, queries."""

from __future__ import annotations

import pytest

from backgammon import BackgammonError, InvalidInputError, InvalidPositionError, Phase, Position

START = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def test_initial_position() -> None:
    p = Position.initial()
    assert p.mine == START and p.theirs == START
    assert p.position_id() == "4HPwATDgc/ABMA"
    assert p.pip_counts() == (167, 167)
    assert p.off() == (0, 0) and p.bar() == (0, 0)
    assert p.phase() is Phase.CONTACT and not p.is_race() and not p.is_game_over()


def test_start_bits_match_formats_md() -> None:
    # the worked example: key E0 73 F0 01 30 E0 73 F0 01 30
    import base64

    assert base64.b64decode("4HPwATDgc/ABMA==") == bytes.fromhex("E073F00130E073F00130")


def test_after_opening_31() -> None:
    """FORMATS.md: after 8/5 6/5 the mover is not on roll and is encoded first."""
    after = Position.initial().legal_plays(3, 1)
    (play,) = [p for p in after if str(p) == "8/5 6/5"]
    assert play.position.position_id() == "sGfwATDgc/ABMA"
    assert play.position.theirs[4] == 2 and play.position.theirs[5] == 4 and play.position.theirs[7] == 2
    assert play.position.mine == START
    # swapping the halves gives the other ID quoted in FORMATS.md
    assert play.position.flip().position_id() == "4HPwATCwZ/ABMA"


def test_vector_with_checker_on_bar() -> None:
    p = Position.from_position_id("zGbiIQgxH/AAWA")
    assert p.bar() == (1, 0)
    assert sum(p.mine) == 15 and sum(p.theirs) == 15
    assert p.position_id() == "zGbiIQgxH/AAWA"


def test_vector_jGfk() -> None:
    p = Position.from_position_id("jGfkASjg8wcBMA")
    assert p.position_id() == "jGfkASjg8wcBMA"
    assert p.mine[7] == 7 and p.theirs[22] == 1 and p.theirs[23] == 1


@pytest.mark.parametrize("pid", ["4HPwATDgc/ABMA", "sGfwATDgc/ABMA", "zGbiIQgxH/AAWA", "jGfkASjg8wcBMA"])
def test_ids_agree_with_gnubg(pid: str) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    p = Position.from_position_id(pid)
    opponent, on_roll = gnubg_nn.board_from_position_id(pid)
    assert (tuple(on_roll), tuple(opponent)) == (p.mine, p.theirs)


def test_id_round_trip_and_gnubg_on_corpus(make_corpus) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    for p in make_corpus(400, 7):
        pid = p.position_id()
        assert len(pid) == 14
        assert Position.from_position_id(pid) == p
        assert gnubg_nn.position_id([list(p.theirs), list(p.mine)]) == pid


def test_from_points_and_builder(pos) -> None:
    p = pos("x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5")
    assert p == Position.initial()
    q = Position.from_points({6: 2, "bar": 1, 25: 1}, {1: 2})
    assert q.mine[24] == 2 and q.off() == (11, 13)


def test_flip() -> None:
    p = Position.from_position_id("zGbiIQgxH/AAWA")
    assert p.flip().mine == p.theirs and p.flip().theirs == p.mine
    assert p.flip().flip() == p
    assert p.flip().pip_counts() == tuple(reversed(p.pip_counts()))


def test_pip_counts_with_bar_and_off(pos) -> None:
    p = pos("x bar:1 6:2; o 1:3")
    assert p.pip_counts() == (25 + 12, 3)
    assert p.off() == (12, 12)


@pytest.mark.parametrize(
    ("text", "phase"),
    [
        ("x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5", Phase.CONTACT),
        ("x 6:3 1:2; o 6:2", Phase.BEAROFF),
        ("x 12:3; o 12:1", Phase.RACE),  # my 12 is their 13: passed each other
        ("x 13:1; o 13:1", Phase.CONTACT),  # my 13 is their 12: still to pass
        ("x bar:1 6:1; o 1:1", Phase.CONTACT),
        ("x 1:1", Phase.OVER),
    ],
)
def test_phase(pos, text: str, phase: Phase) -> None:
    assert pos(text).phase() is phase


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ({6: 16}, {}),  # 16 checkers
        ({6: 2}, {19: 1}),  # my 6 is their 19: shared point
        ({}, {}),  # both borne off
        ({"bar": 1, **dict.fromkeys(range(1, 7), 2)}, {"bar": 1, **dict.fromkeys(range(1, 7), 2)}),
        ({0: 1}, {}),  # no point 0
        ({26: 1}, {}),
        ({"roof": 1}, {}),
        ({6: -1}, {}),
        ({6: 1.5}, {}),
        ({True: 1}, {}),
    ],
)
def test_invalid_positions(mine, theirs) -> None:
    with pytest.raises(InvalidPositionError) as info:
        Position.from_points(mine, theirs)
    assert str(info.value).startswith("invalid")
    assert isinstance(info.value, ValueError)


def test_direct_constructor_validates() -> None:
    with pytest.raises(InvalidPositionError):
        Position((0,) * 24, START)
    with pytest.raises(InvalidPositionError):
        Position(tuple([1] * 25), START)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError):
        Position(list(START), START)  # type: ignore[arg-type]


def test_frozen() -> None:
    p = Position.initial()
    with pytest.raises(AttributeError):
        p.mine = START  # type: ignore[misc]
    assert hash(p) == hash(Position.from_position_id("4HPwATDgc/ABMA"))


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "4HPwATDgc/ABM",
        "4HPwATDgc/ABMAA",
        "4HPwATDgc/AB!A",
        "4HPwATDgc-ABMA",
        "////////////AA",
        None,
        42,
        b"4HPwATDgc/ABMA",
    ],
)
def test_bad_position_ids(bad) -> None:
    with pytest.raises(InvalidInputError) as info:
        Position.from_position_id(bad)
    assert str(info.value).startswith(f"invalid position id {bad!r}")


def test_id_with_too_many_checkers() -> None:
    # all ones: the first side would get far more than 15 checkers
    with pytest.raises(BackgammonError):
        Position.from_position_id("/////////////w")


def test_id_whitespace_is_tolerated() -> None:
    assert Position.from_position_id("  4HPwATDgc/ABMA\n") == Position.initial()


def test_repr_round_trips() -> None:
    p = Position.from_position_id("jGfkASjg8wcBMA")
    assert eval(repr(p), {"Position": Position}) == p


def test_str_is_the_board() -> None:
    text = str(Position.from_position_id("zGbiIQgxH/AAWA"))
    assert "Position ID: zGbiIQgxH/AAWA" in text
    assert "pips 164" in text and "pips 145" in text
