"""States that cannot happen are refused wherever they can be built, each error naming the field.

Hand-made cases for the Crawford game, the score, non-canonical Position IDs, the dice of a
resignation offered after rolling (Match ID and XGID keep them, as gnubg does), long names in
``.mat`` files, and malformed lesson documents.
"""

from __future__ import annotations

import base64
import copy
import json
import random
import subprocess
from pathlib import Path

import pytest

from backgammon.errors import InvalidInputError
from backgammon.formats.mat import read_mat, replay, write_mat
from backgammon.formats.match_id import MatchState
from backgammon.formats.xgid import Xgid
from backgammon.game import Game, GamePhase, OpeningRoll, Player, Resign, ResultKind, Roll, Rules
from backgammon.lessons.model import parse_lesson
from backgammon.match import Match
from backgammon.position import Position

W, B = Player.WHITE, Player.BLACK
LESSONS = Path(__file__).parents[2] / "src" / "backgammon" / "lessons" / "data"
DATA = Path(__file__).parents[1] / "data"


# ---------------------------------------------------------------- Crawford
@pytest.mark.parametrize(
    ("length", "score", "reason"),
    [(1, (0, 0), "1-point match"), (5, (0, 0), "neither side is 1-away"), (5, (4, 4), "both sides are 1-away")],
)
def test_crawford_needs_exactly_one_side_at_one_away(length, score, reason):
    rules = Rules(match_length=length)
    with pytest.raises(InvalidInputError, match=f"crawford_game.*{reason}"):
        Game.new(rules, score=score, crawford_game=True)
    with pytest.raises(InvalidInputError, match=f"crawford flag: .*{reason}"):
        MatchState(crawford=True, match_length=length, score=score)
    with pytest.raises(InvalidInputError, match=f"xgid crawford flag: .*{reason}"):
        Xgid(position=Position.initial(), crawford=True, match_length=length, score=score)
    assert Game.new(Rules(match_length=5), score=(4, 2), crawford_game=True).crawford_game


def test_match_id_refuses_a_crawford_flag_in_a_one_point_match():
    state = MatchState(match_length=1)
    bits = int.from_bytes(base64.b64decode(state.match_id()), "little") | 1 << 7  # the crawford bit
    with pytest.raises(InvalidInputError, match="crawford flag: a 1-point match"):
        MatchState.from_match_id(base64.b64encode(bits.to_bytes(9, "little")).decode())


def test_no_cube_turned_in_the_crawford_game():
    with pytest.raises(InvalidInputError, match="cube stays centred"):
        MatchState(crawford=True, match_length=5, score=(4, 2), cube_value=2, cube_owner=0)
    with pytest.raises(InvalidInputError, match="cube stays centred"):
        Xgid(position=Position.initial(), crawford=True, match_length=5, score=(4, 2), cube_exponent=1, cube_owner=1)
    with pytest.raises(InvalidInputError, match="cube"):
        Game.from_position(
            Position.initial(),
            rules=Rules(match_length=5),
            score=(4, 2),
            crawford_game=True,
            cube_value=2,
            cube_owner=W,
        )


def test_a_score_at_the_match_length_while_the_match_goes_on():
    with pytest.raises(InvalidInputError, match=r"score .*above the match length 3 while the match goes on"):
        MatchState(match_length=3, score=(0, 3))
    assert MatchState(match_length=3, score=(0, 2)).score == (0, 2)


# ---------------------------------------------------------------- Position IDs
def test_non_canonical_position_ids_are_refused():
    bare = Position.from_points({6: 2}, {6: 1})  # few checkers: the key ends well before bit 80
    key = bytearray(base64.b64decode(bare.position_id() + "=="))
    key[9] |= 0x80  # a bit past the two sides
    text = base64.b64encode(bytes(key)).decode()[:14]
    with pytest.raises(InvalidInputError, match=f"canonical id is '{bare.position_id()}'"):
        Position.from_position_id(text)
    with pytest.raises(InvalidInputError, match="canonical"):
        Position.from_position_id("4HPwATDgc/ABMB")  # the last character's spare bits
    assert Position.from_position_id(" 4HPwATDgc/ABMA ") == Position.initial()


# ------------------------------------------------ dice of a pending resignation
def _resigned_after_rolling(length: int = 5) -> Game:
    match = Match.new(Rules(match_length=length))
    match = match.apply(OpeningRoll(3, 1)).apply(match.game.apply(OpeningRoll(3, 1)).move_from_text("8/5 6/5"))
    match = match.apply(Roll(B, (6, 4)))
    game = match.game.apply(Resign(B, ResultKind.GAMMON))
    assert game.phase is GamePhase.RESIGNATION and game.rolled_dice == (6, 4)
    return game


def test_match_id_and_xgid_keep_the_dice_of_a_resignation_offered_after_rolling():
    game = _resigned_after_rolling()
    state = MatchState.from_game(game)
    assert state.dice == (6, 4) and state.resignation == 2
    again = MatchState.from_match_id(state.match_id())
    assert again == state
    xgid = Xgid.from_game(game)
    assert xgid.dice == (6, 4)
    assert Xgid.parse(xgid.text()).dice == (6, 4)


def test_a_resignation_before_rolling_has_no_dice():
    match = Match.new(Rules(match_length=5))
    match = match.apply(OpeningRoll(3, 1)).apply(match.game.apply(OpeningRoll(3, 1)).move_from_text("8/5 6/5"))
    game = match.game.apply(Resign(B, ResultKind.SINGLE))
    assert game.rolled_dice is None and MatchState.from_game(game).dice is None


# ------------------------------------------------------------- .mat names
@pytest.mark.parametrize("names", [("A" * 30, "B" * 30), ("Alice Smith-Jones the Third", "Bob"), ("x" * 24, "y" * 24)])
def test_mat_with_long_names_reads_back_here_and_in_gnubg(names, tmp_path):
    import dataclasses

    match = replay(read_mat((DATA / "gnubg" / "match3_seed1.mat").read_text()))
    text = write_mat(dataclasses.replace(match, players=names))
    assert replay(read_mat(text)).players == names
    path = tmp_path / "long.mat"
    path.write_text(text)
    out = subprocess.run(
        ["/usr/games/gnubg", "-t", "-q"],
        input=f"import mat {path}\nshow score\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("The score"))
    assert f"{names[1]} 1, {names[0]} 4" in line, line


# ------------------------------------------------------------- lessons
def test_malformed_lessons_raise_input_errors_only():
    rng = random.Random(2026)
    docs = [json.loads(p.read_text()) for p in sorted(LESSONS.glob("*.json"))]
    junk = [None, 1, -3, 2.5, True, "x", [], [1, 2], {}, {"a": 1}, [[1]], {"task": []}]

    def paths(node, prefix=()):
        yield prefix
        if isinstance(node, dict):
            for k, v in node.items():
                yield from paths(v, (*prefix, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from paths(v, (*prefix, i))

    tried = 0
    for doc in docs:
        every = [p for p in paths(doc) if p]
        for path in rng.sample(every, min(60, len(every))):
            for value in rng.sample(junk, 3):
                bad = copy.deepcopy(doc)
                node = bad
                for key in path[:-1]:
                    node = node[key]
                node[path[-1]] = value
                tried += 1
                try:
                    parse_lesson(bad, "fuzz.json")
                except InvalidInputError as exc:
                    assert "fuzz.json" in str(exc)
    assert tried > 500
    with pytest.raises(InvalidInputError, match="task"):
        parse_lesson({**docs[0], "exercises": [{"task": ["legal"]}]}, "x.json")
