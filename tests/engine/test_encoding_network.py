import json

import numpy as np
import pytest

from backgammon import Position
from backgammon.engine import encoding
from backgammon.engine.network import Net, NetPair
from backgammon.errors import EngineError


def test_encoding_shape_and_values() -> None:
    x = encoding.encode(Position.initial())
    assert x.shape == (encoding.NUM_INPUTS,)
    # five checkers on my 6-point: n>=1, n>=2, n>=3 and (5-3)/2
    assert x[4 * 5 : 4 * 5 + 4].tolist() == [1.0, 1.0, 1.0, 1.0]
    # two on the 24-point
    assert x[4 * 23 : 4 * 23 + 4].tolist() == [1.0, 1.0, 0.0, 0.0]
    # both sides identical in the initial position
    assert (x[: encoding.PER_SIDE] == x[encoding.PER_SIDE : 2 * encoding.PER_SIDE]).all()
    assert (
        x[encoding.V1_INPUTS : encoding.V1_INPUTS + encoding.EXTRA]
        == x[encoding.V1_INPUTS + encoding.EXTRA : encoding.V2_INPUTS]
    ).all()
    assert (x[encoding.V2_INPUTS : encoding.V2_INPUTS + encoding.PLAN] == x[encoding.V2_INPUTS + encoding.PLAN :]).all()
    assert x[99] == pytest.approx(167 / 167)
    p = Position.from_points({"bar": 2, 6: 1}, {1: 1})
    y = encoding.encode(p)
    assert y[96] == 1.0 and y[97] == 1.0  # bar flag, bar/2
    assert y[98] == pytest.approx(12 / 15)  # checkers off


def _pair() -> NetPair:
    rng = np.random.default_rng(1)
    return NetPair(Net.random(8, rng), Net.random(4, rng), {"games": 3})


def test_weights_round_trip(tmp_path) -> None:
    path = tmp_path / "w.npz"
    pair = _pair()
    pair.save(path)
    back = NetPair.load(path)
    assert back.meta["games"] == 3 and back.meta["encoding"] == encoding.NAME
    assert np.allclose(back.contact.w1, pair.contact.w1, atol=1e-6)
    assert back.race.hidden == 4


def test_weights_for_another_encoding_are_refused(tmp_path, monkeypatch) -> None:
    path = tmp_path / "w.npz"
    _pair().save(path)
    monkeypatch.setattr(encoding, "VERSION", encoding.VERSION + 1)
    with pytest.raises(EngineError, match="encoding"):
        NetPair.load(path)


def test_unreadable_weights(tmp_path) -> None:
    path = tmp_path / "w.npz"
    path.write_bytes(b"not a zip")
    with pytest.raises(EngineError, match="cannot read"):
        NetPair.load(path)


def test_shipped_weights_have_a_record() -> None:
    from backgammon.engine.evaluator import default_weights_path

    pair = NetPair.load(default_weights_path())
    record = json.loads(default_weights_path().with_suffix(".json").read_text())
    assert pair.meta["games"] == record["games"] > 0


def test_sparse_forward_pass_equals_the_dense_one() -> None:
    """The compiled forward pass on the sparse inputs gives the dense numpy pass's outputs and hidden layer."""
    from backgammon.engine._movegen import board_of
    from backgammon.engine.network import NUM_OUTPUTS, forward_sparse

    from ._helpers import random_positions

    rng = np.random.default_rng(8)
    net = Net.random(16, rng, 0.5)
    idx = np.empty(encoding.MAX_NONZERO, dtype=np.int64)
    val = np.empty(encoding.MAX_NONZERO)
    hidden, out = np.empty(16), np.empty(NUM_OUTPUTS)
    for p in random_positions(100, seed=8):
        k = encoding.encode_sparse(board_of(p), idx, val)
        forward_sparse(idx, val, k, net.w1, net.b1, net.w2, net.b2, hidden, out)
        x = encoding.encode(p)
        h = 1.0 / (1.0 + np.exp(-(x @ net.w1 + net.b1)))
        assert np.allclose(hidden, h, rtol=0, atol=1e-12)
        assert np.allclose(out, net.forward(x[None])[0], rtol=0, atol=1e-12)
