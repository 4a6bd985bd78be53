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
from backgammon.engine.protocol import answer
from backgammon.fairdice import parse_rolls
from backgammon.formats.match_id import MatchState
from backgammon.formats.xgid import Xgid
from backgammon.moves import legal_plays
from backgammon.position import Position

OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
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
    proc = subprocess.run(
        [sys.executable, "-c", "from backgammon.cli import main; main()", "moves", "4HPwATDgc/ABMA", "37"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and proc.stderr == f"error: {DIE}\n"
