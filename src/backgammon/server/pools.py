"""The server's worker threads, in two bounded pools, so that engine work never delays the rest.

- the **engine pool** (:func:`run_engine`, ``engine_threads`` threads named ``engine-N``): the
  computer's thinking, hints, analysis, reviews, dice statistics (replays of stored tables) and
  anything else that takes a CPU for a tenth of a second or more. Work beyond its threads waits in
  its queue, and only there.
- the **database pool** (``db_threads`` threads named ``db-N``): installed as the event loop's
  default executor, so every ``asyncio.to_thread`` of the server (session lookups, table reads,
  lobby queries) runs there and never queues behind engine work.

Password hashing has a pool of its own (:mod:`backgammon.server.auth`) and rollouts theirs
(:class:`backgammon.server.rollouts.RolloutJobs`). One server process has one engine pool (the
module's); :func:`configure` sizes it at start.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

ENGINE_THREADS = max(1, min(8, (os.cpu_count() or 2) - 1))
"""Threads of the engine pool by default (``serve --engine-threads``): a core less than the machine
has (the event loop keeps one), 1 to 8. The engine's kernels release the GIL, its Python between
them does not: more threads than cores only lengthen the loop's waits."""
DB_THREADS = 8
"""Threads of the database pool by default (``serve --db-threads``)."""

_lock = threading.Lock()
_engine: ThreadPoolExecutor | None = None
_engine_size = ENGINE_THREADS


def configure(engine_threads: int = ENGINE_THREADS) -> None:
    """Size the engine pool (a pool of another size is replaced; its running work finishes)."""
    global _engine, _engine_size
    if engine_threads < 1:
        raise ValueError(f"engine_threads must be at least 1, not {engine_threads}")
    with _lock:
        if engine_threads != _engine_size and _engine is not None:
            _engine.shutdown(wait=False)
            _engine = None
        _engine_size = engine_threads


def engine_pool() -> ThreadPoolExecutor:
    """The engine pool (made on first use)."""
    global _engine
    with _lock:
        if _engine is None:
            _engine = ThreadPoolExecutor(max_workers=_engine_size, thread_name_prefix="engine")
        return _engine


def engine_threads() -> int:
    """How many threads the engine pool has."""
    return _engine_size


async def run_engine(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` on the engine pool (the caller awaits; the event loop goes on)."""
    call = functools.partial(fn, *args, **kwargs) if kwargs else functools.partial(fn, *args)
    return await asyncio.get_running_loop().run_in_executor(engine_pool(), call)


def install_db_pool(loop: asyncio.AbstractEventLoop, threads: int = DB_THREADS) -> ThreadPoolExecutor:
    """Make a pool of ``threads`` threads named ``db-N`` the loop's default executor (what
    ``asyncio.to_thread`` uses) and return it (the caller shuts it down at the end)."""
    pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="db")
    loop.set_default_executor(pool)
    return pool


def on_engine_thread() -> bool:
    """Whether the calling thread is one of the engine pool's."""
    return threading.current_thread().name.startswith("engine")
