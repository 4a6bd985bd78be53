"""API tests of "puzzles from my games": a finished match with a known mistake gives a puzzle,
answers are scored like lessons (a second try, then the answer), per account, and bad input is
refused with 401/404/400/422, never 500. Engine work at 0-ply."""

from __future__ import annotations

import pytest

from backgammon.position import Position

from ._wire import moves_of

# black (the logged-in player) wastes checkers in a short, even bear-off race: errors at 0-ply. Even, so that
# the waste costs black whoever rolls first (a race black is far behind in made a puzzle in only 17 of 30
# matches; this one in 29 of 30)
RACE = Position.from_points({6: 3, 5: 3, 4: 3}, {6: 3, 5: 3, 4: 3}).position_id()


def error_of(r, status):
    assert r.status_code == status, r.text
    message = r.json()["error"]
    assert message
    return message


def _min_bearoff(moves):
    return min(moves, key=lambda seq: sum(1 for step in seq if step[1] == 0))


def _play_out(client, tid, tokens):
    for _ in range(100):
        st = client.get(f"/api/tables/{tid}").json()
        if st["match"]["over"]:
            return
        tok = tokens[st["game"]["turn"]]
        st = client.get(f"/api/tables/{tid}", headers={"x-seat-token": tok}).json()
        if "move" in st["allowed"]:
            doc = {"action": "move", "steps": _min_bearoff(moves_of(st))}
        else:
            doc = {"action": st["allowed"][0]}
        r = client.post(f"/api/tables/{tid}/actions", json=doc, headers={"x-seat-token": tok})
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not finish")


def finished_match_of(client, username):
    """A finished 1-point match from a race: a guest (White) against ``username`` (Black, logged
    in), both wasting checkers; returns the table id and the review's decisions."""
    client.post("/api/logout")
    r = client.post(
        "/api/tables",
        json={"mode": "human", "name": "Guest", "rules": {"match_length": 1}, "start": {"position_id": RACE}},
    )
    tid, w = r.json()["id"], r.json()["token"]
    r = client.post("/api/login", json={"username": username, "password": "pw-123456"})
    assert r.status_code == 200, r.text
    b = client.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    _play_out(client, tid, {"white": w, "black": b})
    return tid


@pytest.fixture(scope="module")
def app_with_a_match(tmp_path_factory):
    """One app for the module, with ann's finished match (reviewed once: the slow part)."""
    from .conftest import make_client

    data_dir = tmp_path_factory.mktemp("puzzles")
    with make_client(data_dir, test_hooks=True, auth_attempts_per_minute=1000) as c:
        assert c.post("/api/register", json={"username": "ann", "password": "pw-123456"}).status_code == 200
        for _ in range(6):  # the dice decide how much the wasteful plays cost: a few games at most
            tid = finished_match_of(c, "ann")
            listed = c.get("/api/puzzles").json()  # reviews the new table on a worker thread
            if any(p["table_id"] == tid and p["kind"] == "play" for p in listed["puzzles"]):
                yield c, tid, data_dir
                return
        raise AssertionError("wasting checkers in a race must make a puzzle")


@pytest.fixture
def client(app_with_a_match):
    return app_with_a_match[0]


@pytest.fixture
def ann(app_with_a_match):
    """ann logged in, with no puzzle tried yet (each test starts from a clean score)."""
    import sqlite3

    c, tid, data_dir = app_with_a_match
    with sqlite3.connect(data_dir / "backgammon.sqlite3") as db:
        db.execute("DELETE FROM puzzle_attempts")
    if c.get("/api/me").json().get("username") != "ann":
        assert c.post("/api/login", json={"username": "ann", "password": "pw-123456"}).status_code == 200
    return tid


def test_a_known_mistake_yields_a_puzzle(client, ann):
    review = client.get(f"/api/study/reviews/{ann}").json()
    mistakes = [d for d in review["decisions"] if d["player"] == "Black" and not d["forced"] and d["grade"] != "good"]
    assert mistakes and all(d["best"] != d["chosen"] for d in mistakes if d["kind"] == "play")
    doc = client.get("/api/puzzles?limit=100").json()
    mine = [p for p in doc["puzzles"] if p["table_id"] == ann]
    assert {(p["game"], p["error"]) for p in mine} == {(d["game"], d["error"]) for d in mistakes}
    assert doc["total"] >= len(mine) and doc["unreviewed"] == 0 and doc["score"]["done"] == 0
    assert all(p["status"] == "new" and p["equity_label"].startswith("0-ply") for p in mine)
    # the guest's (White's) errors are not ann's puzzles
    assert all(p["id"].split(".")[2] in {str(d["index"]) for d in mistakes} for p in mine)
    biggest = client.get("/api/puzzles?order=biggest").json()["puzzles"]
    assert [p["error"] for p in biggest] == sorted((p["error"] for p in biggest), reverse=True)
    page = client.get("/api/puzzles?limit=1&offset=0").json()
    assert len(page["puzzles"]) == 1 and page["total"] == doc["total"]
    play = next(p for p in mine if p["kind"] == "play")
    puzzle = client.get(f"/api/puzzles/{play['id']}").json()
    decision = next(d for d in mistakes if f"{ann}.{d['game']}.{d['index']}" == play["id"])
    assert puzzle["setup"]["position_id"] == decision["position_id"] == play["position_id"]
    assert puzzle["setup"]["dice"] == decision["dice"] and puzzle["answer"] is None and puzzle["tries"] == 0


def _best(client, puzzle):
    r = client.post("/api/study/analyze", json={"setup": puzzle["setup"], "depth": puzzle["depth"]})
    return r.json()["plays"][0]["play"]


def test_right_answer_at_the_first_try(client, ann):
    play = next(p for p in client.get("/api/puzzles").json()["puzzles"] if p["kind"] == "play")
    puzzle = client.get(f"/api/puzzles/{play['id']}").json()
    r = client.post(f"/api/puzzles/{play['id']}/answer", json={"play": _best(client, puzzle)})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["correct"] and doc["done"] and doc["tries"] == 1 and doc["status"] == "first_try"
    result = doc["result"]
    assert result["loss"] == 0 and result["original_loss"] > 0 and result["original"] != result["best"]
    assert result["equity_label"].startswith("0-ply cubeful")
    assert doc["score"] == {"done": 1, "solved": 1, "first_try": 1, "points": 2}
    again = client.get(f"/api/puzzles/{play['id']}").json()
    assert again["status"] == "first_try" and again["answer"]["best"] == result["best"]
    listed = {p["id"]: p["status"] for p in client.get("/api/puzzles").json()["puzzles"]}
    assert listed[play["id"]] == "first_try"


def test_wrong_answer_gets_a_second_try_then_the_answer(client, ann):
    review = client.get(f"/api/study/reviews/{ann}").json()
    play = next(p for p in client.get("/api/puzzles").json()["puzzles"] if p["kind"] == "play")
    decision = next(d for d in review["decisions"] if f"{ann}.{d['game']}.{d['index']}" == play["id"])
    url = f"/api/puzzles/{play['id']}/answer"
    first = client.post(url, json={"play": decision["chosen"]}).json()  # the player's own mistake again
    assert not first["correct"] and not first["done"] and first["tries"] == 1 and first["result"] is None
    assert first["status"] == "tried"
    # an unreadable or illegal play is refused and does not count as a try
    error_of(client.post(url, json={"play": "24/1"}), 422)
    error_of(client.post(url, json={"play": ""}), 400)
    error_of(client.post(url, json={"play": 7}), 400)
    assert client.get(f"/api/puzzles/{play['id']}").json()["tries"] == 1
    second = client.post(url, json={"play": decision["chosen"]}).json()
    assert not second["correct"] and second["done"] and second["tries"] == 2 and second["status"] == "missed"
    result = second["result"]
    assert result["best"] == decision["best"] and result["loss"] == result["original_loss"] > 0
    assert second["score"] == {"done": 1, "solved": 0, "first_try": 0, "points": 0}
    # a done puzzle can be played again for practice: judged, not counted
    puzzle = client.get(f"/api/puzzles/{play['id']}").json()
    third = client.post(url, json={"play": _best(client, puzzle)}).json()
    assert third["correct"] and third["tries"] == 2 and third["status"] == "missed"
    assert third["score"]["solved"] == 0


def test_second_try_right(client, ann):
    review = client.get(f"/api/study/reviews/{ann}").json()
    play = next(p for p in client.get("/api/puzzles").json()["puzzles"] if p["kind"] == "play")
    decision = next(d for d in review["decisions"] if f"{ann}.{d['game']}.{d['index']}" == play["id"])
    puzzle = client.get(f"/api/puzzles/{play['id']}").json()
    url = f"/api/puzzles/{play['id']}/answer"
    assert not client.post(url, json={"play": decision["chosen"]}).json()["done"]
    doc = client.post(url, json={"play": _best(client, puzzle)}).json()
    assert doc["correct"] and doc["done"] and doc["status"] == "solved"
    assert doc["score"] == {"done": 1, "solved": 1, "first_try": 0, "points": 1}


def test_another_users_puzzles_are_not_visible(client, ann):
    puzzles = client.get("/api/puzzles").json()["puzzles"]
    client.post("/api/logout")
    error_of(client.get("/api/puzzles"), 401)  # a guest: log in
    assert "log in" in error_of(client.get(f"/api/puzzles/{puzzles[0]['id']}"), 401)
    r = client.post("/api/register", json={"username": "carol", "password": "pw-123456"})
    assert (
        r.status_code == 200
        or client.post("/api/login", json={"username": "carol", "password": "pw-123456"}).status_code == 200
    )
    doc = client.get("/api/puzzles").json()
    assert doc["puzzles"] == [] and doc["total"] == 0
    error_of(client.get(f"/api/puzzles/{puzzles[0]['id']}"), 404)
    error_of(client.post(f"/api/puzzles/{puzzles[0]['id']}/answer", json={"play": "6/off"}), 404)


def test_bad_ids_and_parameters(client, ann):
    good = client.get("/api/puzzles").json()["puzzles"][0]["id"]
    tid, game, index = good.split(".")
    for bad in (
        "nope",
        f"{tid}.{game}",
        f"{tid}.{game}.999",
        f"{tid}.9.{index}",
        f"x{tid}.{game}.{index}",
        f"{tid}.{game}.{index}.1",
        "%3Cscript%3E.1.1",
        "a" * 40 + ".1.1",
        f"{tid}.-1.{index}",
    ):
        message = error_of(client.get(f"/api/puzzles/{bad}"), 404)
        assert "<script>" not in message or "'<script>" in message
        error_of(client.post(f"/api/puzzles/{bad}/answer", json={"play": "6/off"}), 404)
    for query in ("limit=0", "limit=101", "limit=x", "offset=-1", "order=worst", "order=%3Cb%3E"):
        error_of(client.get(f"/api/puzzles?{query}"), 400)
    url = f"/api/puzzles/{good}/answer"
    error_of(client.post(url, content=b"{bad", headers={"content-type": "application/json"}), 400)
    error_of(client.post(url, json=[1]), 400)
    error_of(client.post(url, json={"choice": "double"}), 400)  # a play puzzle wants a play
    assert client.get(f"/api/puzzles/{good}").json()["tries"] == 0


def test_cube_puzzle_choices(client, ann):
    """A cube or take puzzle (when the race gave one) is answered by a choice."""
    from backgammon.server.puzzles import CHOICES, judge

    d = {"kind": "take", "chosen": "pass", "best": "take", "error": 0.25, "equity_label": "0-ply cubeful match"}
    assert judge(d, None, {"choice": "take"})["correct"] and judge(d, None, {"choice": "take"})["loss"] == 0
    wrong = judge(d, None, {"choice": "pass"})
    assert not wrong["correct"] and wrong["loss"] == 0.25 and wrong["original_loss"] == 0.25
    with pytest.raises(ValueError):
        judge(d, None, {"choice": "double"})
    assert CHOICES["cube"] == ("double", "no double")
    cube = [p for p in client.get("/api/puzzles?limit=100").json()["puzzles"] if p["kind"] != "play"]
    for p in cube:
        doc = client.get(f"/api/puzzles/{p['id']}").json()
        assert doc["choices"] == list(CHOICES[p["kind"]]) and doc["setup"]["dice"] is None
        error_of(client.post(f"/api/puzzles/{p['id']}/answer", json={"play": "6/off"}), 400)


def test_a_cube_puzzle_gets_no_free_second_try(client, tmp_path):
    """Two answers: a wrong first answer shows the answer at once (a second try would be free)."""
    from backgammon.server.db import Table, User, open_database
    from backgammon.server.puzzles import record_try, tries_allowed

    assert tries_allowed("cube") == 1 and tries_allowed("take") == 1 and tries_allowed("play") == 2
    sessions = open_database(f"sqlite:///{tmp_path / 'p.sqlite3'}")
    with sessions() as db:
        db.add(User(id=1, username="ann", password_hash="x", rating=1500.0, experience=0, settings={}))
        db.add(Table(id="t", config={}, listed=False, status="over", rated=False))
        db.commit()
    wrong = record_try(sessions, 1, "t.1.2", False, tries_allowed("take"))
    assert wrong.done and not wrong.solved and wrong.tries == 1
    again = record_try(sessions, 1, "t.1.2", True, tries_allowed("take"))
    assert again.done and not again.solved and again.tries == 1  # done: nothing counts any more
    play = record_try(sessions, 1, "t.1.3", False, tries_allowed("play"))
    assert not play.done and play.tries == 1


def test_puzzles_page_is_served(client):
    for path in ("/puzzles", "/puzzles/abc"):
        r = client.get(path)
        assert r.status_code == 200 and "puzzles.js" in r.text


@pytest.mark.slow
def test_puzzles_on_postgres(tmp_path, fresh_database):
    """The migration runs on PostgreSQL and the attempts are stored there (skipped without
    BACKGAMMON_TEST_DATABASE_URL, like test_postgres.py)."""
    from sqlalchemy import create_engine, text

    from .conftest import make_client
    from .test_postgres import _migration_head

    with make_client(tmp_path, database_url=fresh_database, test_hooks=True, auth_attempts_per_minute=1000) as c:
        assert c.post("/api/register", json={"username": "ann", "password": "pw-123456"}).status_code == 200
        for _ in range(6):
            finished_match_of(c, "ann")
            plays = [p for p in c.get("/api/puzzles").json()["puzzles"] if p["kind"] == "play"]
            if plays:
                break
        assert plays, "wasting checkers in a race must make a puzzle"
        doc = c.post(f"/api/puzzles/{plays[0]['id']}/answer", json={"play": "6/off 6/off 6/off 6/off"})
        assert doc.status_code in (200, 422), doc.text
        if doc.status_code == 422:  # not a legal play for these dice: answer with the engine's best
            puzzle = c.get(f"/api/puzzles/{plays[0]['id']}").json()
            doc = c.post(f"/api/puzzles/{plays[0]['id']}/answer", json={"play": _best(c, puzzle)})
        assert doc.json()["tries"] == 1
    engine = create_engine(fresh_database.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == _migration_head()
        assert conn.execute(text("SELECT tries FROM puzzle_attempts")).scalars().all() == [1]
    engine.dispose()


def test_a_cube_error_makes_a_cube_puzzle(client, ann):
    """ann (Black) doubles in a 3-point match when White is about to bear off its last checkers:
    a cube puzzle whose right answer is "no double"."""
    far_behind = Position.from_points({10: 3, 8: 3, 6: 3, 5: 3, 4: 3}, {1: 2}).position_id()
    client.post("/api/logout")
    r = client.post(
        "/api/tables",
        json={
            "mode": "human",
            "name": "Guest",
            "rules": {"match_length": 3},
            "start": {"position_id": far_behind, "on_roll": "black"},
        },
    )
    assert r.status_code == 200, r.text
    tid, w = r.json()["id"], r.json()["token"]
    assert client.post("/api/login", json={"username": "ann", "password": "pw-123456"}).status_code == 200
    b = client.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    st = client.get(f"/api/tables/{tid}", headers={"x-seat-token": b}).json()
    assert "double" in st["allowed"], st["allowed"]
    r = client.post(f"/api/tables/{tid}/actions", json={"action": "double"}, headers={"x-seat-token": b})
    assert r.status_code == 200, r.text
    r = client.post(f"/api/tables/{tid}/actions", json={"action": "take"}, headers={"x-seat-token": w})
    assert r.status_code == 200, r.text
    _play_out(client, tid, {"white": w, "black": b})
    cube = [p for p in client.get("/api/puzzles?limit=100").json()["puzzles"] if p["table_id"] == tid]
    assert [p["kind"] for p in cube] == ["cube"], client.get(f"/api/study/reviews/{tid}").text
    pid = cube[0]["id"]
    puzzle = client.get(f"/api/puzzles/{pid}").json()
    assert puzzle["choices"] == ["double", "no double"] and puzzle["setup"]["dice"] is None
    assert puzzle["setup"]["position_id"] == far_behind and puzzle["answer"] is None
    # two answers: a wrong one ends the puzzle and shows the answer (a second try would be free)
    first = client.post(f"/api/puzzles/{pid}/answer", json={"choice": "double"}).json()
    assert not first["correct"] and first["done"] and first["status"] == "missed"
    assert first["result"]["loss"] == cube[0]["error"] > 0.1 and first["result"]["original"] == "double"
    assert first["result"]["original_loss"] == cube[0]["error"]
    assert first["result"]["equity_label"].startswith("0-ply cubeful match")
    again = client.post(f"/api/puzzles/{pid}/answer", json={"choice": "no double"}).json()
    assert again["correct"] and again["status"] == "missed" and again["tries"] == 1  # done: not counted
    assert again["result"]["loss"] == 0


def test_puzzle_page_texts_exist_in_both_languages():
    import re
    from pathlib import Path

    static = Path(__file__).resolve().parents[2] / "src" / "backgammon" / "server" / "static"
    text = (static / "i18n.js").read_text()
    key = re.compile(r"^    (\w+):", re.MULTILINE)
    en = set(key.findall(text[text.index("  en: {") : text.index("  ja: {")]))
    ja = set(key.findall(text[text.index("  ja: {") :]))
    html = (static / "puzzles.html").read_text()
    js = (static / "puzzles.js").read_text()
    used = set(re.findall(r'data-i18n(?:-label|-placeholder)?="(\w+)"', html)) | set(re.findall(r'\bt\("(\w+)"', js))
    used |= {f"pz_status_{s}" for s in ("new", "tried", "first_try", "solved", "missed")}
    used |= {f"pz_kind_{k}" for k in ("play", "cube", "take")}
    assert len(used) > 30 and used <= en and used <= ja, (used - en, used - ja)
    assert "innerHTML" not in js and "insertAdjacentHTML" not in js


def test_a_take_error_makes_a_take_puzzle(client, ann):
    """White, about to bear off its last two checkers, doubles in a 3-point match and ann (Black)
    takes: a take puzzle, seen from ann's side with the cube offered at 2; "pass" is right."""
    white_wins = Position.from_points({1: 2}, {10: 3, 8: 3, 6: 3, 5: 3, 4: 3}).position_id()
    client.post("/api/logout")
    r = client.post(
        "/api/tables",
        json={
            "mode": "human",
            "name": "Guest",
            "rules": {"match_length": 3},
            "start": {"position_id": white_wins, "on_roll": "white"},
        },
    )
    tid, w = r.json()["id"], r.json()["token"]
    assert client.post("/api/login", json={"username": "ann", "password": "pw-123456"}).status_code == 200
    b = client.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    assert client.post(f"/api/tables/{tid}/actions", json={"action": "double"}, headers={"x-seat-token": w}).is_success
    assert client.post(f"/api/tables/{tid}/actions", json={"action": "take"}, headers={"x-seat-token": b}).is_success
    _play_out(client, tid, {"white": w, "black": b})
    mine = [p for p in client.get("/api/puzzles?limit=100").json()["puzzles"] if p["table_id"] == tid]
    assert [p["kind"] for p in mine] == ["take"], mine
    puzzle = client.get(f"/api/puzzles/{mine[0]['id']}").json()
    assert puzzle["choices"] == ["take", "pass"] and puzzle["offered"] == 2 and puzzle["player"] == "Black"
    assert puzzle["setup"]["mine"] == list(Position.from_position_id(white_wins).theirs)  # ann's own checkers
    doc = client.post(f"/api/puzzles/{mine[0]['id']}/answer", json={"choice": "pass"}).json()
    assert doc["correct"] and doc["status"] == "first_try" and doc["result"]["original"] == "take"
    assert doc["result"]["original_loss"] == mine[0]["error"] > 0.1 and doc["result"]["loss"] == 0
