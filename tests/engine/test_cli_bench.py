import sys
from pathlib import Path

import numpy as np
import pytest

from backgammon.cli import main

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.slow  # one of the slowest tests: not in the fast tier
def test_train_command_runs_and_resumes(tmp_path, capsys) -> None:
    args = [
        "train",
        str(tmp_path / "run"),
        "--games",
        "2",
        "--chunk",
        "1",
        "--eval-pairs",
        "1",
        "--contact-hidden",
        "6",
        "--race-hidden",
        "3",
        "-q",
    ]
    main(args)
    assert "games 2" in capsys.readouterr().out
    main(args[:3] + ["4"] + args[4:] + ["--export", str(tmp_path / "w.npz")])
    out = capsys.readouterr().out
    assert "games 4" in out and (tmp_path / "w.npz").exists()


@pytest.mark.parametrize("bad", [["--games", "-1"], ["--lambda", "2"], ["--contact-hidden", "0"]])
def test_train_command_bad_input(tmp_path, capsys, bad) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["train", str(tmp_path / "run"), "-q", *bad])
    assert exc.value.code == 2
    assert capsys.readouterr().err.startswith("error: ")


@pytest.mark.slow  # one of the slowest tests: not in the fast tier
def test_train_init_from_then_refine(tmp_path, capsys) -> None:
    """A small run widened from another run's weights, then refined from those; both resume."""
    main(
        [
            "train",
            str(tmp_path / "a"),
            "--games",
            "2",
            "--eval-pairs",
            "1",
            "--contact-hidden",
            "4",
            "--race-hidden",
            "2",
            "-q",
            "--export",
            str(tmp_path / "a.npz"),
        ]
    )
    main(
        [
            "train",
            str(tmp_path / "b"),
            "--games",
            "2",
            "--eval-pairs",
            "1",
            "--contact-hidden",
            "6",
            "--race-hidden",
            "3",
            "-q",
            "--init-from",
            str(tmp_path / "a.npz"),
            "--alpha-steps",
            "1",
        ]
    )
    assert "games 2" in capsys.readouterr().out
    args = [
        "refine",
        str(tmp_path / "r"),
        "--init-from",
        str(tmp_path / "b" / "checkpoint.npz"),
        "-n",
        "1",
        "--positions",
        "30",
        "--eval-pairs",
        "1",
        "--contact-hidden",
        "6",
        "--race-hidden",
        "3",
        "--threads",
        "2",
    ]
    main(args)
    assert "iteration 1:" in capsys.readouterr().out
    main([*args[:4], "-n", "2", *args[6:], "--export", str(tmp_path / "r.npz")])
    out = capsys.readouterr().out
    assert "iteration 2:" in out and "iteration 1:" not in out and (tmp_path / "r.npz").exists()


@pytest.mark.parametrize(
    "bad",
    [
        ["--explore", "2"],
        ["--threads", "0"],
        ["--alpha-steps", "x"],
        ["--init-from", "/nonexistent.npz"],
        ["--label-ply", "3"],
        ["--lambda", "1.5"],
        ["--lambda", "0.5", "--keep", "0.5"],
    ],
)
def test_refine_command_bad_input(tmp_path, capsys, bad) -> None:
    from backgammon.engine.network import Net, NetPair

    rng = np.random.default_rng(1)
    NetPair(Net.random(4, rng), Net.random(2, rng), {}).save(tmp_path / "w.npz")
    with pytest.raises(SystemExit) as exc:
        main(["refine", str(tmp_path / "run"), "--init-from", str(tmp_path / "w.npz"), *bad])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and any(
        w in err for w in ("explore", "threads", "steps", "init-from", "plies", "lambda")
    )
    assert not (tmp_path / "run" / "checkpoint.npz").exists()


def test_benchmark_players_make_legal_plays() -> None:
    pytest.importorskip("gnubg_nn")
    sys.path.insert(0, str(BENCH))
    try:
        from _players import engine_player, gnubg_player, play_game, pubeval_player
    finally:
        sys.path.remove(str(BENCH))
    for k in range(2):
        pts = play_game(gnubg_player(0), pubeval_player(), np.random.default_rng([9, k]), check=True)
        assert pts in (-3, -2, -1, 1, 2, 3)
    assert play_game(engine_player(0), gnubg_player(0), np.random.default_rng(4), check=True) != 0


def test_strength_compare_is_paired(tmp_path) -> None:
    """Same weights on both sides of --compare: the same games, so every paired difference is exactly 0;
    other weights: a difference equal to the two duels' own points per game apart."""
    import json
    import subprocess

    from backgammon.engine.evaluator import default_weights_path
    from backgammon.engine.network import Net, NetPair

    rng = np.random.default_rng(3)
    NetPair(Net.random(6, rng, 0.3), Net.random(3, rng, 0.3), {"games": 0}).save(tmp_path / "rand.npz")
    for other in (default_weights_path(), tmp_path / "rand.npz"):
        out = tmp_path / "s.json"
        subprocess.run(
            [
                sys.executable,
                str(BENCH / "strength.py"),
                "--pairs",
                "3",
                "--gnubg-pairs",
                "0",
                "--compare",
                str(other),
                "--json",
                str(out),
            ],
            check=True,
            capture_output=True,
            timeout=600,
        )
        results = json.loads(out.read_text())["results"]
        for name in ("random", "pubeval"):
            r = results[name]
            c = r["compare"]
            assert c["difference"] == pytest.approx(r["ppg"] - c["ppg"], abs=1e-12)
            if other == default_weights_path():
                assert c["difference"] == 0 and c["difference_se"] == 0


@pytest.mark.parametrize(
    "script,flag",
    [
        ("strength.py", "--weights"),
        ("strength.py", "--compare"),
        ("analysis.py", "--weights"),
        ("calibration.py", "--weights"),
    ],
)
def test_benchmark_bad_weights_file_is_one_line_error(tmp_path, script, flag) -> None:
    """A missing or corrupt weights file ends a benchmark with exit status 2 and an error naming the file."""
    import subprocess

    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"not a weights file")
    for path in (tmp_path / "missing.npz", corrupt):
        args = [sys.executable, str(BENCH / script), flag, str(path)]
        if script == "strength.py":
            args += ["--pairs", "1", "--gnubg-pairs", "0"]
        r = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False)
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith("error: ") and path.name in r.stderr
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_where_lost_prints_errors_by_kind_of_position() -> None:
    pytest.importorskip("gnubg_nn")
    import subprocess

    r = subprocess.run(
        [sys.executable, str(BENCH / "where_lost.py"), "--pairs", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**__import__("os").environ, "COLUMNS": "160"},
    )
    assert r.returncode == 0, r.stderr
    assert "class=contact" in r.stdout and "error/decision" in r.stdout
    row = next(line for line in r.stdout.splitlines() if " all " in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    assert int(cells[1]) > 5 and float(cells[2]) >= 0.0  # decisions counted; errors are never negative


def _calibration_rows(*args: str) -> tuple[str, dict[str, list[str]]]:
    """Run ``benchmarks/calibration.py`` with ``args``; its output and its table's rows by name."""
    import subprocess

    r = subprocess.run(
        [sys.executable, str(BENCH / "calibration.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )
    assert r.returncode == 0, r.stderr
    rows = {}
    for line in r.stdout.splitlines():
        cells = [c.strip() for c in line.split("│") if c.strip()]
        if len(cells) == 7:
            rows[cells[0]] = cells[1:]
    return r.stdout, rows


@pytest.mark.slow  # one of the slowest tests: not in the fast tier
def test_calibration_prints_bias_by_kind_of_position() -> None:
    import subprocess

    _, rows = _calibration_rows("--positions", "3000")
    assert {"all", "contact", "race", "contact, checkers back 1-2"} <= set(rows)
    positions, share, equity, result, bias, se = rows["all"]
    assert int(positions) >= 3000 and float(share) == 1.0
    assert float(result) - float(equity) == pytest.approx(float(bias), abs=2e-3)  # the bias is result minus equity
    assert abs(float(bias)) < 0.3 and 0 < float(se) < 0.3  # about 50 games: near 0, not exactly
    out, vr = _calibration_rows("--positions", "3000", "--vr")
    assert "luck-free" in out
    assert vr["all"][0] == positions and vr["all"][2] == equity  # the same games and 0-ply values
    assert 0 < float(vr["all"][5]) < float(se) / 4  # the same games' luck taken out: far less noise
    assert float(vr["bear-off"][4]) == 0.0  # the database is exact: its 1-ply value is its 0-ply value
    r = subprocess.run(
        [sys.executable, str(BENCH / "calibration.py"), "--positions", "0"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 2 and r.stderr.startswith("error: ")


def test_strength_gnubg_depth_reference_duel(tmp_path) -> None:
    """--gnubg-depth-pairs plays gnubg 2-ply against gnubg 0-ply on duplicate dice and records it by both names."""
    pytest.importorskip("gnubg_nn")
    import json
    import subprocess

    out = tmp_path / "s.json"
    args = ["--pairs", "0", "--gnubg-pairs", "0", "--gnubg-depth-pairs", "2", "--seed", "5", "--json", str(out)]
    args += ["--vr", "--progress", "0"]
    run = subprocess.run(
        [sys.executable, str(BENCH / "strength.py"), *args], check=True, capture_output=True, text=True, timeout=600
    )
    shown = [line for line in run.stderr.splitlines() if line.startswith("gnubg 2-ply vs gnubg 0-ply: ")]
    assert [line.split(",")[0] for line in shown] == [
        "gnubg 2-ply vs gnubg 0-ply: 1/2 dice sequences",
        "gnubg 2-ply vs gnubg 0-ply: 2/2 dice sequences",
    ]
    assert "luck subtracted" in shown[-1]
    results = json.loads(out.read_text())["results"]
    assert list(results) == ["gnubg 2-ply vs gnubg 0-ply"]
    r = results["gnubg 2-ply vs gnubg 0-ply"]
    assert r["games"] == 4 and -3 <= r["ppg"] <= 3
