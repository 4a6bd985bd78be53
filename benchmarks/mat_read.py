"""Seconds to read and replay a 1,000-game .mat file, beside GNU Backgammon's ``import mat`` of it.

    python benchmarks/mat_read.py [--games N] [--repeat R] [--no-gnubg] [--source DIR]

The file is made of real games: every finished game of the Galaxy and Heroes exports in
``tests/data/real/`` (or in the ``.mat``/``.txt`` files under ``--source``, such as a checkout of
lassehjorthmadsen/bglab's ``data-raw``) is replayed, and the distinct games' actions are played
again, in turn, in one money session until it has N games (1,000 by default), which ``write_mat``
writes in gnubg's layout. The 16 files kept here hold 33 distinct games, so their file repeats each
game about 30 times; a larger source gives N distinct games. The reader's memo of entry and move
texts lasts one call, so repeats within a file help it as they would in a real one, and the
repeated runs start afresh.

Prints one table of wall-clock and CPU seconds (on a loaded machine the CPU column is the
steadier), each the best of R runs (building the file warms the move generator up first): the
syntax pass (``read_mat``), the tolerant read and replay (``load_mat``) and the strict one
(``replay``). Where Debian's ``/usr/games/gnubg`` is installed, its ``import mat`` of the same
file stands beside the replay (startup subtracted, see ``benchmarks/formats.py``). gnubg is a
benchmark-only comparison, never a dependency.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from formats import gnubg_import_seconds

from backgammon.formats.mat import load_mat, read_mat, replay, write_mat
from backgammon.game import Rules
from backgammon.match import Match

REAL = Path(__file__).resolve().parent.parent / "tests" / "data" / "real"


def session_of_real_games(games: int, source: Path = REAL) -> Match:
    """A money session of ``games`` games whose actions are those of the distinct games of the real
    files under ``source``, each played again in turn when there are fewer."""
    logs, seen = [], set()
    paths = sorted(p for p in source.rglob("*") if p.suffix in (".mat", ".txt") and p.is_file())
    for path in paths:
        reading = load_mat(path.read_text(encoding="utf-8-sig", errors="replace"))
        if reading.match is None:
            continue
        for game in reading.match.games:
            if repr(game.log) not in seen:
                seen.add(repr(game.log))
                logs.append(game.log)
        if len(logs) >= games:
            break
    assert logs, f"no game read under {source}"
    session = Match.new(Rules(), players=("Right", "Left"))
    for k in range(games):
        session = session.replay(logs[k % len(logs)])
    return session


def best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The best wall-clock seconds and the best CPU seconds of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games in the file (default 1000)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each measurement; the best counts (default 2)")
    parser.add_argument("--no-gnubg", action="store_true", help="skip the gnubg comparison")
    parser.add_argument("--source", type=Path, default=REAL, help="folder of real .mat files (default tests/data/real)")
    args = parser.parse_args()

    text = write_mat(session_of_real_games(args.games, args.source))
    record = read_mat(text)
    assert len(record.games) == args.games and load_mat(record).ok
    moves = sum(1 for g in record.games for e in g.entries if e.dice is not None)
    rows: list[tuple[str, tuple[float, float], float | None]] = [
        ("read_mat (syntax)", best(lambda: read_mat(text), args.repeat), None),
        ("load_mat (read + replay)", best(lambda: load_mat(text), args.repeat), None),
    ]
    gnubg = None
    if not args.no_gnubg:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "session.mat"
            path.write_text(text)
            gnubg = gnubg_import_seconds([path], args.repeat)
            gnubg = None if gnubg is None else gnubg / args.repeat
    rows.append(("replay(read_mat) (strict)", best(lambda: replay(read_mat(text)), args.repeat), gnubg))

    distinct = len({tuple((e.side, e.kind, e.dice, e.move, e.value) for e in g.entries) for g in record.games})
    print(f"{args.games} games ({distinct} distinct), {moves} rolls, {len(text)} characters; best of {args.repeat}")
    print(f"{'operation':<28}{'seconds':>9}{'cpu s':>9}{'ms/game':>9}{'gnubg s':>9}{'ratio':>7}")
    for name, (seconds, cpu), theirs in rows:
        extra = f"{theirs:>9.3f}{seconds / theirs:>7.1f}" if theirs else f"{'':>9}{'':>7}"
        print(f"{name:<28}{seconds:>9.3f}{cpu:>9.3f}{seconds / args.games * 1e3:>9.2f}{extra}")


if __name__ == "__main__":
    main()
