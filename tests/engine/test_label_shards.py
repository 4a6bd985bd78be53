"""Label shards (backgammon label): written, resumed, regenerated identically, loaded back."""

from __future__ import annotations

import json
import threading
from dataclasses import asdict

import numpy as np
import pytest

from backgammon.cli import main
from backgammon.engine.bearoff import BearoffDatabase
from backgammon.engine.evaluator import default_weights_path
from backgammon.engine.movegen import BEAROFF, CONTACT, MAX_PLAYS, board_of, hard_contact, phase, successors_py
from backgammon.errors import EngineError, InvalidInputError
from backgammon.training import _distill, _selfplay
from backgammon.training.labels import (
    MANIFEST,
    MANIFEST_LOCK,
    LabelSettings,
    _manifest_lock,
    label_boards_fast,
    label_shard,
    load_labels,
    net_arrays,
    read_manifest,
    run_name,
    sanitized,
    shard_seed,
    write_labels,
)
from backgammon.training.refine import label_boards

ARGS = ("--plies", "1", "--seed", "7", "--positions", "40", "--shard-size", "16")


@pytest.fixture(scope="module")
def arrays() -> tuple[np.ndarray, ...]:
    return net_arrays(default_weights_path())


def cli(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(["label", *args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def shard(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def test_shards_are_written_skipped_and_regenerated_identically(tmp_path, capsys, arrays) -> None:
    out = tmp_path / "labels"
    code, text, err = cli(capsys, "--out", str(out), *ARGS)
    assert code == 0, err
    assert "labels/s" in text
    manifest = json.loads((out / MANIFEST).read_text())
    entries = manifest["shards"]
    assert [e["count"] for e in entries] == [16, 16, 8] and [e["index"] for e in entries] == [0, 1, 2]
    assert len({e["shard_seed"] for e in entries}) == 3
    for e in entries:
        assert e["plies"] == 1 and e["seed"] == 7 and e["teacher"].startswith("weights-sha256:")
        assert sum(e["phases"].values()) == e["count"] and e["created"].endswith("Z")
        z = shard(out / e["file"])
        assert set(z) == {"position_ids", "targets", "phase"}
        assert z["position_ids"].dtype == np.dtype("S14") and z["targets"].dtype == np.float16
        assert z["phase"].dtype == np.uint8 and z["targets"].shape == (e["count"], 5)
    assert sorted(p.name for p in out.iterdir()) == sorted([MANIFEST, MANIFEST_LOCK] + [e["file"] for e in entries])

    # a rerun with the same arguments writes nothing
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    code, text, _ = cli(capsys, "--out", str(out), *ARGS)
    assert code == 0 and "written:" not in text and "3 shards already done" in text
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before

    # a deleted shard comes back identical; a stray temporary file of a killed run is overwritten
    gone = out / entries[1]["file"]
    old = shard(gone)
    gone.unlink()
    (out / (entries[1]["file"] + ".tmp")).write_bytes(b"half a shard")
    code, text, _ = cli(capsys, "--out", str(out), *ARGS)
    assert code == 0 and text.count("written:") == 1
    new = shard(gone)
    for k in old:
        assert old[k].tobytes() == new[k].tobytes()
    assert not list(out.glob("*.tmp"))
    assert [e["file"] for e in read_manifest(out)["shards"]] == [e["file"] for e in entries]

    # the loader gives back exactly the sampled boards and the stored targets
    boards, targets = load_labels(out)
    assert boards.dtype == np.int8 and boards.shape == (40, 2, 25) and targets.dtype == np.float32
    s = LabelSettings(plies=1, seed=7, shard_size=16)
    for e in entries:
        sampled = np.empty((e["count"], 2, 25), dtype=np.int8)
        _distill.sample_positions(*arrays, shard_seed(7, e["index"]), 0, s.explore, sampled, s.keep, s.near)
        lo = 16 * e["index"]
        assert np.array_equal(boards[lo : lo + e["count"]], sampled)
        assert np.array_equal(targets[lo : lo + e["count"]], shard(out / e["file"])["targets"].astype(np.float32))
        assert np.array_equal(shard(out / e["file"])["phase"], [phase(b) for b in sampled])
    labels, _ = label_shard(boards[:16], arrays, 1)
    assert np.array_equal(targets[:16], labels.astype(np.float16).astype(np.float32))

    # sanitised: every chance in [0, 1], backgammons <= gammons <= wins (and the same for losses)
    assert (targets >= 0).all() and (targets <= 1).all()
    assert (targets[:, 1] <= targets[:, 0]).all() and (targets[:, 2] <= targets[:, 1]).all()
    assert (targets[:, 4] <= targets[:, 3]).all()

    # another seed is another run in the same folder
    code, _, _ = cli(capsys, "--out", str(out), "--plies", "1", "--seed", "8", "--positions", "5", "--shard-size", "16")
    assert code == 0
    assert len(read_manifest(out)["shards"]) == 4 and load_labels(out)[0].shape == (45, 2, 25)


def test_two_ply_shard_holds_the_two_ply_labels(tmp_path, arrays) -> None:
    entries = write_labels(tmp_path, LabelSettings(plies=2, seed=3, shard_size=6), 6)
    assert len(entries) == 1 and entries[0]["plies"] == 2
    boards, targets = load_labels(tmp_path)
    ref = label_boards_fast(boards, arrays, 2)  # labels v2 (float32, bear-off leaves, pruned replies)
    rows = np.array([phase(b) != BEAROFF for b in boards])
    assert rows.any() and entries[0]["teacher"].endswith("labels-v2")
    assert np.allclose(targets[rows], ref[rows], atol=2e-3)  # float16 storage, clipping
    assert np.array_equal(label_boards(boards, arrays, 2), ref)  # refinement labels with the same labeller
    assert not np.allclose(targets[rows], label_boards(boards, arrays, 1)[rows], atol=1e-4)


def test_three_ply_shard_holds_the_three_ply_labels(tmp_path, arrays) -> None:
    entries = write_labels(tmp_path, LabelSettings(plies=3, seed=3, shard_size=3), 3)
    assert len(entries) == 1 and entries[0]["plies"] == 3 and entries[0]["file"].startswith("p3-s3-")
    boards, targets = load_labels(tmp_path)
    ref = label_boards_fast(boards, arrays, 3)
    rows = np.array([phase(b) != BEAROFF for b in boards])
    assert rows.any()
    assert np.allclose(targets[rows], ref[rows], atol=2e-3)  # float16 storage, clipping
    assert not np.allclose(targets[rows], label_boards_fast(boards, arrays, 2)[rows], atol=1e-4)


def test_bearoff_positions_get_the_exact_database_values(arrays) -> None:
    board = np.zeros((1, 2, 25), dtype=np.int8)
    board[0, 0, :6] = (2, 2, 3, 0, 1, 0)  # the side on roll: 8 checkers home, 7 off
    board[0, 1, :6] = (0, 3, 2, 2, 1, 1)  # the opponent: 9 home
    assert phase(board[0]) == BEAROFF
    exact = BearoffDatabase.get().probabilities((2, 2, 3, 0, 1, 0), (0, 3, 2, 2, 1, 1))
    labels, phases = label_shard(board, arrays, 1)
    assert phases.tolist() == [BEAROFF]
    assert np.allclose(labels[0], exact, atol=1e-12)
    assert np.allclose(label_boards(board, arrays, 1)[0], exact, atol=1e-12)  # refinement's labels too


def test_sanitized_makes_chances_consistent() -> None:
    out = sanitized(np.array([[1.2, 0.5, 0.7, 0.1, 0.2], [0.3, 0.4, 0.1, 0.8, -0.1]]))
    assert out.tolist() == [[1.0, 0.5, 0.5, 0.0, 0.0], [0.3, 0.3, 0.1, 0.7, 0.0]]


def test_near_best_exploration_stays_within_the_window(arrays) -> None:
    board = np.zeros((2, 25), dtype=np.int8)
    board[0, [5, 7, 12, 23]] = (5, 3, 5, 2)
    board[1, [5, 7, 12, 23]] = (5, 3, 5, 2)
    cand, idx, val, hid, o, best, work, table = _selfplay.choice_scratch(arrays[1], arrays[5])
    eqs = np.empty(MAX_PLAYS)
    chosen = _selfplay.choose_net(board, 6, 4, *arrays, cand, idx, val, hid, o, best, work, table)
    n = len(successors_py(board, 6, 4))
    picks = {
        _selfplay.choose_near(board, 6, 4, *arrays, cand, idx, val, hid, o, eqs, work, table, 0.0) for _ in range(20)
    }
    assert picks == {chosen}
    picks = {
        _selfplay.choose_near(board, 6, 4, *arrays, cand, idx, val, hid, o, eqs, work, table, 0.1) for _ in range(200)
    }
    window = {c for c in range(n) if eqs[c] >= eqs[:n].max() - 0.1}
    assert picks == window and 1 < len(window) < n


@pytest.mark.parametrize(
    "args",
    [
        ("--plies", "4"),
        ("--shard-size", "0"),
        ("--near", "-1"),
        ("--threads", "0"),
        ("--positions", "-5"),
        ("--focus", "2"),
        ("--rolls", "3"),  # only at 3 plies
    ],
)
def test_bad_settings_exit_2_with_one_line(tmp_path, capsys, args) -> None:
    code, _, err = cli(capsys, "--out", str(tmp_path / "x"), "--positions", "1", *args)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_damaged_folders_are_named(tmp_path) -> None:
    with pytest.raises(EngineError, match="no label manifest"):
        load_labels(tmp_path)
    (tmp_path / MANIFEST).write_text("{not json")
    with pytest.raises(EngineError, match="cannot read the label manifest"):
        load_labels(tmp_path)
    (tmp_path / MANIFEST).write_text(json.dumps({"format": 1, "shards": [{"file": "gone.npz", "count": 3}]}))
    with pytest.raises(EngineError, match=r"gone\.npz"):
        load_labels(tmp_path)
    with pytest.raises(InvalidInputError):
        LabelSettings(keep=0).check()


def _board(own: dict[int, int], other: dict[int, int]) -> np.ndarray:
    """A board from {point: checkers} per side (points 1..24 in each side's own numbering, 25 the bar)."""
    board = np.zeros((2, 25), dtype=np.int8)
    for row, side in enumerate((own, other)):
        for point, n in side.items():
            board[row, point - 1] = n
    return board


def test_hard_contact_tags_back_games_and_crashed_positions() -> None:
    opening = _board({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    # the side on roll holds the other's 1 and 3 points, 60 pips behind: a back game
    back_game = _board({6: 3, 8: 2, 13: 4, 22: 2, 24: 2, 25: 2}, {1: 3, 2: 3, 3: 2, 4: 2, 5: 2, 6: 3})
    # the same two points held while ahead in the race are not one
    level = _board({4: 4, 5: 4, 6: 3, 22: 2, 24: 2}, {6: 4, 8: 4, 13: 5, 24: 2})
    # the other side has crashed: 7 checkers in play beside spares buried on its 1 and 2 points
    crashed = _board({6: 5, 8: 3, 13: 5, 24: 2}, {1: 6, 2: 4, 3: 1, 20: 2, 25: 2})
    race = _board({1: 5, 2: 5, 3: 5}, {7: 15})
    assert not hard_contact(opening) and not hard_contact(level) and not hard_contact(race)
    assert hard_contact(back_game) and hard_contact(crashed) and hard_contact(crashed[::-1].copy())


def test_focus_keeps_more_hard_positions_and_leaves_old_runs_alone(arrays) -> None:
    plain = np.empty((600, 2, 25), dtype=np.int8)
    again = np.empty_like(plain)
    focused = np.empty_like(plain)
    _distill.sample_positions(*arrays, 5, 0, 0.1, plain, 0.1, 0.1)
    _distill.sample_positions(*arrays, 5, 0, 0.1, again, 0.1, 0.1, 0.0)
    _distill.sample_positions(*arrays, 5, 0, 0.1, focused, 0.1, 0.1, 1.0)
    assert np.array_equal(plain, again)
    share = [np.mean([hard_contact(b) for b in boards]) for boards in (plain, focused)]
    assert share[1] > 2 * share[0] > 0
    # a run labelled before --focus existed (committed in training/labels) keeps its name
    entry = next(e for e in read_manifest("training/labels")["shards"] if e["file"].startswith("p2-s20261207-e08978b6"))
    settings = LabelSettings(**{k: v for k, v in entry["settings"].items() if k != "focus"})
    assert run_name(settings, entry["teacher"]) == "p2-s20261207-e08978b6"
    assert run_name(LabelSettings(**{**entry["settings"], "focus": 0.5}), entry["teacher"]) != "p2-s20261207-e08978b6"
    # so does a run from before --rolls (0: every roll at 2 plies); a sampled run gets a name of its own
    three = LabelSettings(**{**entry["settings"], "plies": 3})
    assert run_name(three, entry["teacher"]) != run_name(
        LabelSettings(**{**asdict(three), "rolls": 3}), entry["teacher"]
    )


def test_sibling_shards_label_the_best_plays_of_each_decision(tmp_path, capsys, arrays) -> None:
    from backgammon.engine.evaluator import NetEvaluator, equities, flip_array
    from backgammon.position import Position

    out = tmp_path / "labels"
    args = ("--out", str(out), "--plies", "1", "--seed", "4", "--positions", "30", "--shard-size", "30")
    code, _, err = cli(capsys, *args, "--siblings", "4", "--window", "0.2")
    assert code == 0, err
    (entry,) = read_manifest(out)["shards"]
    assert entry["count"] == 30 and entry["settings"]["siblings"] == 4 and entry["decisions"] >= 8
    z = shard(out / entry["file"])
    group, roots, dice = z["group"], z["root_ids"], z["dice"]
    assert len(group) == 30 and len(roots) == len(dice) == entry["decisions"]
    assert np.array_equal(np.unique(group), np.arange(len(roots))) and np.all(np.diff(group) >= 0)
    boards, targets = load_labels(out)
    evaluator = NetEvaluator.default()
    for g, (pid, (d1, d2)) in enumerate(zip(roots, dice)):
        mine = boards[group == g]
        root = board_of(Position.from_position_id(pid.decode("ascii")))
        assert phase(root) == CONTACT
        cands = successors_py(root, int(d1), int(d2))
        eq = equities(flip_array(evaluator.evaluate_boards(cands)))
        rank = np.argsort(-eq, kind="stable")
        want = [j for j in rank[:4] if eq[j] >= eq[rank[0]] - 0.2]
        if g < len(roots) - 1:  # the last decision may be cut to fill the shard
            assert len(mine) == len(want) >= 2
        assert np.array_equal(mine, cands[want[: len(mine)]])  # the best plays, best first
    assert np.allclose(targets, label_boards_fast(boards, arrays, 1), atol=2e-3)
    # a sibling run has its own name; the same settings again skip the shard, and its file is made again identically
    assert entry["run"] != run_name(LabelSettings(plies=1, seed=4, shard_size=30), entry["teacher"])
    first = (out / entry["file"]).read_bytes()
    (out / entry["file"]).unlink()
    assert cli(capsys, *args, "--siblings", "4", "--window", "0.2")[0] == 0
    assert (out / entry["file"]).read_bytes() == first
    code, _, err = cli(capsys, *args, "--siblings", "1")
    assert code == 2 and "--siblings" in err and "Traceback" not in err


def test_runs_writing_to_one_folder_keep_each_others_entries(tmp_path) -> None:
    other = LabelSettings(plies=1, seed=8, shard_size=5)
    started: list[str] = []

    def log(line: str) -> None:  # while the first run labels its shard, another run writes one to the folder
        if "labelled" in line and not started:
            started.append(line)
            write_labels(tmp_path, other, 5)

    write_labels(tmp_path, LabelSettings(plies=1, seed=7, shard_size=5), 5, log=log)
    entries = read_manifest(tmp_path)["shards"]
    assert started and len(entries) == 2 and len({e["run"] for e in entries}) == 2
    assert all((tmp_path / e["file"]).is_file() for e in entries)


def test_labellers_sharing_a_folder_take_turns_at_the_manifest(tmp_path) -> None:
    """Each labeller rewrites the manifest under the folder's lock: a second one waits for the first."""
    order: list[str] = []

    def second() -> None:
        with _manifest_lock(tmp_path):
            order.append("second")

    with _manifest_lock(tmp_path):
        other = threading.Thread(target=second)
        other.start()
        other.join(0.3)
        assert other.is_alive()  # waiting for the lock
        order.append("first")
    other.join(10)
    assert order == ["first", "second"] and (tmp_path / MANIFEST_LOCK).is_file()
