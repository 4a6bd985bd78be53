"""How fast a fresh process answers: wall and CPU time, median and spread of N runs.

Rows:

- ``backgammon hint POS DICE`` at its default depth (0-ply), to its exit;
- ``backgammon engine`` from its start until its first answer (one play request, the same
  position and dice) is read back;
- ``python -c "import backgammon"`` (the core alone: no numpy, no numba);
- ``backgammon analyze MATCH --plies 0`` of a 3-point match (``tests/data/gnubg/match3_seed1.mat``), to
  its exit: start-up and a whole match's analysis (warm only);

each with the numba kernel cache warm (the usual case: the cache directory of these kernels
exists), and the first two also cold (an empty ``NUMBA_CACHE_DIR``: every kernel the command needs
is compiled, as on the first start after an edit of a kernel module; one run each unless
``--cold-repeats`` says more, since each takes a minute or more).

The warm rows also have Python's bytecode cache warm, as any installed copy has: the children
write and read their ``.pyc`` files under a temporary ``PYTHONPYCACHEPREFIX`` (the checkout is left
alone), even where ``PYTHONDONTWRITEBYTECODE`` is set; ``--as-environment`` runs them with the
environment as it is instead (with ``PYTHONDONTWRITEBYTECODE=1`` every start compiles the
package's own modules again, about a tenth of a second).

CPU time (user + system of the child) is the robust figure on a shared machine; wall time is
shown too. The child's CPU time comes from ``/proc/<pid>/stat`` at the moment of its first answer
for the engine, and from ``getrusage(RUSAGE_CHILDREN)`` for the commands that exit.

    python benchmarks/startup.py [--repeats 7] [--cold-repeats 1] [--skip-cold] [--as-environment]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POSITION, DICE = "4HPwATDgc/ABMA", "31"  # the opening position, 3-1
ROOT = Path(__file__).resolve().parent.parent
MATCH = ROOT / "tests" / "data" / "gnubg" / "match3_seed1.mat"
BIN = Path(sys.executable).parent
TICKS = os.sysconf("SC_CLK_TCK")


def _backgammon() -> list[str]:
    script = BIN / "backgammon"
    return [str(script)] if script.exists() else [sys.executable, "-m", "backgammon.cli"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_to_exit(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process run to its end (its output checked, then dropped)."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return wall, cpu


def _proc_cpu(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15 of the file)


def run_engine(env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds from the start of ``backgammon engine`` to its first answer."""
    request = json.dumps({"position_id": POSITION, "dice": [int(DICE[0]), int(DICE[1])]}) + "\n"
    cpu0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(
        [*_backgammon(), "engine"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(request)
    proc.stdin.flush()
    answer = proc.stdout.readline()
    wall = time.perf_counter() - t0
    cpu = _proc_cpu(proc.pid)
    proc.stdin.close()
    proc.wait()
    if cpu is None:  # no /proc: the whole run, its (short) shutdown included
        cpu = _children_cpu() - cpu0
    if '"play"' not in answer:
        raise SystemExit(f"backgammon engine gave no play: {answer.strip()[:300]!r}")
    return wall, cpu


def _row(name: str, runs: list[tuple[float, float]]) -> str:
    def spread(values: list[float]) -> str:
        med = statistics.median(values)
        return f"{med:6.2f} ({min(values):.2f}-{max(values):.2f})"

    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    return f"| {name:<44} | {len(runs):>2} | {spread(cpus):>22} | {spread(walls):>22} |"


def measure(repeats: int, cold_repeats: int, pycache: str | None) -> list[str]:
    env = dict(os.environ)
    env.pop("BACKGAMMON_EVALUATOR", None)
    if pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    hint = [*_backgammon(), "hint", POSITION, DICE]
    rows = []
    # warm: one unmeasured start of each first, so that the cache of the kernels they need exists
    run_to_exit(hint, env)
    run_engine(env)
    rows.append(_row(f"backgammon hint {POSITION} {DICE} (warm)", [run_to_exit(hint, env) for _ in range(repeats)]))
    rows.append(_row("backgammon engine, first answer (warm)", [run_engine(env) for _ in range(repeats)]))
    core = [sys.executable, "-c", "import backgammon"]
    rows.append(_row('python -c "import backgammon"', [run_to_exit(core, env) for _ in range(repeats)]))
    analyze = [*_backgammon(), "analyze", str(MATCH), "--plies", "0"]
    run_to_exit(analyze, env)
    rows.append(_row(f"backgammon analyze {MATCH.name} (warm)", [run_to_exit(analyze, env) for _ in range(repeats)]))
    for label, runner in (("backgammon hint", lambda e: run_to_exit(hint, e)), ("backgammon engine", run_engine)):
        runs = []
        for _ in range(cold_repeats):
            cache = tempfile.mkdtemp(prefix="bg-numba-cold-")
            try:
                runs.append(runner({**env, "NUMBA_CACHE_DIR": cache}))
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        if runs:
            rows.append(_row(f"{label} (cold numba cache)", runs))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs per warm row (default 7)")
    parser.add_argument("--cold-repeats", type=int, default=1, help="runs per cold row (default 1)")
    parser.add_argument("--skip-cold", action="store_true", help="leave out the cold-cache rows")
    parser.add_argument(
        "--as-environment", action="store_true", help="no bytecode cache of our own: Python's settings as they are"
    )
    args = parser.parse_args()
    if args.repeats < 1 or args.cold_repeats < 1:
        parser.error("--repeats and --cold-repeats must be at least 1")
    with tempfile.TemporaryDirectory(prefix="bg-pycache-") as pycache:
        rows = measure(
            args.repeats, 0 if args.skip_cold else args.cold_repeats, None if args.as_environment else pycache
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if args.as_environment:
        bytecode = (
            "bytecode cache off" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "bytecode cache as Python keeps it"
        )
    else:
        bytecode = "bytecode cache warm"
    print(f"startup of a fresh process; {os.cpu_count()} CPUs, load average {load:.1f} at the end; {bytecode}")
    print(f"| {'command':<44} | {'N':>2} | {'CPU s median (range)':>22} | {'wall s median (range)':>22} |")
    print(f"|{'-' * 46}|{'-' * 4}|{'-' * 24}|{'-' * 24}|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
