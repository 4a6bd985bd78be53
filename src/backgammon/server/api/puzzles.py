"""Puzzles from the player's own errors: the page, the list, one puzzle and its answer
(the puzzles themselves: :mod:`backgammon.server.puzzles`)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from backgammon.errors import IllegalActionError, InvalidInputError
from backgammon.server import protocol
from backgammon.server.api.common import SESSION_COOKIE, body
from backgammon.server.app_state import AppState
from backgammon.server.assets import ASSETS
from backgammon.server.http_errors import HTTPError
from backgammon.server.protocol import shown
from backgammon.server.puzzles import (
    NEW_REVIEWS_PER_REQUEST,
    ORDERS,
    attempt_status,
    game_before,
    judge,
    list_puzzles,
    load_puzzle,
    parse_puzzle_id,
    puzzle_to_wire,
    record_try,
    setup_for,
    tries_allowed,
    unreviewed_tables,
    user_score,
)


def router(state: AppState) -> APIRouter:
    """The puzzle page and API. ``state``: the app's state (sessions, manager)."""
    read_body = body
    from backgammon.server.auth import session_user
    from backgammon.server.pools import run_engine
    from backgammon.server.study import review_table, store_review

    router = APIRouter()
    review_lock = asyncio.Lock()  # one listing at a time makes the missing reviews
    unreviewable: set[str] = set()  # finished tables whose review failed (not retried by this process)

    async def user_id_of(request: Request) -> int:
        user = await asyncio.to_thread(session_user, state["sessions"], request.cookies.get(SESSION_COOKIE))
        if user is None:
            raise HTTPError(401, "not logged in: log in to get puzzles from your own games")
        return int(user.id)

    async def make_missing_reviews(user_id: int) -> int:
        """Review up to :data:`NEW_REVIEWS_PER_REQUEST` of the user's finished tables; how many are left."""
        async with review_lock:
            pending = [
                t
                for t in await asyncio.to_thread(unreviewed_tables, state["sessions"], user_id)
                if t not in unreviewable
            ]
            for table_id in pending[:NEW_REVIEWS_PER_REQUEST]:
                try:
                    table = await state["manager"].get(table_id)
                    data = await run_engine(review_table, table)  # (engine work: its own pool)
                except (LookupError, IllegalActionError, InvalidInputError):
                    unreviewable.add(table_id)
                    continue
                await asyncio.to_thread(store_review, state["sessions"], table_id, data)
            return max(0, len(pending) - NEW_REVIEWS_PER_REQUEST)

    async def open_puzzle(user_id: int, puzzle_id: str) -> tuple[dict[str, Any], Any, Any]:
        from backgammon.server.uploads import is_upload_id, upload_as_table

        d, attempt = await asyncio.to_thread(load_puzzle, state["sessions"], user_id, puzzle_id)
        table_id = parse_puzzle_id(puzzle_id)[0]
        if is_upload_id(table_id):  # the uploaded file, read again (on the engine pool)
            table = await run_engine(upload_as_table, state["sessions"], table_id)
        else:
            table = await state["manager"].get(table_id)
        g = await asyncio.to_thread(game_before, table, d["game"], d["index"])
        return d, attempt, setup_for(g, d["player"])

    @router.get("/puzzles", include_in_schema=False)
    @router.get("/puzzles/{rest:path}", include_in_schema=False)
    async def puzzles_page(request: Request, rest: str = "") -> Response:
        return ASSETS.response("puzzles.html", request, page=True)

    @router.get("/api/puzzles")
    async def my_puzzles(
        request: Request, limit: protocol.PageLimit = 20, offset: protocol.PageOffset = 0, order: str = "newest"
    ) -> dict[str, Any]:
        """The logged-in player's puzzles, ``order`` newest (default) or biggest (error) first."""
        if order not in ORDERS:
            raise InvalidInputError(f"invalid order {shown(order)}: expected 'newest' or 'biggest'")
        user_id = await user_id_of(request)
        left = await make_missing_reviews(user_id)
        out = await asyncio.to_thread(list_puzzles, state["sessions"], user_id, order, limit, offset)
        out["unreviewed"] = left
        return out

    @router.get("/api/puzzles/{puzzle_id}")
    async def get_puzzle(puzzle_id: str, request: Request) -> dict[str, Any]:
        user_id = await user_id_of(request)
        d, attempt, setup = await open_puzzle(user_id, puzzle_id)
        return await asyncio.to_thread(puzzle_to_wire, puzzle_id, d, setup, attempt)

    @router.post("/api/puzzles/{puzzle_id}/answer")
    async def answer(puzzle_id: str, request: Request) -> dict[str, Any]:
        """Judge an answer; a play's first wrong answer gets a second try, a cube puzzle's none (two
        answers: the second would be free); then (or when right) the answer."""
        user_id = await user_id_of(request)
        doc = await read_body(request)
        d, _attempt, setup = await open_puzzle(user_id, puzzle_id)
        verdict = await run_engine(judge, d, setup, doc)
        allowed = tries_allowed(d["kind"])
        row = await asyncio.to_thread(record_try, state["sessions"], user_id, puzzle_id, verdict["correct"], allowed)
        # done when right or at the last try; a puzzle done before is judged again without counting
        done = verdict["correct"] or row.done
        out: dict[str, Any] = {
            "correct": verdict["correct"],
            "answer": verdict["answer"],
            "tries": row.tries,
            "done": done,
            "status": attempt_status(row),
            "score": await asyncio.to_thread(user_score, state["sessions"], user_id),
            "result": None,
        }
        if done:
            out["result"] = {k: verdict[k] for k in verdict if k not in ("correct", "answer")}
        return out

    return router
