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
    from backgammon.engine.movegen import board_of
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


def _race_inputs(position: Position, side: int) -> list[float]:
    x = encoding.encode(position, race=True)
    start = encoding.NUM_INPUTS + side * encoding.RACE
    return x[start : start + encoding.RACE].tolist()


def test_race_inputs_by_hand() -> None:
    # me: four on the ace point (home, eleven off); them: thirteen home, one on their 7 and one on their 23
    p = Position.from_points({1: 4}, {1: 5, 2: 4, 3: 2, 4: 1, 5: 1, 7: 1, 23: 1})
    x = encoding.encode(p, race=True)
    assert x.shape == (encoding.RACE_INPUTS,)
    assert np.array_equal(x[: encoding.NUM_INPUTS], encoding.encode(p))  # the contact net's inputs first
    mine = _race_inputs(p, 0)
    assert mine[:6] == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # home, some off, nothing to cross, nothing stuck back
    assert mine[6:14] == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]  # four left: n <= 4 and above
    assert mine[14] == pytest.approx(2 / 10) and mine[15] == 0.0  # two rolls at least (4 pips: 0.49 rolls)
    theirs = _race_inputs(p, 1)
    assert theirs[0] == 0.0 and theirs[1] == 1.0  # not home, none off: a gammon is on
    assert theirs[2] == pytest.approx((1 + 17) / 60) and theirs[3] == pytest.approx(2 / 15)  # 7 -> 6, 23 -> 6
    assert theirs[4] == pytest.approx(1 / 15) and theirs[5] == pytest.approx(5 / 30)  # the 23 needs 5 pips out
    assert theirs[6:14] == [0.0] * 8
    assert theirs[14] == 0.0 and theirs[15] == pytest.approx((18 + 12) / 8.17 / 10)


def test_race_sparse_inputs_equal_the_dense_ones() -> None:
    from backgammon.engine.movegen import CONTACT, board_of, phase

    from ._helpers import random_positions

    idx = np.empty(encoding.MAX_NONZERO, dtype=np.int64)
    val = np.empty(encoding.MAX_NONZERO)
    for p in random_positions(100, seed=9):
        b = board_of(p)
        k = encoding.encode_for(b, phase(b), idx, val)
        race = phase(b) != CONTACT
        x = np.zeros(encoding.RACE_INPUTS if race else encoding.NUM_INPUTS)
        x[idx[:k]] = val[:k]
        assert np.array_equal(x, encoding.encode(p, race=race))


def test_weights_of_encoding_3_load_with_zero_race_weights(tmp_path) -> None:
    """A file made before the race inputs: its race net gets zero weights on them, so the engine's values
    do not change."""
    from backgammon.engine.evaluator import NetEvaluator, settle
    from backgammon.engine.movegen import RACE, board_of, phase
    from backgammon.engine.network import arrays_of, write_npz

    rng = np.random.default_rng(2)
    contact, race = Net.random(8, rng, 0.3), Net.random(4, rng, 0.3)
    meta = {"format": "backgammon-mlp", "format_version": 1, "encoding": encoding.V3_NAME, "encoding_version": 3}
    path = tmp_path / "v3.npz"
    write_npz(path, meta, arrays_of(contact, race))
    pair = NetPair.load(path)
    assert pair.race.w1.shape == (encoding.RACE_INPUTS, 4)
    assert not pair.race.w1[encoding.NUM_INPUTS :].any()
    p = Position.from_points({1: 4}, {1: 5, 2: 4, 7: 1, 23: 1})
    assert phase(board_of(p)) == RACE
    x = encoding.encode(p)
    want = race.forward(x[None])[0]
    settle(board_of(p), RACE, want)  # as the evaluator does: consistent, and no gammon where one is impossible
    assert np.allclose(NetEvaluator(path, bearoff=False).evaluate(p).as_array(), want)
    meta["encoding_version"] = 2
    write_npz(path, meta, arrays_of(contact, race))
    with pytest.raises(EngineError, match="encoding"):
        NetPair.load(path)
    with pytest.raises(EngineError, match="inputs"):  # a race net without the race inputs never reaches a kernel
        from backgammon.engine.network import kernel_arrays

        kernel_arrays(contact, race)
