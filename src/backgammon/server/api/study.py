"""The analysis board's routes: the study page, ``/api/study/...`` (positions read and analysed,
a clicked or typed play checked, lessons and their answers, reviews of finished tables) and the
rollouts streamed to the page (:func:`backgammon.server.rollouts.add_routes`). The domain is
:mod:`backgammon.server.study`; engine work runs on the engine pool within the client's budgets.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import or_, select

from backgammon.server import protocol, rollouts, study
from backgammon.server.api.common import body
from backgammon.server.app_state import AppState
from backgammon.server.assets import ASSETS
from backgammon.server.auth import session_user
from backgammon.server.db import Review, Table
from backgammon.server.pools import run_engine
from backgammon.server.protocol import shown
from backgammon.server.quotas import address_of

T = TypeVar("T")


def router(state: AppState) -> APIRouter:
    """The study API and page. ``state`` is the app's state (sessions, manager, quotas)."""
    router = APIRouter()
    read_body = body

    async def client(request: Request) -> tuple[str, int | None]:
        """The request's address and account (None for a guest): whom its budgets count against."""
        cookie = request.cookies.get("bg_session")
        user = await asyncio.to_thread(session_user, state["sessions"], cookie) if cookie else None
        return address_of(request), user.id if user is not None else None

    async def engine_work(kind: str, request: Request, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` on the engine pool within the client's budget of ``kind`` (quotas)."""
        with state["quotas"].start(kind, *await client(request)):
            return await run_engine(fn, *args)

    @router.get("/study", include_in_schema=False)
    @router.get("/study/{rest:path}", include_in_schema=False)
    async def study_page(request: Request, rest: str = "") -> Response:
        return ASSETS.response("study.html", request, page=True)

    @router.post("/api/study/parse")
    async def parse(request: Request) -> dict[str, Any]:
        doc = await read_body(request)
        return study.setup_to_wire(study.setup_from_text(doc.get("text")))

    @router.post("/api/study/setup")
    async def setup_ids(request: Request) -> dict[str, Any]:
        doc = await read_body(request)
        return study.setup_to_wire(study.parse_setup(doc.get("setup")))

    @router.post("/api/study/analyze")
    async def analyze_ep(request: Request) -> dict[str, Any]:
        doc = await read_body(request)
        setup, plies = study.parse_setup(doc.get("setup")), study.depth_of(doc.get("depth"))
        return await engine_work("analysis", request, study.analyze, setup, plies)

    @router.post("/api/study/check")
    async def check_ep(request: Request) -> dict[str, Any]:
        doc = await read_body(request)
        setup, plies = study.parse_setup(doc.get("setup")), study.depth_of(doc.get("depth"))
        return await engine_work(
            "analysis", request, study.tactical_check, setup, doc.get("play"), plies, doc.get("steps")
        )

    @router.post("/api/study/move")
    async def move_ep(request: Request) -> dict[str, Any]:
        doc = await read_body(request)
        return await asyncio.to_thread(study.clicked_move, study.parse_setup(doc.get("setup")), doc.get("steps"))

    rollouts.add_routes(router, state, read_body, client)

    @router.get("/api/study/lessons")
    async def lessons(lang: str | None = None) -> list[dict[str, Any]]:
        return study.lesson_list(study.lang_of(lang))

    @router.get("/api/study/lessons/{lesson_id}")
    async def lesson(lesson_id: str, lang: str | None = None) -> dict[str, Any]:
        return study.lesson_to_wire(lesson_id, study.lang_of(lang))

    @router.post("/api/study/lessons/{lesson_id}/exercises/{number}/answer")
    async def answer(lesson_id: str, number: int, request: Request) -> dict[str, Any]:
        doc = await read_body(request)
        lang = study.lang_of(doc.get("lang"))
        return await engine_work("analysis", request, study.lesson_answer, lesson_id, number, doc.get("answer"), lang)

    @router.get("/api/study/reviews")
    async def my_reviews(
        request: Request, limit: protocol.PageLimit = 50, offset: protocol.PageOffset = 0
    ) -> list[dict[str, Any]]:
        """The stored reviews of the logged-in user's tables, newest first (empty for a guest),
        ``limit`` rows from ``offset``."""

        def query() -> list[dict[str, Any]]:
            user = session_user(state["sessions"], request.cookies.get("bg_session"))  # expired: none
            if user is None:
                return []
            uid = user.id
            with state["sessions"]() as db:
                rows = db.execute(
                    select(Review.table_id, Review.created_at)
                    .join(Table, Table.id == Review.table_id)
                    .where(or_(Table.white_user_id == uid, Table.black_user_id == uid))
                    .order_by(Review.created_at.desc(), Review.table_id)
                    .offset(offset)
                    .limit(limit)
                ).all()
            return [{"table_id": tid, "created": created.isoformat()} for tid, created in rows]

        return await asyncio.to_thread(query)

    def review_part(data: dict[str, Any], decisions: bool) -> dict[str, Any]:
        """The review, or (``decisions=false``) its summary: players, games and their charts, without
        the decisions (nine tenths of its size; what the result of a match shows)."""
        return data if decisions else {key: value for key, value in data.items() if key != "decisions"}

    @router.get("/api/study/reviews/{table_id}")
    async def get_review(table_id: str, decisions: bool = True) -> dict[str, Any]:
        def query() -> dict[str, Any]:
            with state["sessions"]() as db:
                row = db.get(Review, table_id)
                if row is None:
                    raise LookupError(f"no review of table {shown(table_id)}")
                return json.loads(row.report) if isinstance(row.report, str) else row.report

        return review_part(await asyncio.to_thread(query), decisions)

    @router.post("/api/study/reviews/{table_id}")
    async def make_review(table_id: str, request: Request, decisions: bool = True) -> dict[str, Any]:
        table = await state["manager"].get(table_id)
        data = await engine_work("reviews", request, study.review_table, table)

        await asyncio.to_thread(study.store_review, state["sessions"], table_id, data)
        return review_part(data, decisions)

    return router
