"""Rollouts and refinement labels on a real (local) Ray cluster give the same results as in this process.

A head node is started with the ``ray`` command (``ray start --head --block``,
in its own process group), the rollout and the refinement run connect to it by
address, exactly as ``backgammon rollout --cluster ADDRESS`` and
``backgammon refine --cluster ADDRESS`` do. Teardown disconnects and ends
that head node only, by its process id and process group (``ray stop`` would end
every Ray process of the user on the machine, other people's clusters included).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from backgammon.engine.evaluator import default_weights_path
from backgammon.engine.network import read_npz
from backgammon.engine.rollout import RolloutSettings, rollout_plays, rollout_position
from backgammon.position import Position
from backgammon.training import refine
from backgammon.training.train import CHECKPOINT

ray = pytest.importorskip("ray")  # in the test extra; skipped only where it cannot be installed

pytestmark = pytest.mark.slow  # each test starts a local Ray cluster: not in the fast tier

MIDGAME = Position.from_points({24: 1, 18: 1, 13: 4, 11: 1, 8: 3, 6: 5}, {24: 2, 13: 4, 10: 1, 8: 3, 6: 5})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(head: subprocess.Popen[bytes]) -> None:
    """End the head node: Ctrl-C to ``ray start --block`` (it stops what it started), then its process group."""
    head.send_signal(signal.SIGINT)
    try:
        head.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(head.pid, signal.SIGKILL)  # anything of that group still running
    except ProcessLookupError:
        pass
    head.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The address of a fresh local head node with 2 CPUs."""
    ray_cli = Path(sys.executable).with_name("ray")
    if not ray_cli.exists():
        pytest.skip(f"no ray command next to {sys.executable}")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    # a short temporary root: Ray's socket paths must fit in 107 characters
    temp = tempfile.mkdtemp(prefix="bgray")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    head = subprocess.Popen(
        [
            str(ray_cli),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # wait for the GCS port
            if head.poll() is not None:
                pytest.fail(f"ray start exited with status {head.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the Ray head node did not come up within 60 s")
                time.sleep(0.3)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        _stop(head)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def evaluator():
    from backgammon.engine.evaluator import NetEvaluator

    return NetEvaluator.default()


def test_cluster_work_equals_local_work(cluster: str, evaluator, tmp_path: Path) -> None:
    """One test, so that one head node serves it even when the suite runs on several pytest workers."""
    settings = RolloutSettings(trials=24, truncate=6, seed=7, chunk=6, cubeful=True)
    local = rollout_position(MIDGAME, evaluator, settings)
    seen: list[tuple[int, int]] = []
    remote = rollout_position(
        MIDGAME, evaluator, replace(settings, cluster=cluster), progress=lambda done, total: seen.append((done, total))
    )
    # connected to that head node (the chunks ran as tasks in its worker processes)
    assert ray.is_initialized() and ray.get_runtime_context().gcs_address.endswith(f":{cluster.rsplit(':', 1)[1]}")
    assert remote.trials == local.trials == 24
    assert remote.mean == pytest.approx(local.mean, abs=1e-12)
    assert remote.ci95 == pytest.approx(local.ci95, abs=1e-12)
    assert remote.cubeful == pytest.approx(local.cubeful, abs=1e-12)
    assert seen == [(6, 24), (12, 24), (18, 24), (24, 24)]

    # candidate plays with 1-ply play choice in the trials
    settings = RolloutSettings(trials=6, truncate=2, seed=3, chunk=3, ply=1)
    local_plays = rollout_plays(MIDGAME, (3, 1), evaluator, settings)
    remote_plays = rollout_plays(MIDGAME, (3, 1), evaluator, replace(settings, cluster=cluster))
    assert [str(r.play) for r in remote_plays] == [str(r.play) for r in local_plays]
    for a, b in zip(remote_plays, local_plays):
        assert a.result.mean == pytest.approx(b.result.mean, abs=1e-12)

    # refinement: the labels are made by the cluster's workers, in chunks; the run is bit for bit the same
    config = refine.RefineConfig(init_from=str(default_weights_path()), positions=60, buffer=2, label_ply=1, seed=4)
    refine.run(tmp_path / "here", config, 2, eval_pairs=5)
    refine.run(tmp_path / "there", config, 2, eval_pairs=5, cluster=cluster)
    _, here = read_npz(tmp_path / "here" / CHECKPOINT)
    _, there = read_npz(tmp_path / "there" / CHECKPOINT)
    assert sorted(here) == sorted(there)
    for key in here:
        assert np.array_equal(here[key], there[key]), key
    state = refine.RefineState.load(tmp_path / "there" / CHECKPOINT)
    boards = state.boards[-1][:9]
    two_ply = refine.label_boards(boards, state.arrays(), 2, cluster=cluster)
    assert np.array_equal(two_ply, refine.label_boards(boards, state.arrays(), 2))
    assert not np.array_equal(two_ply, refine.label_boards(boards, state.arrays(), 1))


@pytest.mark.parametrize("command", ["refine", "rollout"])
def test_unreachable_cluster_is_a_clear_error(tmp_path: Path, command: str) -> None:
    """In a fresh process (not connected to any cluster): nothing listens at the address, so the
    command stops at once with a one-line error (and refine leaves no run directory)."""
    run = tmp_path / "run"
    args = (
        ["refine", str(run), "--init-from", str(default_weights_path()), "--positions", "20", "-n", "1"]
        if command == "refine"
        else ["rollout", MIDGAME.position_id(), "--trials", "12"]
    )
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("backgammon")), *args, "--cluster", "127.0.0.1:1"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "cannot connect to the Ray cluster at '127.0.0.1:1'" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert not run.exists()
