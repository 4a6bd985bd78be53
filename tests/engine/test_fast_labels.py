"""The fast labeller (labels v2): float32 forward pass, bear-off leaves, pruned replies, threads."""

from __future__ import annotations

import numpy as np
import pytest

from backgammon.engine._kernels import nply
from backgammon.engine.bearoff import BearoffDatabase
from backgammon.engine.encoding import MAX_NONZERO, encode_sparse
from backgammon.engine.evaluator import NetEvaluator, default_weights_path
from backgammon.engine.movegen import BEAROFF, MAX_PLAYS, phase, successors_py, successors_ws
from backgammon.engine.network import forward_sparse, forward_sparse32
from backgammon.engine.search import ROLLS, evaluate_boards_ply
from backgammon.errors import InvalidInputError
from backgammon.training import _distill
from backgammon.training.labels import (
    LABEL_VERSION,
    PRUNE,
    LabelSettings,
    fit_pruner,
    label_boards_fast,
    leaf_arrays,
    net_arrays,
    teacher_of,
)

from ._helpers import PlainEvaluator


@pytest.fixture(scope="module")
def arrays() -> tuple[np.ndarray, ...]:
    return net_arrays(default_weights_path())


@pytest.fixture(scope="module")
def boards(arrays) -> np.ndarray:
    out = np.empty((40, 2, 25), dtype=np.int8)
    _distill.sample_positions(*arrays, 4242, 0, 0.1, out, 0.25, 0.1)
    return out


def equity(t: np.ndarray) -> np.ndarray:
    return 2 * t[:, 0] - 1 + t[:, 1] - t[:, 3] + t[:, 2] - t[:, 4]


def test_float32_forward_pass_agrees_with_float64(arrays, boards) -> None:
    leaves = np.concatenate([successors_py(b, d1, d2) for b in boards[:10] for d1, d2, _ in ROLLS])
    assert len(leaves) > 1000
    fast = leaf_arrays(arrays)
    idx = np.empty(MAX_NONZERO, dtype=np.int64)
    val = np.empty(MAX_NONZERO)
    width = max(arrays[1].shape[0], arrays[5].shape[0])  # the widest hidden layer (the buffer is not bounds-checked)
    hid = np.empty(width)
    hid32 = np.empty(width, dtype=np.float32)
    o, o32 = np.empty(5), np.empty(5)
    worst = 0.0
    for leaf in leaves:
        k = encode_sparse(leaf, idx, val)
        for net, net32 in ((arrays[:4], fast[:4]), (arrays[4:], fast[4:8])):
            forward_sparse(idx, val, k, *net, hid, o)
            forward_sparse32(idx, val.astype(np.float32), k, *net32, hid32, o32)
            worst = max(worst, float(np.abs(o - o32).max()))
    assert 0 < worst < 2e-6


def test_unpruned_labels_are_the_searchs_two_ply_values(arrays, boards) -> None:
    # away from the bear-off (four checkers or more beyond each side's 12-point: neither side gets home
    # in one roll), v2 without pruning is exactly search's 2-ply value, up to the float32 nets
    far = np.array([b[0, 12:].sum() >= 4 and b[1, 12:].sum() >= 4 for b in boards])
    sample = boards[far][:6]
    assert len(sample) == 6
    ref = evaluate_boards_ply(sample, PlainEvaluator(NetEvaluator.default()), 2)
    got = label_boards_fast(sample, arrays, 2, prune=0)
    assert np.abs(got - ref).max() < 1e-5
    assert np.abs(got - label_boards_fast(sample, arrays, 1, prune=0)).max() > 1e-3  # 2 plies is not 1 ply


def test_unpruned_three_ply_labels_are_the_searchs_three_ply_values(arrays, boards) -> None:
    # the 3-ply label: per roll the 0-ply best play, valued at 2 plies; unpruned it is search's 3-ply value
    far = np.array([b[0, 12:].sum() >= 4 and b[1, 12:].sum() >= 4 for b in boards])
    sample = boards[far][:2]
    ref = evaluate_boards_ply(sample, PlainEvaluator(NetEvaluator.default()), 3)
    got = label_boards_fast(sample, arrays, 3, prune=0)
    assert np.abs(got - ref).max() < 1e-5
    assert np.abs(got - label_boards_fast(sample, arrays, 2, prune=0)).max() > 1e-3  # 3 plies is not 2
    # pruned (the labeller's default), the labels stay close
    d = np.abs(equity(label_boards_fast(sample, arrays, 3)) - equity(got))
    assert d.max() < 0.02  # measured: ~0.002


def test_pruned_labels_stay_close_to_the_unpruned_ones(arrays, boards) -> None:
    exact = label_boards_fast(boards, arrays, 2, prune=0)
    pruned = label_boards_fast(boards, arrays, 2, prune=12)
    d = np.abs(equity(pruned) - equity(exact))
    assert d.mean() < 0.003 and d.max() < 0.05  # measured: ~0.0005 mean, 0.01 max (benchmarks/label_speed.py)
    assert d.max() > 0  # the pruning did prune
    # keeping more replies than any roll has is no pruning at all
    assert np.array_equal(label_boards_fast(boards[:5], arrays, 2, prune=MAX_PLAYS), exact[:5])


def test_pruning_keeps_the_best_reply_in_nearly_all_rolls(arrays, boards) -> None:
    leaf = leaf_arrays(arrays)
    pw = fit_pruner(arrays)
    levels, shared = nply.fast_scratch(leaf[1], leaf[5])
    cand, work, table = levels[0]
    o, a, b = np.empty(5), np.empty(5), np.empty(5)
    rolls = pruned = differ = 0
    for board in boards:
        for d1, d2, _ in ROLLS:
            n = successors_ws(board, d1, d2, cand, work, table)
            ca = nply.choose_pruned(cand, n, 0, pw, leaf, shared, o, a)
            cb = nply.choose_pruned(cand, n, 12, pw, leaf, shared, o, b)
            rolls += 1
            pruned += n > 12
            differ += ca != cb
            assert equity(b[None])[0] >= equity(a[None])[0]  # the unpruned choice is the opponent's worst
    assert pruned > 100 and differ / rolls < 0.06  # measured ~3%


def test_bearoff_leaves_are_exact(arrays) -> None:
    # the side on roll has one checker left, on its 7-point; the opponent is home: every play leaves both
    # sides home (valued by the database) or wins
    board = np.zeros((2, 25), dtype=np.int8)
    board[0, 6] = 1
    board[1, :6] = (1, 1, 0, 1, 1, 1)
    db = BearoffDatabase.get()
    acc = np.zeros(5)
    for d1, d2, w in ROLLS:
        best = None
        for c in successors_py(board, d1, d2):
            if c[1].sum() == 0:
                p = np.zeros(5)  # the opponent, on roll, has lost a single game
            else:
                assert phase(c) == BEAROFF
                p = np.array(db.probabilities(tuple(int(x) for x in c[0, :6]), tuple(int(x) for x in c[1, :6])))
            if best is None or equity(p[None])[0] < equity(best[None])[0]:
                best = p
        assert best is not None
        acc += w * np.array([1 - best[0], best[3], best[4], best[1], best[2]])
    got = label_boards_fast(board[None], arrays, 1, prune=0)[0]
    assert np.allclose(got, acc / 36, atol=1e-12)
    assert not np.allclose(got, evaluate_boards_ply(board[None], NetEvaluator(bearoff=False), 1)[0], atol=1e-4)


def test_labels_do_not_depend_on_the_thread_count(arrays, boards) -> None:
    one = label_boards_fast(boards[:8], arrays, 2, 1)
    assert np.array_equal(one, label_boards_fast(boards[:8], arrays, 2, 2))


def test_the_teacher_names_labels_version_2_and_the_cli_default_is_the_librarys() -> None:
    import inspect

    from backgammon.cli.train_cmds import label

    assert LABEL_VERSION == 2 and teacher_of(default_weights_path()).endswith("labels-v2")
    assert inspect.signature(label).parameters["prune"].default.default == PRUNE == LabelSettings().prune


def test_sampled_rolls_estimate_the_three_ply_label(arrays, boards) -> None:
    """--rolls K: per roll the chosen play at 1 ply, plus the 2-ply minus 1-ply difference of K rolls drawn per
    board, scaled to all of them: with every roll drawn it is the 3-ply label, with fewer it stays close."""
    from backgammon.training.labels import PRUNE

    contact = np.array([b for b in boards if phase(b) < BEAROFF][:6])
    full = label_boards_fast(contact, arrays, 3)
    # every roll through the sampled path (weights of repeated plays and exact rolls included): the 3-ply value
    leaf, pw = leaf_arrays(arrays), fit_pruner(arrays)
    scratch = nply.fast_scratch(leaf[1], leaf[5])
    out = np.empty(5)
    for b, want in zip(contact, full):
        nply.three_ply_sampled(b, 0, PRUNE, pw, leaf, scratch, 21, out)
        assert np.abs(out - want).max() < 1e-9
    sampled = label_boards_fast(contact, arrays, 3, rolls=3)
    d = equity(sampled) - equity(full)
    assert 0 < np.abs(d).max() < 0.05  # measured: 0.006 rms over 60 positions, 0.0085 at most
    assert np.array_equal(sampled, label_boards_fast(contact, arrays, 3, 2, rolls=3))  # a function of the board
    assert np.array_equal(label_boards_fast(contact, arrays, 3, rolls=21), full)
    with pytest.raises(Exception, match="rolls"):
        LabelSettings(plies=2, rolls=3).check()
    with pytest.raises(Exception, match="rolls"):
        LabelSettings(plies=3, rolls=22).check()
    LabelSettings(plies=3, rolls=3).check()


def test_the_engines_nply_entry_rejects_a_bad_depth_or_pruning_without_a_model(arrays, boards) -> None:
    with pytest.raises(InvalidInputError, match="plies 1, 2 or 3"):
        nply.evaluate_nply(boards[:2], arrays, 0)
    with pytest.raises(InvalidInputError, match="needs a pruner"):
        nply.evaluate_nply(boards[:2], arrays, 2, prune=PRUNE)
    pruned = nply.evaluate_nply(boards[:4], arrays, 2, prune=PRUNE, pruner=fit_pruner(arrays))
    assert np.array_equal(pruned, label_boards_fast(boards[:4], arrays, 2))  # the labels' default: pruned
