"""Analyse my matches (issue 43 item 5): uploads read off the event loop, refused with a code and
never a 500, budgeted, analysed with pushed progress, and reviewed in a table review's shape."""

from __future__ import annotations

import base64
import random
import re
import threading
from pathlib import Path

import pytest

from backgammon.server import uploads
from backgammon.server.http_errors import HTTPError
from backgammon.server.uploads import MAX_FILE_BYTES, read_upload

from .conftest import make_client

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
XG = Path(__file__).resolve().parents[1] / "data" / "xg"
POS = Path(__file__).resolve().parents[1] / "data" / "pos"
STATIC = Path(__file__).resolve().parents[2] / "src" / "backgammon" / "server" / "static"
SMALL = "galaxy_match3029786.mat"  # one game, 22 actions: a quick analysis
WARNED = "galaxy_match7236505.mat"  # a forfeit the rules cannot end: read with a warning
NO_MOVES = "galaxy_match3831101.mat"  # a match forfeited before any move
ILLEGAL_FIRST_PLAY = " 3 point match\n\n Game 1\n A : 0  B : 0\n 1) 31: 8/5 6/3\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def upload_file(client, name: str, data: bytes | None = None):
    data = (REAL / name).read_bytes() if data is None else data
    return client.post("/api/uploads", json={"name": name, "data": b64(data)})


def follow(client, upload_id: str) -> list[dict]:
    """Every push of an upload's socket until its last (done or failed)."""
    pushes = []
    with client.websocket_connect(f"/ws/uploads/{upload_id}") as ws:
        while True:
            doc = ws.receive_json()
            assert doc["type"] == "upload", doc
            pushes.append(doc["upload"])
            if doc["upload"]["status"] in ("done", "failed"):
                return pushes


@pytest.fixture
def client(tmp_path: Path):
    with make_client(tmp_path, budgets={"uploads": [1000, 50]}) as c:
        yield c


def test_a_real_galaxy_file_is_analysed_with_pushed_progress_and_reviewed(client):
    res = upload_file(client, SMALL)
    assert res.status_code == 200, res.text
    up = res.json()
    assert up["id"].startswith("up-") and up["format"] == "mat"
    assert up["players"] == ["jclark9001", "lasse"] and up["match_length"] > 0 and up["games"] == 1
    assert up["total"] == 22 and up["status"] in ("queued", "analysing")
    pushes = follow(client, up["id"])
    done = [p["done"] for p in pushes]
    assert done == sorted(done) and pushes[-1]["status"] == "done", pushes[-1]
    assert pushes[-1]["done"] == pushes[-1]["total"] == 22
    assert pushes[-1]["review"] == f"/study/review/{up['id']}"
    assert client.get(f"/api/uploads/{up['id']}").json()["status"] == "done"

    review = client.get(f"/api/uploads/{up['id']}/review").json()
    # the shape of a table's review (study.review_table): what the study page's review draws
    assert {"match_length", "final_score", "players", "decisions", "games", "depth"} <= set(review)
    assert {p["name"] for p in review["players"].values()} == {"jclark9001", "lasse"}
    for totals in review["players"].values():
        assert {"pr", "pr_checker", "pr_cube", "unforced", "error_share"} <= set(totals)
    assert review["decisions"] and all(d["grade"] and set(d["label"]) == {"en", "ja"} for d in review["decisions"])
    assert review["games"][0]["game"] == 1 and review["games"][0]["points"]
    assert review["upload"]["name"] == SMALL
    summary = client.get(f"/api/uploads/{up['id']}/review?decisions=false").json()
    assert "decisions" not in summary and summary["players"] == review["players"]


def test_warnings_are_kept_and_shown_with_the_upload(client):
    up = upload_file(client, WARNED).json()
    assert len(up["warnings"]) == 1 and "line 20" in up["warnings"][0] and "forfeit" in up["warnings"][0]
    assert up["errors"] == []
    assert follow(client, up["id"])[-1]["warnings"] == up["warnings"]


def test_sgf_and_pasted_text_are_read(client):
    sgf = "(;GM[6]MI[length:1][game:0][ws:0][bs:0]PW[Al]PB[Bo]RE[W+1R];W[31hefe])"
    up = client.post("/api/uploads", json={"name": "one.sgf", "text": sgf}).json()
    assert up["format"] == "sgf" and sorted(up["players"]) == ["Al", "Bo"] and up["total"] > 0
    pasted = client.post("/api/uploads", json={"text": (REAL / SMALL).read_text()}).json()
    assert pasted["format"] == "mat" and pasted["name"] == "pasted text" and pasted["total"] == 22
    assert client.post("/api/uploads", json={"text": sgf}).json()["format"] == "sgf"  # sniffed by its start


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"name": "big.mat", "text": "x" * (MAX_FILE_BYTES + 1)}, 413, "upload_too_large"),
        ({"name": "big.mat", "data": b64(b"x" * (MAX_FILE_BYTES + 1))}, 413, "upload_too_large"),
        ({"name": "m.xg", "data": b64(b"RGMH" + bytes(200))}, 400, "upload_unreadable"),
        ({"name": "photo.png", "data": b64(bytes(range(256)) * 8)}, 400, "upload_not_text"),
        ({"name": "t1_00.pos", "data": b64((POS / "t1_00.pos").read_bytes())}, 400, "upload_position_file"),
        ({"name": "m.mat", "text": "   \n"}, 400, "upload_empty"),
        ({"name": "m.mat", "text": "hello, not a match"}, 400, "upload_unreadable"),
        ({"name": "m.sgf", "text": "(;" + "(" * 20000}, 400, "upload_unreadable"),
        ({"name": "m.sgf", "text": "(;GM[6]" + "C[" * 5000}, 400, "upload_unreadable"),
        ({"name": "m.mat", "data": "not base64!"}, 400, "invalid_input"),
        ({"name": "m.mat"}, 400, "invalid_input"),
        ({"name": 7, "text": "x"}, 400, "invalid_input"),
        (
            {"name": "m.mat", "text": " 3 point match\n\n Game 1\n A : 0  B : 0\n 1) 31: 8/5 6/3\n"},
            400,
            "upload_no_games",
        ),
    ],
)
def test_bad_files_get_a_code_naming_the_file_never_a_500(client, body, status, code):
    res = client.post("/api/uploads", json=body)
    assert res.status_code == status, res.text
    doc = res.json()
    assert doc["code"] == code, doc
    if code.startswith("upload_"):
        assert doc["params"]["name"] == body["name"]
    if code == "upload_too_large":
        assert doc["params"]["limit_kb"] == MAX_FILE_BYTES // 1024 == 512


def test_a_real_file_without_moves_is_refused_with_its_reason(client):
    res = upload_file(client, NO_MOVES)
    assert res.status_code == 400 and res.json()["code"] == "upload_no_games"


def test_the_upload_alone_takes_a_larger_body(client):
    assert uploads.BODY_LIMIT > 4 * MAX_FILE_BYTES // 3  # a file at the limit, in base64, fits
    res = client.post("/api/uploads", json={"name": "m.mat", "data": "A" * (uploads.BODY_LIMIT + 10)})
    assert res.status_code == 413
    assert client.post("/api/login", json={"username": "x" * 70_000, "password": "p"}).status_code == 413


def test_a_real_xg_file_is_read_with_the_formats_reader(client):
    data = (XG / "charlot_7pt.xg").read_bytes()
    assert 64 * 1024 < len(data) <= MAX_FILE_BYTES  # larger than any other request may be
    up = client.post("/api/uploads", json={"name": "charlot_7pt.xg", "data": b64(data)}).json()
    assert up["format"] == "xg" and up["match_length"] == 7 and up["total"] > 100, up


def test_a_match_too_long_to_analyse_is_refused(client, monkeypatch):
    monkeypatch.setattr(uploads, "MAX_ACTIONS", 21)
    res = upload_file(client, SMALL)  # 22 actions
    assert res.status_code == 400 and res.json()["code"] == "upload_too_long"
    assert res.json()["params"] == {"name": SMALL, "actions": 22, "limit": 21}


def test_mangled_real_files_are_read_or_refused_with_a_code():
    """Random damage to real files (bytes dropped, doubled, changed): read, or a 400 naming the file."""
    rng = random.Random(43)
    files = sorted(REAL.glob("*.mat"))
    outcomes = {"read": 0, "refused": 0}
    for k in range(150):
        data = bytearray(files[k % len(files)].read_bytes())
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(data))
            choice = rng.random()
            if choice < 0.4:
                data[i] = rng.randrange(256)
            elif choice < 0.7:
                del data[i : i + rng.randint(1, 40)]
            else:
                data[i:i] = data[i : i + rng.randint(1, 40)]
        try:
            read_upload(bytes(data), "mangled.mat")
            outcomes["read"] += 1
        except HTTPError as exc:
            assert exc.status == 400 and exc.code.startswith("upload_") and exc.params["name"] == "mangled.mat"
            outcomes["refused"] += 1
    assert outcomes["read"] and outcomes["refused"], outcomes


def test_files_are_read_on_the_engine_pool_not_the_event_loop(client, monkeypatch):
    threads = []
    real = uploads.read_upload

    def spy(data, name):
        threads.append(threading.current_thread().name)
        return real(data, name)

    monkeypatch.setattr(uploads, "read_upload", spy)
    assert upload_file(client, SMALL).status_code == 200
    assert threads and threads[0].startswith("engine"), threads


def test_uploads_are_budgeted_per_client(tmp_path):
    with make_client(tmp_path, budgets={"uploads": [2, 4]}) as c:
        assert upload_file(c, SMALL).status_code == 200
        assert c.post("/api/uploads", json={"name": "bad.mat", "text": "nonsense"}).status_code == 400  # counted too
        res = upload_file(c, SMALL)
        assert res.status_code == 429 and res.json()["code"] == "too_many_requests"
        assert res.json()["params"]["seconds"] >= 1


def test_uploads_waiting_at_once_are_capped(tmp_path):
    with make_client(tmp_path, budgets={"uploads": [100, 1]}) as c:
        first = upload_file(c, "heroes_minchy_llabba_13pt.mat").json()  # hundreds of actions: still analysing
        res = upload_file(c, SMALL)
        assert res.status_code == 429 and res.json()["code"] == "too_many_requests"
        follow(c, first["id"])
        assert upload_file(c, SMALL).status_code == 200  # its place was given back


def test_the_review_waits_for_the_analysis_and_unknown_ids_are_404(client):
    up = upload_file(client, "heroes_moderntavla31_llabba_9pt.mat").json()
    res = client.get(f"/api/uploads/{up['id']}/review")
    assert res.status_code == 409 and res.json()["code"] == "upload_not_ready"
    assert res.json()["params"]["name"] == "heroes_moderntavla31_llabba_9pt.mat"
    for bad in ("up-" + "0" * 24, "nope", "../etc/passwd"):
        assert client.get(f"/api/uploads/{bad}").status_code == 404
        assert client.get(f"/api/uploads/{bad}/review").status_code == 404


def test_an_account_lists_its_uploads_and_is_given_its_side(client):
    assert client.get("/api/uploads").json() == []  # a guest: its browser keeps the ids
    assert client.post("/api/register", json={"username": "lasse", "password": "a long passphrase"}).status_code == 200
    up = upload_file(client, SMALL).json()
    assert up["side"] == "Black"  # lasse sat on the right: Black in the review
    listed = client.get("/api/uploads").json()
    assert [u["id"] for u in listed] == [up["id"]]
    other = upload_file(client, "heroes_minchy_llabba_13pt.mat").json()
    assert other["side"] is None  # Llabba and Minchy: not this account
    client.post("/api/logout")
    assert client.get("/api/uploads").json() == []


def test_the_progress_socket_refuses_other_sites_and_unknown_uploads(client):
    from starlette.websockets import WebSocketDisconnect

    up = upload_file(client, SMALL).json()
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"/ws/uploads/{up['id']}", headers={"origin": "https://evil.example"}) as ws:
            ws.receive_json()
    with client.websocket_connect("/ws/uploads/up-" + "0" * 24) as ws:
        doc = ws.receive_json()
        assert doc["type"] == "error" and doc["status"] == 404


def test_the_page_is_served_and_linked_from_the_header(client):
    res = client.get("/upload")
    assert res.status_code == 200 and "upload.js" in res.text
    assert '"/upload"' in (STATIC / "sitenav.js").read_text()


def test_every_upload_code_is_worded_in_english_and_japanese():
    source = Path(uploads.__file__).read_text()
    codes = set(re.findall(r'"(upload_[a-z_]+)"', source))
    assert {"upload_too_large", "upload_unreadable", "upload_no_games", "upload_not_ready"} <= codes
    text = (STATIC / "i18n.js").read_text()
    en, ja = text[text.index("  en: {") : text.index("  ja: {")], text[text.index("  ja: {") :]
    for code in codes:
        assert re.search(rf"^    err_{code}:", en, re.MULTILINE), code
        assert re.search(rf"^    err_{code}:", ja, re.MULTILINE), code


def test_puzzles_come_from_the_accounts_side_of_its_uploaded_matches(client):
    """An account's uploaded match gives puzzles from the mistakes of the side it played (its name,
    or the side it chose), answered like a table's; nobody else sees them."""
    assert client.post("/api/register", json={"username": "lasse", "password": "a long passphrase"}).status_code == 200
    up = upload_file(client, "galaxy_match1032950.mat").json()
    assert up["side"] == "Black" and up["account"] is True  # lasse sat on the right: Black in the review
    assert follow(client, up["id"])[-1]["status"] == "done"
    review = client.get(f"/api/uploads/{up['id']}/review").json()
    mistakes = {
        f"{up['id']}.{d['game']}.{d['index']}": d
        for d in review["decisions"]
        if d["player"] == "Black" and d["grade"] != "good" and not d["forced"]
    }
    assert mistakes  # lasse made some in this match (the review of the upload page shows them)
    listed = client.get("/api/puzzles?limit=100").json()
    assert {p["id"] for p in listed["puzzles"]} == set(mistakes)
    # a play puzzle, answered with the review's best play: right at the first try
    pid, d = next((pid, d) for pid, d in mistakes.items() if d["kind"] == "play")
    puzzle = client.get(f"/api/puzzles/{pid}").json()
    assert puzzle["player"] == "Black" and puzzle["dice"] == d["dice"]
    answer = client.post(f"/api/puzzles/{pid}/answer", json={"play": d["best"]}).json()
    assert answer["correct"] and answer["done"] and answer["status"] == "first_try"
    # the other side chosen instead: White's mistakes, and the answered one is gone from the list
    res = client.put(f"/api/uploads/{up['id']}", json={"side": "White"})
    assert res.status_code == 200 and res.json()["side"] == "White"
    whites = {p["id"] for p in client.get("/api/puzzles?limit=100").json()["puzzles"]}
    assert whites and not whites & set(mistakes)
    assert client.get(f"/api/puzzles/{pid}").status_code == 404
    assert client.put(f"/api/uploads/{up['id']}", json={"side": "Red"}).status_code == 400
    # another account (or a guest) neither sees the puzzles nor sets the side
    client.post("/api/logout")
    assert client.put(f"/api/uploads/{up['id']}", json={"side": "Black"}).status_code == 404
    client.post("/api/register", json={"username": "someone", "password": "another long passphrase"})
    assert client.get("/api/puzzles").json()["puzzles"] == []
    assert client.put(f"/api/uploads/{up['id']}", json={"side": "Black"}).status_code == 404
    assert client.get(f"/api/puzzles/{next(iter(whites))}").status_code == 404


def test_a_guests_old_uploads_go_an_accounts_stay(client, tmp_path):
    import datetime

    from sqlalchemy import create_engine, text

    from backgammon.server.uploads import GUEST_DAYS

    guest = upload_file(client, SMALL).json()
    client.post("/api/register", json={"username": "keeper", "password": "a long passphrase"})
    kept = upload_file(client, SMALL).json()
    follow(client, guest["id"])
    follow(client, kept["id"])
    long_ago = datetime.datetime.now() - datetime.timedelta(days=GUEST_DAYS + 1)
    engine = create_engine(f"sqlite:///{tmp_path / 'backgammon.sqlite3'}")  # the client's data folder
    with engine.begin() as db:
        db.execute(text("UPDATE uploads SET created_at = :t"), {"t": long_ago})
    engine.dispose()
    fresh = upload_file(client, SMALL).json()  # the next upload clears a guest's old ones
    assert client.get(f"/api/uploads/{guest['id']}").status_code == 404
    assert client.get(f"/api/uploads/{kept['id']}").status_code == 200
    assert client.get(f"/api/uploads/{fresh['id']}").status_code == 200


@pytest.mark.parametrize(
    ("name", "source"),
    [("charlot_7pt.xg", "eXtreme Gammon"), ("charlot_7pt_gnubg_analysed.sgf", "GNU Backgammon")],
)
def test_the_files_own_analysis_is_kept_for_the_review(name, source):
    """XG's analysis in a real .xg and gnubg's in its SGF of the same match: each note sits on the
    action the review's decision of that key is about, and says whose numbers they are and their depth."""
    from backgammon.engine.analysis import match_games
    from backgammon.game import Beaver, Double, Move, Pass, Roll, Take

    read = read_upload((XG / name).read_bytes(), name)
    notes = read.file_analysis
    plays = {k: n for k, n in notes.items() if k.endswith(":play")}
    cubes = {k: n for k, n in notes.items() if not k.endswith(":play")}
    assert len(plays) > 100 and cubes, (len(plays), len(cubes))
    games = match_games(read.match)
    for key, note in notes.items():
        game, index, kind = key.split(":")
        action = games[int(game) - 1].log[int(index)]
        expected = {"play": (Move,), "cube": (Roll, Double), "take": (Take, Pass, Beaver)}[kind]
        assert isinstance(action, expected), (key, action)
        assert note["source"] == source and note["depth"], note
        if kind == "play":
            # gnubg's SGF says which kind its equities are (2C: cubeful); XG's files do not
            assert note["cubeful"] is (True if source == "GNU Backgammon" else None) and note["best"]
            assert note["error"] is None or note["error"] >= 0
        else:
            assert note["cubeful"] is True and note["best"] in ("no double", "double, take", "double, pass", "too good")
    # the review's decisions of those keys get the note; the others are left alone
    first = next(k for k in plays if k.startswith("1:"))
    review = {
        "decisions": [
            {"game": 1, "index": int(first.split(":")[1]), "kind": "play"},
            {"game": 1, "index": 0, "kind": "take"},
        ]
    }
    out = uploads.with_file_analysis(review, notes)
    assert out["decisions"][0]["file"] == plays[first] and "file" not in out["decisions"][1]
    assert out["file_sources"] == [source]


def test_a_file_without_analysis_adds_no_notes():
    read = read_upload((REAL / SMALL).read_bytes(), SMALL)
    assert read.file_analysis == {}
    review = uploads.with_file_analysis({"decisions": [{"game": 1, "index": 1, "kind": "play"}]}, {})
    assert review["file_sources"] == [] and "file" not in review["decisions"][0]
