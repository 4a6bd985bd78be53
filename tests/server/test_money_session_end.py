"""A money session ends when a player says so: its dice seed is revealed (and checks out) and it
can be reviewed like a match (issue 18: "a money session never reveals its dice seed and cannot
be reviewed")."""

from __future__ import annotations

import hashlib
import time

from backgammon.fairdice import derive_rolls

from ._wire import moves_of
from .conftest import make_client
from .test_api import LATE, act, human_table, state


def _money_vs_computer(client) -> tuple[str, str]:
    """A money session against the computer whose first game is a bear-off White wins at once."""
    r = client.post(
        "/api/tables",
        json={"mode": "ai", "level": "beginner", "rules": {"match_length": 0}, "start": {"position_id": LATE}},
    )
    assert r.status_code == 200, r.text
    return r.json()["id"], r.json()["token"]


def _win_first_game(client, tid, tok) -> dict:
    assert act(client, tid, tok, action="roll").status_code == 200
    st = state(client, tid, tok)
    assert act(client, tid, tok, action="move", steps=moves_of(st)[0]).status_code == 200
    st = state(client, tid, tok)
    assert st["match"]["score"]["white"] >= 1 and st["match"]["game_number"] == 2  # the next game began
    return st


def test_money_session_keeps_its_seed_until_a_player_ends_it(client):
    tid, tok = _money_vs_computer(client)
    st = _win_first_game(client, tid, tok)
    assert not st["match"]["over"] and st["fair_dice"]["seed"] is None and not st["fair_dice"]["revealed"]
    commitment = st["fair_dice"]["commitment"]
    # a finished game of a session that goes on cannot be reviewed yet
    assert client.post(f"/api/study/reviews/{tid}").status_code == 409
    r = act(client, tid, tok, action="end_session")
    assert r.status_code == 200, r.text
    st = r.json()
    assert st["match"]["over"] and st["match"]["ended_by"] == "white" and st["table"]["status"] == "over"
    assert st["allowed"] == []
    fair = st["fair_dice"]
    assert fair["revealed"] and fair["commitment"] == commitment
    assert hashlib.sha256(bytes.fromhex(fair["seed"])).hexdigest() == commitment
    rolls = [tuple(int(c) for c in pair) for pair in fair["rolls"].split()]
    assert rolls and rolls == list(derive_rolls(bytes.fromhex(fair["seed"]), tid, len(rolls)))
    assert "--seed " + fair["seed"] in fair["command"]
    # nothing more happens at the table: no action, and the computer does not move on its own
    assert act(client, tid, tok, action="roll").status_code == 409
    assert act(client, tid, tok, action="end_session").status_code == 409
    version = st["version"]
    time.sleep(0.3)
    assert state(client, tid)["version"] == version
    # the move list says who ended it
    entries = client.get(f"/api/tables/{tid}/history").json()["entries"]
    assert entries[-1]["kind"] == "end_session" and entries[-1]["player"] == "white"
    assert entries[-1]["text"] == "ends the session"


def test_ended_money_session_is_reviewed_like_a_match(client):
    tid, tok = _money_vs_computer(client)
    _win_first_game(client, tid, tok)
    # play some of the second game (from the opening position, against the computer) before ending
    deadline = time.monotonic() + 120
    moves = 0
    while moves < 4 and time.monotonic() < deadline:
        entries = client.get(f"/api/tables/{tid}/history").json()["entries"]
        moves = sum(1 for e in entries if e["game"] == 2 and e["kind"] == "move")
        st = state(client, tid, tok)
        if "roll" in st["allowed"]:
            act(client, tid, tok, action="roll")
        elif "move" in st["allowed"]:
            act(client, tid, tok, action="move", steps=moves_of(st)[0])
        elif "take" in st["allowed"]:
            act(client, tid, tok, action="take")
        else:
            time.sleep(0.1)
    assert moves >= 4
    assert act(client, tid, tok, action="end_session").status_code == 200
    r = client.post(f"/api/study/reviews/{tid}")
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["table_id"] == tid and doc["match_length"] == 0
    assert set(doc["players"]) == {"White", "Black"}
    assert all(isinstance(p["pr"], (int, float)) for p in doc["players"].values())
    games = {g["game"] for g in doc["games"]}
    assert 2 in games  # the unfinished game's decisions are reviewed too
    assert doc["decisions"] and all("grade" in d for d in doc["decisions"])
    assert client.get(f"/api/study/reviews/{tid}").json()["table_id"] == tid


def test_only_a_seated_player_ends_only_a_money_session(client):
    tid, _white, black = human_table(client, rules={"match_length": 0})
    assert act(client, tid, "not-a-token", action="end_session").status_code in (403, 409)
    match_tid, match_tok = human_table(client, rules={"match_length": 3})[:2]
    r = act(client, match_tid, match_tok, action="end_session")
    assert r.status_code == 409 and "money session" in r.text
    r = act(client, tid, black, action="end_session")  # either player, on turn or not
    assert r.status_code == 200, r.text
    assert r.json()["match"]["ended_by"] == "black" and r.json()["fair_dice"]["revealed"]


def test_an_ended_session_stays_ended_after_a_restart(tmp_path):
    with make_client(tmp_path, test_hooks=True) as client:
        tid, tok = _money_vs_computer(client)
        _win_first_game(client, tid, tok)
        assert act(client, tid, tok, action="end_session").status_code == 200
        seed = state(client, tid)["fair_dice"]["seed"]
    with make_client(tmp_path, test_hooks=True) as client:
        st = state(client, tid)
        assert st["match"]["over"] and st["match"]["ended_by"] == "white"
        assert st["fair_dice"]["seed"] == seed and st["match"]["score"]["white"] >= 1


def test_a_process_that_follows_the_table_sees_the_session_end(tmp_path):
    """Another process's copy of the table applies the owner's ``end_session`` event (as it arrives
    on the bus) and is over too, with the seed revealed."""
    import asyncio

    from backgammon.game import Player
    from backgammon.server import protocol
    from backgammon.server.db import database_url_for, open_database
    from backgammon.server.tables import TableManager

    async def scenario():
        owner = TableManager(open_database(database_url_for(tmp_path)), dice_seed=3)
        table, _seat, _token = await owner.create(mode="human", rules_doc={"match_length": 0}, seat="white")
        await owner.join(table.id, "Bob", None)
        follower = TableManager(open_database(database_url_for(tmp_path)), dice_seed=3)
        copy = await follower.get(table.id)
        assert not copy.is_over
        await owner.act(table, Player.BLACK, {"action": "end_session"})
        event = table.actions[-1]
        await follower._follow(copy, {"v": table.version, "event": event, "at": None})
        doc = protocol.state_to_wire(copy, None)
        await owner.close()
        await follower.close()
        return copy, doc

    copy, doc = asyncio.run(scenario())
    assert copy.is_over and copy.ended_by is Player.BLACK and copy.status == "over"
    assert doc["match"]["ended_by"] == "black" and doc["fair_dice"]["revealed"] and doc["fair_dice"]["seed"]
