"""Rollouts of the web app: background jobs on a bounded worker pool, streamed to the page.

A rollout of a study board or of a review's decision runs as a :class:`RolloutJob` on the
server's :class:`RolloutJobs` pool (threads; or on a Ray cluster), never on the event loop. The
page follows a job over its own WebSocket, ``/ws/study/rollouts/{id}`` (:func:`stream_rollout`):
the server pushes the job, with each candidate's running equity and interval, after every small
block of trials (at most 4 a second: :func:`backgammon.server.sockets.follow_job`), and the last push is the result; no
polling. ``GET /api/study/rollouts/{id}`` still answers for scripts. Only the client that started
a job (its token) may cancel it, by REST or on the socket. docs/web-protocol.md has the wire.
"""

from __future__ import annotations

import math
import queue
import secrets
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request, WebSocket

from backgammon.errors import IllegalActionError
from backgammon.moves import find_play
from backgammon.server import protocol
from backgammon.server.app_state import AppState
from backgammon.server.http_errors import HTTPError
from backgammon.server.protocol import shown
from backgammon.server.study import (
    MAX_CANDIDATES,
    Setup,
    _int,
    _plays,
    chances,
    depth_of,
    evaluator,
    parse_setup,
    ranked_plays,
)

MAX_TRIALS = 1296
MAX_JOBS = 4
ROLLOUT_WORKERS = 2  # rollouts running at once; the others wait in the queue
KEEP_FINISHED = 200
STREAM_CHUNK = 6
"""Trials per block on the site (played in float32 on threads over every core): the page's
figures move after every block (the engine's own default is 36; a small block keeps the first
figures within a second or two)."""


class _Cancelled(Exception):
    """A rollout stopped: cancelled by its owner, or the server is closing."""


def rollout_row(r: Any, rank_label: str | None) -> dict[str, Any]:
    """One candidate of a rollout (running or finished) on the wire: equity, standard error, 95%
    interval, trials, chances, the paired difference to the best, and the ranking's own label."""
    res = r.result
    return {
        "play": str(r.play),
        "equity": round(res.equity, 4),
        "se": round(res.equity_se, 4) if math.isfinite(res.equity_se) else None,
        "ci95": round(res.equity_ci95, 4) if math.isfinite(res.equity_ci95) else None,
        "trials": res.trials,
        "diff": round(r.diff, 4),
        "diff_ci95": round(r.diff_ci95, 4) if math.isfinite(r.diff_ci95) else None,
        "rank_label": rank_label,
        **chances(res.probabilities),
    }


@dataclass
class RolloutJob:
    """A rollout on the worker pool; ``done``/``total`` trials so far, and ``results`` so far
    (each candidate's running equity, SE and interval while it runs, the final ones at the end).
    ``watchers`` are called (from the worker's thread) after every change."""

    id: str
    setup: Setup
    candidates: list[str]
    trials: int
    ply: int = 0
    done: int = 0
    total: int = 0
    status: str = "running"  # running (queued until a worker takes it) / done / failed
    queued: bool = True
    results: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    rank_labels: dict[str, str] = field(default_factory=dict)  # play -> the ranking's depth and kind
    cluster: bool = False
    token_digest: str = ""  # the SHA-256 of the owner's token (what cancelling asks for)
    cancelled: bool = False
    ticket: Any = None  # the owner's place among rollouts at once (quotas.Ticket), given back at the end
    watchers: list[Callable[[], None]] = field(default_factory=list, repr=False)  # told of every change

    def changed(self) -> None:
        """Tell every watcher (a socket streaming this job) that the job moved on; any thread."""
        for wake in list(self.watchers):
            wake()

    def owned_by(self, token: str | None) -> bool:
        """Whether ``token`` is the one this job's requester was given."""
        from backgammon.server.auth import token_hash

        return bool(token) and secrets.compare_digest(token_hash(str(token)), self.token_digest)

    def finish(self) -> None:
        if self.ticket is not None:
            self.ticket.release()
        self.changed()

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,  # running / done / failed / cancelled
            "queued": self.queued and self.status == "running",
            "done": self.done,
            "total": self.total or self.trials,
            "trials": self.trials,
            "ply": self.ply,
            "kind": "cubeless",  # the trials play without a cube: money equity per game
            "cluster": self.cluster,
            "candidates": self.candidates,
            "rank_labels": [self.rank_labels.get(c) for c in self.candidates],
            "results": self.results,
            "error": self.error,
        }


class _WorkerPool:
    """A fixed number of daemon worker threads taking jobs from one queue (started on first use).

    The trials of a 0-ply rollout run in a compiled kernel that releases the GIL, so the workers
    run side by side; threads, not processes, because forking a server that runs threads is unsafe.
    Daemon threads: a server that stops does not wait for a rollout (it is cancelled).
    """

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self.queue: queue.SimpleQueue[tuple[Any, tuple[Any, ...]]] = queue.SimpleQueue()
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def submit(self, fn: Any, *args: Any) -> None:
        with self.lock:
            if len(self.threads) < self.workers:
                thread = threading.Thread(target=self._work, name=f"rollout-{len(self.threads)}", daemon=True)
                self.threads.append(thread)
                thread.start()
        self.queue.put((fn, args))

    def _work(self) -> None:
        while True:
            fn, args = self.queue.get()
            fn(*args)


class RolloutJobs:
    """Rollouts on a bounded worker pool, at most :data:`MAX_JOBS` queued or running, kept by id.

    ``workers`` threads run jobs (the rest wait, "queued"); ``cluster``, a Ray address from the
    server's configuration, runs each job's trials on that cluster instead (the engine's Ray
    support; Ray is needed only then). The quota is atomic: a start takes a slot under the lock
    before any slow work (ranking the candidates) and gives it back if it fails, so concurrent
    starts never exceed it. The newest :data:`KEEP_FINISHED` finished jobs are kept for polling.
    """

    def __init__(self, max_jobs: int = MAX_JOBS, workers: int = ROLLOUT_WORKERS, cluster: str | None = None) -> None:
        self.jobs: dict[str, RolloutJob] = {}
        self.lock = threading.Lock()
        self.max_jobs = max_jobs
        self.cluster = cluster
        self.pool = _WorkerPool(workers)
        self.starting = 0  # slots taken by starts still ranking their candidates
        self.closed = False

    def running(self) -> int:
        """Jobs queued, running or about to (call with the lock held)."""
        return self.starting + sum(1 for j in self.jobs.values() if j.status == "running")

    def start(
        self,
        setup: Setup,
        top: int,
        trials: int,
        plies: int,
        ply: int = 0,
        plays: list[str] | None = None,
        token_digest: str = "",
        ticket: Any = None,
    ) -> RolloutJob:
        """Start rolling out the ``top`` best plays of the setup (ranked at ``plies``), or the
        given ``plays`` (move texts, e.g. the played move and the better one of a review).

        ``ply``: lookahead of the plays chosen inside the trials (0 or 1). ``token_digest``: the hash of
        the token its requester was given (the one that may cancel it); ``ticket``: the requester's
        place among rollouts at once, given back when the job ends.

        Raises:
            InvalidInputError: without dice, or for a play that is not legal with them.
            IllegalActionError: when too many rollouts are queued or running.
        """
        with self.lock:
            if self.running() >= self.max_jobs:
                raise IllegalActionError(f"too many rollouts running (at most {self.max_jobs}): wait for one to finish")
            self.starting += 1
        try:
            ranked = ranked_plays(setup, plies)
            labels = {str(r.play): r.label for r in ranked}
            if plays is None:
                chosen = [r.play for r in ranked[:top]]
            else:
                assert setup.dice is not None  # ranked_plays demands them
                legal = setup.position.legal_plays(*setup.dice)
                chosen = []
                for text in plays:
                    play = find_play(setup.position, *setup.dice, text, legal)
                    if play not in chosen:
                        chosen.append(play)
            job = RolloutJob(
                uuid.uuid4().hex[:12],
                setup,
                [str(p) for p in chosen],
                trials,
                ply,
                rank_labels={str(p): labels[str(p)] for p in chosen if str(p) in labels},
                cluster=self.cluster is not None,
                token_digest=token_digest,
                ticket=ticket,
            )
        except BaseException:
            with self.lock:
                self.starting -= 1
            raise
        with self.lock:  # the slot passes from "starting" to the job in one step
            self.starting -= 1
            self._forget_old()
            self.jobs[job.id] = job
        self.pool.submit(self._run, job, chosen)
        return job

    def close(self) -> None:
        """Stop every queued and running rollout at its next block of trials."""
        self.closed = True

    def cancel(self, job_id: str, token: str | None) -> RolloutJob:
        """Stop a rollout at its next block of trials (a queued one never starts), for its owner.

        Raises:
            LookupError: for an unknown id. HTTPError: 403 (``not_your_rollout``) for another client.
        """

        job = self.get(job_id)
        if not job.owned_by(token):
            raise HTTPError(403, "only the client that started a rollout can cancel it", "not_your_rollout")
        job.cancelled = True
        job.changed()
        return job

    def _forget_old(self) -> None:
        finished = [job_id for job_id, j in self.jobs.items() if j.status != "running"]
        for job_id in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self.jobs[job_id]

    def _run(self, job: RolloutJob, plays: list[Any]) -> None:
        from backgammon.engine.rollout import RolloutSettings, rollout_plays

        def progress(done: int, total: int) -> None:
            if self.closed or job.cancelled:
                raise _Cancelled
            job.done, job.total = done, total
            job.changed()

        def partial(results: list[Any]) -> None:
            # one list swapped in whole: a poll sees the previous block's numbers or these, never a mix
            job.results = [rollout_row(r, job.rank_labels.get(str(r.play))) for r in results]
            job.changed()

        dice = job.setup.dice
        assert dice is not None  # start() ranked the plays, which needs the dice
        try:
            if self.closed or job.cancelled:
                raise _Cancelled
            job.queued = False
            job.changed()
            settings = RolloutSettings(
                trials=job.trials,
                seed=1,
                ply=job.ply,
                cluster=self.cluster,
                chunk=STREAM_CHUNK,
                float32=True,  # the engine's fast path (the same means within their errors, about twice as fast)
            )
            results = rollout_plays(job.setup.position, dice, evaluator(), settings, plays, progress, partial)
            partial(results)
            job.done = job.total = max(job.total, job.done)
            job.status = "done"
        except _Cancelled:
            if job.cancelled:
                job.status, job.error = "cancelled", "cancelled by its owner"
            else:
                job.status, job.error = "failed", "the server is stopping"
        except Exception as exc:  # noqa: BLE001 - a failed job reports its error to the poller
            job.status, job.error = "failed", str(exc) or "rollout failed"
        finally:
            job.finish()

    def get(self, job_id: str) -> RolloutJob:
        """A job by id.

        Raises:
            LookupError: for an unknown id (404).
        """
        job = self.jobs.get(job_id)
        if job is None:
            raise LookupError(f"no rollout {shown(job_id)}")
        return job


# ------------------------------------------------------------------ streaming
async def stream_rollout(websocket: WebSocket, jobs: RolloutJobs, quotas: Any, job_id: str) -> None:
    """Follow one rollout on its WebSocket (:func:`~backgammon.server.sockets.follow_job`):
    ``{"type": "rollout", "rollout": ...}`` at once, after every block of trials and when it ends.

    The client may send ``{"type": "cancel", "token": ...}`` (the token its start answered with);
    other messages are refused with an error.
    """
    from backgammon.server.sockets import Followed, follow_job

    async def load() -> Followed:
        job = jobs.get(job_id)

        async def wire() -> dict[str, Any]:
            return job.to_wire()

        async def cancel(text: str) -> None:
            doc = protocol.parse_client_message(text, protocol.ROLLOUT_MESSAGES)
            jobs.cancel(job.id, doc.get("token"))  # (the only message there is)

        return Followed("rollout", wire, lambda w: w["status"] != "running", job.watchers, handle=cancel)

    await follow_job(websocket, quotas, load)


# ------------------------------------------------------------------ routes
def add_routes(router: APIRouter, state: AppState, read_body: Any, client: Any) -> RolloutJobs:
    """Add the rollout endpoints to the study router; the jobs are kept in ``state["rollouts"]``.

    ``client(request)``: the request's address and account, whom the rollouts budget counts against.
    """
    from backgammon.server.auth import new_token, token_hash
    from backgammon.server.pools import run_engine

    config = state.get("config")
    jobs = RolloutJobs(
        workers=getattr(config, "rollout_workers", ROLLOUT_WORKERS), cluster=getattr(config, "rollout_cluster", None)
    )
    state["rollouts"] = jobs

    @router.post("/api/study/rollouts")
    async def start_rollout(request: Request) -> dict[str, Any]:
        doc = await read_body(request)
        setup = parse_setup(doc.get("setup"))
        top = _int(doc.get("top", 3), "number of candidates", 1, MAX_CANDIDATES)
        trials = _int(doc.get("trials", 144), "number of trials", 1, MAX_TRIALS)
        plies = depth_of(doc.get("depth"))
        ply = _int(doc.get("ply", 0), "rollout ply", 0, 1)
        plays = _plays(doc.get("plays"))
        ticket = state["quotas"].start("rollouts", *await client(request))  # given back when the job ends
        token = new_token()
        try:
            job = await run_engine(jobs.start, setup, top, trials, plies, ply, plays, token_hash(token), ticket)
        except BaseException:
            ticket.release()
            raise
        return {**job.to_wire(), "token": token}

    @router.get("/api/study/rollouts/{job_id}")
    async def get_rollout(job_id: str) -> dict[str, Any]:
        return jobs.get(job_id).to_wire()

    @router.post("/api/study/rollouts/{job_id}/cancel")
    async def cancel_rollout(job_id: str, request: Request) -> dict[str, Any]:
        """Stop a rollout (``x-rollout-token``: the token its start answered with)."""
        return jobs.cancel(job_id, request.headers.get("x-rollout-token")).to_wire()

    @router.websocket("/ws/study/rollouts/{job_id}")
    async def rollout_socket(websocket: WebSocket, job_id: str) -> None:
        await stream_rollout(websocket, jobs, state["quotas"], job_id)

    return jobs
