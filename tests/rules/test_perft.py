"""Perft: distinct positions and play sequences after 1, 2 and 3 plies from the start.

The reference counts (``tests/data/perft.json``, with their exact definition)
were made by ``scripts/perft.py`` and agree with GNU Backgammon's generator
(distinct positions at plies 1-2, play sequences at plies 1-3). Plies 1 and 2
are recounted here with both generators behind ``Position.legal_plays``; ply 3
(29 million positions) runs the script in the slow tier.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from backgammon.moves import use_accelerator
from backgammon.position import Position

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "data" / "perft.json"
ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7))


def _counts(plies: int) -> tuple[list[int], list[int]]:
    level: Counter[Position] = Counter({Position.initial(): 1})
    distinct, sequences = [], []
    for _ in range(plies):
        nxt: Counter[Position] = Counter()
        for position, ways in level.items():
            for d1, d2 in ROLLS:
                for play in position.legal_plays(d1, d2):
                    nxt[play.position] += ways
        level = nxt
        distinct.append(len(level))
        sequences.append(sum(level.values()))
    return distinct, sequences


@pytest.mark.parametrize("accelerated", [True, False], ids=["kernel", "pure-python"])
def test_perft_two_plies(accelerated: bool) -> None:
    reference = json.loads(REFERENCE.read_text())
    assert "21 distinct rolls" in reference["definition"]
    assert use_accelerator(accelerated) == accelerated
    try:
        distinct, sequences = _counts(2)
    finally:
        use_accelerator(True)
    assert distinct == [reference["distinct_positions"][k] for k in ("1", "2")] == [406, 163706]
    assert sequences == [reference["play_sequences"][k] for k in ("1", "2")] == [447, 202782]


@pytest.mark.slow
def test_perft_three_plies() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "perft.py"), "--plies", "3", "--check", str(REFERENCE)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert out.returncode == 0, out.stderr
    assert "equal to" in out.stdout
