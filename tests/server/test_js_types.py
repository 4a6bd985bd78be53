"""The browser's JSDoc types of the wire formats (static/protocol-types.js, checked by tsc in
scripts/lint.sh) against what the server sends: every property the server sends is declared, and
every property declared as always there is sent. A field renamed on one side fails here."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

from backgammon.game import Game, Move, Player, Roll
from backgammon.position import Position
from backgammon.server import protocol

TYPES = Path(__file__).parents[2] / "src" / "backgammon" / "server" / "static" / "protocol-types.js"


def typedefs() -> dict[str, tuple[set[str], set[str]]]:
    """Each ``@typedef {object} Name``: (all its properties, the ones not marked optional)."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for block in re.findall(r"/\*\*(.*?)\*/", TYPES.read_text(), re.S):
        name = re.search(r"@typedef \{object\} (\w+)", block)
        if not name:
            continue
        props = re.findall(r"@property \{.*\} (\[?)(\w+)", block)  # one per line; the type may nest braces
        out[name.group(1)] = ({p for _, p in props}, {p for opt, p in props if not opt})
    return out


def check(name: str, doc: dict) -> None:
    declared, required = typedefs()[name]
    assert set(doc) <= declared, f"{name}: sent but not declared: {sorted(set(doc) - declared)}"
    assert required <= set(doc), f"{name}: declared but not sent: {sorted(required - set(doc))}"


def test_the_table_state_is_declared_as_sent(client):
    doc = client.post(
        "/api/tables", json={"mode": "human", "name": "Ann", "rules": {"match_length": 3}, "clock": {"minutes": 5}}
    ).json()
    state = doc["state"]
    check("TableState", state)
    check("TableInfo", state["table"])
    check("MatchInfo", state["match"])
    check("GameInfo", state["game"])
    check("Cube", state["game"]["cube"])
    check("Clock", state["clock"])


def test_the_last_move_and_hints_are_declared_as_sent():
    game = Game.from_position(Position.initial(), on_roll=Player.WHITE).apply(Roll(Player.WHITE, (3, 1)))
    play = game.legal_plays[0]
    moved = game.apply(Move(Player.WHITE, play))
    last = protocol.last_move_of(moved)
    assert last is not None
    check("LastMove", last)
    heuristic = protocol.hints_to_wire("heuristic", [(play, 1.5)], (167, 167))
    check("HintMessage", heuristic)
    check("HintPlay", heuristic["plays"][0])
    probabilities = SimpleNamespace(win=0.5, win_gammon=0.1)
    ranked = SimpleNamespace(
        play=play, probabilities=probabilities, equity=0.1, plies=1, kind="cubeless", label="1-ply cubeless", mwc=0.5
    )
    check("HintPlay", protocol.hints_to_wire("engine", [ranked], (167, 167))["plays"][0])


def test_errors_are_declared_as_sent():
    check("ServerError", {k: v for k, v in protocol.error_message(409, "no", "illegal_action").items() if k != "type"})


def test_the_study_setup_and_lessons_with_their_move_graph_are_declared_as_sent(client):
    setup = {"mine": list(Position.initial().mine), "theirs": list(Position.initial().theirs), "dice": [5, 2]}
    doc = client.post("/api/study/setup", json={"setup": setup}).json()
    check("StudySetup", doc)
    check("MoveGraph", doc["move_graph"])
    check("PlayOption", doc["plays"][0])
    check("StudySetup", client.post("/api/study/setup", json={"setup": {**setup, "dice": None}}).json())
    lessons = client.get("/api/study/lessons").json()
    exercises = [
        ex for lesson in lessons for ex in client.get(f"/api/study/lessons/{lesson['id']}").json()["exercises"]
    ]
    for ex in exercises:
        check("LessonExercise", ex)
    assert any("move_graph" in ex for ex in exercises)


def test_the_chouette_state_with_its_move_graph_is_declared_as_sent(client):
    from .test_chouette_api import act, st, three_people

    tid, tokens = three_people(client)
    check("ChouetteState", st(client, tid, tokens["Ann"]))
    for _ in range(20):  # on to a roll to move, then the mover's state
        states = {name: st(client, tid, tok) for name, tok in tokens.items()}
        mover = next((name for name, doc in states.items() if "move" in doc["allowed"]), None)
        if mover:
            break
        roller = next(name for name, doc in states.items() if "roll" in doc["allowed"])
        act(client, tid, tokens[roller], action="roll", version=states[roller]["version"])
    else:
        raise AssertionError("nobody came to move")
    doc = states[mover]
    check("ChouetteState", doc)
    check("ChouetteGame", doc["game"])
    check("MoveGraph", doc["move_graph"])
    check("PlayOption", doc["plays"][0])
