"""The Ray plumbing's errors, without a cluster (the cluster itself: test_ray_cluster.py)."""

import socket
import sys

import numpy as np
import pytest

from backgammon.engine import _cluster
from backgammon.engine.evaluator import NetEvaluator
from backgammon.engine.rollout import RolloutSettings, rollout_position
from backgammon.errors import EngineError
from backgammon.position import Position
from backgammon.training import refine


def test_missing_ray_is_named(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(EngineError, match=r"rollouts on a cluster need ray: pip install 'backgammon\[cluster\]'"):
        rollout_position(Position.initial(), NetEvaluator.default(), RolloutSettings(trials=4, cluster="127.0.0.1:1"))
    net = NetEvaluator.default()
    boards = np.zeros((2, 2, 25), dtype=np.int8)
    boards[:, :, 5] = 15
    with pytest.raises(EngineError, match="refinement labels on a cluster need ray"):
        refine.label_boards(boards, net.kernel_args()[:8], 1, cluster="127.0.0.1:1")


def test_probe_refuses_a_closed_port_and_leaves_other_forms_to_ray() -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there now
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(EngineError, match=f"cannot connect to the Ray cluster at '{address}'"):
            _cluster._probe(address, timeout=2)
    with socket.socket() as s:  # something listening: the probe passes
        s.bind(("127.0.0.1", 0))
        s.listen()
        _cluster._probe(f"127.0.0.1:{s.getsockname()[1]}", timeout=2)
    _cluster._probe("auto")  # no port: Ray's own business
