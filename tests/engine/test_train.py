import json

import numpy as np
import pytest

from backgammon.errors import EngineError, InvalidInputError
from backgammon.training.train import CHECKPOINT, LOG, TrainConfig, TrainState, run, train_chunk, versus_pubeval

CFG = TrainConfig(seed=7, contact_hidden=8, race_hidden=4)


def test_training_changes_weights_and_reports_error() -> None:
    state = TrainState.fresh(CFG)
    before = state.contact.w1.copy()
    info = train_chunk(state, 5)
    assert info["games"] == 5 and info["plies"] > 5 * 20
    assert 0 < info["rms_td_error"] < 1
    assert not np.allclose(before, state.contact.w1)
    # the same seed replays the same games and reaches the same weights
    again = TrainState.fresh(CFG)
    train_chunk(again, 5)
    assert np.array_equal(again.contact.w1, state.contact.w1)  # same seed, same games, same weights


def test_resume_equals_uninterrupted(tmp_path) -> None:
    a = run(tmp_path / "a", CFG, total_games=6, chunk=6, eval_every=1000, eval_pairs=2)
    run(tmp_path / "b", CFG, total_games=3, chunk=3, eval_every=1000, eval_pairs=2)
    b = run(tmp_path / "b", CFG, total_games=6, chunk=3, eval_every=1000, eval_pairs=2)  # resumes at 3
    assert a.games == b.games == 6
    for x, y in zip(a.arrays(), b.arrays()):
        assert np.array_equal(x, y)
    lines = [json.loads(s) for s in (tmp_path / "b" / LOG).read_text().splitlines()]
    assert [ln["total_games"] for ln in lines] == [3, 6]
    assert TrainState.load(tmp_path / "b" / CHECKPOINT).games == 6


def test_resume_refuses_another_config(tmp_path) -> None:
    run(tmp_path, CFG, total_games=2, chunk=2, eval_every=1000, eval_pairs=1)
    with pytest.raises(EngineError, match="config"):
        run(tmp_path, TrainConfig(seed=8, contact_hidden=8, race_hidden=4), total_games=4)
    with pytest.raises(InvalidInputError):
        run(tmp_path, CFG, total_games=4, chunk=0)


def test_versus_pubeval_reports_points_and_error() -> None:
    state = TrainState.fresh(CFG)
    score, se, n = versus_pubeval(state.contact, state.race, 5)
    assert n == 10 and -3 <= score <= 3 and se >= 0


def test_td_lambda_learns_and_resumes(tmp_path) -> None:
    cfg = TrainConfig(seed=3, contact_hidden=8, race_hidden=4, lam=0.7)
    a = run(tmp_path / "a", cfg, total_games=4, chunk=4, eval_every=1000, eval_pairs=1)
    run(tmp_path / "b", cfg, total_games=2, chunk=2, eval_every=1000, eval_pairs=1)
    b = run(tmp_path / "b", cfg, total_games=4, chunk=2, eval_every=1000, eval_pairs=1)
    for x, y in zip(a.arrays(), b.arrays()):
        assert np.array_equal(x, y)
    fresh = TrainState.fresh(cfg)
    assert not np.allclose(fresh.contact.w1, a.contact.w1)
    # lambda changes what is learnt from the same games
    zero = run(
        tmp_path / "c",
        TrainConfig(seed=3, contact_hidden=8, race_hidden=4),
        total_games=4,
        chunk=4,
        eval_every=1000,
        eval_pairs=1,
    )
    assert not np.allclose(zero.contact.w1, a.contact.w1)
