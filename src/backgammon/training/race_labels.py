"""Race positions labelled by the one-sided method (issue 46 item 3), as label shards ``backgammon fit`` reads.

    python -m backgammon.training.race_labels --out FOLDER [--positions N] [--seed S] [--trials T]

**Positions**: every pure-race position (no contact, not both sides home: those are the exact database's) of
seeded cubeless games between the shipped nets' 0-ply player and itself, each play while there is contact
replaced by a random legal one with a probability drawn for each game from 0..0.3, so that lopsided races
(a side far behind, saving the gammon or the backgammon) occur beside ordinary ones; a game's positions are
all kept (both sides on roll). **Labels**: :func:`backgammon.engine.race.race_outputs` (the exact 6-point
one-sided database, one-sided rollouts of ``--trials`` trials beyond it, each side's distributions of rolls
to finish, to the first off and to escape combined into the five outputs); nothing of gnubg's.

Shards and manifest are those of :mod:`backgammon.training.labels` (``plies`` 0, the teacher names the method
and its trials): shard ``i`` samples its games from ``numpy.random.default_rng([seed, i])`` alone, so a rerun
skips the shards the manifest lists and makes a missing one again identically.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from backgammon import __version__
from backgammon.engine.movegen import RACE, phase, successors_py
from backgammon.errors import InvalidInputError
from backgammon.training._selfplay import INITIAL
from backgammon.training.labels import (
    PHASES,
    _manifest_lock,
    _position_ids,
    _save_shard,
    _sha256,
    _write_atomic,
    _write_manifest,
    read_manifest,
)

MAX_RANDOM_PLAY = 0.3  # a game's chance of a random play while there is contact is drawn from 0..this


def game_races(rng: np.random.Generator, evaluator, random_play: float) -> list[np.ndarray]:
    """The pure-race positions (side on roll first) of one seeded game, in order."""
    from backgammon.engine.search import best_board

    b = INITIAL.copy()
    races = []
    for _ in range(400):
        ph = phase(b)
        if ph == RACE:
            races.append(b.copy())
        elif ph > RACE:  # both home, or over
            break
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        if ph != RACE and rng.random() < random_play:
            cands = successors_py(b, d1, d2)
            b = cands[int(rng.integers(len(cands)))]
        else:
            b = best_board(b, d1, d2, evaluator, 0)
    return races


def sample_shard(seed: int, index: int, count: int, evaluator) -> tuple[np.ndarray, int]:
    """``count`` race positions of shard ``index`` and the number of games they came from."""
    rng = np.random.default_rng([seed, index])
    boards: list[np.ndarray] = []
    games = 0
    while len(boards) < count:
        boards.extend(game_races(rng, evaluator, float(rng.uniform(0.0, MAX_RANDOM_PLAY))))
        games += 1
    return np.array(boards[:count], dtype=np.int8), games


def label(boards: np.ndarray, trials: int, seed: int) -> np.ndarray:
    """The one-sided method's five outputs of each race board (rollout seeds ``seed + 2 i``, ``+ 1``)."""
    from backgammon.engine.race import race_outputs

    return np.array([race_outputs(b, trials=trials, seed=seed + 2 * i) for i, b in enumerate(boards)])


def write_race_labels(
    folder: str | Path,
    positions: int,
    *,
    seed: int = 4646,
    trials: int = 288,
    shard_size: int = 500,
    first_shard: int = 0,
    step: int = 1,
    log: Callable[[str], None] | None = None,
) -> None:
    """Label ``positions`` race positions into ``folder`` (shards ``first_shard``, ``first_shard + step``, ...
    of the run: several processes can share a run by taking every ``step``-th shard).

    Raises:
        InvalidInputError: for a negative count, trials or shard size below 1, or a bad shard stride.
    """
    from backgammon.engine.evaluator import NetEvaluator

    if positions < 0 or trials < 1 or shard_size < 1 or step < 1 or not 0 <= first_shard < step:
        raise InvalidInputError(
            f"expected positions >= 0, trials >= 1, shard size >= 1 and 0 <= first shard < step, got "
            f"{positions!r}, {trials!r}, {shard_size!r}, {first_shard!r}, {step!r}"
        )
    say = log or (lambda s: None)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    teacher = f"one-sided-6pt trials-{trials} backgammon-{__version__}"
    run = f"os-t{trials}-s{seed}"
    ev = NetEvaluator.default()
    n_shards = -(-positions // shard_size)
    for index in range(first_shard, n_shards, step):
        count = min(shard_size, positions - index * shard_size)
        file = f"{run}-{index:05d}.npz"
        entry = next((e for e in read_manifest(folder)["shards"] if e.get("file") == file), None)
        if entry is not None and (folder / file).is_file() and entry.get("sha256") == _sha256(folder / file):
            continue
        t0 = time.perf_counter()
        boards, games = sample_shard(seed, index, count, ev)
        targets = label(boards, trials, seed + 1_000_003 * index)
        phases = np.full(count, PHASES["race"], dtype=np.uint8)
        ids = _position_ids(boards)
        _write_atomic(folder / file, partial(_save_shard, ids=ids, targets=targets, phases=phases))
        seconds = time.perf_counter() - t0
        new = {
            "file": file,
            "run": run,
            "index": index,
            "count": count,
            "seed": seed,
            "shard_seed": index,
            "plies": 0,
            "teacher": teacher,
            "settings": {"trials": trials, "shard_size": shard_size, "max_random_play": MAX_RANDOM_PLAY},
            "games": games,
            "phases": {"contact": 0, "race": count, "bearoff": 0},
            "seconds": round(seconds, 1),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "sha256": _sha256(folder / file),
        }
        with _manifest_lock(folder):
            manifest = read_manifest(folder)
            manifest["shards"] = [e for e in manifest["shards"] if e.get("file") != file] + [new]
            _write_manifest(folder, manifest)
        say(f"shard {index + 1}/{n_shards}: {count} labels from {games} games in {seconds:.0f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="label folder (shards and manifest.json)")
    ap.add_argument("--positions", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=4646)
    ap.add_argument("--trials", type=int, default=288, help="one-sided rollout trials beyond the database")
    ap.add_argument("--shard-size", type=int, default=500)
    ap.add_argument("--first-shard", type=int, default=0, help="with --step: this process's first shard")
    ap.add_argument("--step", type=int, default=1, help="label every step-th shard (several processes)")
    args = ap.parse_args(argv)
    try:
        write_race_labels(
            args.out,
            args.positions,
            seed=args.seed,
            trials=args.trials,
            shard_size=args.shard_size,
            first_shard=args.first_shard,
            step=args.step,
            log=lambda s: print(s, flush=True),
        )
    except InvalidInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
