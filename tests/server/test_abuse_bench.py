"""Smoke test of benchmarks/abuse.py: a real server, three abusive patterns for 2 seconds each, and
the table saying what was refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_abuse_prints_what_was_accepted_and_refused():
    script = ROOT / "benchmarks" / "abuse.py"
    done = subprocess.run(
        [sys.executable, str(script), "--only", "listed-tables,rollouts,pings", "--seconds", "2"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {}
    for line in done.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and cells[0] in ("listed-tables", "rollouts", "pings"):
            rows[cells[0]] = cells
    assert set(rows) == {"listed-tables", "rollouts", "pings"}, done.stdout
    listed = rows["listed-tables"]
    assert int(listed[1]) == 10 and int(listed[2]) > 0  # a client's 10 listed tables an hour, then 429
    rollouts = rows["rollouts"]
    assert int(rollouts[1]) == 4 and int(rollouts[2]) == 4, rollouts  # one per address, then the site's 4 slots
    assert "refused 4/4" in rollouts[7]  # nobody cancels another's rollout
    pings = rows["pings"]
    assert int(pings[1]) <= 20 and "closed: 1008" in pings[7], pings  # a flooding socket is closed
    assert all(cells[4] != "-" for cells in rows.values())  # the normal client was answered meanwhile
