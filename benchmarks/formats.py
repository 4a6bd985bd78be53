"""Speed of the interchange formats: Match ID, XGID, .mat reading, replaying and writing.

    python benchmarks/formats.py [--repeat N] [--no-gnubg]

Prints one table: operation, items, total seconds, microseconds per item.
Inputs are the committed gnubg test data (tests/data/gnubg/). Where Debian's
``/usr/games/gnubg`` is installed, the .mat rows are measured side by side
with gnubg's own ``import mat`` (one gnubg process importing every file N
times, minus the time of a process that imports nothing), with the ratio
ours / gnubg. gnubg is a benchmark-only comparison, never a dependency.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from backgammon.formats.mat import read_mat, replay, write_mat
from backgammon.formats.match_id import MatchState, parse_gnubg_id
from backgammon.formats.xgid import Xgid

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "gnubg"
GNUBG = "/usr/games/gnubg"


def timed(fn: Callable[[], object], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return time.perf_counter() - start


def gnubg_import_seconds(files: list[Path], repeat: int) -> float | None:
    """Seconds gnubg spends importing ``files`` ``repeat`` times (startup subtracted)."""
    if shutil.which(GNUBG) is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "cmds"

        def run(commands: str) -> float:
            script.write_text(commands)
            start = time.perf_counter()
            with script.open() as stdin:
                subprocess.run([GNUBG, "-t", "-q"], stdin=stdin, capture_output=True, timeout=600, check=False)
            return time.perf_counter() - start

        base = min(run("\n") for _ in range(3))
        work = run("".join(f"import mat {f}\n" for _ in range(repeat) for f in files))
    return max(work - base, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="passes over the .mat files (default 3)")
    parser.add_argument("--no-gnubg", action="store_true", help="skip the gnubg comparison")
    args = parser.parse_args()

    ids = [line for line in (DATA / "ids.txt").read_text().splitlines() if line and not line.startswith("#")]
    match_ids = [i.split(":")[1] for i in ids]
    states = [MatchState.from_match_id(m) for m in match_ids]
    xgid_lines = (DATA / "xgid_vectors.txt").read_text().splitlines()
    xgids = [line.split()[0] for line in xgid_lines if line and not line.startswith("#")] * 25
    parsed_xgids = [Xgid.parse(x) for x in xgids]
    files = sorted(DATA.glob("*.mat"))
    texts = [f.read_text() for f in files]
    records = [read_mat(t) for t in texts]
    matches = [replay(r) for r in records]
    moves = sum(1 for r in records for g in r.games for e in g.entries if e.dice is not None)
    r = args.repeat

    rows: list[tuple[str, int, float, float | None]] = []
    rows.append(
        ("Match ID decode", len(match_ids), timed(lambda: [MatchState.from_match_id(m) for m in match_ids], 1), None)
    )
    rows.append(("Match ID encode", len(states), timed(lambda: [s.match_id() for s in states], 1), None))
    rows.append(("GNU BG ID parse", len(ids), timed(lambda: [parse_gnubg_id(i) for i in ids], 1), None))
    rows.append(("XGID parse", len(xgids), timed(lambda: [Xgid.parse(x) for x in xgids], 1), None))
    rows.append(("XGID print", len(parsed_xgids), timed(lambda: [str(x) for x in parsed_xgids], 1), None))
    rows.append((".mat read (syntax)", len(files) * r, timed(lambda: [read_mat(t) for t in texts], r), None))
    gnubg = None if args.no_gnubg else gnubg_import_seconds(files, r)
    rows.append((".mat read + replay", len(files) * r, timed(lambda: [replay(read_mat(t)) for t in texts], r), gnubg))
    rows.append((".mat write", len(matches) * r, timed(lambda: [write_mat(m) for m in matches], r), None))

    print(
        f"{len(files)} .mat files, {moves} moves; gnubg: {'not measured' if gnubg is None else GNUBG + ' import mat'}"
    )
    print(f"{'operation':<22}{'items':>8}{'seconds':>10}{'us/item':>12}{'gnubg s':>10}{'ratio':>8}")
    for name, items, seconds, theirs in rows:
        extra = f"{theirs:>10.3f}{seconds / theirs:>8.1f}" if theirs else f"{'':>10}{'':>8}"
        print(f"{name:<22}{items:>8}{seconds:>10.3f}{seconds / items * 1e6:>12.1f}{extra}")


if __name__ == "__main__":
    main()
