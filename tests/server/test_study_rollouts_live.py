"""Web rollouts with live intervals: partial results while a job runs (SE shrinking, the last ones
the engine's own result for the same seed), the review's "played against better" request, the
worker pool (jobs beyond its size wait, queued) and the cluster address passed to the engine."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from backgammon.position import Position
from backgammon.server import rollouts, study

from .conftest import make_client

INITIAL = list(Position.initial().mine)


def setup(**extra):
    doc = {"mine": INITIAL, "theirs": INITIAL, "dice": [5, 2], "cube": 1, "owner": "centre"}
    doc.update({"match_length": 0, "score": [0, 0], "crawford": False, "jacoby": False, **extra})
    return doc


@pytest.fixture
def client(tmp_path: Path):
    with make_client(tmp_path, test_hooks=True) as c:
        yield c


@pytest.fixture
def paced(monkeypatch):
    """The engine's rollout, pausing after each block of trials so that polls see it run."""
    from backgammon.engine import rollout

    real = rollout.rollout_plays

    def slowed(*args, **kwargs):
        report = args[6] if len(args) > 6 else kwargs.pop("partial")

        def pause(results):
            report(results)
            time.sleep(0.15)

        return real(*args[:6], partial=pause, **kwargs)

    monkeypatch.setattr(rollout, "rollout_plays", slowed)
    return real


def poll(client, job, seen):
    deadline = time.time() + 240
    while job["status"] == "running" and time.time() < deadline:
        seen.append(job)
        time.sleep(0.05)
        job = client.get(f"/api/study/rollouts/{job['id']}").json()
    return job


def test_partial_results_while_running_then_the_engines_result(client, paced):
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.engine.rollout import RolloutSettings

    trials = 108  # three blocks of 36
    job = client.post("/api/study/rollouts", json={"setup": setup(), "top": 2, "trials": trials}).json()
    assert job["status"] == "running" and len(job["rank_labels"]) == 2
    assert all(label == "0-ply cubeful money" for label in job["rank_labels"])  # the ranking's depth and kind
    seen: list[dict] = []
    final = poll(client, job, seen)
    assert final["status"] == "done", final
    running = [j for j in seen if j["results"]]
    assert running, "no partial results were seen while the job ran"
    assert any(j["done"] < j["total"] for j in running)  # figures shown before the end
    dones = [j["done"] for j in running]
    assert dones == sorted(dones) and dones[0] < trials
    # a poll sees one block's figures whole (the progress may already count the next block)
    assert all(len({r["trials"] for r in j["results"]}) == 1 <= j["results"][0]["trials"] <= j["done"] for j in running)
    for play in final["candidates"]:
        rows = [next(r for r in j["results"] if r["play"] == play) for j in running] + [
            next(r for r in final["results"] if r["play"] == play)
        ]
        counts = [r["trials"] for r in rows]
        assert counts == sorted(counts) and counts[-1] == trials
        se = [r["se"] for r in rows]
        first, last = rows[0], rows[-1]
        assert last["se"] < first["se"] and all(s > 0 for s in se)
        # the standard error goes down with the square root of the trials (within a factor 2)
        expected = first["se"] * (first["trials"] / last["trials"]) ** 0.5
        assert expected / 2 < last["se"] < expected * 2
        assert all(r["ci95"] == pytest.approx(1.96 * r["se"], abs=2e-4) for r in rows)
        assert all(r["rank_label"] == "0-ply cubeful money" for r in rows)
    # the final figures are the engine's own rollout of the same plays with the same seed
    position = Position.initial()
    plays = [study.find_play(position, 5, 2, text) for text in final["candidates"]]
    settings = RolloutSettings(trials=trials, seed=1, ply=0, float32=True)  # as the site rolls out
    engine = paced(position, (5, 2), NetEvaluator.default(), settings, plays)
    labels = dict(zip(final["candidates"], final["rank_labels"], strict=True))
    assert final["results"] == [rollouts.rollout_row(r, labels[str(r.play)]) for r in engine]


def test_review_rolls_out_the_played_move_against_the_better_one(client):
    body = {"setup": setup(dice=[6, 4]), "plays": ["24/14", "8/2 6/2"], "trials": 36, "depth": 0}
    job = client.post("/api/study/rollouts", json=body).json()
    assert job["candidates"] == ["24/14", "8/2 6/2"] and all(job["rank_labels"])
    job = poll(client, job, [])
    assert job["status"] == "done" and {r["play"] for r in job["results"]} == {"24/14", "8/2 6/2"}
    best, other = job["results"]
    assert best["diff"] == 0 and other["diff"] >= 0 and other["diff_ci95"] > 0
    for bad in (["24/10"], [], ["x"] * 6, "24/14", [3]):
        r = client.post("/api/study/rollouts", json={**body, "plays": bad})
        assert r.status_code in (400, 422) and r.json()["error"], (bad, r.text)


def test_jobs_beyond_the_pool_wait_queued(monkeypatch):
    release = threading.Event()
    started: list[str] = []

    def run(self, job, plays):
        job.queued = False
        started.append(job.id)
        release.wait(10)
        job.status = "done"

    monkeypatch.setattr(rollouts, "ranked_plays", lambda setup, plies: [])
    monkeypatch.setattr(rollouts.RolloutJobs, "_run", run)
    jobs = rollouts.RolloutJobs(max_jobs=4, workers=2)
    one = study.Setup(study.Position.initial(), dice=(3, 1))
    made = [jobs.start(one, 1, 10, 0) for _ in range(3)]
    deadline = time.time() + 5
    while len(started) < 2 and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert len(started) == 2 and [j.to_wire()["queued"] for j in made].count(True) == 1
    release.set()
    while len(started) < 3 and time.time() < deadline + 5:
        time.sleep(0.01)
    assert len(started) == 3


def test_the_cluster_address_reaches_the_engine(tmp_path, monkeypatch):
    from backgammon.engine import rollout
    from backgammon.errors import EngineError

    given: list[object] = []

    def fake(position, dice, evaluator, settings, plays, progress, partial):
        given.append(settings.cluster)
        raise EngineError("cannot reach the cluster at ray://nowhere:10001")

    monkeypatch.setattr(rollout, "rollout_plays", fake)
    with make_client(tmp_path, rollout_cluster="ray://nowhere:10001") as c:
        job = c.post("/api/study/rollouts", json={"setup": setup(), "top": 1, "trials": 36}).json()
        assert job["cluster"] is True
        job = poll(c, job, [])
    assert given == ["ray://nowhere:10001"]
    assert job["status"] == "failed" and "cluster" in job["error"]


# ------------------------------------------------------------ streamed over a WebSocket
def follow(client, job_id, seconds=240.0):
    """Every push of a job's socket until it closes: the jobs it carried, in order."""
    from starlette.websockets import WebSocketDisconnect

    from .conftest import receive_within

    pushed = []
    with client.websocket_connect(f"/ws/study/rollouts/{job_id}") as ws:
        try:
            while True:
                doc = receive_within(ws, seconds)
                assert doc["type"] == "rollout", doc
                pushed.append(doc["rollout"])
        except WebSocketDisconnect:
            pass
    return pushed


def test_the_socket_pushes_every_block_then_the_result_and_closes(client, paced):
    trials = 36
    job = client.post("/api/study/rollouts", json={"setup": setup(), "top": 2, "trials": trials}).json()
    pushed = follow(client, job["id"])
    final = pushed[-1]
    assert final["status"] == "done" and final["done"] == trials, final
    assert all(j["status"] == "running" for j in pushed[:-1])
    dones = [j["done"] for j in pushed]
    assert dones == sorted(dones)
    # small blocks: the first figures come after a few trials, not after a whole 36-trial block
    counts = sorted({r["trials"] for j in pushed for r in j["results"]})
    assert counts[0] <= rollouts.STREAM_CHUNK < trials and len(counts) >= 3, counts
    assert final["results"] == client.get(f"/api/study/rollouts/{job['id']}").json()["results"]


def test_the_socket_cancels_for_its_owner_only(client, paced):
    from .conftest import receive_within

    job = client.post("/api/study/rollouts", json={"setup": setup(), "top": 2, "trials": 1296}).json()
    with client.websocket_connect(f"/ws/study/rollouts/{job['id']}") as ws:
        assert receive_within(ws)["type"] == "rollout"
        ws.send_json({"type": "cancel", "token": "not-the-token"})
        doc = receive_within(ws)
        while doc["type"] == "rollout":
            doc = receive_within(ws)
        assert doc["type"] == "error" and doc["code"] == "not_your_rollout", doc
        ws.send_json({"type": "hello"})
        doc = receive_within(ws)
        while doc["type"] == "rollout":
            doc = receive_within(ws)
        assert doc["type"] == "error" and doc["status"] in (400, 409, 422), doc
        ws.send_json({"type": "cancel", "token": job["token"]})
        last = None
        for _ in range(200):
            doc = receive_within(ws, 60)
            if doc["type"] == "rollout" and doc["rollout"]["status"] != "running":
                last = doc["rollout"]
                break
    assert last is not None and last["status"] == "cancelled" and last["done"] < 1296, last


def test_the_socket_of_an_unknown_job_says_so(client):
    from .conftest import receive_within

    with client.websocket_connect("/ws/study/rollouts/nosuchjob") as ws:
        doc = receive_within(ws)
    assert doc["type"] == "error" and doc["status"] == 404, doc
