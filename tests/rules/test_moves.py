"""Legal-play generation: every movement rule on hand-made positions.

Positions are written with the ``pos`` builder: ``x`` is on roll and moves
from 24 down to 1; ``o`` is written in its own numbering (o's point q is x's
point 25 - q). Unplaced checkers are borne off.
"""

from __future__ import annotations

import pytest

from backgammon import InvalidInputError, Position
from backgammon.moves import Step


def texts(position: Position, d1: int, d2: int) -> list[str]:
    return sorted(str(p) for p in position.legal_plays(d1, d2))


def only(position: Position, d1: int, d2: int):
    plays = position.legal_plays(d1, d2)
    assert len(plays) == 1, [str(p) for p in plays]
    return plays[0]


# ------------------------------------------------------------ each die a step
def test_53_blocked_on_both_intermediate_points(pos) -> None:
    # x's 8 and 10 are blocked (o's 17 and 15): the lone checker on 13 cannot
    # move 5 or 3, so it cannot move 8 either, though x's 5 is open.
    p = pos("x 13:1; o 17:2 15:2")
    play = only(p, 5, 3)
    assert play.steps == () and str(play) == "" and play.dice_used == 0
    assert play.position == p.flip()


def test_53_one_intermediate_point_open(pos) -> None:
    p = pos("x 13:1; o 17:2")  # x's 8 blocked, 10 open
    play = only(p, 5, 3)
    assert str(play) == "13/5"
    assert play.steps == (Step(13, 10), Step(10, 5))


def test_only_the_smaller_die_playable(pos) -> None:
    # 6 from 13 lands on 7 (blocked); after 13/8 the 6 would land on 2 (blocked)
    p = pos("x 13:1; o 18:2 23:2")
    play = only(p, 6, 5)
    assert str(play) == "13/8" and play.dice_used == 1


def test_higher_die_rule(pos) -> None:
    # either die alone can be played, not both (x's 2 blocked): the 6 must be played
    p = pos("x 13:1; o 23:2")
    play = only(p, 6, 5)
    assert str(play) == "13/7"
    assert only(p, 5, 6).position == play.position


def test_higher_die_rule_with_two_checkers(pos) -> None:
    # x's 7 and 2 blocked except from specific sources: checker A on 13, checker B on 3.
    # 13/8 (5) then 6 from 8 -> 2 blocked, 6 from 3 -> off not allowed (13 outside).
    # 13/7 (6) blocked. 3 cannot move 5 or 6 (not home-bearing). So only the 5: 13/8.
    p = pos("x 13:1 3:1; o 18:2 23:2")
    assert texts(p, 6, 5) == ["13/8"]


def test_both_dice_must_be_used_in_the_only_order(pos) -> None:
    p = pos("x 10:1; o 21:2")  # x's 4 blocked: 10/4 impossible, 10/8/2 fine
    assert texts(p, 6, 2) == ["10/2"]


def test_maximal_usage_beats_higher_die(pos) -> None:
    # 6 then nothing vs 5 then 6: both dice must be used when possible
    p = pos("x 13:1; o 23:2 17:2")  # x's 2 and 8 blocked
    # 13/7 then 5 -> 2 blocked; 13/8 blocked; so only one die; the 6
    assert texts(p, 6, 5) == ["13/7"]
    q = pos("x 13:1; o 23:2 18:2")  # x's 2 and 7 blocked: 13/8/2 blocked, 13/7 blocked
    assert texts(q, 6, 5) == ["13/8"]


# -------------------------------------------------------------------- doubles
def test_doubles_playable_only_twice(pos) -> None:
    p = pos("x 14:1; o 23:2")  # 14/10/6, then 6/2 blocked; 6 cannot bear off with a 4
    play = only(p, 4, 4)
    assert str(play) == "14/6" and play.dice_used == 2


def test_doubles_playable_only_three_times(pos) -> None:
    p = pos("x 17:1; o 24:2")  # 17/13/9/5, then 5/1 blocked; 5 cannot bear off with a 4
    play = only(p, 4, 4)
    assert str(play) == "17/5" and play.dice_used == 3


def test_doubles_all_four_and_bear_off(pos) -> None:
    play = only(pos("x 13:1; o 24:2 1:1"), 3, 3)  # 13/10/7/4/1? 1 blocked: ends 13/4 then 4/1 blocked
    assert play.dice_used == 3
    play = only(pos("x 14:1; o 1:1"), 4, 4)  # 14/10/6/2/off: all home after the third step
    assert play.dice_used == 4 and str(play) == "14/off" and play.position.off() == (14, 15)


def test_opening_doubles(pos) -> None:
    assert "8/5(2) 6/3(2)" in texts(Position.initial(), 3, 3)
    assert "24/18(2) 13/7(2)" in texts(Position.initial(), 6, 6)


# ------------------------------------------------------------------------ bar
def test_bar_entry_then_any_checker(pos) -> None:
    p = pos("x bar:1 6:2; o 6:2")
    assert texts(p, 3, 1) == sorted(["bar/21", "bar/22 6/5", "bar/24 6/3"])


def test_bar_must_enter_before_other_moves(pos) -> None:
    p = pos("x bar:1 13:5; o 6:2")
    for play in p.legal_plays(5, 2):
        assert play.steps[0].source == 25


def test_both_on_bar_one_enters(pos) -> None:
    # x's 22 (o's 3) is blocked: only the ace enters; the second checker stays on the bar
    p = pos("x bar:2 13:5; o 3:2")
    play = only(p, 3, 1)
    assert str(play) == "bar/24" and play.dice_used == 1


def test_both_on_bar_both_enter(pos) -> None:
    assert texts(pos("x bar:2; o 6:2"), 3, 1) == ["bar/24 bar/22"]


def test_no_entry_gives_empty_play(pos) -> None:
    p = pos("x bar:1 6:2; o 1:2 2:2 3:2 4:2 5:2 6:2")
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            play = only(p, d1, d2)
            assert play.steps == () and play.position == p.flip()


def test_entry_with_doubles_then_three_more(pos) -> None:
    p = pos("x bar:1; o 1:2")
    play = only(p, 2, 2)  # bar/23/21/19/17
    assert str(play) == "bar/17"


def test_entry_hits(pos) -> None:
    p = pos("x bar:1 6:5; o 4:1 13:5")
    assert texts(p, 4, 1) == sorted(["bar/20", "bar/21* 6/5", "bar/21*/20", "bar/24 6/2"])
    hit = next(pl for pl in p.legal_plays(4, 1) if any(s.hit for s in pl.steps))
    assert hit.position.mine[24] == 1  # the hit checker is on o's bar


# --------------------------------------------------------------- blocks, hits
def test_cannot_land_on_blocked_point(pos) -> None:
    p = pos("x 13:1; o 18:2")  # x's 7 blocked
    for play in p.legal_plays(6, 6):
        assert play.steps == ()


def test_hit_sends_blot_to_bar(pos) -> None:
    p = pos("x 13:1; o 17:1 1:2")  # o's blot on x's 8
    play = next(pl for pl in p.legal_plays(5, 1) if pl.steps[0] == Step(13, 8, True))
    assert play.hits == 1
    assert play.position.bar() == (1, 0)
    assert texts(p, 5, 1) == ["13/7", "13/8*/7"]


def test_hit_in_the_middle_is_shown(pos) -> None:
    p = pos("x 13:1; o 18:1 15:2")  # blot on x's 7, x's 10 blocked
    assert texts(p, 6, 3) == ["13/7*/4"]


def test_hit_or_not_are_different_plays(pos) -> None:
    p = pos("x 13:1; o 18:1")  # blot on x's 7; x's 10 open
    assert texts(p, 6, 3) == sorted(["13/7*/4", "13/4"])


def test_opening_hit_notation(pos) -> None:
    p = pos("x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:4 14:1")  # o's blot on x's 11
    assert "24/18 13/11*" in texts(p, 6, 2)


# ------------------------------------------------------------------- bear-off
def test_bear_off_exact(pos) -> None:
    p = pos("x 5:1 2:1; o 12:2")
    assert "5/off 2/off" in texts(p, 5, 2)
    assert any(pl.position.off() == (13, 15) for pl in p.legal_plays(5, 2))


def test_bear_off_higher_die_from_highest_point(pos) -> None:
    p = pos("x 4:1 2:1; o 12:2")
    play = only(p, 6, 5)
    assert str(play) == "4/off 2/off"
    assert play.position.theirs == (0,) * 25


def test_higher_die_not_from_lower_point(pos) -> None:
    # a 5 cannot bear off from 2 while the 6-point holds a checker
    p = pos("x 6:1 2:1; o 12:2")
    results = {tuple(pl.position.theirs[:6]) for pl in p.legal_plays(5, 4)}
    assert results == {(1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0)}  # 6/1 2/off or 6/2 2/off


def test_smaller_die_moves_inside(pos) -> None:
    p = pos("x 6:1 5:1; o 12:2")
    for play in p.legal_plays(2, 1):
        assert all(s.destination != 0 for s in play.steps)
        assert play.dice_used == 2


def test_no_bear_off_with_checker_outside(pos) -> None:
    p = pos("x 8:1 2:1; o 12:2")
    for play in p.legal_plays(2, 1):
        assert all(s.destination != 0 for s in play.steps), str(play)


def test_bear_off_after_coming_home_in_the_same_roll(pos) -> None:
    p = pos("x 8:1 2:1; o 12:2")
    # 8/3 brings the last checker home, then the 2 bears off; 2/off first is illegal
    assert texts(p, 5, 2) == ["8/1", "8/3 2/off"]


def test_after_being_hit_must_reenter_and_come_home(pos) -> None:
    p = pos("x bar:1 1:14; o 12:2")
    for d1, d2 in [(6, 5), (6, 6), (1, 1), (2, 1)]:
        for play in p.legal_plays(d1, d2):
            assert play.steps[0].source == 25
            assert all(s.destination != 0 for s in play.steps), str(play)


def test_bear_off_with_doubles_mixing_moves(pos) -> None:
    p = pos("x 6:2 1:1; o 12:2")
    assert texts(p, 6, 6) == ["6/off(2) 1/off"]  # three checkers: all off with three of the 6s
    play = only(p, 6, 6)
    assert play.position.theirs == (0,) * 25 and play.dice_used == 3


# ------------------------------------------------------------ distinct plays
def test_opening_31_has_16_distinct_plays() -> None:
    plays = Position.initial().legal_plays(3, 1)
    assert len(plays) == 16
    assert len({p.position for p in plays}) == 16
    assert "8/5 6/5" in {str(p) for p in plays}


def test_plays_equal_by_result(pos) -> None:
    p = Position.initial()
    a = p.legal_plays(3, 1)
    b = p.legal_plays(1, 3)
    assert set(a) == set(b)
    assert len({str(x) for x in a}) == len(a)


def test_dice_are_validated() -> None:
    for bad in [(0, 1), (7, 1), (1, "2"), (True, 2), (1.0, 2)]:
        with pytest.raises(InvalidInputError):
            Position.initial().legal_plays(*bad)  # type: ignore[arg-type]


def test_no_play_once_the_game_is_over(pos) -> None:
    # the opponent has borne off everything: moving 1/off would leave both sides off
    p = pos("x 1:1")
    play = only(p, 6, 1)
    assert play.steps == () and play.position == p.flip()
    assert Position(play.position.mine, play.position.theirs) == play.position


def test_all_step_sequences_cover_the_legal_plays(pos) -> None:
    from backgammon.moves import all_step_sequences

    for p, dice in [
        (Position.initial(), (3, 1)),
        (Position.initial(), (2, 2)),
        (pos("x bar:1 6:5; o 4:1 13:5"), (4, 1)),
    ]:
        plays = p.legal_plays(*dice)
        sequences = all_step_sequences(p, *dice)
        assert {after for _, after in sequences} == {pl.position for pl in plays}
        assert all(len(steps) == plays[0].dice_used for steps, _ in sequences)


def test_sequences_along_written_paths() -> None:
    from backgammon.moves import sequences_along

    p = Position.initial()
    found = sequences_along(p, 3, 1, (((8, 5), (False, False)), ((6, 5), (False, False))))
    assert {after.position_id() for _, after, _ in found} == {"sGfwATDgc/ABMA"}
    assert all(unmarked == 0 for *_, unmarked in found)
    assert sequences_along(p, 3, 1, (((24, 18), (False, False)),)) == []


def test_find_play_queries_and_refusals() -> None:
    from backgammon.errors import IllegalPlayError
    from backgammon.moves import find_play

    start = Position.initial()
    assert str(find_play(start, 3, 1, "8/5 6/5")) == "8/5 6/5"
    assert str(find_play(start, 3, 1, [(6, 5), (8, 5)])) == "8/5 6/5"  # either order of a path
    assert str(find_play(start, 3, 1, ((8, 5), (6, 5)))) == "8/5 6/5"
    after = find_play(start, 6, 4, "24/14").position
    assert str(find_play(start, 6, 4, after)) == "24/14"
    with pytest.raises(IllegalPlayError, match="complete legal play"):
        find_play(start, 3, 1, [(8, 5)])  # not complete
    with pytest.raises(IllegalPlayError, match="complete legal play"):
        find_play(start, 3, 1, [(24, 21), (6, 4)])  # 2 is not a die of this roll
    with pytest.raises(IllegalPlayError, match="gives position"):
        find_play(start, 3, 1, start)
    for bad in ([(8, 5, 1)], [(8, "5")], [(30, 5)], "x", [[True, 5]], [(1, 2)] * 5, 7):
        with pytest.raises((InvalidInputError, IllegalPlayError)):
            find_play(start, 3, 1, bad)
    closed = Position.from_points({25: 1}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})  # on the bar, all shut out
    assert find_play(closed, 6, 6, []).steps == () and find_play(closed, 6, 6, "").steps == ()


def _pairs(p: Position, dice: tuple[int, int]) -> dict:
    """Every legal step sequence as (from, to) pairs, with the position it gives (from the
    separate search behind all_step_sequences)."""
    from backgammon.moves import all_step_sequences

    expected: dict = {}
    for steps, after in all_step_sequences(p, *dice):
        expected.setdefault(tuple((s.source, s.destination) for s in steps), after)
    return expected


def _check_graph(p: Position, dice: tuple[int, int]) -> None:
    """The graph holds exactly the legal step sequences, each node's steps once, every path complete."""
    from backgammon.moves import step_graph

    graph = step_graph(p, *dice)
    pairs = _pairs(p, dice)
    sequences = list(graph.sequences())
    assert len(sequences) == len(set(sequences)) and set(sequences) == set(pairs)
    for seq in sequences:
        assert len(seq) == graph.length and graph.follow(seq) == pairs[seq]
    for edges in graph.nodes:
        labels = [(src, dst) for src, dst, _child in edges]
        assert len(labels) == len(set(labels))  # a click always names one edge
    assert set(graph.ends.values()) == {play.position for play in p.legal_plays(*dice)}


def test_step_graph_edge_cases(pos) -> None:
    from backgammon.moves import step_graph

    for p, dice in [
        (Position.initial(), (2, 2)),
        (Position.initial(), (6, 5)),
        (pos("x bar:1 6:5; o 4:1 13:5"), (4, 1)),
        (pos("x 1:2 2:1; o 6:2"), (6, 5)),  # bearing off: 6 and 5 both take a checker off
        (pos("x 3:1 2:1; o 6:2"), (6, 5)),  # 3/off by either die, then 2/off by the other: one edge
        (pos("x 6:1 5:1; o 6:2"), (5, 3)),
    ]:
        _check_graph(p, dice)
    graph = step_graph(pos("x 3:1 2:1; o 6:2"), 6, 5)
    assert [(a, b) for a, b, _ in graph.nodes[0]] == [(3, 0)] and graph.length == 2
    # doubles: the orders of the same steps share their nodes
    doubles = step_graph(Position.initial(), 1, 1)
    assert len(doubles.nodes) < len(list(doubles.sequences()))
    # the empty play (shut out), and steps that are not a legal play's
    closed = Position.from_points({25: 1}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    empty = step_graph(closed, 6, 6)
    assert empty.length == 0 and empty.nodes == ((),) and list(empty.sequences()) == [()]
    assert empty.follow(()) == closed.legal_plays(6, 6)[0].position
    start = step_graph(Position.initial(), 3, 1)
    assert start.follow([(8, 5)]) is None and start.follow([(8, 5), (6, 4)]) is None
    assert start.follow([(6, 5), (8, 5)]) == start.follow([(8, 5), (6, 5)]) is not None
