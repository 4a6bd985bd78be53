"""Jellyfish .pos files: read against the Position ID and Match ID gnubg printed for the same state.

tests/data/pos holds files gnubg wrote (see its README); the live test makes new ones with gnubg
when it is installed (skipped otherwise).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from backgammon.errors import InvalidInputError
from backgammon.formats import parse_gnubg_id, read_match_file
from backgammon.formats.jfpos import SIZE, read_jf_position
from backgammon.formats.match_id import MatchState
from backgammon.moves import legal_plays
from backgammon.position import Position

POS = Path(__file__).parent.parent / "data" / "pos"
CASES = json.loads((POS / "gnubg_ids.json").read_text())
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)


def _same(path: Path, gnubg_id: str) -> None:
    reading = read_match_file(path.read_bytes(), path.name)
    assert reading.format == "pos" and reading.match is None and reading.position is not None
    position, state = parse_gnubg_id(gnubg_id)
    got = reading.position
    assert got.position == position
    assert got.state.dice_owner == state.dice_owner and got.state.turn == state.turn
    assert got.state.cube_value == state.cube_value and got.state.cube_owner == state.cube_owner
    assert got.state.match_length == state.match_length
    assert got.state.crawford == state.crawford  # the Crawford byte (c1_*.pos)
    if state.match_length:  # a money session's score is not in the file
        assert got.state.score == state.score
    assert (got.state.dice is None) == (state.dice is None)
    if state.dice is not None and got.state.dice is not None:
        assert sorted(got.state.dice) == sorted(state.dice)


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_gnubg_written_pos_file(case: dict[str, str]) -> None:
    _same(POS / case["file"], case["gnubg_id"])


def test_the_sample_covers_the_fields() -> None:
    states = [parse_gnubg_id(c["gnubg_id"])[1] for c in CASES]
    assert any(s.dice for s in states) and any(s.dice is None for s in states)
    assert {s.dice_owner for s in states} == {0, 1}
    assert {s.cube_owner for s in states} == {None, 0, 1}
    assert {s.match_length for s in states} >= {0, 5, 7}
    positions = [parse_gnubg_id(c["gnubg_id"])[0] for c in CASES]
    assert any(p.mine[24] for p in positions) and any(p.theirs[24] for p in positions)  # both bars


@pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed")
def test_new_files_from_gnubg(tmp_path: Path) -> None:
    rng = random.Random(20261207)
    for k in range(6):
        position = Position.initial()
        for _ in range(rng.randint(5, 40)):
            plays = list(legal_plays(position, rng.randint(1, 6), rng.randint(1, 6)))
            position = rng.choice(plays).position if plays else position.flip()
            if position.is_game_over():
                position = Position.initial()
        out = tmp_path / f"p{k}.pos"
        commands = [
            "set player 0 human",
            "set player 1 human",
            rng.choice(["new match 9", "new match 3"]),
            f"set turn {k % 2}",
            f"set board {position.position_id()}",
            f"set dice {rng.randint(1, 6)} {rng.randint(1, 6)}",
            "set cube value 4",
            f"set cube owner {k % 2}",
            f"export position pos {out}",
            "show board",
        ]
        run = subprocess.run(
            [GNUBG, "-t", "-q"], input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=120
        )
        pid = re.findall(r"Position ID: (\S+)", run.stdout)[-1]
        mid = re.findall(r"Match ID   : (\S+)", run.stdout)[-1]
        _same(out, f"{pid}:{mid}")


def test_damaged_files_are_clear_errors() -> None:
    data = bytearray((POS / CASES[0]["file"]).read_bytes())
    assert len(data) == SIZE
    bad = bytearray(data)
    bad[16] = 9  # an unknown game state
    with pytest.raises(InvalidInputError) as info:
        read_jf_position(bytes(bad))
    assert info.value.code == "bad_pos_file"
    bad = bytearray(data)
    bad[58] = bad[60] = 35  # 15 more checkers on a bar: an impossible position
    with pytest.raises(InvalidInputError) as info:
        read_jf_position(bytes(bad))
    assert info.value.code == "bad_pos_file"
    with pytest.raises(InvalidInputError):
        read_match_file(bytes(data[:100]), "cut.pos")  # too short: not told as .pos at all


def test_state_is_gnubgs_match_state() -> None:
    reading = read_match_file((POS / CASES[1]["file"]).read_bytes(), "x.pos")
    assert reading.position is not None and isinstance(reading.position.state, MatchState)
    assert reading.position.names == ("gnubg", "root")
