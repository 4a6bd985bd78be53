"""The scoring logic of the fixed decision benchmark (benchmarks/decisions.py) on tiny hand-made sets.

Nothing here reads or writes the committed set; gnubg_nn is needed only for the phase tags.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from backgammon.engine.movegen import successors_py
from backgammon.training._selfplay import INITIAL

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH))
    try:
        import decisions

        yield decisions
    finally:
        sys.path.remove(str(BENCH))


def test_filtered_errors_extrapolate_through_the_depths(bench) -> None:
    # 0-ply: candidate 0 best; 1..3 within 0.16; 4 (0.30 behind) and 5 are filtered out at 0-ply
    e0 = [0.50, 0.45, 0.40, 0.36, 0.20, 0.10]
    e1 = {0: 0.40, 1: 0.42, 2: 0.30, 3: 0.41}
    e2 = {0: 0.35, 1: 0.38, 3: 0.30}  # 2 is more than 0.06 behind the 1-ply best (0.42): not scored
    asked = []

    def deeper(i: int, plies: int) -> float:
        asked.append((i, plies))
        return (e1 if plies == 1 else e2)[i]

    err, depth = bench.filtered_errors(e0, deeper)
    assert sorted(asked) == [(0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (3, 1), (3, 2)]
    assert depth.tolist() == [2, 2, 1, 2, 0, 0]
    # 2-ply: best is 1 (0.38)
    assert err[1] == pytest.approx(0.0)
    assert err[0] == pytest.approx(0.03)
    assert err[3] == pytest.approx(0.08)
    # 1-ply only: the 1-ply best (1) has error 0, so 2's error is its 1-ply shortfall 0.12
    assert err[2] == pytest.approx(0.12)
    # 0-ply only: the 0-ply best (0) has error 0.03, plus the 0-ply shortfall
    assert err[4] == pytest.approx(0.03 + 0.30)
    assert err[5] == pytest.approx(0.03 + 0.40)
    assert (err >= 0).all()


def test_cube_errors_and_choices(bench) -> None:
    # double, take: ND 0.6 < DT 0.8 < DP 1.0
    assert bench.cube_choice(0.6, 0.8, 1.0) == (True, True)
    assert bench.cube_errors(0.6, 0.8, 1.0, doubled=True, took=True) == pytest.approx((0.0, 0.0))
    d, t = bench.cube_errors(0.6, 0.8, 1.0, doubled=False, took=False)
    assert (d, t) == pytest.approx((0.2, 0.2))
    # too good: ND 1.2 above DP 1.0; doubling loses 0.2, and passing is right
    assert bench.cube_choice(1.2, 1.5, 1.0) == (False, False)
    assert bench.cube_errors(1.2, 1.5, 1.0, doubled=True, took=True) == pytest.approx((0.2, 0.5))
    # no double, take
    assert bench.cube_errors(0.3, 0.1, 1.0, doubled=True, took=True) == pytest.approx((0.2, 0.0))


def _tiny_set(bench):
    """Two checker decisions from the opening (3-1 and 6-5) with made-up errors, and one cube position."""
    parts = []
    for dice in ((3, 1), (6, 5)):
        cands = successors_py(INITIAL, *dice)
        err = np.arange(len(cands), dtype=np.float32) / 100
        parts.append(
            {
                "board": INITIAL[None].copy(),
                "dice": np.array([dice], dtype=np.int8),
                "phase": np.array([0], dtype=np.int8),
                "offset": np.array([0, len(cands)], dtype=np.int32),
                "cand": cands,
                "err": err,
                "depth": np.zeros(len(cands), dtype=np.int8),
                "cube_board": INITIAL[None].copy(),
                "cube_phase": np.array([0], dtype=np.int8),
                "cube_owned": np.array([False]),
                "cube_eq": np.array([[[0.1, -0.4, 1.0]] * 3], dtype=np.float32),
            }
        )
    return bench.DecisionSet(parts)


def test_decision_set_looks_plays_up(bench) -> None:
    ds = _tiny_set(bench)
    assert len(ds) == 2
    cands, _ = ds.candidates(1)
    assert len(cands) == len(successors_py(INITIAL, 6, 5))
    assert ds.error_of(1, cands[2]) == pytest.approx(0.02)  # the second chunk's offsets are shifted
    with pytest.raises(KeyError):
        ds.error_of(0, INITIAL)  # not a result of the roll

    last = lambda b, d1, d2: successors_py(b, d1, d2)[-1]  # noqa: E731
    errs = bench.score_checker(ds, last, [0, 1])
    assert errs.tolist() == pytest.approx(
        [(len(successors_py(INITIAL, d1, d2)) - 1) / 100 for d1, d2 in ((3, 1), (6, 5))]
    )

    d, t = bench.score_cube(ds, lambda _b, _o, _e: (True, True), [0])  # doubling and taking a no double, pass
    assert d.tolist() == pytest.approx([0.5])  # ND 0.1 beats the answer (DT -0.4)
    assert t.tolist() == pytest.approx([0.0])  # taking is right for the taker (-0.4 < 1.0)
    assert bench.spread(10, 3) == [0, 4, 9] and bench.spread(3, None) == [0, 1, 2]


def test_phases(bench) -> None:
    g = pytest.importorskip("gnubg_nn")
    assert bench.phase(INITIAL, g) == "contact"
    race = np.zeros((2, 25), dtype=np.int8)
    race[0, 6:9] = 5  # my points 7..9, their points 10..12: no contact
    race[1, 9:12] = 5
    assert bench.phase(race, g) == "race"
    home = np.zeros((2, 25), dtype=np.int8)
    home[0, :5] = 3
    home[1, :5] = 3
    assert bench.phase(home, g) == "bear-off"
    back = np.zeros((2, 25), dtype=np.int8)
    back[0, [19, 21]] = 2  # two points in the other's home board
    back[0, [5, 7, 12]] = [5, 3, 3]
    back[1, [0, 1, 3, 5]] = [4, 4, 4, 3]  # clear of the points 3 and 5 the back checkers hold
    assert bench.phase(back, g) == "back game"


def test_prime_needs_a_checker_behind_it(bench) -> None:
    g = pytest.importorskip("gnubg_nn")
    primed = np.zeros((2, 25), dtype=np.int8)
    primed[0, 3:8] = 2  # my points 4..8
    primed[0, 12] = 5
    primed[1, [5, 7, 12]] = [5, 3, 5]
    primed[1, 23] = 2  # their 24-point: my 1-point, behind my prime
    assert bench.phase(primed, g) == "prime"
    escaped = primed.copy()
    escaped[1, 23], escaped[1, 15] = 0, 2  # now on my 9-point, past the prime
    assert bench.phase(escaped, g) != "prime"
    assert bench.phase(escaped, g, sampling=True) == "prime"  # the sampling's looser tag


def test_compare_prints_the_paired_difference(bench, monkeypatch, capsys) -> None:
    monkeypatch.setattr(bench.DecisionSet, "load", classmethod(lambda cls, data=None: _tiny_set(bench)))
    assert bench.main(["--players", "expert", "--compare", "shipped"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "expert − compare" in line]
    assert len(rows) == 2  # checker play and cube
    assert all("0.00 ± 0.00" in row for row in rows)  # the same nets on the same decisions: no difference
    with pytest.raises(SystemExit) as exc:
        bench.main(["--players", "expert", "--compare", "no-such-file.npz"])
    assert exc.value.code == 2
    assert "no-such-file.npz" in capsys.readouterr().err


def test_phases_option_scores_only_those_decisions(bench, monkeypatch, capsys) -> None:
    monkeypatch.setattr(bench.DecisionSet, "load", classmethod(lambda cls, data=None: _tiny_set(bench)))
    assert bench.main(["--players", "expert", "--phases", "contact,race"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("│") and "expert" in line]
    assert re.search(r"│\s+2\s+│", rows[0])  # both decisions of the tiny set are contact ones
    assert bench.main(["--players", "expert", "--phases", "race"]) == 2  # none of its decisions: an error
    assert "no decisions of the phases race" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        bench.main(["--players", "expert", "--phases", "racing"])
    assert exc.value.code == 2
    assert "unknown phase 'racing'" in capsys.readouterr().err


def test_one_sided_reranking_plays_legally_and_as_expert_outside_races(bench) -> None:
    from backgammon.engine.evaluator import NetEvaluator

    ev = NetEvaluator.default()
    os_play = bench.checker_player("expert+os", ev, 0)
    expert = bench.checker_player("expert", ev, 0)
    assert np.array_equal(os_play(INITIAL, 3, 1), expert(INITIAL, 3, 1))  # contact: the 0-ply play
    race = np.zeros((2, 25), dtype=np.int8)
    race[0, [2, 4, 7, 9]] = [5, 5, 3, 2]
    race[1, [1, 3, 5, 8]] = [4, 4, 4, 3]
    chosen = os_play(race, 6, 2)
    assert any(np.array_equal(chosen, c) for c in successors_py(race, 6, 2))
