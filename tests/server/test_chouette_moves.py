"""The chouette page's move list (issue 18: "the chouette move list repeats entries and uses
non-standard notation"): the plays on offer are each legal play once, in the notation of
``backgammon.notation``; the game's record shows each play once with its dice, every cube action
and who acted."""

from __future__ import annotations

from backgammon.game import Game, OpeningRoll, Player, Roll, Rules
from backgammon.notation import parse_play
from backgammon.position import Position
from backgammon.server import protocol
from backgammon.server.replay import chouette_moves

from .test_chouette_api import act, st, three_people


def test_each_legal_play_is_offered_once_in_standard_notation():
    game = Game.new(Rules()).apply(OpeningRoll(3, 1))
    plays = protocol.plays_to_wire(game.legal_plays)
    texts = [p["play"] for p in plays]
    assert len(texts) == len(set(texts)) == len(game.legal_plays)  # no play twice
    orders = protocol.graph_sequences(protocol.move_graph(game))
    assert len(orders) > len(plays)  # the step orders the old list repeated
    assert "8/5 6/5" in texts and not any("/" not in t for t in texts)
    for p in plays:  # the steps sent back give the play named
        assert str(protocol.play_from_steps(game, tuple(tuple(s) for s in p["steps"]))) == p["play"]


def test_hits_bar_and_bear_off_are_written_the_standard_way():
    # on the bar, the opponent's blot on the mover's 22 point (its own 3 point): bar/22*
    on_bar = Position.from_points({25: 1, 6: 5, 8: 3, 13: 5}, {3: 1, 24: 2, 13: 5, 8: 3, 6: 3})
    game = Game.from_position(on_bar, rules=Rules()).apply(Roll(Player.WHITE, (3, 1)))
    texts = [p["play"] for p in protocol.plays_to_wire(game.legal_plays)]
    assert any(t.startswith("bar/22*") for t in texts), texts
    home = Position.from_points({1: 2, 2: 2, 6: 1}, {1: 2})
    game = Game.from_position(home, rules=Rules()).apply(Roll(Player.WHITE, (6, 1)))
    texts = [p["play"] for p in protocol.plays_to_wire(game.legal_plays)]
    assert any("6/off" in t for t in texts), texts
    for t in texts:  # and the notation module reads each back as the same play
        assert str(parse_play(game.position, 6, 1, t)) == t


def test_move_list_from_stored_entries():
    payloads = [
        {"kind": "opening_roll", "dice": [3, 1]},
        {"kind": "move", "player": "white", "by": "Ann", "play": "8/5 6/5", "dice": [3, 1], "steps": []},
        {"kind": "roll", "player": "black", "by": "Bob", "dice": [6, 4]},
        {"kind": "suggest", "by": "Cat", "play": "24/18 13/9"},
        {"kind": "chat", "by": "Cat", "text": "hi"},
        {"kind": "move", "player": "black", "by": "Bob", "play": "24/14", "dice": [6, 4], "steps": []},
        {"kind": "double", "player": "white", "by": "Ann"},
        {"kind": "take", "player": "black", "by": "Bob"},
        {"kind": "pass", "player": "black", "by": "Cat"},
        {"kind": "double", "player": "black", "by": "Bob"},
        {"kind": "consent", "player": "black", "by": "Cat"},
        {"kind": "move", "player": "white", "by": "Ann", "play": "", "dice": [6, 6], "steps": []},
    ]
    log = chouette_moves(payloads)
    assert [(e["kind"], e["by"], e["side"]) for e in log] == [
        ("move", "Ann", "box"),
        ("move", "Bob", "team"),
        ("double", "Ann", "box"),
        ("take", "Bob", "team"),
        ("pass", "Cat", "team"),
        ("double", "Bob", "team"),
        ("consent", "Cat", "team"),
        ("move", "Ann", "box"),
    ]
    assert [e.get("play") for e in log if e["kind"] == "move"] == ["8/5 6/5", "24/14", ""]
    assert log[1]["dice"] == [6, 4]


def test_table_state_lists_this_games_plays_once_with_who_acted(client):
    tid, tokens = three_people(client)
    seen = []
    for _ in range(8):  # a few turns: roll, then the offered play, by whoever is to act
        s = st(client, tid)
        name = s["to_act"][0]
        mine = st(client, tid, tokens[name])
        if "move" in mine["allowed"]:
            texts = [p["play"] for p in mine["plays"]]
            assert len(texts) == len(set(texts)), texts
            choice = mine["plays"][0]
            assert act(client, tid, tokens[name], action="move", steps=choice["steps"]).status_code == 200
            seen.append((name, choice["play"]))
        else:
            assert act(client, tid, tokens[name], action="roll").status_code == 200
    log = st(client, tid)["log"]
    moves = [(e["by"], e["play"]) for e in log if e["kind"] == "move"]
    assert moves == seen[-len(moves) :] and len(moves) == len(seen)  # each play once, as chosen
    assert all(e["side"] in ("box", "team") for e in log)
    assert {e["by"] for e in log} <= {"Ann", "Bob", "Cat"}
