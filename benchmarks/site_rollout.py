"""Rollouts on the site as a player waits for them (issues 41 and 45): how long until the first
figures, the longest wait between two pushes of progress, and the whole job.

Starts ``backgammon serve`` on a free port with a fresh data folder, waits until its engine is warm,
then for each job (plays x trials, from the opening 5-2 or a review's two plays) posts the rollout,
follows it on its socket (``/ws/study/rollouts/{id}``) and times every push. Prints one row a job.

    .venv/bin/python benchmarks/site_rollout.py                # 2x36, 2x144, 3x144 and 5x432
    .venv/bin/python benchmarks/site_rollout.py --jobs 2x144 --repeat 3

Targets (issue 45): 2 plays x 144 trials in under 15 s on the 2-core machine, progress at least
every second; issue 41: never "0 of N" for more than a second or two.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

BACKGAMMON = str(Path(sys.executable).with_name("backgammon"))
OPENING = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [BACKGAMMON, "serve", "--port", str(port), "--data-dir", str(data), "--budget", "rollouts=100000/100"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/health", timeout=2).json().get("engine") == "ready":
                return proc, base
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit("the server did not get ready in 10 minutes")


async def follow(base: str, top: int, trials: int) -> dict[str, float]:
    """One job: seconds to the first figures, the longest gap between pushes, and the total."""
    import websockets

    setup = {"mine": OPENING, "theirs": OPENING, "dice": [5, 2], "cube": 1, "owner": "centre"}
    setup |= {"match_length": 0, "score": [0, 0], "crawford": False, "jacoby": False}
    started = time.monotonic()
    async with httpx.AsyncClient(timeout=60) as client:
        r = await client.post(f"{base}/api/study/rollouts", json={"setup": setup, "top": top, "trials": trials})
        r.raise_for_status()
        job = r.json()
    pushes: list[float] = []
    first = None
    async with websockets.connect(f"{base.replace('http', 'ws')}/ws/study/rollouts/{job['id']}") as ws:
        async for text in ws:
            doc = json.loads(text)
            now = time.monotonic() - started
            pushes.append(now)
            if first is None and doc["rollout"]["done"] > 0:
                first = now
            if doc["rollout"]["status"] != "running":
                assert doc["rollout"]["status"] == "done", doc["rollout"]
                break
    gaps = [b - a for a, b in itertools.pairwise(pushes)] or [0.0]
    return {"first": first or pushes[-1], "gap": max(gaps), "total": pushes[-1], "pushes": len(pushes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", default="2x36,2x144,3x144,5x432", help="plays x trials, comma-separated")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each job (default 2)")
    args = parser.parse_args()
    jobs = [tuple(int(x) for x in j.split("x")) for j in args.jobs.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(Path(tmp))
        try:
            load = os.getloadavg()[0]
            print(f"site rollouts, cpus {os.cpu_count()}, load {load:.1f} at the start, {args.repeat} runs a job")
            print(f"{'job':>8} | {'first figures s':>15} | {'longest gap s':>13} | {'total s':>12} | pushes")
            for top, trials in jobs:
                runs = [asyncio.run(follow(base, top, trials)) for _ in range(args.repeat)]

                def cell(key: str, runs: list[dict[str, float]] = runs) -> str:
                    values = [r[key] for r in runs]
                    spread = f" ±{statistics.stdev(values):.1f}" if len(values) > 1 else ""
                    return f"{statistics.mean(values):.1f}{spread}"

                pushes = statistics.mean(r["pushes"] for r in runs)
                print(
                    f"{top}x{trials:>6} | {cell('first'):>15} | {cell('gap'):>13} | {cell('total'):>12} | {pushes:.0f}"
                )
        finally:
            os.killpg(proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
