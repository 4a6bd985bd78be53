"""Refining trained nets on 1- or 2-ply targets.

Each *iteration* plays self-play games with the current nets (a share of the
moves random, to see positions the nets would avoid), labels their positions
with the nets' own 1-ply value (the average over the 21 rolls of the value
after each roll's best play) or, with ``label_ply=2``, their 2-ply value (each
roll's best play valued at 1-ply, as :mod:`backgammon.engine.search` does),
by the labeller of the label shards (:func:`backgammon.training.labels.label_boards_fast`:
the bear-off database where both sides are home, the inner ply of a 2-ply label
pruned), and fits both nets to the labels of the last few iterations by
stochastic gradient steps. With ``lam`` above 0 the sample is whole games and each
position's target is a lambda-return built on the labels: the 1-ply value plus
the later positions' differences between their 1-ply and 0-ply values, which
the game's own course brings back (:func:`_distill.lambda_returns`), so the
nets learn what their own play goes on to score, not only what one more ply
sees. The lookahead value is free of the dice's noise that self-play
TD learns through, and deeper than the nets, so the nets learn to see what
their lookahead sees. The kernels are in :mod:`backgammon.training._distill`.

A run lives in a directory like a TD run (:mod:`backgammon.training.train`):
``checkpoint.npz`` after every iteration (nets, labelled buffer and history;
a stopped run resumes from it exactly), ``best.npz`` (weights, by the pubeval
check) and ``train.log``.

>>> RefineConfig(init_from="w.npz").alpha_at(0) > 0
True
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from backgammon.engine import encoding
from backgammon.engine.bearoff import WAYS, BearoffDatabase
from backgammon.engine.evaluator import net_evaluate_batch
from backgammon.engine.network import Net, NetArrays, NetPair, arrays_of, kernel_arrays, nets_of, read_npz, write_npz
from backgammon.errors import EngineError, InvalidInputError
from backgammon.training import _distill
from backgammon.training.labels import PRUNE, fit_pruner, label_boards_fast
from backgammon.training.train import (
    BEST,
    CHECKPOINT,
    LOG,
    config_from_json,
    config_json,
    halved,
    open_run,
    versus_pubeval,
    warm_start,
)


@dataclass(frozen=True, slots=True)
class RefineConfig:
    """Everything that determines a refinement run."""

    init_from: str
    seed: int = 1
    contact_hidden: int = 512
    race_hidden: int = 64
    positions: int = 40_000  # labelled per iteration
    explore: float = 0.1  # share of random moves in the sampling games
    buffer: int = 3  # iterations of labels fitted each time
    epochs: int = 1  # passes over the buffer each iteration
    alpha: float = 0.01
    alpha_steps: tuple[int, ...] = (20, 40)  # iterations at which the rate halves
    label_ply: int = 1  # depth of the labels: 1 or 2 (about 25 times slower)
    keep: float = 1.0  # share of the sampling games' positions that are labelled
    lam: float = 0.0  # above 0: fit lambda-returns of whole games (see _distill.lambda_returns)

    def alpha_at(self, iteration: int) -> float:
        return halved(self.alpha, self.alpha_steps, iteration)

    def to_json(self) -> dict:
        return config_json(self)

    @classmethod
    def from_json(cls, d: dict) -> RefineConfig:
        return config_from_json(cls, {"epochs": 1, "label_ply": 1, "keep": 1.0, "lam": 0.0, **d})


@dataclass(slots=True)
class RefineState:
    config: RefineConfig
    contact: Net
    race: Net
    iteration: int = 0
    games: int = 0
    seconds: float = 0.0
    boards: list[np.ndarray] = field(default_factory=list)
    targets: list[np.ndarray] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    best_score: float | None = None

    @classmethod
    def fresh(cls, config: RefineConfig) -> RefineState:
        rng = np.random.default_rng(config.seed)
        contact, race = warm_start(config.init_from, config.contact_hidden, config.race_hidden, rng)
        return cls(config, contact, race)

    def arrays(self) -> NetArrays:
        return kernel_arrays(self.contact, self.race)

    def save(self, path: Path) -> None:
        meta = {
            "config": self.config.to_json(),
            "iteration": self.iteration,
            "games": self.games,
            "seconds": self.seconds,
            "history": self.history,
            "best_score": self.best_score,
            "buffers": len(self.boards),
            "encoding": encoding.NAME,
            "encoding_version": encoding.VERSION,
        }
        arrays = arrays_of(self.contact, self.race)
        for i, (b, t) in enumerate(zip(self.boards, self.targets)):
            arrays[f"boards_{i}"] = b
            arrays[f"targets_{i}"] = t
        write_npz(path, meta, arrays)

    @classmethod
    def load(cls, path: Path) -> RefineState:
        meta, a = read_npz(path, "checkpoint")
        if meta.get("encoding_version") != encoding.VERSION or "iteration" not in meta:
            raise EngineError(f"{str(path)!r} is not a refinement checkpoint for encoding {encoding.NAME!r}")
        contact, race = nets_of(a, f"checkpoint {str(path)!r}")
        n = meta["buffers"]
        return cls(
            RefineConfig.from_json(meta["config"]),
            contact,
            race,
            meta["iteration"],
            meta["games"],
            meta["seconds"],
            [a[f"boards_{i}"] for i in range(n)],
            [a[f"targets_{i}"] for i in range(n)],
            meta["history"],
            meta["best_score"],
        )

    def net_pair(self, extra: dict | None = None) -> NetPair:
        meta = {
            "iterations": self.iteration,
            "refine_games": self.games,
            "seconds": round(self.seconds, 1),
            "config": self.config.to_json(),
            "method": f"refined on {self.config.label_ply}-ply targets of self-play positions"
            + (f", as lambda-returns of whole games (lambda {self.config.lam})" if self.config.lam else "")
            + " (backgammon refine)",
        }
        if extra:
            meta.update(extra)
        return NetPair(self.contact.copy(), self.race.copy(), meta)


def _label_chunk(shared: tuple[NetArrays, int, int, np.ndarray], boards: np.ndarray) -> np.ndarray:
    """The labels of a chunk of boards (a cluster task): ``shared`` is the eight net arrays, the depth, the
    replies kept at the inner ply and the pruning model."""
    arrays, plies, prune, pruner = shared
    return label_boards_fast(boards, arrays, plies, prune=prune, pruner=pruner)


def label_boards(
    boards: np.ndarray, arrays: NetArrays, plies: int, threads: int = 1, cluster: str | None = None
) -> np.ndarray:
    """The ``plies``-ply labels of ``boards`` (``(n, 5)``) by the labeller of the label shards
    (:func:`backgammon.training.labels.label_boards_fast`, labels version 2: the bear-off database where both
    sides are home, and at 2 plies the inner ply pruned to :data:`~backgammon.training.labels.PRUNE` replies),
    over ``threads`` threads here or, given a Ray address, as tasks on that cluster (chunks of boards, four
    per CPU of the cluster). Each label is a function of its board and the nets alone, so every way gives
    the same labels.

    Raises:
        EngineError: if a cluster is asked for and Ray is missing or the cluster cannot be reached.
    """
    prune = PRUNE if plies == 2 else 0  # a 1-ply label has no inner ply to prune
    pruner = fit_pruner(arrays) if prune and len(boards) else np.zeros((2, _distill.PRUNE_FEATURES))
    if cluster is not None and len(boards):
        from backgammon.engine._cluster import cluster_cpus, run_tasks

        parts = max(1, min(len(boards), 4 * cluster_cpus(cluster, "refinement labels")))
        chunks = np.array_split(boards, parts)
        shared = (arrays, plies, prune, pruner)
        return np.concatenate(list(run_tasks(_label_chunk, shared, chunks, cluster, "refinement labels")))
    return label_boards_fast(boards, arrays, plies, threads, prune, pruner)


def iterate(state: RefineState, threads: int = 1, cluster: str | None = None) -> dict:
    """One iteration: sample, label (over ``threads`` threads, or on the Ray cluster at ``cluster``),
    fit. Returns its statistics."""
    cfg = state.config
    t0 = time.perf_counter()
    boards = np.empty((cfg.positions, 2, 25), dtype=np.int8)
    if cfg.lam > 0:
        random_move = np.zeros(cfg.positions, dtype=np.bool_)
        last = np.zeros(cfg.positions, dtype=np.bool_)
        _, used = _distill.sample_games(*state.arrays(), cfg.seed, state.games, cfg.explore, boards, random_move, last)
        end = int(np.flatnonzero(last)[-1]) + 1 if last.any() else 0
        boards, random_move, last = boards[:end], random_move[:end], last[:end]
    else:
        used = _distill.sample_positions(*state.arrays(), cfg.seed, state.games, cfg.explore, boards, cfg.keep)
    t1 = time.perf_counter()
    targets = label_boards(boards, state.arrays(), cfg.label_ply, threads, cluster)
    if cfg.lam > 0:
        v0 = np.empty_like(targets)
        db = BearoffDatabase.get()  # the labels' own 0-ply values: the database where both sides are home
        net_evaluate_batch(boards, *state.arrays(), db.dist, db.first, WAYS, True, v0)
        returns = np.empty_like(targets)
        _distill.lambda_returns(targets, v0, random_move, last, cfg.lam, returns)
        targets = returns
    t2 = time.perf_counter()
    state.boards.append(boards)
    state.targets.append(targets)
    del state.boards[: -cfg.buffer], state.targets[: -cfg.buffer]
    all_boards = np.concatenate(state.boards)
    all_targets = np.concatenate(state.targets)
    rng = np.random.default_rng([cfg.seed, state.iteration])
    stats = np.zeros(4)
    for _ in range(cfg.epochs):
        _distill.fit(
            all_boards,
            all_targets,
            rng.permutation(len(all_boards)),
            *state.arrays(),
            cfg.alpha_at(state.iteration),
            stats,
        )
    t3 = time.perf_counter()
    state.games += used
    state.iteration += 1
    state.seconds += t3 - t0
    steps = max(stats[1] + stats[2], 1.0)
    return {
        "iteration": state.iteration,
        "games": used,
        "positions": len(boards),
        "fitted": int(stats[1] + stats[2]),
        "rms_error": float(np.sqrt(stats[0] / steps)),
        "sample_s": round(t1 - t0, 1),
        "label_s": round(t2 - t1, 1),
        "fit_s": round(t3 - t2, 1),
    }


def run(
    run_dir: str | Path,
    config: RefineConfig,
    iterations: int,
    eval_pairs: int = 500,
    progress: Callable[[RefineState, dict], None] | None = None,
    threads: int = 1,
    cluster: str | None = None,
) -> RefineState:
    """Refine until ``iterations`` iterations, resuming from ``run_dir``'s checkpoint if there is one.

    ``threads`` and ``cluster`` (a Ray address: the labels are made by that
    cluster's workers) only change how fast the labels come: the run is the same.

    Raises:
        InvalidInputError: for a negative iteration count or a non-positive sample size.
        EngineError: if the checkpoint belongs to another configuration, or a cluster is
            asked for and Ray is missing or the cluster cannot be reached.
    """
    if iterations < 0 or min(config.positions, config.buffer, config.epochs) <= 0 or not 0 <= config.explore <= 1:
        raise InvalidInputError(
            f"expected iterations >= 0, positive sizes and 0 <= explore <= 1, got "
            f"{iterations!r}, {config.positions!r}, {config.buffer!r}, {config.explore!r}"
        )
    if not 0 < config.keep <= 1:
        raise InvalidInputError(f"expected a share of positions kept in (0, 1], got {config.keep!r}")
    if not 0 <= config.lam <= 1 or (config.lam > 0 and config.keep != 1):
        raise InvalidInputError(
            f"expected 0 <= lambda <= 1, with every position kept when above 0, got "
            f"{config.lam!r} (keep {config.keep!r})"
        )
    if config.label_ply not in (1, 2):
        raise InvalidInputError(f"expected labels at 1 or 2 plies, got {config.label_ply!r}")
    if cluster is not None:  # connect first: a cluster that cannot be reached leaves no run behind
        from backgammon.engine._cluster import cluster_cpus

        cluster_cpus(cluster, "refinement labels")
    run_dir = Path(run_dir)
    state = open_run(run_dir, config, RefineState)
    ckpt = run_dir / CHECKPOINT
    with (run_dir / LOG).open("a", encoding="utf-8") as log:
        while state.iteration < iterations:
            info = iterate(state, threads, cluster)
            score, se, n = versus_pubeval(state.contact, state.race, eval_pairs)
            info.update(
                vs_pubeval=round(score, 4),
                vs_pubeval_se=round(se, 4),
                vs_pubeval_games=n,
                alpha=config.alpha_at(state.iteration - 1),
                time=time.strftime("%H:%M:%S", time.gmtime()),
            )
            state.history.append({"iteration": state.iteration, "vs_pubeval": score, "se": se, "n": n})
            if state.best_score is None or score > state.best_score:
                state.best_score = score
                state.net_pair({"vs_pubeval": {"ppg": score, "se": se, "games": n}}).save(run_dir / BEST)
            state.save(ckpt)
            log.write(json.dumps(info) + "\n")
            log.flush()
            if progress is not None:
                progress(state, info)
    return state
