"""The answers of the scoring, cube and Crawford lessons, checked against backgammon.game / match."""

from __future__ import annotations

from typing import Any

import pytest

from backgammon.game import Double, Game, Move, Pass, Player, ResultKind, Roll, Rules, Take
from backgammon.lessons import get_lesson
from backgammon.match import Match
from backgammon.position import Position

W, B = Player.WHITE, Player.BLACK


def answer(lesson_id: str, number: int) -> str:
    e: Any = get_lesson(lesson_id).exercises[number - 1]
    return str(e.choices[e.answer].en)


def finish(position: Position, dice: tuple[int, int], cube_value: int = 1, owner: Player | None = None) -> Any:
    game = Game.from_position(position, dice=dice, cube_value=cube_value, cube_owner=owner)
    play = game.legal_plays[0]
    return game.apply(Move(W, play)).result


def test_single_game() -> None:
    # white bears off the last checker; black has borne off three
    end = finish(Position.from_points({1: 1}, {6: 4, 5: 4, 4: 4}), (2, 1))
    assert end.kind is ResultKind.SINGLE and end.points == 1
    assert answer("gammons", 1) == str(end.points)


def test_gammon_with_the_cube_at_two() -> None:
    end = finish(Position.from_points({1: 1}, {6: 5, 5: 5, 4: 5}), (2, 1), cube_value=2, owner=W)
    assert end.kind is ResultKind.GAMMON and end.points == 4
    assert answer("gammons", 2) == str(end.points)
    assert answer("cube", 4) == str(end.points)


def test_backgammon_position_of_the_lesson() -> None:
    e: Any = get_lesson("gammons").exercises[2]
    end = finish(e.position, (6, 5))
    assert end.kind is ResultKind.BACKGAMMON and end.points == 3
    assert answer("gammons", 3).endswith(f"{end.points} points")


def test_double_only_before_rolling() -> None:
    game = Game.from_position(Position.initial(), on_roll=W)
    assert game.may_double(W)
    rolled = game.apply(Roll(W, (3, 1)))
    assert not rolled.may_double(W)
    assert "before you roll" in answer("cube", 1)


def test_take_gives_the_cube_to_the_taker() -> None:
    game = Game.from_position(Position.initial(), on_roll=W).apply(Double(W)).apply(Take(B))
    assert game.cube_value == 2 and game.cube_owner is B
    assert answer("cube", 2).startswith("2, and only your opponent may redouble")


def test_pass_loses_the_value_before_the_double() -> None:
    end = Game.from_position(Position.initial(), on_roll=W).apply(Double(W)).apply(Pass(B)).result
    assert end.winner is W and end.points == 1
    assert answer("cube", 3) == str(end.points)


def test_crawford_game_has_no_doubling() -> None:
    rules = Rules(match_length=5)
    match = Match.new(rules, score=(4, 2), crawford_game=True)
    assert match.is_crawford_game
    for side in (W, B):
        game = Game.from_position(Position.initial(), on_roll=side, rules=rules, score=(4, 2), crawford_game=True)
        assert not game.may_double(side)
    assert answer("crawford", 1).startswith("No")


def test_post_crawford_trailer_may_double() -> None:
    rules = Rules(match_length=5)
    match = Match.new(rules, score=(4, 3), crawford_game=False)
    assert match.is_post_crawford
    game = Game.from_position(Position.initial(), on_roll=B, rules=rules, score=(4, 3))
    assert game.may_double(B)
    assert answer("crawford", 3).startswith("Yes")


def test_crawford_gammon_score() -> None:
    # in the Crawford game the cube stays at 1: a gammon is worth 2, 2 + 2 = 4
    end = finish(Position.from_points({1: 1}, {6: 5, 5: 5, 4: 5}), (2, 1))
    assert end.points == 2
    assert answer("crawford", 2) == f"4-{2 + end.points}"


@pytest.mark.parametrize("lesson_id", ["gammons", "cube", "crawford"])
def test_lessons_exist(lesson_id: str) -> None:
    assert get_lesson(lesson_id).exercises
