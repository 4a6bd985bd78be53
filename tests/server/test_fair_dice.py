"""Verifiable dice on the web platform: commitment before, seed after, same rolls after a restart."""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

from backgammon.fairdice import derive_rolls

from ._wire import moves_of
from .conftest import make_client

BACKGAMMON = str(Path(sys.executable).with_name("backgammon"))  # the installed command
from .test_api import LATE, act, human_table, state  # noqa: E402


def _finish_late_game(client):
    r = client.post(
        "/api/tables",
        json={"mode": "ai", "level": "beginner", "rules": {"match_length": 1}, "start": {"position_id": LATE}},
    )
    tid, tok = r.json()["id"], r.json()["token"]
    return tid, tok


def test_commitment_shown_before_and_seed_revealed_after(client):
    tid, tok = _finish_late_game(client)
    before = state(client, tid, tok)["fair_dice"]
    assert before["game_id"] == tid and len(before["commitment"]) == 64
    assert before["seed"] is None and before["command"] is None and not before["revealed"]
    assert "seed" not in json.dumps(client.get(f"/api/tables/{tid}").json()["table"])
    assert act(client, tid, tok, action="roll").status_code == 200
    st = state(client, tid, tok)
    assert st["fair_dice"]["seed"] is None  # not over yet: still secret
    assert act(client, tid, tok, action="move", steps=moves_of(st)[0]).status_code == 200
    st = state(client, tid, tok)
    assert st["match"]["over"]
    fair = st["fair_dice"]
    assert fair["revealed"] and fair["commitment"] == before["commitment"]
    assert hashlib.sha256(bytes.fromhex(fair["seed"])).hexdigest() == fair["commitment"]
    assert fair["draws"] == 1
    assert derive_rolls(bytes.fromhex(fair["seed"]), tid, 1)[0] == tuple(int(c) for c in fair["rolls"])


def test_two_tables_have_different_commitments(client):
    a, _ = _finish_late_game(client)
    b, _ = _finish_late_game(client)
    assert state(client, a)["fair_dice"]["commitment"] != state(client, b)["fair_dice"]["commitment"]


def _play_some(client, tid, tokens, actions):
    for _ in range(actions):
        st = state(client, tid)
        turn = st["game"]["turn"]
        if st["match"]["over"] or turn is None:
            return
        mine = state(client, tid, tokens[turn])
        allowed = mine["allowed"]
        if "move" in allowed:
            r = act(client, tid, tokens[turn], action="move", steps=moves_of(mine)[0] if moves_of(mine) else [])
        elif "roll" in allowed:
            r = act(client, tid, tokens[turn], action="roll")
        elif "take" in allowed:
            r = act(client, tid, tokens[turn], action="take")
        else:
            r = act(client, tid, tokens[turn], action=allowed[0])
        assert r.status_code == 200, r.text


def test_restart_keeps_seed_and_roll_sequence_and_cli_verifies(tmp_path):
    with make_client(tmp_path, test_hooks=True) as client:
        tid, w, b = human_table(client, rules={"match_length": 1})
        tokens = {"white": w, "black": b}
        _play_some(client, tid, tokens, 12)
        commitment = state(client, tid)["fair_dice"]["commitment"]
    with make_client(tmp_path, test_hooks=True) as client:  # a restart: replayed from the database
        assert state(client, tid)["fair_dice"]["commitment"] == commitment
        _play_some(client, tid, tokens, 2000)
        st = state(client, tid)
        assert st["match"]["over"]
        fair = st["fair_dice"]
        hist = client.get(f"/api/tables/{tid}/history").json()
    assert fair["revealed"] and fair["draws"] > 6
    # every stored roll is exactly the committed sequence, across the restart
    assert fair["rolls"].split() == [
        f"{a}{b}" for a, b in derive_rolls(bytes.fromhex(fair["seed"]), tid, fair["draws"])
    ]
    assert hist  # the game is recorded
    # the command line shown to the players recomputes and checks the rolls
    args = shlex.split(fair["command"])
    assert args[:2] == ["backgammon", "verify-dice"]
    done = subprocess.run([BACKGAMMON, *args[1:]], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    # and a tampered roll list fails
    bad = args[:]
    i = bad.index("--rolls") + 1
    first = bad[i].split()
    first[0] = "12" if first[0] != "12" else "34"
    bad[i] = " ".join(first)
    done = subprocess.run([BACKGAMMON, *bad[1:]], check=False, capture_output=True, text=True)
    assert done.returncode == 1


def test_draw_count_reads_each_action_once_and_starts_again_for_another_list():
    from backgammon.server.table_dice import DrawCount, dice_doc, draws_of

    actions = [{"kind": "opening_roll", "dice": [3, 1]}, {"kind": "move", "steps": [[8, 5]]}]
    count = DrawCount()
    assert count(actions) == 1
    actions += [{"kind": "roll", "dice": [6, 6]}, {"kind": "double"}, {"kind": "roll", "dice": [2, 1]}]
    assert count(actions) == 3 == len(draws_of(actions))
    other = [{"kind": "roll", "dice": [4, 4]}]
    assert count(other) == 1  # another list (a table read again): counted afresh
    config = {"seed": "00" * 32, "commitment": "c"}
    assert (
        dice_doc("t", config, actions, False, DrawCount())["draws"]
        == dice_doc("t", config, actions, False)["draws"]
        == 3
    )
