"""One home per concept: every place that takes dice, a match length or a cube owner gives
the core's one message (issue 19)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from backgammon import InvalidInputError
from backgammon.dice import check_dice, check_die, check_roll, parse_roll
from backgammon.dicestats import roll_distribution
from backgammon.fairdice import parse_rolls
from backgammon.formats.match_id import MatchState
from backgammon.formats.xgid import Xgid
from backgammon.moves import legal_plays
from backgammon.position import Position
from backgammon.protocols.jsonlines import answer

OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


def cli_error(*args: str) -> str:
    """The command's standard error, in a real process, checking it failed with status 2."""
    command = [sys.executable, "-c", "from backgammon.cli import main; main()", *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    return proc.stderr


DIE = "invalid die 7: expected an integer from 1 to 6"


def test_the_core_names_the_die() -> None:
    for call in (lambda: check_die(7), lambda: check_dice(3, 7), lambda: check_roll((7, 3)), lambda: parse_roll("37")):
        with pytest.raises(InvalidInputError) as err:
            call()
        assert str(err.value) == DIE


def test_every_caller_gives_the_core_message() -> None:
    start = Position.initial()
    calls = [
        lambda: legal_plays(start, 3, 7),
        lambda: start.legal_plays(7, 3),
        lambda: parse_rolls("31 73"),
        lambda: roll_distribution([(3, 1), (7, 3)]),
        lambda: replace(Xgid.parse(OPENING), dice=(7, 3)),
        lambda: replace(MatchState.from_match_id("cAgAAAAAAAAA"), dice=(7, 3)),
    ]
    for call in calls:
        with pytest.raises(InvalidInputError) as err:
            call()
        assert str(err.value) == DIE


def test_engine_protocol_names_the_die() -> None:
    reply = answer('{"position_id": "4HPwATDgc/ABMA", "dice": [7, 3]}', None)
    assert reply == {"error": DIE}


def test_cli_names_the_die() -> None:
    assert cli_error("moves", "4HPwATDgc/ABMA", "37") == f"error: {DIE}\n"


# ------------------------------------------------------------------ match length
LENGTH = "invalid match length 65: expected an integer from 0 (money) to 64"


def test_every_reader_of_a_match_length_gives_the_core_message() -> None:
    from backgammon.game import MAX_MATCH_LENGTH, Rules, check_match_length
    from backgammon.server.study import parse_setup

    assert MAX_MATCH_LENGTH == 64 and check_match_length(64) == 64
    calls = [
        lambda: check_match_length(65),
        lambda: Rules(match_length=65),
        lambda: replace(MatchState.from_match_id("cAgAAAAAAAAA"), match_length=65),
        lambda: replace(Xgid.parse(OPENING), match_length=65),
        lambda: parse_setup(
            {"mine": list(Position.initial().mine), "theirs": list(Position.initial().mine), "match_length": 65}
        ),
    ]
    for call in calls:
        with pytest.raises(InvalidInputError) as err:
            call()
        assert str(err.value) == LENGTH


def test_match_id_and_mat_readers_use_the_core_check() -> None:
    from backgammon.formats.mat import read_mat, rules_for

    bits = int.from_bytes(__import__("base64").b64decode("cAgAAAAAAAAA"), "little")
    bits = bits & ~(((1 << 15) - 1) << 21) | (65 << 21)
    text = __import__("base64").b64encode(bits.to_bytes(9, "little")).decode()
    with pytest.raises(InvalidInputError) as err:
        MatchState.from_match_id(text)
    assert str(err.value) == f"invalid match id {text!r}: {LENGTH}"
    with pytest.raises(InvalidInputError) as err:
        rules_for(read_mat(" 65 point match\n\n Game 1\n A : 0                B : 0\n"))
    assert LENGTH in str(err.value)


def test_tables_and_play_are_limited_by_the_met() -> None:
    from backgammon.engine.met import MAX_AWAY
    from backgammon.server.protocol import rules_from_wire

    expected = f"invalid match length 26: expected an integer from 0 (money) to {MAX_AWAY}"
    with pytest.raises(InvalidInputError) as err:
        rules_from_wire({"match_length": 26})
    assert str(err.value) == expected
    assert cli_error("play", "--length", "26") == f"error: {expected}\n"


# ------------------------------------------------------------------ cube owner
def test_cube_owner_seen_by_is_the_one_mapping() -> None:
    from backgammon.engine.cube import CubeOwner
    from backgammon.engine.players import EngineAgent, cube_for
    from backgammon.game import Game, Player, cube_owner_seen_by
    from backgammon.protocols.jsonlines import cube_info_from_match_state

    assert [cube_owner_seen_by(o, Player.WHITE) for o in (None, Player.WHITE, Player.BLACK)] == [
        "centred",
        "me",
        "opponent",
    ]
    assert [cube_owner_seen_by(o, 0) for o in (None, 0, 1)] == ["centred", "me", "opponent"]
    assert {o.value for o in CubeOwner} == {"centred", "me", "opponent"}
    # the engine's protocol (gnubg numbers) and the server's computer player (Players) agree
    state = replace(MatchState.from_match_id("cAgAAAAAAAAA"), cube_value=2, cube_owner=0)
    assert cube_info_from_match_state(state, 0).owner is CubeOwner.ME
    assert cube_info_from_match_state(state, 1).owner is CubeOwner.OPPONENT
    game = Game.new()
    assert cube_for(game, Player.WHITE, post_crawford=False)["owner"] == "centred"
    assert (
        EngineAgent.__new__(EngineAgent)._cube_info(cube_for(game, Player.WHITE, post_crawford=False)).owner
        is CubeOwner.CENTRED
    )


def test_xgid_cube_owner_round_trips_through_both_writers() -> None:
    from backgammon.formats.xgid import Xgid

    for xgid_owner, gnubg_owner in ((1, 1), (-1, 0), (0, None)):
        text = f"XGID=-b----E-C---eE---c-e----B-:1:{xgid_owner}:1:52:0:0:0:0:10"
        position, state = Xgid.parse(text).to_gnubg()
        assert state.cube_owner == gnubg_owner
        assert Xgid.from_gnubg(position, state).cube_owner == xgid_owner
