import json

import numpy as np
import pytest

from backgammon import Position
from backgammon.engine.evaluator import NetEvaluator, default_weights_path
from backgammon.engine.movegen import BEAROFF, phase
from backgammon.engine.network import Net, NetPair
from backgammon.engine.search import evaluate_boards_ply
from backgammon.errors import EngineError, InvalidInputError
from backgammon.training import _distill
from backgammon.training.labels import label_boards_fast, net_arrays
from backgammon.training.refine import RefineConfig, RefineState, label_boards, run
from backgammon.training.train import BEST, CHECKPOINT, LOG


@pytest.fixture()
def small_weights(tmp_path):
    rng = np.random.default_rng(5)
    path = tmp_path / "w.npz"
    NetPair(Net.random(8, rng, 0.3), Net.random(4, rng, 0.3), {"games": 0}).save(path)
    return path


def _cfg(path, **kw) -> RefineConfig:
    return RefineConfig(
        init_from=str(path), **{"contact_hidden": 8, "race_hidden": 4, "positions": 40, "buffer": 2, **kw}
    )


def test_labels_are_the_label_shards_labels() -> None:
    """Refinement labels with the labeller of the label shards (labels v2): at 1 ply exactly the search's
    1-ply values (the bear-off database at the leaves, float32 nets), for any thread count."""
    arrays = net_arrays(default_weights_path())
    boards = np.empty((40, 2, 25), dtype=np.int8)
    _distill.sample_positions(*arrays, 4, 0, 0.3, boards)
    boards = boards[[phase(b) < BEAROFF for b in boards]]  # the root of a bear-off is the database's value
    one = label_boards(boards, arrays, 1)
    assert np.abs(one - evaluate_boards_ply(boards, NetEvaluator.default(), 1)).max() < 1e-5
    assert np.array_equal(one, label_boards(boards, arrays, 1, threads=3))
    assert np.array_equal(one, label_boards_fast(boards, arrays, 1, prune=0))


@pytest.mark.slow  # fits the pruning model of the shipped nets (a few seconds)
def test_two_ply_labels_are_the_pruned_labels_of_the_shards() -> None:
    arrays = net_arrays(default_weights_path())
    boards = np.empty((40, 2, 25), dtype=np.int8)
    _distill.sample_positions(*arrays, 4, 0, 0.3, boards)
    few = boards[::8]
    two = label_boards(few, arrays, 2)
    assert np.array_equal(two, label_boards_fast(few, arrays, 2))  # pruned to labels.PRUNE replies
    assert not np.allclose(two, label_boards(few, arrays, 1), atol=1e-3)  # a different, deeper value


def test_two_ply_refinement_runs_and_records_its_depth(tmp_path, small_weights) -> None:
    cfg = _cfg(small_weights, label_ply=2, positions=6)
    state = run(tmp_path, cfg, 1, eval_pairs=1)
    assert RefineState.load(tmp_path / CHECKPOINT).config.label_ply == 2
    assert "2-ply" in state.net_pair().meta["method"]
    assert RefineConfig.from_json({k: v for k, v in cfg.to_json().items() if k != "label_ply"}).label_ply == 1


def test_sampling_keeps_a_share_of_positions(small_weights) -> None:
    state = RefineState.fresh(_cfg(small_weights))
    every, default, sparse = (np.empty((200, 2, 25), dtype=np.int8) for _ in range(3))
    games_all = _distill.sample_positions(*state.arrays(), 3, 0, 0.1, every, 1.0)
    assert _distill.sample_positions(*state.arrays(), 3, 0, 0.1, default) == games_all
    assert np.array_equal(every, default)  # keep=1 draws nothing more: older runs sample as before
    games_sparse = _distill.sample_positions(*state.arrays(), 3, 0, 0.1, sparse, 0.1)
    assert games_sparse > 4 * games_all  # about ten times as many games for the same sample
    assert {b.tobytes() for b in sparse} - {b.tobytes() for b in every}


def test_refine_fits_and_resumes_exactly(tmp_path, small_weights) -> None:
    cfg = _cfg(small_weights)
    a = run(tmp_path / "a", cfg, 3, eval_pairs=2)
    run(tmp_path / "b", cfg, 1, eval_pairs=2)
    b = run(tmp_path / "b", cfg, 3, eval_pairs=2)
    assert a.iteration == b.iteration == 3 and a.games == b.games > 0
    for x, y in zip(a.arrays(), b.arrays()):
        assert np.array_equal(x, y)
    fresh = RefineState.fresh(cfg)
    assert not np.allclose(fresh.contact.w1, a.contact.w1)
    lines = [json.loads(s) for s in (tmp_path / "b" / LOG).read_text().splitlines()]
    assert [ln["iteration"] for ln in lines] == [1, 2, 3]
    assert all(0 <= ln["rms_error"] < 1 for ln in lines)
    assert len(RefineState.load(tmp_path / "b" / CHECKPOINT).boards) == 2  # the buffer keeps two iterations
    assert NetPair.load(tmp_path / "b" / BEST).meta["iterations"] >= 1


def test_refine_refuses_bad_settings(tmp_path, small_weights) -> None:
    run(tmp_path, _cfg(small_weights), 1, eval_pairs=1)
    with pytest.raises(EngineError, match="config"):
        run(tmp_path, _cfg(small_weights, seed=9), 2, eval_pairs=1)
    with pytest.raises(InvalidInputError):
        run(tmp_path / "x", _cfg(small_weights, explore=2.0), 1)
    with pytest.raises(InvalidInputError, match="kept"):
        run(tmp_path / "k", _cfg(small_weights, keep=0.0), 1)
    with pytest.raises(InvalidInputError, match="1 or 2 plies"):
        run(tmp_path / "z", _cfg(small_weights, label_ply=3), 1)
    with pytest.raises(EngineError, match="cannot read"):
        run(tmp_path / "y", _cfg(tmp_path / "missing.npz"), 1)


def _flip(o: np.ndarray) -> np.ndarray:
    return np.array([1 - o[0], o[3], o[4], o[1], o[2]])


def test_lambda_returns_by_hand() -> None:
    rng = np.random.default_rng(3)
    v1, v0 = rng.uniform(0, 1, (5, 5)), rng.uniform(0, 1, (5, 5))
    last = np.array([False, False, True, False, True])  # two games: positions 0-2 and 3-4
    random_move = np.array([False, False, False, True, False])
    out = np.empty((5, 5))
    _distill.lambda_returns(v1, v0, random_move, last, 0.0, out)
    assert np.array_equal(out, v1)
    lam = 0.6
    _distill.lambda_returns(v1, v0, random_move, last, lam, out)
    g2 = v1[2]  # the move from position 2 ended the game
    g1 = v1[1] + lam * (_flip(g2) - _flip(v0[2]))
    g0 = v1[0] + lam * (_flip(g1) - _flip(v0[1]))
    assert np.allclose(out[:3], [g0, g1, g2])
    assert np.array_equal(out[3], v1[3]) and np.array_equal(out[4], v1[4])  # a random move cuts the return
    # the differences flip like outcomes: wins against losses, each side's gammons to the other's
    assert np.allclose(out[1] - v1[1], lam * np.array([-(v1[2] - v0[2])[0], *(v1[2] - v0[2])[[3, 4, 1, 2]]]))


def _successors(board: np.ndarray) -> set[bytes]:
    position = Position(tuple(int(x) for x in board[0]), tuple(int(x) for x in board[1]))
    found = set()
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            for play in position.legal_plays(d1, d2):
                after = play.position
                found.add(np.array([after.mine, after.theirs], dtype=np.int8).tobytes())
    return found


def test_sampled_games_are_whole_games_in_order(small_weights) -> None:
    state = RefineState.fresh(_cfg(small_weights))
    boards = np.empty((300, 2, 25), dtype=np.int8)
    random_move, last = np.zeros(300, dtype=np.bool_), np.zeros(300, dtype=np.bool_)
    k, advance = _distill.sample_games(*state.arrays(), 3, 0, 0.2, boards, random_move, last)
    assert k == 300 and last.sum() >= 2 and advance == last.sum() + 1
    assert random_move.any() and not random_move.all()
    end = np.flatnonzero(last)[-1] + 1
    for i in range(end - 1):
        if last[i]:  # the next one starts a game: the position after an opening move
            assert boards[i + 1].sum() == 30 and boards[i + 1, 1].tolist().count(0) >= 19
        else:
            assert boards[i + 1].tobytes() in _successors(boards[i])
    again = np.empty_like(boards)
    r2, l2 = np.zeros(300, dtype=np.bool_), np.zeros(300, dtype=np.bool_)
    _distill.sample_games(*state.arrays(), 3, 0, 0.2, again, r2, l2)
    assert np.array_equal(again, boards) and np.array_equal(r2, random_move) and np.array_equal(l2, last)
    none_random = np.zeros(300, dtype=np.bool_)
    _distill.sample_games(*state.arrays(), 3, 0, 0.0, boards, none_random, last)
    assert not none_random.any()


def test_lambda_refinement_runs_resumes_and_is_checked(tmp_path, small_weights) -> None:
    cfg = _cfg(small_weights, lam=0.7, positions=150)
    a = run(tmp_path / "a", cfg, 2, eval_pairs=1)
    run(tmp_path / "b", cfg, 1, eval_pairs=1)
    b = run(tmp_path / "b", cfg, 2, eval_pairs=1)
    for x, y in zip(a.arrays(), b.arrays()):
        assert np.array_equal(x, y)
    plain = run(tmp_path / "c", _cfg(small_weights, positions=150), 2, eval_pairs=1)
    assert not np.allclose(plain.contact.w1, a.contact.w1)
    assert "lambda 0.7" in a.net_pair().meta["method"]
    assert RefineConfig.from_json({k: v for k, v in cfg.to_json().items() if k != "lam"}).lam == 0.0
    with pytest.raises(InvalidInputError, match="lambda"):
        run(tmp_path / "d", _cfg(small_weights, lam=0.5, keep=0.5), 1)
    with pytest.raises(InvalidInputError, match="lambda"):
        run(tmp_path / "e", _cfg(small_weights, lam=1.5), 1)
