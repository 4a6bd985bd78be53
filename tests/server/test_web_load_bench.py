"""Smoke test of benchmarks/web_load.py: a real server, two games of two WebSocket clients, 2 seconds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_web_load_quick_prints_a_row_with_confirmed_actions():
    script = ROOT / "benchmarks" / "web_load.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| sqlite 1 proc |")]
    assert len(rows) == 1, done.stdout
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    (
        _backend,
        games,
        mode,
        target,
        rate,
        p50,
        p99,
        errors,
        server_cpu,
        client_cpu,
        machine_cpu,
        server_ms,
        client_ms,
        note,
    ) = cells
    assert (games, mode, target) == ("2", "flat", "-")
    assert float(rate.replace(",", "")) > 0, rows[0]
    assert 0 < float(p50) <= float(p99), rows[0]
    assert errors == "0", rows[0]
    assert server_cpu.endswith("%") and client_cpu.endswith("%") and machine_cpu.endswith("%"), rows[0]
    # the whole machine was busy at least as long as the server and the load generator together
    assert float(machine_cpu[:-1]) >= 0.8 * (float(server_cpu[:-1]) + float(client_cpu[:-1])), rows[0]
    assert float(server_ms) > 0 and float(client_ms) > 0, rows[0]
    assert not note, rows[0]
    assert re.search(r"window 2 s after 0\.5 s warm-up", done.stdout)
