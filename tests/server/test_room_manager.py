"""The one room model (issue 44 item 1): match tables and chouettes are adapters of
:class:`~backgammon.server.room_manager.RoomManager`, which holds the shared machinery once.

The structural tests keep the machinery from being said twice again; the others drive it through
both adapters: a forwarded request is checked before it runs, a room is read once however many ask
at the same time, and an idle room is dropped from memory and read again on the next request."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from backgammon.errors import InvalidInputError
from backgammon.position import Position
from backgammon.server.chouette_tables import ChouetteManager
from backgammon.server.db import database_url_for, open_database
from backgammon.server.room_manager import RoomManager
from backgammon.server.tables import TableManager

MACHINERY = {
    *("get", "_read", "_keep", "sweep", "forget", "_refresh", "_refresh_and_show", "_follow"),
    *("claim", "_take_over", "_hand_off", "_rest", "_in_room", "_answer", "_on_bus_reconnect"),
    *("act", "_act", "join", "connect", "disconnect", "_open", "publish", "_show"),
}
"""What every kind of room shares: no adapter defines any of it."""

ADAPTER_PART = {
    *("_runtime", "_replay", "_perform", "_join", "_message", "_seat_to_wire", "_seat_from_wire"),
    *("_active", "_needs_owner", "_jobs", "_busy", "_wake", "_applied", "_forwarded_other"),
    *("_also_follow", "_joined", "_left", "_loaded"),
}
"""The hooks an adapter fills in (each kind its own way)."""


def _methods(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items() if inspect.isfunction(value) or isinstance(value, property)}


def test_the_machinery_is_the_room_managers_alone():
    assert MACHINERY <= _methods(RoomManager)
    for adapter in (TableManager, ChouetteManager):
        assert issubclass(adapter, RoomManager)
        assert not _methods(adapter) & MACHINERY, adapter.__name__


def test_what_both_adapters_define_is_their_own_part():
    both = _methods(TableManager) & _methods(ChouetteManager)
    # create and _client_action: how each kind is built and what its players may do (their own rules)
    assert both <= ADAPTER_PART | {"__init__", "create", "_client_action"}, sorted(both - ADAPTER_PART)
    assert ADAPTER_PART <= _methods(RoomManager)


def _managers(tmp_path) -> tuple[TableManager, ChouetteManager]:
    tables = TableManager(open_database(database_url_for(tmp_path)), dice_seed=3)
    chouettes = ChouetteManager(tables.sessions, 3, False, 0.0, tables.store, tables.net)
    return tables, chouettes


def test_forwarded_requests_are_checked_before_they_run(tmp_path):
    async def scenario() -> list[str]:
        tables, chouettes = _managers(tmp_path)
        table, _seat, _token = await tables.create(mode="human", rules_doc={"match_length": 3})
        chouette, _token = await chouettes.create("Ann", [{"bot": None}] * 3)
        errors = []
        for manager, room, message in (
            (tables, table, {"kind": "bogus"}),
            (tables, table, {"kind": "act", "seat": "red", "message": {}}),
            (tables, table, {"kind": "act", "seat": "white", "message": "roll"}),
            (tables, table, {"kind": "join", "name": "Bob", "digest": "x", "user_id": "7"}),
            (chouettes, chouette, {"kind": "act", "seat": 3, "message": {}}),
            (chouettes, chouette, {"kind": "join", "name": None, "digest": "x"}),
        ):
            with pytest.raises(InvalidInputError) as caught:
                await manager._answer(room, message)
            errors.append(str(caught.value))
        assert table.version == 0 and table.status == "waiting"  # nobody joined, nothing was played
        assert [s["name"] for s in chouette.seats] == ["Ann", None, None]  # nobody was seated
        await chouettes.close()
        await tables.close()
        return errors

    errors = asyncio.run(scenario())
    assert errors[0] == "invalid forwarded request 'bogus'"
    assert "invalid seat 'red'" in errors[1]
    assert errors[2] == "invalid forwarded action" and errors[3] == "invalid forwarded join"
    assert errors[4] == "invalid forwarded request: no seat name" and errors[5] == "invalid forwarded join"


def test_a_room_is_read_once_and_an_idle_one_is_dropped_and_read_again(tmp_path):
    async def scenario() -> None:
        tables, chouettes = _managers(tmp_path)
        chouette, _token = await chouettes.create("Ann", [{"bot": None}] * 3)
        table, _seat, _token = await tables.create(mode="human", rules_doc={"match_length": 3})
        for manager, room in ((tables, table), (chouettes, chouette)):
            assert manager.sweep(room.used - 1) == 0  # used since: kept
            assert manager.sweep(room.used + 1) == 1 and room.id not in manager.tables
            reads = [manager.get(room.id) for _ in range(5)]
            again = await asyncio.gather(*reads)
            assert all(r is again[0] for r in again) and again[0] is not room  # one read, one copy
            assert manager.tables[room.id] is again[0] and again[0].version == room.version
            with pytest.raises(LookupError):
                await manager.get("no-such-room")
        with pytest.raises(LookupError):
            await tables.get(chouette.id)  # each manager reads only its own kind of row
        with pytest.raises(LookupError):
            await chouettes.get(table.id)
        await chouettes.close()
        await tables.close()

    asyncio.run(scenario())


def test_rest_bodies_and_socket_messages_are_one_model(tmp_path):
    """Both reach ``act`` and are checked against protocol.ActionBody: an unknown or malformed field is
    refused, naming it, before anything runs; a socket message's ``type`` is no field of the action."""

    async def scenario() -> list[str]:
        tables, chouettes = _managers(tmp_path)
        table, seat, _token = await tables.create(mode="ai", rules_doc={"match_length": 3}, level="greedy")
        errors = []
        for message in ({"action": "roll", "seat": "white"}, {"action": "move", "steps": [[24]]}, {"version": 0}):
            with pytest.raises(InvalidInputError) as caught:
                await tables.act(table, seat, message)
            errors.append(str(caught.value))
        with pytest.raises(InvalidInputError) as caught:  # past the model: the table's own rules answer
            await tables.act(table, seat, {"type": "action", "action": "fly", "version": table.version})
        errors.append(str(caught.value))
        await chouettes.close()
        await tables.close()
        return errors

    errors = asyncio.run(scenario())
    assert errors[0].startswith("invalid action seat")
    assert errors[1].startswith("invalid action steps.0")
    assert errors[2].startswith("invalid action action")
    assert errors[3].startswith("invalid action 'fly': expected one of")


def test_one_check_of_a_starting_position_for_both_kinds(tmp_path):
    """Tables and chouettes take a start (tests only) through RoomManager._check_start: a Position ID
    or ``{"position_id", "on_roll"}``; a chouette's box is always on roll."""
    late = Position.from_points({1: 2}, {6: 10}).position_id()

    async def scenario() -> list[str]:
        tables, chouettes = _managers(tmp_path)
        tables.test_hooks = chouettes.test_hooks = True
        table, _seat, _token = await tables.create(mode="human", rules_doc={}, start=late)
        assert table.config["start"] == {"position_id": late, "on_roll": "white"}
        chouette, _token = await chouettes.create("Ann", [{"bot": None}] * 3, start={"position_id": late})
        assert chouette.config["start"] == late
        errors = []
        for manager, start in (
            (tables, {"position_id": late, "on_roll": "red"}),
            (tables, {"position_id": late, "seat": "white"}),
            (tables, ["not", "a", "start"]),
            (chouettes, {"position_id": late, "on_roll": "black"}),
            (chouettes, 42),
        ):
            with pytest.raises(InvalidInputError) as caught:
                if manager is tables:
                    await tables.create(mode="human", rules_doc={}, start=start)
                else:
                    await chouettes.create("Ann", [{"bot": None}] * 3, start=start)
            errors.append(str(caught.value))
        tables.test_hooks = False
        with pytest.raises(InvalidInputError, match="test-hooks"):
            await tables.create(mode="human", rules_doc={}, start=late)
        await chouettes.close()
        await tables.close()
        return errors

    errors = asyncio.run(scenario())
    assert errors[0].startswith("invalid seat 'red'")
    assert all(e.startswith("invalid start") for e in errors[1:3]) and "Position ID or" in errors[1]
    assert errors[3].endswith("the box is on roll at a chouette") and errors[4].startswith("invalid start 42")
