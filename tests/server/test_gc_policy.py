"""The server's garbage-collector policy (app._age_garbage_scans): survivors are frozen every
GC_FREEZE_EVERY seconds, and a periodic full collection still frees reference cycles among them."""

from __future__ import annotations

import asyncio
import gc
import weakref

from backgammon.server import app


class _Node:
    pass


def test_survivors_are_frozen_and_frozen_cycles_are_freed_by_the_full_collection(monkeypatch):
    monkeypatch.setattr(app, "GC_FREEZE_EVERY", 0.01)
    monkeypatch.setattr(app, "GC_FULL_EVERY", 0.3)

    async def main():
        gc.disable()  # (no automatic collection may free the cycle before it is frozen)
        task = asyncio.create_task(app._age_garbage_scans())
        try:
            cycle = _Node()
            cycle.me = cycle  # a reference cycle: only the cyclic collector frees it
            alive = weakref.ref(cycle)
            del cycle
            await asyncio.sleep(0.05)
            assert gc.get_freeze_count() > 0
            gc.collect()  # a plain collection does not see frozen objects
            assert alive() is not None
            for _ in range(100):  # the full collection comes within GC_FULL_EVERY
                await asyncio.sleep(0.02)
                if alive() is None:
                    break
            assert alive() is None
        finally:
            task.cancel()
            gc.unfreeze()
            gc.enable()

    asyncio.run(main())
