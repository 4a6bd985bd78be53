"""TableManager internals: stale computer replies are dropped, a stuck engine cannot hang a table,
and actions are stored before they are published."""

from __future__ import annotations

import asyncio
import json
import time

from sqlalchemy import func, select

from backgammon.game import GamePhase, Player
from backgammon.server.db import Action, database_url_for, open_database
from backgammon.server.rooms import Outbox
from backgammon.server.tables import TableManager


def _manager(tmp_path, bot_timeout: float = 300.0) -> TableManager:
    # a long limit: a loaded machine may compile the engine's kernels during the first turn
    manager = TableManager(open_database(database_url_for(tmp_path)), dice_seed=3, bot_timeout=bot_timeout)
    manager.bot_delay = 0.0
    return manager


async def _settle(table) -> None:
    """Wait until the computer has nothing left to do and the room's inbox is empty."""
    for _ in range(60000):
        busy = table.bot_task is not None and not table.bot_task.done()
        if not busy and table.room.idle:
            await asyncio.sleep(0.01)
            if (table.bot_task is None or table.bot_task.done()) and table.room.idle:
                return
        await asyncio.sleep(0.005)
    raise AssertionError("the table did not settle")


def test_stale_bot_reply_is_dropped(tmp_path):
    async def scenario():
        manager = _manager(tmp_path)
        table, seat, _token = await manager.create(
            mode="ai", rules_doc={"match_length": 3}, seat="black", level="beginner"
        )
        await _settle(table)
        # now it is black's turn (the human); pretend white had been asked to act at an older version
        version = table.version
        assert table.flow.game.turn is Player.BLACK
        await manager._bot_turn(table, version - 1)
        await _settle(table)
        assert table.version == version  # the stale answer was dropped
        await manager.close()
        return seat

    assert asyncio.run(scenario()) is Player.BLACK


class StuckAgent:
    """An engine that never answers in time (and would then play nonsense)."""

    def __getattr__(self, name):
        def slow(*args, **kwargs):
            time.sleep(2.0)
            raise RuntimeError("the engine broke")

        return slow


def test_a_stuck_engine_cannot_hang_the_table(tmp_path):
    """The computer's turn ends within the time limit: the quick player answers for it."""

    async def scenario():
        manager = _manager(tmp_path, bot_timeout=0.2)
        table, _seat, _token = await manager.create(
            mode="ai", rules_doc={"match_length": 1}, seat="black", level="beginner"
        )
        await _settle(table)
        table.agent = StuckAgent()
        human = Player.BLACK
        start = time.monotonic()
        for _ in range(6):  # a few turns each: the computer keeps answering
            await _settle(table)
            game = table.flow.game
            if table.is_over:
                break
            assert game.turn is human, game.describe()
            if game.phase is GamePhase.ROLL:
                await manager.act(table, human, {"action": "roll"})
            elif game.phase is GamePhase.MOVE:
                play = game.legal_plays[0]
                await manager.act(table, human, {"action": "move", "play": str(play) if play.steps else ""})
            else:
                break
        elapsed = time.monotonic() - start
        computer_actions = sum(1 for turn in table.turns if turn is Player.WHITE)
        await manager.close()
        return computer_actions, elapsed

    computer_actions, elapsed = asyncio.run(scenario())
    assert computer_actions >= 4
    assert elapsed < 60  # a hung table would never get here; generous for a loaded machine


def test_store_before_publish(tmp_path):
    async def scenario():
        manager = _manager(tmp_path)
        table, _seat, _token = await manager.create(mode="human", rules_doc={"match_length": 3}, name="Ann")
        seen = []

        async def send(text):
            doc = json.loads(text)
            with manager.sessions() as db:
                stored = db.scalar(select(func.count()).select_from(Action).where(Action.table_id == table.id))
            seen.append((doc["state"]["version"], stored))

        async def close():
            pass

        manager.connect(table, Outbox(send, close, None))
        await manager.join(table.id, "Bob", None)
        mover = table.flow.game.turn
        play = table.flow.game.legal_plays[0]
        steps = [[s.source, s.destination] for s in play.steps]
        await manager.act(table, mover, {"action": "move", "steps": steps})
        await asyncio.sleep(0.05)
        await manager.close()
        return seen

    seen = asyncio.run(scenario())
    assert len(seen) >= 3 and all(stored >= version for version, stored in seen)


def test_finished_tables_leave_memory(tmp_path):
    async def scenario():
        manager = _manager(tmp_path)
        table, _seat, _token = await manager.create(mode="human", rules_doc={"match_length": 1}, name="Ann")
        await manager.join(table.id, "Bob", None)
        turn = table.flow.game.turn
        if table.flow.game.phase is GamePhase.MOVE:
            pass
        await manager.act(table, turn, {"action": "resign", "level": "single"})
        await manager.act(table, turn.other, {"action": "accept_resignation"})
        assert table.is_over
        manager.forget(table)
        gone = table.id not in manager.tables
        again = await manager.get(table.id)  # read for viewing, not kept
        kept = table.id in manager.tables
        await manager.close()
        return gone, again.is_over, kept

    assert asyncio.run(scenario()) == (True, True, False)
