"""Names and passwords (issue 42, item 6): names are compared by NFKC, case folding and Unicode
TR39's confusables skeleton, so a guest cannot pass for a registered player with look-alike
letters; reserved names are refused to accounts and guests; passwords are at least 8 characters,
not among the most common ones and do not contain the username."""

from __future__ import annotations

import warnings

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import sessionmaker

from backgammon.errors import InvalidInputError
from backgammon.server import auth
from backgammon.server.auth import check_password, common_password, name_skeleton
from backgammon.server.db import User

warnings.filterwarnings("ignore", message=".*cookies.*")
PW = "pw-123456"


def _register(client, name: str, password: str = PW):
    return client.post("/api/register", json={"username": name, "password": password})


def _code(r) -> str | None:
    return r.json().get("code")


@pytest.mark.parametrize(
    "look_alike",
    [
        "\u0410nn",  # Cyrillic capital A
        "\uff41\uff4e\uff4e",  # full-width
        "A\u200dnn",  # a zero-width joiner inside
        "\u1d00nn",  # small capital A
        "ANN",
    ],
)
def test_skeleton_of_look_alikes(look_alike):
    assert name_skeleton(look_alike) == name_skeleton("Ann")


def test_skeleton_tells_different_names_apart():
    assert name_skeleton("Ann") != name_skeleton("Anna")
    assert name_skeleton("Bob") != name_skeleton("Rob")
    assert name_skeleton("\u0131an") == name_skeleton("ian")  # dotless i
    assert name_skeleton("p0lly") == name_skeleton("polly")  # digit zero


def test_the_username_skeleton_in_sql_matches_python(client, tmp_path):
    """The SQL form of the skeleton (lower and replace) agrees with name_skeleton on every
    character a username may hold."""
    chars = "abcdefghijklmnopqrstuvwxyz0123456789_-"
    names = ["x" + chars[i : i + 9].upper() + chars[i : i + 9] for i in range(0, len(chars), 9)]
    for name in names:
        assert _register(client, name).status_code == 200, name
        client.post("/api/logout")
    sessions = sessionmaker(create_engine(f"sqlite:///{tmp_path / 'backgammon.sqlite3'}"))
    with sessions() as db:
        rows = db.execute(select(User.username, auth._username_skeleton_sql())).all()
    assert sorted(rows) == sorted((name, name_skeleton(name)) for name in names)
    found = auth.user_like(sessions, "x\u0410BCDEFGHI\u0430bcdefghi")  # Cyrillic A and a
    assert found is not None and found.username == names[0]


def test_guests_cannot_take_look_alikes_of_a_registered_name(client):
    assert _register(client, "Ann").status_code == 200
    client.post("/api/logout")
    for name in (
        "\u0410nn",
        "\u0391nn",
        "A\u200dnn",
        "\u1d00nn",
        "\u0391\u039d\u039d",
    ):  # Cyrillic, Greek, ZWJ, small capital
        r = client.post("/api/tables", json={"mode": "human", "name": name})
        assert r.status_code == 409, (name, r.text)
        assert _code(r) == "name_taken_lookalike" and r.json()["params"] == {"name": "Ann"}, r.text
    for name in ("ann", "\uff41\uff4e\uff4e"):  # the name itself, any case and width
        r = client.post("/api/tables", json={"mode": "human", "name": name})
        assert r.status_code == 409 and _code(r) == "name_registered"
    host = client.post("/api/tables", json={"mode": "human", "name": "Bob"}).json()
    r = client.post(f"/api/tables/{host['id']}/join", json={"name": "\u0430nn"})  # Cyrillic small a
    assert r.status_code == 409 and _code(r) == "name_taken_lookalike"
    assert client.post("/api/tables", json={"mode": "human", "name": "Anna"}).status_code == 200


def test_accounts_cannot_take_look_alikes(client):
    assert _register(client, "polly").status_code == 200
    client.post("/api/logout")
    r = _register(client, "p0lly")
    assert r.status_code == 409 and _code(r) == "name_taken_lookalike" and r.json()["params"] == {"name": "polly"}
    r = _register(client, "POLLY")
    assert r.status_code == 409 and _code(r) == "username_taken"
    assert _register(client, "molly").status_code == 200


@pytest.mark.parametrize("name", ["admin", "ADMIN", "r00t", "SYSTEM", "computer", "moderator", "guest"])
def test_reserved_usernames(client, name):
    r = _register(client, name)
    assert r.status_code == 400 and _code(r) == "reserved_username", r.text


@pytest.mark.parametrize(
    "name", ["admin", "System", "Computer", "\u0421omputer", "AI (world_class)", "コンピューター", "root"]
)
def test_reserved_guest_names(client, name):
    r = client.post("/api/tables", json={"mode": "human", "name": name})
    assert r.status_code == 400 and _code(r) == "reserved_username", r.text


@pytest.mark.parametrize("name", ["Guest", "ゲスト", "guest"])
def test_the_default_guest_names_stay_free(client, name):
    assert client.post("/api/tables", json={"mode": "human", "name": name}).status_code == 200


@pytest.mark.parametrize(
    ("password", "code"),
    [
        ("pw-123", "invalid_password"),
        ("1234567", "invalid_password"),
        ("12345678", "common_password"),
        ("password", "common_password"),
        ("PassWord1", "common_password"),
        ("dragon2024!", "common_password"),
        ("aaaaaaaa", "common_password"),
        ("        ", "common_password"),
        ("iamquentin!", "password_has_name"),
        ("QUENTIN-2026", "password_has_name"),
    ],
)
def test_weak_passwords_refused_with_their_codes(client, password, code):
    r = _register(client, "quentin", password)
    assert r.status_code == 400 and _code(r) == code, r.text
    if code == "invalid_password":
        assert r.json()["params"] == {"min": 8}


def test_good_passwords_accepted(client):
    assert _register(client, "rita", "correct horse battery").status_code == 200
    with pytest.raises(InvalidInputError):
        check_password("short")
    assert check_password("pw-123456", "rita") == "pw-123456"
    assert not common_password("pw-123456")
    assert common_password("Qwerty123")
