"""Statistics: a player's dice (``GET /api/dice-stats?name=...``, made by
:func:`backgammon.server.player_dice.player_report`; kept per name while no action was stored
since, or for :data:`~backgammon.server.player_dice.CACHE_SECONDS`)."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any

from fastapi import APIRouter, Request

from backgammon.server import player_dice
from backgammon.server.app_state import AppState
from backgammon.server.player_dice import CACHE_NAMES, CACHE_SECONDS, stored_version
from backgammon.server.pools import run_engine
from backgammon.server.quotas import address_of


def router(state: AppState) -> APIRouter:
    """``GET /api/dice-stats?name=...``."""
    api = APIRouter()
    cache: OrderedDict[str, tuple[int, float, dict[str, Any] | LookupError]] = OrderedDict()
    making: dict[str, asyncio.Future] = {}

    async def report(name: str, version: int, request: Request) -> dict[str, Any]:
        with state["quotas"].start("dice_stats", address_of(request)):
            try:
                return await run_engine(player_dice.player_report, state["sessions"], name)
            except LookupError as exc:
                cache[name] = (version, time.monotonic(), exc)
                raise

    @api.get("/api/dice-stats")
    async def dice_stats(request: Request) -> dict[str, Any]:
        name = player_dice.player_name(request.query_params.get("name"))
        version = await asyncio.to_thread(stored_version, state["sessions"])
        kept = cache.get(name)
        if kept is not None and (kept[0] == version or time.monotonic() - kept[1] < CACHE_SECONDS):
            cache.move_to_end(name)
            if isinstance(kept[2], LookupError):
                raise LookupError(*kept[2].args)
            return kept[2]
        if name in making:  # being made for another request: the same answer
            return await asyncio.shield(making[name])
        making[name] = future = asyncio.ensure_future(report(name, version, request))
        try:
            result = await asyncio.shield(future)
        finally:
            making.pop(name, None)
        cache[name] = (version, time.monotonic(), result)
        while len(cache) > CACHE_NAMES:
            cache.popitem(last=False)
        return result

    return api
