"""Analyse my matches: match files a player uploads, replayed, analysed on the engine pool, reviewed.

The page ``/upload`` sends each file (or pasted text) on its own, as JSON (``POST /api/uploads``:
the file's bytes in base64, at most :data:`MAX_FILE_BYTES`). The server

1. refuses a file over the limit before anything else (413 ``upload_too_large``);
2. counts it against the client's ``uploads`` budget (:mod:`backgammon.server.quotas`: so many an
   hour, so many waiting or running at once, per account or guest address and per address);
3. reads and replays it on the engine pool, never on the event loop (:func:`read_upload`, through
   the formats' one entry for match files, ``backgammon.formats.read_match_file``: ``.mat`` in every
   dialect, gnubg's ``.sgf``, XG's ``.xg``): a file the readers refuse, or that holds no game, is a
   400 with a code and the file's name (``upload_unreadable``, ``upload_no_games``,
   ``upload_position_file``, ``upload_not_text``...), never a 500; what the tolerant readers only
   warn about (a corrupt result, a forfeit the rules cannot express...) is kept with the upload and
   shown; a match with an error is analysed up to it;
4. stores it (``uploads``, migration 0006) and analyses it in the background, one upload at a time
   per client, one game per call on the engine pool (other engine work goes on between games).
   Progress is pushed on ``/ws/uploads/{id}`` (``{"type": "upload", "upload": ...}`` when it
   moves, a few times a second at most; the last push is the result), and readable by
   ``GET /api/uploads/{id}``. The finished review has the shape of a table's review
   (:func:`backgammon.server.study.review_table`), so the study page's review shows it:
   ``/study/review/<upload id>`` (chart, PR, biggest mistakes).

Uploads are found by their id (random, 96 bits), like tables; an account lists its own
(``GET /api/uploads``), a guest's browser keeps the ids it made. The routes are
:mod:`backgammon.server.api.uploads`.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import datetime as _dt
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.server.db import Base, utcnow
from backgammon.server.http_errors import HTTPError, error_info
from backgammon.server.protocol import shown

log = logging.getLogger("backgammon.server")

MAX_FILE_BYTES = 512 * 1024
"""The largest file taken (524,288 bytes). A 25-point match written by Galaxy or gnubg is about
20 kB as ``.mat``; XG's ``.xg`` files, which carry XG's analysis, are 100 to 160 kB for 7 points."""
BODY_LIMIT = 4 * (MAX_FILE_BYTES // 3 + 1) + 4096
"""The largest body of ``POST /api/uploads``: the file in base64 and its name (every other request
has ``protocol.MAX_BODY``, 64 KiB)."""
BODY_LIMITS = {"/api/uploads": BODY_LIMIT}
"""The paths whose bodies may be larger than ``protocol.MAX_BODY`` (the app's body limit takes them)."""
MAX_ACTIONS = 4000
"""The most actions (rolls, moves, cube actions) an upload's analysis takes: a long match (a
25-point match has about 1,500); past it the file is refused (``upload_too_long``)."""
MAX_NAME_CHARS = 100
ID_PREFIX = "up-"
"""Upload ids are ``up-`` and 24 hex digits (27 characters); table ids have 11, so the two never meet."""
STALE_SECONDS = 900.0
"""An analysis that no process has moved for this long is shown as failed (its process stopped)."""
PLIES = 0
GUEST_DAYS = 30
"""Days a guest's upload is kept (an account's stay with the account); older ones go at the next upload."""
"""The depth of an upload's review (the depth of a table's review)."""
STATUSES = ("queued", "analysing", "done", "failed")


class Upload(Base):
    """One uploaded match file: what was read, its analysis's progress, and the finished review."""

    __tablename__ = "uploads"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=True, index=True)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    name: Mapped[str] = mapped_column(String(120))
    format: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(Text)  # the file's bytes in base64 (to read it again)
    summary: Mapped[dict] = mapped_column(JSON)  # players, match length, games, warnings, errors
    side: Mapped[str | None] = mapped_column(String(8), nullable=True)  # the uploader's side, if known
    status: Mapped[str] = mapped_column(String(16))
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    report: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # the review, once done
    failure: Mapped[str | None] = mapped_column(String(300), nullable=True)


# ====================================================================== reading
@dataclass(frozen=True, slots=True)
class UploadedMatch:
    """A match file read and replayed for an upload: its format, the match and what the reader found."""

    name: str
    format: str
    match: Any  # backgammon.match.Match, up to the first error
    players: tuple[str, str]
    match_length: int
    games: int
    warnings: tuple[str, ...]
    errors: tuple[str, ...]
    file_analysis: dict[str, dict[str, Any]] = field(default_factory=dict)  # see file_analysis_of


def _refusal(code: str, message: str, **params: object) -> HTTPError:
    return HTTPError(400, message, code, params)


def read_upload(data: bytes, name: str) -> UploadedMatch:
    """Read and replay one uploaded file with the formats' one entry for match files,
    :func:`backgammon.formats.read_match_file` (``.mat`` in every dialect, gnubg's ``.sgf``, XG's
    ``.xg``; the content decides the format, the extension breaks ties), and check that it holds a
    match with moves.

    Raises:
        HTTPError: 400 with ``upload_empty``, ``upload_not_text`` (binary data that is no known
            format), ``upload_unreadable`` (the reader's words in ``params.reason``),
            ``upload_position_file`` (``.xgp``, ``.pos``: a position, no match) or
            ``upload_no_games``; each names the file.
    """
    from backgammon.engine.analysis import match_games
    from backgammon.formats import read_match_file

    if not data.strip():
        raise _refusal("upload_empty", f"{shown(name)} is empty", name=name)
    try:
        read = read_match_file(data, name)
    except BackgammonError as exc:
        if exc.code == "unknown_match_file" and b"\x00" in data:
            raise _refusal("upload_not_text", f"{shown(name)} is not a text file", name=name) from None
        if exc.code == "match_file_too_large":
            raise too_large(name) from None
        if exc.code == "unknown_match_file":  # (the reader's words would only say that again)
            raise _refusal("upload_unreadable", str(exc), name=name) from None
        raise _refusal(
            "upload_unreadable", f"{shown(name)} is not a match file: {exc}", name=name, reason=str(exc)
        ) from None
    except Exception as exc:  # a reader's bug on hostile input: still the file's refusal, never a 500
        log.warning("reading the upload %r failed", name, exc_info=exc)
        raise _refusal(
            "upload_unreadable", f"{shown(name)} is not a match file", name=name, reason=type(exc).__name__
        ) from None
    if read.position is not None:
        raise _refusal(
            "upload_position_file", f"{shown(name)} holds a position, not a match", name=name, format=read.format
        )
    match, errors = read.match, read.errors
    if match is None or not any(g.log for g in match_games(match)):
        reason = errors[0] if errors else "no moves"
        raise _refusal(
            "upload_no_games", f"{shown(name)} holds no game that can be replayed: {reason}", name=name, reason=reason
        )
    white, black = (str(n or "") for n in match.players)
    assert read.reading is not None  # a match file (not a position): the readers' reading
    return UploadedMatch(
        name=name,
        format=read.format,
        match=match,
        players=(white or "White", black or "Black"),  # the review's White and Black
        match_length=read.reading.record.match_length,
        games=len(match_games(match)),
        warnings=read.warnings,
        errors=errors,
        file_analysis=file_analysis_of(read),
    )


def file_analysis_of(read: Any) -> dict[str, dict[str, Any]]:
    """The analysis a file carries (XG's in ``.xg``, gnubg's in ``.sgf``), keyed as the review's
    decisions are: ``"game:index:kind"`` (``index`` in the game's log; ``kind`` ``play``, ``cube``
    or ``take``), each a note that says whose numbers they are and at what depth:
    ``{source, depth, cubeful, best, best_equity, chosen_equity, error}`` (a play's equities as the
    file gives them: ``cubeful`` true or false where the file says, as gnubg's SGF does, None where
    it does not, as XG's files; a cube decision's, cubeful by definition: no double, double/take,
    double/pass from the doubler, and ``best`` in words). Decisions the replay does not reach are left out."""
    from backgammon.engine.analysis import match_games
    from backgammon.formats.analysis import entry_actions
    from backgammon.game import Double, Move, Roll

    if read.reading is None or read.match is None or not read.analysis:
        return {}
    record_games = read.reading.record.games
    games = match_games(read.match)
    maps: dict[int, dict[int, int]] = {}
    out: dict[str, dict[str, Any]] = {}
    for item in read.analysis:
        if not 1 <= item.game <= min(len(games), len(record_games)):
            continue
        log = games[item.game - 1].log
        if item.game not in maps:
            maps[item.game] = entry_actions(record_games[item.game - 1].entries, log)
        at = maps[item.game].get(item.entry)
        if at is None:
            continue
        if item.play is not None and isinstance(log[at], Move) and item.play.plays:
            out[f"{item.game}:{at}:play"] = _play_note(item.play, item.source)
        if item.cube is not None:
            note = _cube_note(item.cube, item.source)
            if isinstance(log[at], Double):
                out[f"{item.game}:{at}:cube"] = note
                if at + 1 < len(log):
                    out[f"{item.game}:{at + 1}:take"] = note
            elif isinstance(log[at], Move) and at and isinstance(log[at - 1], Roll):
                out[f"{item.game}:{at - 1}:cube"] = note
    return out


def _play_note(play: Any, source: str) -> dict[str, Any]:
    best = play.plays[0]
    chosen = None if play.played is None else play.plays[play.played].evaluation.equity
    error = play.error()
    return {
        "source": source,
        "depth": best.evaluation.depth,
        "cubeful": best.evaluation.cubeful,
        "best": best.move,
        "best_equity": round(best.evaluation.equity, 4),
        "chosen_equity": None if chosen is None else round(chosen, 4),
        "error": None if error is None else round(error, 4),
    }


def _cube_note(cube: Any, source: str) -> dict[str, Any]:
    def r(x: float | None) -> float | None:
        return None if x is None else round(x, 4)

    return {
        "source": source,
        "depth": cube.depth,
        "cubeful": True,
        "best": cube.best,
        "no_double": r(cube.no_double),
        "double_take": r(cube.double_take),
        "double_pass": r(cube.double_pass),
        "mwc": None if cube.mwc is None else [round(x, 4) for x in cube.mwc],
    }


def with_file_analysis(review: dict[str, Any], notes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The review with each decision's note from the file (``file``), where the file has one."""
    for d in review.get("decisions", ()):
        note = notes.get(f"{d['game']}:{d['index']}:{d['kind']}")
        if note is not None:
            d["file"] = note
    review["file_sources"] = sorted({n["source"] for n in notes.values() if n.get("source")})
    return review


def decode_upload(doc: dict[str, Any]) -> tuple[str, bytes]:
    """The name and bytes of ``POST /api/uploads``'s body: ``{"name", "data"}`` (base64) or
    ``{"name"?, "text"}`` (pasted text).

    Raises:
        InvalidInputError: fields of the wrong type, bad base64.
        HTTPError: 413 ``upload_too_large`` past :data:`MAX_FILE_BYTES`.
    """
    name = doc.get("name")
    if name is None:
        name = ""
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        raise InvalidInputError(
            f"invalid file name {shown(name)}: expected text of at most {MAX_NAME_CHARS} characters"
        )
    name = "".join(c for c in name if c.isprintable()).strip() or "pasted text"
    data, text = doc.get("data"), doc.get("text")
    if (data is None) == (text is None):
        raise InvalidInputError("invalid upload: send the file as 'data' (base64) or pasted text as 'text'")
    if text is not None:
        if not isinstance(text, str):
            raise InvalidInputError(f"invalid text {shown(text)}: expected the match as text")
        raw = text.encode("utf-8")
    else:
        if not isinstance(data, str):
            raise InvalidInputError(f"invalid data {shown(data)}: expected the file in base64")
        if len(data) > 4 * (MAX_FILE_BYTES // 3 + 1):
            raise too_large(name)
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInputError(f"invalid data for {shown(name)}: expected the file in base64") from None
    if len(raw) > MAX_FILE_BYTES:
        raise too_large(name)
    return name, raw


def too_large(name: str) -> HTTPError:
    return HTTPError(
        413,
        f"{shown(name)} is too large: at most {MAX_FILE_BYTES // 1024} KB a file",
        "upload_too_large",
        {"name": name, "limit_kb": MAX_FILE_BYTES // 1024},
    )


# ===================================================================== analysis
def review_of(report: Any, upload_id: str) -> dict[str, Any]:
    """An analysed match as a review, in the shape of a table's (``study.review_of_report``)."""
    from backgammon.server.study import review_of_report

    return review_of_report(report, upload_id, PLIES)


@dataclass(eq=False)
class Job:
    """One upload's analysis in this process (the row keeps what other processes see)."""

    id: str
    client: str
    match: Any
    total: int
    done: int = 0
    status: str = "queued"
    failure: str | None = None
    watchers: list[Callable[[], None]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    file_analysis: dict[str, dict[str, Any]] = field(default_factory=dict)  # the file's own (file_analysis_of)

    def moved(self) -> None:
        for wake in list(self.watchers):
            wake()


class UploadJobs:
    """The analyses of this process: one at a time per client, each game one call on the engine pool."""

    def __init__(self, sessions: Any) -> None:
        self.sessions = sessions
        self.jobs: dict[str, Job] = {}
        self.queues: dict[str, tuple[asyncio.Lock, int]] = {}  # client -> (its lock, jobs using it)
        self.tasks: set[asyncio.Task[None]] = set()

    def start(self, job: Job, ticket: Any) -> None:
        self.jobs[job.id] = job
        task = asyncio.create_task(self._run(job, ticket), name=f"upload-{job.id}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(self, job: Job, ticket: Any) -> None:
        lock, users = self.queues.get(job.client) or (asyncio.Lock(), 0)
        self.queues[job.client] = (lock, users + 1)
        end: tuple[str, str | None] = ("failed", "the server stopped")
        try:
            async with lock:
                end = await self._analyse(job)
        finally:
            # the place is given back before anyone is told the analysis ended (so the next upload fits)
            ticket.release()
            lock, users = self.queues[job.client]
            if users <= 1:
                del self.queues[job.client]
            else:
                self.queues[job.client] = (lock, users - 1)
            self.jobs.pop(job.id, None)
            job.status, job.failure = end
            if job.status == "done":
                job.done = job.total
            job.moved()

    async def _analyse(self, job: Job) -> tuple[str, str | None]:
        """Analyse the match game by game and store the review; how it ended (status, failure),
        already in the row."""
        from backgammon.engine.analysis import analyze_game, match_games, match_report
        from backgammon.server.pools import run_engine
        from backgammon.server.study import evaluator

        job.status = "analysing"
        job.moved()
        await asyncio.to_thread(self._write, job.id, "analysing", 0)
        decisions: list[Any] = []
        base = 0
        try:
            ev = await run_engine(evaluator)
            for number, game in enumerate(match_games(job.match), 1):

                def progress(n: int, base: int = base) -> None:
                    job.done = base + n
                    job.moved()

                decisions += await run_engine(analyze_game, game, ev, number, PLIES, True, True, None, progress)
                base += len(game.log)
                job.done = base
                await asyncio.to_thread(self._write, job.id, "analysing", base)
            report = await run_engine(review_of, match_report(job.match, decisions), job.id)
            report = with_file_analysis(report, job.file_analysis)
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.to_thread(self._write, job.id, "failed", job.done, "the server stopped"))
            raise
        except Exception as exc:
            log.warning("analysing upload %s failed", job.id, exc_info=exc)
            failure = error_info(exc)[1]
            await asyncio.to_thread(self._write, job.id, "failed", job.done, failure)
            return "failed", failure
        await asyncio.to_thread(self._write, job.id, "done", job.total, None, report)
        return "done", None

    def _write(
        self, upload_id: str, status: str, done: int, failure: str | None = None, report: dict[str, Any] | None = None
    ) -> None:
        with self.sessions() as db:
            row = db.get(Upload, upload_id)
            if row is None:
                return
            row.status, row.done, row.failure, row.updated_at = status, done, failure, utcnow()
            if report is not None:
                row.report = report
            db.commit()

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(BaseException):
                await task


# ======================================================================== wire
def upload_to_wire(row: Upload, job: Job | None = None) -> dict[str, Any]:
    """An upload as the page sees it (its progress from this process's job when it runs here)."""
    status, done, failure = row.status, row.done, row.failure
    if job is not None:
        status, done, failure = job.status, job.done, job.failure
    elif status in ("queued", "analysing") and (utcnow() - row.updated_at).total_seconds() > STALE_SECONDS:
        status, failure = "failed", "the analysis stopped (the server restarted): upload the file again"
    summary = row.summary or {}
    return {
        "id": row.id,
        "name": row.name,
        "format": row.format,
        "created": row.created_at.isoformat(),
        "players": summary.get("players", ["White", "Black"]),
        "match_length": summary.get("match_length", 0),
        "games": summary.get("games", 0),
        "warnings": summary.get("warnings", []),
        "errors": summary.get("errors", []),
        "side": row.side,
        "account": row.user_id is not None,  # uploaded by a logged-in player (who may set its side)
        "status": status,
        "done": done,
        "total": row.total,
        "failure": failure,
        "review": f"/study/review/{row.id}" if status == "done" else None,
    }


def side_of(players: tuple[str, str], username: str | None) -> str | None:
    """The uploader's side: the player whose name is the account's (case and width folded), if one is."""
    if not username:
        return None
    import unicodedata

    def fold(s: str) -> str:
        return unicodedata.normalize("NFKC", s).casefold().strip()

    sides = [side for side, name in zip(("White", "Black"), players, strict=True) if fold(name) == fold(username)]
    return sides[0] if len(sides) == 1 else None


def is_upload_id(value: str) -> bool:
    """Whether ``value`` is an upload's id (``up-`` and 24 hex digits), not a table's."""
    return (
        len(value) == len(ID_PREFIX) + 24
        and value.startswith(ID_PREFIX)
        and all(c in "0123456789abcdef" for c in value[len(ID_PREFIX) :])
    )


def check_id(upload_id: str) -> str:
    """``upload_id`` when it is an upload's id; a LookupError (404) otherwise."""
    if not is_upload_id(upload_id):
        raise LookupError(f"no upload {shown(upload_id)}")
    return upload_id


def upload_as_table(sessions: Any, upload_id: str) -> Any:
    """An uploaded match read again, as much of a table as the puzzles use (``id``, ``flow``: the
    match, ``config``: none), for :func:`backgammon.server.puzzles.game_before`.

    Raises:
        LookupError: no such upload.
    """
    from types import SimpleNamespace

    with sessions() as db:
        row = db.get(Upload, check_id(upload_id))
    if row is None:
        raise LookupError(f"no upload {shown(upload_id)}")
    read = read_upload(base64.b64decode(row.text), row.name)
    return SimpleNamespace(id=row.id, flow=read.match, config={})


def check_length(name: str, total: int) -> None:
    """Raises 400 ``upload_too_long`` for a match of more than :data:`MAX_ACTIONS` actions to analyse."""
    if total <= MAX_ACTIONS:
        return
    raise HTTPError(
        400,
        f"{shown(name)} is too long to analyse here: {total} actions, at most {MAX_ACTIONS}",
        "upload_too_long",
        {"name": name, "actions": total, "limit": MAX_ACTIONS},
    )


def not_ready(name: str, status: str) -> HTTPError:
    """409 ``upload_not_ready``: the review asked for before the analysis finished."""
    return HTTPError(
        409,
        f"the analysis of {shown(name)} is not finished ({status})",
        "upload_not_ready",
        {"name": name, "status": status},
    )


def summary_of(read: UploadedMatch) -> dict[str, Any]:
    """What an upload's row keeps about the file read (players, length, games, warnings, errors)."""
    return {
        "players": list(read.players),
        "match_length": read.match_length,
        "games": read.games,
        "warnings": list(read.warnings),
        "errors": list(read.errors),
    }


def games_of(match: Any) -> list[Any]:
    """The games of an uploaded match (``backgammon.engine.analysis.match_games``)."""
    from backgammon.engine.analysis import match_games

    return match_games(match)
