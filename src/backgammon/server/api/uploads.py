"""Analyse my matches: the upload page, ``/api/uploads`` and the progress socket ``/ws/uploads/{id}``.

The domain (reading a match file, the stored rows, the analyses in the background, the wire form)
is :mod:`backgammon.server.uploads`; these routes take the requests to it. The analyses of this
process are kept in ``state["uploads"]`` (made at the first use, closed with the app).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime as _dt
import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, FastAPI, Request, WebSocket
from fastapi.responses import Response
from sqlalchemy import delete, select

from backgammon.errors import InvalidInputError
from backgammon.server import protocol, uploads
from backgammon.server.api.common import current_user
from backgammon.server.app_state import AppState
from backgammon.server.assets import ASSETS
from backgammon.server.db import User, utcnow
from backgammon.server.protocol import shown
from backgammon.server.uploads import Upload, UploadJobs


def router(state: AppState) -> APIRouter:
    """The upload page, its API and its progress socket. ``state``: the app's state (sessions,
    quotas)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # (inside the app's own lifespan: the database is open; the analyses stop before it closes)
        yield
        if "uploads" in state:
            await state["uploads"].close()

    api = APIRouter(lifespan=lifespan)

    @api.get("/upload", include_in_schema=False)
    async def upload_page(request: Request) -> Response:
        return ASSETS.response("upload.html", request, page=True)

    @api.post("/api/uploads")
    async def upload(request: Request) -> dict[str, Any]:
        """Take one match file: read it (off the event loop), keep it and start its analysis."""
        return await _accept(state, request)

    @api.get("/api/uploads")
    async def my_uploads(
        request: Request, limit: protocol.PageLimit = 20, offset: protocol.PageOffset = 0
    ) -> list[dict[str, Any]]:
        """The logged-in player's uploads, newest first (a guest has none listed: its browser keeps its ids)."""
        user = await current_user(state, request)
        if user is None:
            return []

        def query() -> list[Upload]:
            with state["sessions"]() as db:
                return list(
                    db.scalars(
                        select(Upload)
                        .where(Upload.user_id == user.id)
                        .order_by(Upload.created_at.desc(), Upload.id)
                        .offset(offset)
                        .limit(limit)
                    ).all()
                )

        return [uploads.upload_to_wire(row, _jobs(state).jobs.get(row.id)) for row in await asyncio.to_thread(query)]

    @api.get("/api/uploads/{upload_id}")
    async def get_upload(upload_id: str) -> dict[str, Any]:
        return await _wire_of(state, upload_id)

    @api.put("/api/uploads/{upload_id}")
    async def set_side(upload_id: str, request: Request) -> dict[str, Any]:
        """``{"side": "White"|"Black"|null}``: which player of the match the account was (its
        puzzles come from that side's mistakes). Only the account that uploaded it (else 404)."""
        doc = protocol.parse_json_object(await request.body(), "request body")
        side = doc.get("side")
        if side not in ("White", "Black", None):
            raise InvalidInputError(f"invalid side {shown(side)}: expected 'White', 'Black' or null")
        user = await current_user(state, request)

        def write() -> Upload:
            with state["sessions"]() as db:
                row = db.get(Upload, uploads.check_id(upload_id))
                if row is None or user is None or row.user_id != user.id:
                    raise LookupError(f"no upload {shown(upload_id)} of yours")
                row.side = side
                db.commit()
                return row

        row = await asyncio.to_thread(write)
        return uploads.upload_to_wire(row, _jobs(state).jobs.get(upload_id))

    @api.get("/api/uploads/{upload_id}/review")
    async def get_review(upload_id: str, decisions: bool = True) -> dict[str, Any]:
        """The finished review (the shape of a table's); 409 ``upload_not_ready`` before."""
        row = await asyncio.to_thread(_load, state, upload_id)
        wire = uploads.upload_to_wire(row, _jobs(state).jobs.get(upload_id))
        if wire["status"] != "done" or row.report is None:
            raise uploads.not_ready(row.name, wire["status"])
        data = json.loads(row.report) if isinstance(row.report, str) else dict(row.report)
        data["upload"] = wire
        if not decisions:
            data.pop("decisions", None)
        return data

    @api.websocket("/ws/uploads/{upload_id}")
    async def follow(websocket: WebSocket, upload_id: str) -> None:
        await _stream_upload(state, websocket, upload_id)

    return api


def _jobs(state: AppState) -> UploadJobs:
    """The app's analyses (``state["uploads"]``, made at the first use)."""
    if "uploads" not in state:
        state["uploads"] = UploadJobs(state["sessions"])
    jobs: UploadJobs = state["uploads"]
    return jobs


def _load(state: AppState, upload_id: str) -> Upload:
    """The stored upload (a LookupError when there is none)."""
    with state["sessions"]() as db:
        row = db.get(Upload, uploads.check_id(upload_id))
    if row is None:
        raise LookupError(f"no upload {shown(upload_id)}")
    return row


async def _wire_of(state: AppState, upload_id: str) -> dict[str, Any]:
    """The upload's wire form (its job's progress when it is analysed here)."""
    row = await asyncio.to_thread(_load, state, upload_id)
    return uploads.upload_to_wire(row, _jobs(state).jobs.get(upload_id))


async def _accept(state: AppState, request: Request) -> dict[str, Any]:
    """``POST /api/uploads``: read the match file (off the event loop), keep it and start its analysis."""
    from backgammon.server.pools import run_engine
    from backgammon.server.quotas import address_of, client_key

    # (the body limit of this path is uploads.BODY_LIMIT: uploads.BODY_LIMITS, given to the app's body limit)
    body = await request.body()
    name, raw = await asyncio.to_thread(
        lambda: uploads.decode_upload(protocol.parse_json_object(body, "upload", limit=uploads.BODY_LIMIT))
    )
    user: User | None = await current_user(state, request)
    address, user_id = address_of(request), (user.id if user is not None else None)
    ticket = state["quotas"].start("uploads", address, user_id)  # given back when its analysis ends
    try:
        read = await run_engine(uploads.read_upload, raw, name)
        upload_id = uploads.ID_PREFIX + secrets.token_hex(12)
        total = sum(len(g.log) for g in uploads.games_of(read.match))
        uploads.check_length(name, total)
        row = Upload(
            id=upload_id,
            user_id=user_id,
            created_at=utcnow(),
            updated_at=utcnow(),
            name=name[:120],
            format=read.format[:8],
            text=base64.b64encode(raw).decode("ascii"),
            summary=uploads.summary_of(read),
            side=uploads.side_of(read.players, user.username if user is not None else None),
            status="queued",
            done=0,
            total=total,
        )

        def store() -> None:
            with state["sessions"]() as db:
                db.add(row)
                # a guest's uploads are kept GUEST_DAYS (nobody lists them; their links stop working)
                cutoff = utcnow() - _dt.timedelta(days=uploads.GUEST_DAYS)
                db.execute(delete(Upload).where(Upload.user_id.is_(None), Upload.created_at < cutoff))
                db.commit()

        await asyncio.to_thread(store)
    except BaseException:
        ticket.release()
        raise
    job = uploads.Job(upload_id, client_key(address, user_id), read.match, total, file_analysis=read.file_analysis)
    _jobs(state).start(job, ticket)
    return uploads.upload_to_wire(row, job)


async def _stream_upload(state: AppState, websocket: WebSocket, upload_id: str) -> None:
    """Push ``{"type": "upload", "upload": ...}`` at once, when the analysis moves and when it
    ends; then close (:func:`~backgammon.server.sockets.follow_job`). Another process's upload is
    read from the database once a second."""
    from backgammon.server.sockets import Followed, follow_job

    async def load() -> Followed:
        row = await asyncio.to_thread(_load, state, upload_id)  # (an unknown upload: LookupError)
        job = _jobs(state).jobs.get(upload_id)

        async def wire() -> dict[str, Any]:
            # analysed here: its progress in memory; else (or once it is finished) its stored row
            running = _jobs(state).jobs.get(upload_id)
            return uploads.upload_to_wire(row, running) if running is not None else await _wire_of(state, upload_id)

        return Followed(
            "upload",
            wire,
            lambda wire: wire["status"] in ("done", "failed"),
            job.watchers if job is not None else None,
            poll=1.0,
        )

    await follow_job(websocket, state["quotas"], load)
