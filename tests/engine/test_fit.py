"""backgammon fit: nets fitted to label shards (runs, learns, reproducible, resumable, loads as weights)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from backgammon.cli import main
from backgammon.engine.evaluator import NetEvaluator, default_weights_path
from backgammon.engine.movegen import BEAROFF, CONTACT, OVER, RACE, phase
from backgammon.engine.network import Net, NetPair
from backgammon.errors import EngineError, InvalidInputError
from backgammon.position import Position
from backgammon.training import _distill
from backgammon.training.fit import (
    WEIGHTS,
    FitConfig,
    FitState,
    centred_gradient,
    decision_errors,
    equity,
    held_out,
    run,
    shard_files,
    ship,
    split,
)
from backgammon.training.labels import MANIFEST, LabelSettings, load_labels, net_arrays, write_labels
from backgammon.training.train import CHECKPOINT, LOG

SHARD = 200


@pytest.fixture(scope="module")
def labels(tmp_path_factory) -> str:
    """A toy label folder: 600 self-play positions in three shards, labelled with the shipped nets' own
    0-ply values (a target a small net can learn)."""
    folder = tmp_path_factory.mktemp("labels")
    arrays = net_arrays(default_weights_path())
    boards = np.empty((3 * SHARD, 2, 25), dtype=np.int8)
    _distill.sample_positions(*arrays, 11, 0, 0.1, boards, 0.5)
    targets = NetEvaluator.default().evaluate_boards(boards)
    entries = []
    for i in range(3):
        rows = slice(i * SHARD, (i + 1) * SHARD)
        ids = np.array([Position(tuple(b[0].tolist()), tuple(b[1].tolist())).position_id() for b in boards[rows]])
        name = f"toy-{i:05d}.npz"
        np.savez_compressed(
            folder / name,
            position_ids=ids.astype("S14"),
            targets=targets[rows].astype(np.float16),
            phase=np.array([phase(b) for b in boards[rows]], dtype=np.uint8),
        )
        entries.append({"file": name, "count": SHARD, "sha256": f"toy{i}"})
    (folder / MANIFEST).write_text(json.dumps({"format": 1, "shards": entries}))
    return str(folder)


def _by_depth(labels: str, folder: Path, teachers: tuple[str, ...] | None = None) -> Path:
    """A copy of the toy labels whose shards are labelled at 2, 3 and 3 plies (by ``teachers``, if given)."""
    folder.mkdir()
    manifest = json.loads((Path(labels) / MANIFEST).read_text())
    for i, (entry, plies) in enumerate(zip(manifest["shards"], (2, 3, 3), strict=True)):
        (folder / entry["file"]).write_bytes((Path(labels) / entry["file"]).read_bytes())
        entry["plies"] = plies
        if teachers:
            entry["teacher"] = "weights-sha256:" + teachers[i]
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return folder


def small(labels: str, **kw) -> FitConfig:
    settings = {"seed": 3, "contact_hidden": 8, "race_hidden": 4, "batch": 32, "alpha": 0.01, "holdout": 0.2}
    return FitConfig(labels=labels, **{**settings, **kw})


def test_load_labels_takes_the_shards_named(labels) -> None:
    boards, targets = load_labels(labels)
    b1, t1 = load_labels(labels, ["toy-00002.npz", "toy-00000.npz"])
    assert np.array_equal(b1, np.concatenate([boards[400:], boards[:200]]))
    assert np.array_equal(t1, np.concatenate([targets[400:], targets[:200]]))
    with pytest.raises(EngineError, match="does not list"):
        load_labels(labels, ["nope.npz"])


def test_split_by_phase_and_holdout_by_position(labels) -> None:
    boards, targets = load_labels(labels)
    data, counts = split(boards, targets, 0.2)
    phases = np.array([phase(b) for b in boards])
    assert counts["contact_train"] + counts["contact_holdout"] == np.sum(phases == CONTACT) > 0
    assert counts["race_train"] + counts["race_holdout"] == np.sum(phases == RACE) > 0
    assert counts["not_used"] == np.sum((phases == BEAROFF) | (phases == OVER)) > 0  # the database answers those
    assert data["contact"].x.shape == (counts["contact_train"], 232) and data["contact"].x.dtype == np.float32
    # the held-out share is about right, and a position is held out whatever else is in the data
    ho = held_out(boards, 0.2)
    assert 0.1 < ho.mean() < 0.3
    assert np.array_equal(held_out(boards[::-1], 0.2), ho[::-1])


def test_fit_learns_and_writes_weights(labels, tmp_path) -> None:
    state = run(tmp_path, small(labels), 6)
    first, last = state.history[0], state.history[-1]
    assert [h["epoch"] for h in state.history] == list(range(7))  # epoch 0: the starting nets
    assert last["contact_holdout"] < 0.5 * first["contact_holdout"]  # learnable targets: the error falls
    assert state.history[-1]["contact_train"] < state.history[1]["contact_train"]
    lines = [json.loads(s) for s in (tmp_path / LOG).read_text().splitlines()]
    assert [ln["epoch"] for ln in lines] == list(range(7))
    # a normal weights file with its training record beside it, usable as an evaluator
    nets = NetPair.load(tmp_path / WEIGHTS)
    assert nets.contact.hidden == 8 and nets.race.hidden == 4
    record = json.loads((tmp_path / "weights.json").read_text())
    assert record["labels"]["shards"] == 3 and record["epochs"] == 6 and "backgammon fit" in record["method"]
    assert record["best_epoch"]["contact"] == state.best_epoch["contact"] > 0
    probs = NetEvaluator(tmp_path / WEIGHTS).evaluate(Position.initial())
    assert 0.3 < probs.win < 0.7


def test_same_seed_same_weights_and_resume_is_exact(labels, tmp_path) -> None:
    cfg = small(labels, average=0.9, shards=2)
    a = run(tmp_path / "a", cfg, 2)
    b = run(tmp_path / "b", cfg, 1)
    assert b.epoch == 1
    b = run(tmp_path / "b", cfg, 2)  # resumes from the checkpoint after epoch 1
    c = FitState.load(tmp_path / "b" / CHECKPOINT)
    assert a.files == c.files == ["toy-00000.npz", "toy-00001.npz"]
    for name in ("contact", "race"):
        for x, y, z in zip(a.opts[name].avg, b.opts[name].avg, c.opts[name].avg):
            assert np.array_equal(x, y) and np.array_equal(x, z)
    assert (tmp_path / "a" / WEIGHTS).read_bytes() != b""
    assert NetPair.load(tmp_path / "a" / WEIGHTS).contact.w1.tobytes() == (
        NetPair.load(tmp_path / "b" / WEIGHTS).contact.w1.tobytes()
    )
    other = run(tmp_path / "c", small(labels, average=0.9, shards=2, seed=4), 1)
    assert not np.array_equal(other.opts["contact"].p[0], b.opts["contact"].p[0])
    with pytest.raises(EngineError, match="config"):
        run(tmp_path / "a", small(labels, shards=2), 3)


def test_warm_start_begins_at_the_shipped_nets(labels, tmp_path) -> None:
    cfg = FitConfig(labels=labels, init_from=str(default_weights_path()), alpha=1e-4, batch=64, holdout=0.2)
    state = run(tmp_path, cfg, 0)
    shipped = NetPair.load(default_weights_path())
    assert np.array_equal(NetPair.load(tmp_path / WEIGHTS).contact.w1, shipped.contact.w1)
    # the shipped nets' own 0-ply values are the targets: they fit them up to float16 rounding
    assert state.history[0]["contact_holdout"] < 1e-6
    assert state.init_record["meta"]["encoding_version"] == shipped.meta["encoding_version"]


def test_cli_fit(labels, tmp_path, capsys) -> None:
    out = tmp_path / "run"
    args = ["fit", "--labels", labels, "--out", str(out), "--epochs", "1", "--contact-hidden", "8"]
    main([*args, "--race-hidden", "4", "--seed", "2"])
    text = capsys.readouterr().out
    assert "600 labels from 3 shards" in text and "epoch 1/1: " in text and "held out" in text
    assert NetPair.load(out / WEIGHTS).contact.hidden == 8
    for bad in (["--epochs", "-1"], ["--holdout", "1.5"], ["--init-from", str(tmp_path / "none.npz")]):
        with pytest.raises(SystemExit) as exc:
            main([*args, *bad])
        assert exc.value.code == 2
    with pytest.raises(InvalidInputError):
        run(tmp_path / "x", small(labels, holdout=0.0), 1)


def test_teachers_choose_the_shards_by_their_teacher(labels, tmp_path, capsys) -> None:
    folder = tmp_path / "labels"
    folder.mkdir()
    manifest = json.loads((Path(labels) / MANIFEST).read_text())
    for entry, teacher in zip(manifest["shards"], ("aaa111 v2", "bbb222 v2", "aaa111 v2"), strict=True):
        (folder / entry["file"]).write_bytes((Path(labels) / entry["file"]).read_bytes())
        entry["teacher"] = "weights-sha256:" + teacher
    (folder / MANIFEST).write_text(json.dumps(manifest))
    assert shard_files(folder, 0, "aaa111") == ["toy-00000.npz", "toy-00002.npz"]
    assert shard_files(folder, 2, "aaa111") == ["toy-00000.npz"]  # the first two shards, then the filter
    assert shard_files(folder, 0, " bbb222 , aaa111 ") == ["toy-00000.npz", "toy-00001.npz", "toy-00002.npz"]
    assert shard_files(folder, 0, "") == shard_files(folder, 0, " , ")
    with pytest.raises(EngineError, match=r"no label shard .* teacher matching 'ccc'"):
        shard_files(folder, 0, "ccc")
    out = tmp_path / "run"
    main(
        [
            "fit",
            "--labels",
            str(folder),
            "--out",
            str(out),
            "--epochs",
            "1",
            "--contact-hidden",
            "8",
            "--race-hidden",
            "4",
            "--teachers",
            "bbb222",
        ]
    )
    assert "200 labels from 1 shards" in capsys.readouterr().out
    assert FitState.load(out / CHECKPOINT).files == ["toy-00001.npz"]


def test_plies_choose_the_shards_by_their_depth(labels, tmp_path, capsys) -> None:
    folder = _by_depth(labels, tmp_path / "labels", ("aaa111", "aaa111", "bbb222"))
    assert shard_files(folder, 0, "", "3") == ["toy-00001.npz", "toy-00002.npz"]
    assert shard_files(folder, 0, "", " 2 , 3 ") == ["toy-00000.npz", "toy-00001.npz", "toy-00002.npz"]
    assert shard_files(folder, 0, "aaa111", "3") == ["toy-00001.npz"]  # both filters
    assert shard_files(folder, 2, "", "3") == ["toy-00001.npz"]  # the first two shards, then the filter
    with pytest.raises(EngineError, match=r"labelled at '1' plies"):
        shard_files(folder, 0, "", "1")
    for bad in ("4", "two", "2;3"):
        with pytest.raises(InvalidInputError, match="expected comma-separated plies 1 to 3"):
            shard_files(folder, 0, "", bad)
    args = ["fit", "--labels", str(folder), "--epochs", "1", "--contact-hidden", "8", "--race-hidden", "4"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "--out", str(tmp_path / "bad"), "--plies", "0"])
    assert exc.value.code == 2
    main([*args, "--out", str(tmp_path / "run"), "--plies", "3", "--teachers", "bbb222"])
    assert "200 labels from 1 shards" in capsys.readouterr().out
    assert FitState.load(tmp_path / "run" / CHECKPOINT).files == ["toy-00002.npz"]


def test_nets_fit_only_the_race_net(labels, tmp_path, capsys) -> None:
    shipped = NetPair.load(default_weights_path())
    cfg = FitConfig(labels=labels, init_from=str(default_weights_path()), alpha=1e-3, batch=32, nets="race")
    state = run(tmp_path, cfg, 1)
    assert state.history[1]["contact_holdout"] is None  # no contact positions: the contact net is not fitted
    assert np.array_equal(NetPair.load(tmp_path / WEIGHTS).contact.w1, shipped.contact.w1)
    assert np.array_equal(state.opts["contact"].p[0], shipped.contact.w1.astype(np.float32))  # never stepped
    assert not np.array_equal(state.opts["race"].p[0], shipped.race.w1.astype(np.float32))  # fitted
    main(["fit", "--labels", labels, "--out", str(tmp_path / "cli"), "--epochs", "0", "--nets", "race"])
    assert "contact 0 + 0 held out" in capsys.readouterr().out
    for bad in ("cube", "race,bearoff"):
        with pytest.raises(InvalidInputError, match="nets"):
            FitConfig(labels=labels, nets=bad).check()


def test_auxiliary_labels_train_a_second_output_layer(labels, tmp_path, capsys) -> None:
    folder = _by_depth(labels, tmp_path / "labels")
    plain = run(tmp_path / "plain", small(str(folder), plies="3"), 3)
    cfg = small(str(folder), plies="3", aux_plies="2", aux_ratio=1.0)
    state = run(tmp_path / "aux", cfg, 3)
    assert state.files == ["toy-00001.npz", "toy-00002.npz"] and state.aux_files == ["toy-00000.npz"]
    contact = state.opts["contact"]
    assert len(contact.p) == 6 and contact.p[4].shape == contact.p[2].shape
    assert not np.array_equal(contact.p[4], contact.p[2])  # its own outputs, fitted to the other labels
    aux_errors = [h["contact_aux_holdout"] for h in state.history[1:]]
    assert aux_errors[-1] < aux_errors[0]  # learnable targets: the auxiliary outputs learn them too
    # the auxiliary rows train the shared hidden layer, so the net differs from one fitted without them
    assert not np.array_equal(contact.p[0], plain.opts["contact"].p[0])
    # the weights file holds the net's own outputs only, and names the auxiliary shards
    nets = NetPair.load(tmp_path / "aux" / WEIGHTS)
    assert nets.contact.w2.shape == (8, 5)
    record = json.loads((tmp_path / "aux" / "weights.json").read_text())
    assert record["aux_labels"]["shards"] == 1 and "auxiliary output layer" in record["method"]
    # resuming restores the auxiliary layer exactly
    run(tmp_path / "resumed", cfg, 2)
    resumed = run(tmp_path / "resumed", cfg, 3)
    for x, y in zip(resumed.opts["contact"].avg, contact.avg, strict=True):
        assert np.array_equal(x, y)
    # ratio 0 is the plain fit, whatever the auxiliary filters say
    none = run(tmp_path / "none", small(str(folder), plies="3", aux_plies="2"), 3)
    assert none.aux_files == [] and np.array_equal(none.opts["contact"].p[0], plain.opts["contact"].p[0])
    with pytest.raises(EngineError, match="no auxiliary label shards"):
        run(tmp_path / "same", small(str(folder), plies="3", aux_plies="3", aux_ratio=1.0), 1)
    with pytest.raises(InvalidInputError, match="auxiliary ratio"):
        small(str(folder), aux_ratio=-1.0).check()
    with pytest.raises(InvalidInputError, match="plies 1 to 3"):
        small(str(folder), aux_ratio=1.0, aux_plies="4").check()
    args = ["fit", "--labels", str(folder), "--out", str(tmp_path / "cli"), "--epochs", "1", "--plies", "3"]
    main([*args, "--contact-hidden", "8", "--race-hidden", "4", "--aux-ratio", "0.5", "--aux-plies", "2"])
    out = capsys.readouterr().out
    assert "auxiliary: 200 labels from 1 shards" in out and ", auxiliary 0." in out


def test_centred_gradient_is_the_gradient_of_the_errors_between_plays() -> None:
    rng = np.random.default_rng(5)
    z = rng.normal(size=(7, 5))
    t = rng.uniform(size=(7, 5)).astype(np.float32)
    gid = np.array([0, 0, 0, 1, 1, 2, 2])

    def loss(zz: np.ndarray) -> float:
        e = equity(1.0 / (1.0 + np.exp(-zz))) - equity(t.astype(np.float64))
        return 3.0 * sum(float(np.sum((e[gid == g] - e[gid == g].mean()) ** 2)) for g in range(3))

    y = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
    grad = centred_gradient(y, t, gid, 3.0)
    numeric = np.zeros_like(z)
    for i in range(7):
        for j in range(5):
            dz = np.zeros_like(z)
            dz[i, j] = 1e-6
            numeric[i, j] = (loss(z + dz) - loss(z - dz)) / 2e-6
    assert np.allclose(grad, numeric, atol=1e-4)
    # the same error on every play of a decision costs nothing: it does not change the choice
    same = np.tile(y[:1], (2, 1))
    assert np.allclose(centred_gradient(same, same - 0.05, np.zeros(2, dtype=np.int64), 1.0), 0.0)


def test_decision_errors_by_hand() -> None:
    # a "net" whose outputs are its first five inputs; two decisions of two and three plays
    params = [np.eye(7, 5, dtype=np.float32) * 50, np.full(5, -25, dtype=np.float32), np.eye(5, dtype=np.float32) * 60,
              np.full(5, -30, dtype=np.float32)]  # fmt: skip
    x = np.zeros((5, 7), dtype=np.float32)
    x[[0, 2, 3], 0] = 1.0  # the net: the opponent wins plays 0, 2 and 3 (mover's equity -1), loses 1 and 4 (+1)
    t = np.zeros((5, 5), dtype=np.float32)
    t[[0, 1, 2], 0] = 1.0  # the labels: the opponent wins 0, 1 and 2
    got = decision_errors(params, x, t, np.array([0, 2, 5]))
    # decision 1: the net prefers play 1 (label -1; best 0 ... both -1): regret 0; decision 2: the net prefers
    # play 4 (label +1, the best): regret 0; errors (net - label, opponent's equity) 0, -2 | 0, +2, 0
    assert got["regret"] == pytest.approx(0.0, abs=1e-6)
    dev = np.array([1.0, -1.0, -2 / 3, 4 / 3, -2 / 3])
    assert got["within"] == pytest.approx(np.sqrt(np.mean(dev**2)), rel=1e-4)
    t[4, 0] = 1.0  # now play 4 loses too and play 3 is the best (+1): the net's choice (4) falls short by 2
    assert decision_errors(params, x, t, np.array([0, 2, 5]))["regret"] == pytest.approx(1.0, rel=1e-4)
    assert decision_errors(params, x[:0], t[:0], np.zeros(1, dtype=np.int64)) == {"within": None, "regret": None}


def test_sibling_shards_add_a_loss_on_the_errors_between_plays(labels, tmp_path, capsys) -> None:
    folder = tmp_path / "labels"
    folder.mkdir()
    for f in Path(labels).iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    (sib,) = [e["file"] for e in write_labels(folder, LabelSettings(plies=1, seed=9, shard_size=300, siblings=4), 300)]
    plain = run(tmp_path / "plain", small(str(folder)), 3)
    assert sib in plain.files and plain.sibling_files == []  # without a weight, plain labels like any other
    cfg = small(str(folder), sibling_weight=4.0, sibling_groups=4)
    state = run(tmp_path / "sib", cfg, 3)
    assert state.sibling_files == [sib] and sib not in state.files
    assert all(h["contact_decisions_within"] > 0 and h["contact_decisions_regret"] >= 0 for h in state.history)
    withins = [h["contact_decisions_within"] for h in state.history]  # epoch 0 (the start), 1, 2, 3
    assert state.best_epoch["contact"] == int(np.argmin(withins))  # the best by what the sibling loss aims at
    zero = run(tmp_path / "zero-weight", small(str(folder), sibling_weight=1e-12, sibling_groups=4), 3)
    # the decisions' rows are labels like the others, and the weight adds its own pull
    assert not np.array_equal(zero.opts["contact"].p[0], plain.opts["contact"].p[0])
    assert not np.array_equal(state.opts["contact"].p[0], zero.opts["contact"].p[0])
    assert np.array_equal(state.opts["race"].p[0], zero.opts["race"].p[0])  # the contact net's decisions only
    record = json.loads((tmp_path / "sib" / "weights.json").read_text())
    assert record["sibling_labels"]["shards"] == 1 and "between the plays" in record["method"]
    assert "within error" in record["selected_by"] and "selected_by" not in json.loads(
        (tmp_path / "plain" / "weights.json").read_text()
    )
    run(tmp_path / "resumed", cfg, 2)
    resumed = run(tmp_path / "resumed", cfg, 3)
    for x, y in zip(resumed.opts["contact"].avg, state.opts["contact"].avg, strict=True):
        assert np.array_equal(x, y)
    with pytest.raises(EngineError, match="no sibling shards"):
        run(tmp_path / "none", small(labels, sibling_weight=1.0), 1)
    with pytest.raises(InvalidInputError, match="sibling weight"):
        small(labels, sibling_weight=-1.0).check()
    args = ["fit", "--labels", str(folder), "--out", str(tmp_path / "cli"), "--epochs", "1"]
    main([*args, "--contact-hidden", "8", "--race-hidden", "4", "--sibling-weight", "2"])
    out = capsys.readouterr().out
    assert "decisions + " in out and "held-out decisions: within 0." in out


def test_ship_makes_a_run_the_weights_and_keeps_the_history(labels, tmp_path, capsys) -> None:
    target = tmp_path / "weights.npz"
    target.write_bytes(default_weights_path().read_bytes())
    before = NetPair.load(target)
    cfg = FitConfig(labels=labels, init_from=str(target), alpha=1e-3, batch=32, nets="race", holdout=0.2)
    run(tmp_path / "run", cfg, 1)
    # the toy targets are the nets' own values, so the best epoch may be the start: mark both of the run's nets
    fitted = NetPair.load(tmp_path / "run" / WEIGHTS)
    fitted = NetPair(*(Net(n.w1 + 0.5, n.b1, n.w2, n.b2) for n in (fitted.contact, fitted.race)), fitted.meta)
    fitted.save(tmp_path / "run" / WEIGHTS)
    fitted = NetPair.load(tmp_path / "run" / WEIGHTS)
    strength = tmp_path / "strength.json"
    strength.write_text(json.dumps({"paired_vs_previous": {"games": 4000, "difference": 0.004, "se": 0.002}}))
    args = ["ship", str(tmp_path / "run"), "--into", str(target), "--strength", str(strength)]
    main([*args, "--stage", "a toy race fit", "--selected", "the only epoch", "--note", "toy labels"])
    assert "shipped" in capsys.readouterr().out
    after = NetPair.load(target)
    # the net the run fitted (--nets race) is the run's, the other the file's as it was
    assert np.array_equal(after.race.w1, fitted.race.w1) and np.array_equal(after.contact.w1, before.contact.w1)
    number = before.meta.get("stage_number") or 1 + max(
        int(k.split()[0][6:]) for k in before.meta["previous"] if k.startswith("stage-")
    )
    assert after.meta["stage_number"] == number + 1
    assert after.meta["previous"][f"stage-{number} selected"] == before.meta["selected"]
    assert after.meta["previous"][f"stage-{number} strength"] == before.meta["strength"]
    assert after.meta["strength"]["paired_vs_previous"]["games"] == 4000 and after.meta["selected"] == "the only epoch"
    last = after.meta["stages"][-1]
    assert len(after.meta["stages"]) == len(before.meta["stages"]) + 1
    assert last["stage"] == "a toy race fit" and last["note"] == "toy labels" and last["config"]["nets"] == "race"
    assert last["labels"]["shards"] == 3 and after.meta["method"].endswith(f"stage {number + 1}: a toy race fit")
    assert json.loads(target.with_suffix(".json").read_text())["stage_number"] == number + 1
    # the run started from the weights as they were: shipping it again (into what it made) is refused
    with pytest.raises(SystemExit) as exc:
        main([*args, "--stage", "again", "--selected", "again"])
    assert exc.value.code == 2
    assert "started from weights" in capsys.readouterr().err
    assert NetPair.load(target).meta["stage_number"] == number + 1  # nothing written
    for bad in ("[1, 2]", "{}", "{not json"):
        strength.write_text(bad)
        with pytest.raises(SystemExit) as exc:
            main([*args, "--stage", "s", "--selected", "s"])
        assert exc.value.code == 2
    with pytest.raises(InvalidInputError, match="--stage"):
        ship(tmp_path / "run", target, " ", "s", {"a": 1})
    with pytest.raises(EngineError, match=r"no weights\.npz"):
        ship(tmp_path / "nothing", target, "s", "s", {"a": 1})


def test_ship_numbers_the_stage_itself(labels, tmp_path) -> None:
    target = tmp_path / "weights.npz"
    target.write_bytes(default_weights_path().read_bytes())
    before = NetPair.load(target)
    cfg = FitConfig(labels=labels, init_from=str(target), alpha=1e-3, batch=32, nets="race", holdout=0.2)
    run(tmp_path / "run", cfg, 1)
    number = before.meta["stage_number"] + 1
    # a "stage N:" naming another stage is refused, and nothing is written
    with pytest.raises(InvalidInputError, match=f"names stage {number + 1}, but this is stage {number}"):
        ship(tmp_path / "run", target, f"stage {number + 1}: toy", "s", {"a": 1})
    with pytest.raises(InvalidInputError, match="not only its number"):
        ship(tmp_path / "run", target, f"stage {number}: ", "s", {"a": 1})
    assert NetPair.load(target).meta["stage_number"] == number - 1
    # one naming this stage is dropped, so the record does not say it twice
    after = ship(tmp_path / "run", target, f"Stage {number}: a toy race fit", "s", {"a": 1})
    assert after.meta["stages"][-1]["stage"] == "a toy race fit"
    assert after.meta["method"].endswith(f"; stage {number}: a toy race fit")
