"""Labelled positions that last: shards of n-ply labels written to a folder, resumable.

:func:`write_labels` samples positions from 0-ply self-play of the shipped nets
(:func:`backgammon.training._distill.sample_positions`, exploring among near-best
plays), labels them at 1, 2 or 3 plies with the fast labeller (:func:`label_boards_fast`,
labels version 2: float32 nets, the exact bear-off database wherever both sides are
home, at the root and at the leaves, and at the inner plies of a 2- or 3-ply label
only the replies that a cheap pruning model fitted to the 0-ply net ranks best, as
gnubg prunes its candidates), makes the five chances consistent and writes them in shards:

- ``<run>-<index>.npz`` (compressed): ``position_ids`` (``S14``, gnubg Position
  IDs of the side on roll's position), ``targets`` (``float16 (n, 5)``, gnubg's
  order: win, win gammon, win backgammon, lose gammon, lose backgammon, each
  cumulative) and ``phase`` (``uint8``: 0 contact, 1 race, 2 bear-off);
- ``manifest.json``: every shard's file, count, seed, depth, teacher (the
  weights' sha256 prefix and the code's version), counts by phase and time.

With ``siblings`` (:class:`LabelSettings`) a shard labels decisions instead of positions: the best plays of a
random roll of each sampled contact position (:func:`sample_siblings`), with ``group``, ``root_ids`` and
``dice`` arrays that tie each play's result to its decision.

A *run* is the settings (depth, seed, sampler, shard size, teacher); its name
is their hash, so runs with other settings share the folder. Shard ``i`` of a
run samples with a seed derived from ``(seed, i)`` alone, so a rerun skips the
shards the manifest lists (and whose file matches its recorded hash) and makes
any missing one again identically. Files are written to a temporary name and
moved into place, so a killed run leaves at most a stray ``*.tmp`` that the
next run overwrites. :func:`load_labels` reads a folder back for training.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from backgammon import __version__
from backgammon.engine._kernels.nply import PRUNE_FEATURES, evaluate_nply, leaf_arrays
from backgammon.engine.evaluator import NetEvaluator, default_weights_path, equities, flip_array, sanitize
from backgammon.engine.movegen import BEAROFF, CONTACT, RACE, board_of, hard_contact, phase, successors_py
from backgammon.engine.network import NetArrays, NetPair, kernel_arrays, weights_digest
from backgammon.errors import EngineError, InvalidInputError
from backgammon.position import Position
from backgammon.training import _distill

MANIFEST = "manifest.json"
MANIFEST_LOCK = ".manifest.lock"  # held while a labeller rewrites the manifest
FORMAT = 1  # of the shards and manifest
LABEL_VERSION = 2  # of the labelling (bump when the same settings would give other labels); 2: label_boards_fast
PHASES = {"contact": CONTACT, "race": RACE, "bearoff": BEAROFF}
_CHUNK = 500  # boards labelled between progress reports
PRUNE = 12  # replies per roll the pruning model keeps at the inner plies of a 2- or 3-ply label, by default
MAX_SIBLINGS = 32  # plays per decision a sibling run labels at most


@dataclass(frozen=True, slots=True)
class LabelSettings:
    """What determines a run's shards (the number of positions only says how many shards)."""

    plies: int = 2
    seed: int = 1
    shard_size: int = 5000
    explore: float = 0.1  # share of the sampling games' moves drawn among near-best plays
    near: float = 0.1  # equity window of those plays (0: any legal play, as refine samples)
    keep: float = 0.25  # share of the games' positions kept (spreads a shard over more games)
    prune: int = PRUNE  # replies per roll the pruning model keeps at the inner plies of a label (0: all)
    focus: float = 0.0  # share of back-game and crashed positions kept (0: ``keep``, as for the others)
    rolls: int = 0  # at 3 plies: rolls per position valued at 2 plies, the rest at 1 ply (0 or 21: all)
    siblings: int = 0  # > 0: label a decision's best plays (this many at most, by 0 ply) instead of positions
    window: float = 0.12  # with siblings: only the plays within this equity of the 0-ply best

    def check(self) -> None:
        """Raises InvalidInputError for settings outside their ranges."""
        if self.plies not in (1, 2, 3):
            raise InvalidInputError(f"expected labels at 1, 2 or 3 plies, got {self.plies!r}")
        if self.shard_size < 1:
            raise InvalidInputError(f"expected a shard size of at least 1, got {self.shard_size!r}")
        if not 0 <= self.explore <= 1 or self.near < 0 or not 0 < self.keep <= 1:
            raise InvalidInputError(
                f"expected 0 <= explore <= 1, near >= 0 and 0 < keep <= 1, got "
                f"{self.explore!r}, {self.near!r}, {self.keep!r}"
            )
        if self.seed < 0:
            raise InvalidInputError(f"expected a seed >= 0, got {self.seed!r}")
        if not 0 <= self.focus <= 1:
            raise InvalidInputError(f"expected 0 <= focus <= 1 (0: as --keep), got {self.focus!r}")
        if self.prune < 0:
            raise InvalidInputError(f"expected --prune >= 0 (0: no pruning), got {self.prune!r}")
        if not 0 <= self.rolls <= 21 or (self.rolls and self.plies != 3):
            raise InvalidInputError(f"expected --rolls from 0 to 21, and only with 3 plies, got {self.rolls!r}")
        if self.siblings != 0 and not 2 <= self.siblings <= MAX_SIBLINGS:
            raise InvalidInputError(
                f"expected --siblings 0 (positions) or from 2 to {MAX_SIBLINGS} plays per decision, "
                f"got {self.siblings!r}"
            )
        if not 0 < self.window <= 1:
            raise InvalidInputError(f"expected 0 < --window <= 1 (equity), got {self.window!r}")


def net_arrays(weights: Path) -> NetArrays:
    """The eight arrays of a weights file's nets, in the kernels' order."""
    nets = NetPair.load(weights)
    return kernel_arrays(nets.contact, nets.race)


def teacher_of(weights: Path) -> str:
    """The teacher's name: the weights file's sha256 prefix and the code's version."""
    return f"weights-sha256:{weights_digest(weights)} backgammon-{__version__} labels-v{LABEL_VERSION}"


def run_name(settings: LabelSettings, teacher: str) -> str:
    """The file-name prefix of a run: its depth, seed and a hash of everything that shapes its labels."""
    fields = asdict(settings)
    for name in ("focus", "rolls", "siblings"):
        if not fields[name]:  # runs from before the setting existed keep their names
            del fields[name]
    if not settings.siblings:
        del fields["window"]
    key = json.dumps({**fields, "teacher": teacher}, sort_keys=True).encode()
    return f"p{settings.plies}-s{settings.seed}-{hashlib.sha256(key).hexdigest()[:8]}"


def shard_seed(seed: int, index: int) -> int:
    """The sampling seed of shard ``index``: a function of ``(seed, index)`` alone."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def sanitized(targets: np.ndarray) -> np.ndarray:
    """``targets`` (``(n, 5)``) made consistent row by row (see :func:`evaluator.sanitize`)."""
    out = np.array(targets, dtype=np.float64)
    for row in out:
        sanitize(row)
    return out


#: The pruning model's training sample: positions sampled as the labels' are, from this seed.
PRUNER_POSITIONS = 400
PRUNER_SEED = 20261203
_PRUNERS: dict[bytes, np.ndarray] = {}


def fit_pruner(arrays: NetArrays, positions: int = PRUNER_POSITIONS, seed: int = PRUNER_SEED) -> np.ndarray:
    """The pruning models (``(2, PRUNE_FEATURES)``: contact, race) of the nets ``arrays``: least squares of the
    0-ply equity of every result of every roll of ``positions`` sampled positions on cheap board features,
    within each roll (:func:`backgammon.training._distill.prune_fit_sums`), rounded to float32. A function of the
    nets alone (a few seconds; kept per process)."""
    key = (
        hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).digest()
        + f"{positions},{seed}".encode()
    )
    if key in _PRUNERS:
        return _PRUNERS[key]
    boards = np.empty((positions, 2, 25), dtype=np.int8)
    _distill.sample_positions(*arrays, seed, 0, 0.1, boards, 0.25, 0.1)
    n = PRUNE_FEATURES
    a, b = np.zeros((2, n, n)), np.zeros((2, n))
    _distill.prune_fit_sums(boards, leaf_arrays(arrays), a, b)
    pw = np.stack([np.linalg.solve(a[p] + 1e-3 * np.eye(n), b[p]) for p in range(2)])
    pw = pw.astype(np.float32).astype(np.float64)
    _PRUNERS[key] = pw
    return pw


def label_boards_fast(
    boards: np.ndarray,
    arrays: NetArrays,
    plies: int,
    threads: int = 1,
    prune: int = PRUNE,
    pruner: np.ndarray | None = None,
    rolls: int = 0,
) -> np.ndarray:
    """The ``plies``-ply labels (1, 2 or 3) of ``boards`` (``(n, 5)``) by the engine's compiled n-ply search
    (:func:`backgammon.engine._kernels.nply.evaluate_nply`, which says what the arguments do), pruned by default:
    at the inner plies only the ``prune`` replies per roll that the pruning model (``pruner``, default
    :func:`fit_pruner` of ``arrays``) ranks best (0: all)."""
    if pruner is None and prune > 0 and len(boards):
        pruner = fit_pruner(arrays)
    return evaluate_nply(boards, arrays, plies, threads, prune, pruner, rolls)


def label_shard(
    boards: np.ndarray,
    arrays: NetArrays,
    plies: int,
    threads: int = 1,
    progress: Callable[[int], None] | None = None,
    prune: int = PRUNE,
    rolls: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The sanitised ``plies``-ply labels of ``boards`` (:func:`label_boards_fast`; positions with both sides
    home get the bear-off database's exact value) and their phases. ``progress`` is told the boards done
    after each chunk."""
    targets = np.empty((len(boards), 5))
    for lo in range(0, len(boards), _CHUNK):
        chunk = boards[lo : lo + _CHUNK]
        targets[lo : lo + _CHUNK] = label_boards_fast(chunk, arrays, plies, threads, prune, rolls=rolls)
        if progress is not None:
            progress(min(lo + _CHUNK, len(boards)))
    phases = np.array([phase(b) for b in boards], dtype=np.uint8)
    return sanitized(targets), phases


@dataclass(frozen=True, slots=True)
class Siblings:
    """The plays a sibling shard labels: ``boards`` (``(n, 2, 25)``, each a play's result, the opponent on roll),
    ``group`` (``(n,)``: the decision each belongs to, 0, 1, ... in order), and per decision its position
    (``roots``, side on roll first) and roll (``dice``, ``(g, 2)``)."""

    boards: np.ndarray
    group: np.ndarray
    roots: np.ndarray
    dice: np.ndarray
    games: int


def sample_siblings(
    arrays: NetArrays, evaluator: NetEvaluator, seed: int, count: int, settings: LabelSettings
) -> Siblings:
    """``count`` plays from decisions of the labels' sampling games (:func:`_distill.sample_positions` with the
    run's ``explore``, ``near``, ``keep`` and ``focus``): for each sampled contact position a roll drawn from
    ``seed``, and of that roll's plays the ``settings.siblings`` best by ``evaluator``'s 0-ply equity that lie
    within ``settings.window`` of the best, when at least two do. The last decision is cut to make ``count``.
    A function of ``(arrays, seed, count, settings)``."""
    rng = np.random.default_rng(seed)
    boards: list[np.ndarray] = []
    group: list[np.ndarray] = []
    roots: list[np.ndarray] = []
    dice: list[tuple[int, int]] = []
    total = game0 = 0
    while total < count:
        batch = np.empty((count, 2, 25), dtype=np.int8)
        game0 += _distill.sample_positions(
            *arrays, seed, game0, settings.explore, batch, settings.keep, settings.near, settings.focus
        )
        for root in batch:
            if phase(root) != CONTACT:
                continue
            d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
            cands = successors_py(root, d1, d2)
            if len(cands) < 2:
                continue
            eq = equities(flip_array(evaluator.evaluate_boards(cands)))  # the mover's view
            order = np.argsort(-eq, kind="stable")[: settings.siblings]
            chosen = order[eq[order] >= eq[order[0]] - settings.window][: count - total]
            if len(chosen) < 2 and total + len(chosen) < count:
                continue
            boards.append(cands[chosen])
            group.append(np.full(len(chosen), len(roots), dtype=np.int32))
            roots.append(root.copy())
            dice.append((d1, d2))
            total += len(chosen)
            if total >= count:
                break
    return Siblings(
        np.concatenate(boards),
        np.concatenate(group),
        np.array(roots, dtype=np.int8),
        np.array(dice, dtype=np.uint8),
        game0,
    )


def _position_ids(boards: np.ndarray) -> np.ndarray:
    return np.array(
        [Position(tuple(int(x) for x in b[0]), tuple(int(x) for x in b[1])).position_id() for b in boards], dtype="S14"
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _save_shard(
    path: Path, ids: np.ndarray, targets: np.ndarray, phases: np.ndarray, siblings: Siblings | None = None
) -> None:
    extra: dict[str, Any] = {}  # as Any: numpy's stubs match a name in **extra to savez's allow_pickle
    if siblings is not None:
        extra = {"group": siblings.group, "root_ids": _position_ids(siblings.roots), "dice": siblings.dice}
    with path.open("wb") as f:  # a file object: numpy would add ".npz" to a temporary name
        np.savez_compressed(f, position_ids=ids, targets=targets.astype(np.float16), phase=phases, **extra)


def _write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def read_manifest(folder: Path) -> dict:
    """The folder's manifest (an empty one if there is none).

    Raises:
        EngineError: if the manifest cannot be read.
    """
    path = Path(folder) / MANIFEST
    if not path.exists():
        return {"format": FORMAT, "shards": []}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EngineError(f"cannot read the label manifest {str(path)!r}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("shards"), list):
        raise EngineError(f"{str(path)!r} is not a label manifest of format {FORMAT}")
    return doc


@contextlib.contextmanager
def _manifest_lock(folder: Path) -> Iterator[None]:
    """Hold the folder's manifest lock (``.manifest.lock``, an advisory ``flock``) while reading and rewriting the
    manifest, so that labellers sharing a folder do not drop each other's entries (no lock where ``fcntl`` is
    missing)."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: one labeller per folder
        yield
        return
    with open(folder / MANIFEST_LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write_manifest(folder: Path, doc: dict) -> None:
    text = json.dumps(doc, indent=1) + "\n"
    _write_atomic(folder / MANIFEST, lambda p: p.write_text(text, encoding="utf-8"))


def write_labels(
    folder: str | Path,
    settings: LabelSettings,
    positions: int,
    threads: int = 1,
    weights: str | Path | None = None,
    log: Callable[[str], None] | None = None,
) -> list[dict]:
    """Label ``positions`` positions of the run ``settings`` into ``folder``, in shards of ``settings.shard_size``,
    skipping the shards already there; returns the manifest entries of the run's shards.

    Raises:
        InvalidInputError: for bad settings, a negative count or fewer than one thread.
        EngineError: if the weights or the manifest cannot be read.
    """
    settings.check()
    if positions < 0 or threads < 1:
        raise InvalidInputError(f"expected positions >= 0 and threads >= 1, got {positions!r}, {threads!r}")
    weights = Path(weights) if weights is not None else default_weights_path()
    if not weights.is_file():
        raise EngineError(f"weights file {str(weights)!r} does not exist")
    arrays = net_arrays(weights)
    teacher = teacher_of(weights)
    name = run_name(settings, teacher)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(folder)
    say = log or (lambda s: None)
    n_shards = -(-positions // settings.shard_size)
    done = skipped = 0
    evaluator: NetEvaluator | None = None
    start = time.perf_counter()
    for index in range(n_shards):
        count = min(settings.shard_size, positions - index * settings.shard_size)
        file = f"{name}-{index:05d}.npz"
        entry = next((e for e in manifest["shards"] if e.get("file") == file), None)
        if (
            entry is not None
            and entry.get("count") == count
            and (folder / file).is_file()
            and entry.get("sha256") == _sha256(folder / file)
        ):
            skipped += 1
            continue
        if skipped:
            say(f"{skipped} shards already done, skipped")
            skipped = 0
        seed = shard_seed(settings.seed, index)
        t0 = time.perf_counter()
        siblings = None
        if settings.siblings:
            if evaluator is None:
                evaluator = NetEvaluator(weights)
            siblings = sample_siblings(arrays, evaluator, seed, count, settings)
            boards, games = siblings.boards, siblings.games
        else:
            boards = np.empty((count, 2, 25), dtype=np.int8)
            games = _distill.sample_positions(
                *arrays, seed, 0, settings.explore, boards, settings.keep, settings.near, settings.focus
            )

        def progress(k: int, index: int = index, t0: float = t0) -> None:
            rate = k / max(time.perf_counter() - t0, 1e-9)
            say(f"shard {index + 1}/{n_shards}: {k}/{count} labelled, {rate:.1f} labels/s")

        targets, phases = label_shard(boards, arrays, settings.plies, threads, progress, settings.prune, settings.rolls)
        ids = _position_ids(boards)
        _write_atomic(folder / file, lambda p: _save_shard(p, ids, targets, phases, siblings))
        seconds = time.perf_counter() - t0
        new = {
            "file": file,
            "run": name,
            "index": index,
            "count": count,
            "seed": settings.seed,
            "shard_seed": seed,
            "plies": settings.plies,
            "teacher": teacher,
            "settings": asdict(settings),
            "games": int(games),
            "phases": {k: int((phases == v).sum()) for k, v in PHASES.items()},
            "hard": int(sum(hard_contact(b) for b in boards)),
            **({"decisions": len(siblings.roots)} if siblings is not None else {}),
            "seconds": round(seconds, 1),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "sha256": _sha256(folder / file),
        }
        # read again, under the lock: another run may have written to the folder meanwhile, and its entries must stay
        with _manifest_lock(folder):
            manifest = read_manifest(folder)
            if any(e.get("file") == file for e in manifest["shards"]):  # made again: in its old place (runs' order)
                manifest["shards"] = [new if e.get("file") == file else e for e in manifest["shards"]]
            else:
                manifest["shards"].append(new)
            _write_manifest(folder, manifest)
        done += count
        say(
            f"shard {index + 1}/{n_shards} written: {file}, {count} labels in {seconds:.0f} s "
            f"({count / max(seconds, 1e-9):.2f} labels/s; {done} this session, "
            f"{done / max(time.perf_counter() - start, 1e-9):.2f} labels/s overall)"
        )
    if skipped:
        say(f"{skipped} shards already done, skipped")
    return [e for e in read_manifest(folder)["shards"] if e.get("run") == name]


def load_labels(folder: str | Path, files: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every shard the folder's manifest lists (or only those named in ``files``, in that order): boards
    ``int8 (n, 2, 25)`` (side on roll first) and targets ``float32 (n, 5)``, in manifest order.

    Raises:
        EngineError: if the manifest or a shard it lists is missing or damaged, or ``files`` names a shard
            the manifest does not list.
    """
    folder = Path(folder)
    if not (folder / MANIFEST).is_file():
        raise EngineError(f"no label manifest in {str(folder)!r}")
    entries = read_manifest(folder)["shards"]
    if files is not None:
        by_file = {str(e.get("file")): e for e in entries}
        missing = [f for f in files if f not in by_file]
        if missing:
            raise EngineError(f"the label manifest in {str(folder)!r} does not list {missing[0]!r}")
        entries = [by_file[f] for f in files]
    boards, targets = [], []
    for entry in entries:
        path = folder / str(entry.get("file"))
        try:
            with np.load(path, allow_pickle=False) as z:
                ids, t = z["position_ids"], z["targets"]
        except (OSError, ValueError, KeyError) as exc:
            raise EngineError(f"cannot read the label shard {str(path)!r}: {exc}") from None
        if t.shape != (len(ids), 5) or len(ids) != entry.get("count"):
            raise EngineError(f"the label shard {str(path)!r} does not hold {entry.get('count')!r} labels")
        b = np.empty((len(ids), 2, 25), dtype=np.int8)
        for i, pid in enumerate(ids):
            b[i] = board_of(Position.from_position_id(pid.decode("ascii")))
        boards.append(b)
        targets.append(t.astype(np.float32))
    if not boards:
        return np.empty((0, 2, 25), dtype=np.int8), np.empty((0, 5), dtype=np.float32)
    return np.concatenate(boards), np.concatenate(targets)


def load_siblings(folder: str | Path, files: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The boards and targets of sibling shards (:func:`load_labels`) and each board's decision (``int64``,
    numbered through all of ``files`` in order).

    Raises:
        EngineError: as :func:`load_labels`, or if a shard has no ``group`` array (it is not a sibling shard).
    """
    boards, targets = load_labels(folder, files)
    groups, first = [], 0
    for file in files:
        path = Path(folder) / file
        try:
            with np.load(path, allow_pickle=False) as z:
                g = z["group"].astype(np.int64)
        except KeyError:
            raise EngineError(f"the label shard {str(path)!r} is not a sibling shard (no 'group' array)") from None
        groups.append(g + first)
        first += int(g.max()) + 1 if len(g) else 0
    group = np.concatenate(groups) if groups else np.empty(0, dtype=np.int64)
    if len(group) != len(boards):
        raise EngineError(f"the sibling shards in {str(folder)!r} have groups that do not match their labels")
    return boards, targets, group


__all__ = [
    "MANIFEST",
    "MAX_SIBLINGS",
    "PRUNE",
    "LabelSettings",
    "Siblings",
    "fit_pruner",
    "label_boards_fast",
    "label_shard",
    "leaf_arrays",
    "load_labels",
    "load_siblings",
    "net_arrays",
    "read_manifest",
    "run_name",
    "sample_siblings",
    "sanitized",
    "shard_seed",
    "teacher_of",
    "write_labels",
]
