"""TableManager internals: stale computer replies are dropped; actions are stored before broadcast."""

from __future__ import annotations

import asyncio

from backgammon.game import Player
from backgammon.server.db import database_url_for, open_database
from backgammon.server.tables import TableManager


class FakeSocket:
    def __init__(self, manager, table):
        self.manager, self.table, self.seen = manager, table, []

    async def send_json(self, doc):
        # when a broadcast arrives, the action is already in the database
        from sqlalchemy import func, select

        from backgammon.server.db import Action

        with self.manager.sessions() as db:
            stored = db.scalar(select(func.count()).select_from(Action).where(Action.table_id == self.table.id))
        self.seen.append((doc["state"]["version"], stored))


def _manager(tmp_path) -> TableManager:
    manager = TableManager(open_database(database_url_for(tmp_path)), dice_seed=3)
    manager.bot_delay = 0.0
    return manager


def test_stale_bot_reply_is_dropped(tmp_path):
    async def scenario():
        manager = _manager(tmp_path)
        table, seat, _token = manager.create(mode="ai", rules_doc={"match_length": 3}, seat="black", level="beginner")
        async with table.lock:
            await manager._after_action(table)  # opening roll; the computer (white) may be to act
        if table.bot_task:
            await table.bot_task
        # now it is black's turn (the human); pretend white had been asked to act at an older version
        version = table.version
        assert table.flow.game.turn is Player.BLACK
        await manager._bot_turn(table, version - 1)
        assert table.version == version  # the stale answer was dropped
        return seat

    assert asyncio.run(scenario()) is Player.BLACK


def test_store_before_broadcast(tmp_path):
    async def scenario():
        manager = _manager(tmp_path)
        table, _seat, _token = manager.create(mode="human", rules_doc={"match_length": 3}, name="Ann")
        socket = FakeSocket(manager, table)
        table.sockets[socket] = None
        await manager.join(table.id, "Bob", None)
        mover = table.flow.game.turn
        play = table.flow.game.legal_plays[0]
        steps = [[s.source, s.destination] for s in play.steps]
        await manager.act(table, mover, {"action": "move", "steps": steps})
        return socket.seen

    seen = asyncio.run(scenario())
    assert seen and all(stored >= version for version, stored in seen)
