"""A table's settings are typed in memory (TableConfig) and stored as the same JSON object as before."""

from __future__ import annotations

import pytest

from backgammon.errors import InvalidInputError
from backgammon.server.db import Table, database_url_for, open_database
from backgammon.server.table_config import TableConfig, check_clock

from .conftest import make_client

# stored objects as earlier versions wrote them (the key order of each kept as written)
OLD_ROWS = [
    {"mode": "human", "rules": {"match_length": 5}},  # before verifiable dice: no "dice"
    {"rules": {"match_length": 0, "jacoby": True}, "mode": "ai", "ai_seat": "black", "level": "expert"},
    {
        "mode": "human",
        "rules": {"match_length": 3},
        "clock": {"minutes": 5, "delay": 10},
        "dice": {"seed": "ab" * 32, "commitment": "cd" * 32},
        "rematch": "Xy12_abc",
    },
    {
        "mode": "human",
        "rules": {"match_length": 1},
        "held": {"seat": "black", "user_id": 7, "until": 1765000000.5},
        "start": {"position_id": "4HPwATDgc/ABMA", "on_roll": "white"},
        "note": "a key this version does not know",
    },
]


@pytest.mark.parametrize("doc", OLD_ROWS)
def test_every_stored_form_reads_and_writes_back_unchanged(doc):
    config = TableConfig.from_stored(doc)
    assert config.to_stored() == doc
    assert dict(config) == doc and config.get("clock") == doc.get("clock")  # the stored form, read-only
    assert config.mode == doc["mode"] and config.rules == doc["rules"]
    assert config.clock == doc.get("clock") and config.held == doc.get("held") and config.start == doc.get("start")


def test_a_rematch_keeps_the_settings_but_not_the_dice_the_link_or_the_hold():
    config = TableConfig.from_stored(OLD_ROWS[2])
    again = config.for_rematch()
    assert again.to_stored() == {"mode": "human", "rules": {"match_length": 3}, "clock": {"minutes": 5, "delay": 10}}
    assert TableConfig.from_stored(OLD_ROWS[1]).for_rematch().against_computer


def test_the_clock_is_checked():
    assert check_clock({"minutes": 3}) == {"minutes": 3, "delay": 10}
    for bad in ({"minutes": 0}, {"minutes": 3, "delay": 61}, {"minutes": True}, {"hours": 1}, [3, 10], None):
        with pytest.raises(InvalidInputError):
            check_clock(bad)


def test_an_old_row_still_loads_and_a_new_one_is_stored_as_before(tmp_path):
    with make_client(tmp_path) as client:
        made = client.post("/api/tables", json={"mode": "ai", "level": "beginner", "rules": {"match_length": 3}})
        assert made.status_code == 200, made.text
        sessions = open_database(database_url_for(tmp_path))
        with sessions() as db:
            stored = db.get(Table, made.json()["id"]).config
            assert set(stored) == {"mode", "rules", "ai_seat", "level", "dice"}
            assert stored["level"] == "beginner" and set(stored["dice"]) == {"seed", "commitment"}
            db.add(Table(id="old1", config=dict(OLD_ROWS[0]), white_name="Ann", listed=True, status="waiting"))
            db.commit()
        st = client.get("/api/tables/old1")
        assert st.status_code == 200, st.text
        assert st.json()["table"]["status"] == "waiting" and st.json()["table"]["rules"]["match_length"] == 5
        assert [t["id"] for t in client.get("/api/tables").json()] == ["old1"]
        with sessions() as db:
            assert db.get(Table, "old1").config == OLD_ROWS[0]  # read, not rewritten
