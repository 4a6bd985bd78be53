"""Fitting the contact and race nets to labelled positions (``backgammon fit``).

The labels are the committed shards of ``training/labels`` (:mod:`backgammon.engine.labels`: n-ply
values of self-play positions). Each position goes to the net that values it in play
(:class:`~backgammon.engine.evaluator.NetEvaluator`): contact positions to the contact net, races to
the race net; positions with both sides home (the exact bear-off database answers them) and finished
games train neither. Inputs are :func:`backgammon.engine.encoding.encode_dense`'s; the nets are
:class:`~backgammon.engine.network.Net` (one sigmoid hidden layer, five sigmoid outputs) trained by
minibatch Adam on the outputs' cross-entropy (the gradient ``target - output`` that self-play and
refinement use too), in numpy float32, optionally with an exponential moving average of the weights.

A fixed share of the positions (chosen by a hash of the board, so the same position is always on the
same side, whatever the seed or the number of shards) is held out; each epoch prints the mean squared
error per output on the training positions (as they were met) and on the held-out ones, for each net.

A run lives in a directory like a TD run (:mod:`backgammon.engine.train`): ``checkpoint.npz`` after
every epoch (the nets, Adam's moments, the average, the best nets so far and the list of shards the run
uses, so a stopped run resumes exactly, even after more shards were added), ``train.log`` (JSON lines)
and ``weights.npz``, a normal weights file holding, for each net, the epoch of lowest held-out error,
with its training record in ``weights.json`` beside it.

Determinism: the initial weights come from the seed, epoch ``e`` shuffles with ``(seed, e, net)``, and
nothing else is random, so a run is a function of its configuration and shards (on one machine and
numpy build: the matrix products are float32).

>>> FitConfig(labels="training/labels").alpha_at(0) > FitConfig(labels="training/labels").alpha_at(100)
True
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from backgammon.engine import encoding
from backgammon.engine._movegen import CONTACT, RACE, phase
from backgammon.engine.labels import load_labels, read_manifest
from backgammon.engine.network import NUM_OUTPUTS, Net, NetPair, read_npz, write_npz
from backgammon.engine.train import CHECKPOINT, LOG, config_from_json, config_json, halved, open_run, warm_start
from backgammon.errors import EngineError, InvalidInputError

WEIGHTS = "weights.npz"
NETS = ("contact", "race")
PHASE_OF = {"contact": CONTACT, "race": RACE}
_HOLDOUT_SCALE = 10_000  # the held-out share is counted in these parts
_PARAMS = ("w1", "b1", "w2", "b2")
_AUX_PARAMS = ("aux_w2", "aux_b2")
_BETA1, _BETA2, _EPS = 0.9, 0.999, 1e-8
_EVAL_CHUNK = 8192


@dataclass(frozen=True, slots=True)
class FitConfig:
    """Everything that determines a fitting run (with the shards it resolves at the start)."""

    labels: str  # the folder of the shards and manifest.json
    seed: int = 1
    init_from: str = ""  # a weights file to start from ("": random weights)
    contact_hidden: int = 512
    race_hidden: int = 64
    batch: int = 256
    alpha: float = 0.001  # Adam's step size
    alpha_steps: tuple[int, ...] = (10, 15)  # epochs at which it halves
    holdout: float = 0.05  # share of the positions held out for validation
    average: float = 0.0  # decay of the weights' moving average per step (0: none)
    shards: int = 0  # use the manifest's first N shards (0: every shard listed when the run starts)
    teachers: str = ""  # comma-separated: keep only shards whose teacher contains one of these ("": all)
    plies: str = ""  # comma-separated: keep only shards labelled at one of these depths, e.g. "3" ("": all)
    nets: str = ""  # comma-separated: fit only these nets ("race"); the others stay as they start ("": both)
    aux_ratio: float = 0.0  # auxiliary labels met per epoch, per main label (0: none)
    aux_teachers: str = ""  # like teachers, for the auxiliary labels (the shards not among the main ones)
    aux_plies: str = ""  # like plies, for the auxiliary labels, e.g. "2"

    def alpha_at(self, epoch: int) -> float:
        """Adam's step size in epoch ``epoch`` (counted from 0)."""
        return halved(self.alpha, self.alpha_steps, epoch)

    def to_json(self) -> dict:
        return config_json(self)

    @classmethod
    def from_json(cls, d: dict) -> FitConfig:
        return config_from_json(cls, d)

    def check(self) -> None:
        """Raises InvalidInputError for settings outside their ranges."""
        if min(self.contact_hidden, self.race_hidden, self.batch) <= 0 or not self.alpha > 0:
            raise InvalidInputError(
                f"expected positive hidden sizes, batch and rate, got {self.contact_hidden!r}, "
                f"{self.race_hidden!r}, {self.batch!r}, {self.alpha!r}"
            )
        if not 0 < self.holdout < 1 or not 0 <= self.average < 1 or self.shards < 0:
            raise InvalidInputError(
                f"expected 0 < holdout < 1, 0 <= average < 1 and shards >= 0, got "
                f"{self.holdout!r}, {self.average!r}, {self.shards!r}"
            )
        if not 0 <= self.aux_ratio < math.inf:
            raise InvalidInputError(f"expected an auxiliary ratio >= 0, got {self.aux_ratio!r}")
        plies_filter(self.plies)
        plies_filter(self.aux_plies)
        nets_filter(self.nets)


class _Adam:
    """One net's float32 parameters with Adam's moments and, optionally, their moving average. With
    ``aux``, the parameters also hold an auxiliary output layer (``aux_w2``, ``aux_b2``: a second set of
    outputs on the same hidden layer, for labels of another kind), which starts as the net's own."""

    def __init__(self, net: Net, aux: bool = False) -> None:
        self.p = [np.ascontiguousarray(getattr(net, name), dtype=np.float32) for name in _PARAMS]
        if aux:
            self.p += [self.p[2].copy(), self.p[3].copy()]
        self.m = [np.zeros_like(a) for a in self.p]
        self.v = [np.zeros_like(a) for a in self.p]
        self.avg = [a.copy() for a in self.p]
        self.t = 0

    def step(self, grads: list[np.ndarray], alpha: float, average: float) -> None:
        self.t += 1
        c1 = 1.0 - _BETA1**self.t
        c2 = 1.0 - _BETA2**self.t
        rate = np.float32(alpha * math.sqrt(c2) / c1)
        for p, m, v, g in zip(self.p, self.m, self.v, grads):
            m *= _BETA1
            m += (1.0 - _BETA1) * g
            v *= _BETA2
            v += (1.0 - _BETA2) * (g * g)
            p -= rate * m / (np.sqrt(v) + _EPS)
        if average > 0:
            for a, p in zip(self.avg, self.p):
                a *= average
                a += (1.0 - average) * p
        else:
            for a, p in zip(self.avg, self.p):
                a[...] = p

    @property
    def net_avg(self) -> list[np.ndarray]:
        """The averaged parameters of the net itself (without the auxiliary output layer)."""
        return self.avg[: len(_PARAMS)]

    @property
    def aux_avg(self) -> list[np.ndarray]:
        """The averaged parameters of the auxiliary net: the shared hidden layer and the auxiliary outputs."""
        return self.avg[:2] + self.avg[len(_PARAMS) :]

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        out = {}
        for name, p, m, v, a in zip(_PARAMS + _AUX_PARAMS, self.p, self.m, self.v, self.avg):
            out.update({f"{prefix}_{name}": p, f"{prefix}_m_{name}": m, f"{prefix}_v_{name}": v})
            out[f"{prefix}_avg_{name}"] = a
        return out

    @classmethod
    def restore(cls, arrays: dict[str, np.ndarray], prefix: str, t: int) -> _Adam:
        opt = cls.__new__(cls)
        names = _PARAMS + (_AUX_PARAMS if f"{prefix}_{_AUX_PARAMS[0]}" in arrays else ())
        opt.p = [arrays[f"{prefix}_{name}"] for name in names]
        opt.m = [arrays[f"{prefix}_m_{name}"] for name in names]
        opt.v = [arrays[f"{prefix}_v_{name}"] for name in names]
        opt.avg = [arrays[f"{prefix}_avg_{name}"] for name in names]
        opt.t = t
        return opt


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # no overflow for large |z|


def forward(params: list[np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The hidden activations and the outputs of a net (``w1, b1, w2, b2``) for inputs ``x`` ``(n, in)``."""
    w1, b1, w2, b2 = params
    h = _sigmoid(x @ w1 + b1)
    return h, _sigmoid(h @ w2 + b2)


def equity(y: np.ndarray) -> np.ndarray:
    """Cubeless equity of outputs ``(n, 5)``."""
    return 2.0 * y[:, 0] - 1.0 + y[:, 1] - y[:, 3] + y[:, 2] - y[:, 4]


def errors(params: list[np.ndarray], x: np.ndarray, t: np.ndarray) -> tuple[float | None, float | None]:
    """Mean squared error per output and rms error in equity of a net on ``x`` against ``t`` (None, None
    without positions)."""
    if len(x) == 0:
        return None, None
    sq = 0.0
    eq = 0.0
    for i in range(0, len(x), _EVAL_CHUNK):
        _, y = forward(params, x[i : i + _EVAL_CHUNK])
        tt = t[i : i + _EVAL_CHUNK]
        sq += float(np.sum((y - tt).astype(np.float64) ** 2))
        eq += float(np.sum((equity(y) - equity(tt)).astype(np.float64) ** 2))
    return sq / (len(x) * NUM_OUTPUTS), math.sqrt(eq / len(x))


def train_epoch(
    opt: _Adam,
    x: np.ndarray,
    t: np.ndarray,
    order: np.ndarray,
    batch: int,
    alpha: float,
    average: float,
    aux: tuple[np.ndarray, np.ndarray] | None = None,
) -> float:
    """One pass of minibatch Adam over ``x[order]``; returns the mean squared error per output met (before
    each step) on those rows. With ``aux`` (inputs and targets of auxiliary labels, for an optimiser with an
    auxiliary output layer), a negative entry ``-1 - i`` of ``order`` is the auxiliary row ``i``: it trains
    the auxiliary outputs and, through them, the shared hidden layer."""
    sq = 0.0
    met = 0
    for i in range(0, len(order), batch):
        rows = order[i : i + batch]
        if aux is None:
            xb, tb = x[rows], t[rows]
            k = len(rows)
        else:
            own, other = rows[rows >= 0], -1 - rows[rows < 0]
            xb, tb = np.concatenate([x[own], aux[0][other]]), np.concatenate([t[own], aux[1][other]])
            k = len(own)
        w1, b1, w2, b2 = opt.p[:4]
        h = _sigmoid(xb @ w1 + b1)
        d2 = _sigmoid(h[:k] @ w2 + b2) - tb[:k]  # cross-entropy of sigmoid outputs: the gradient at the output sums
        sq += float(np.sum(d2.astype(np.float64) ** 2))
        met += k
        d2 /= np.float32(len(rows))
        dh = d2 @ w2.T
        grads = [h[:k].T @ d2, d2.sum(axis=0)]
        if aux is not None:
            da = (_sigmoid(h[k:] @ opt.p[4] + opt.p[5]) - tb[k:]) / np.float32(len(rows))
            grads += [h[k:].T @ da, da.sum(axis=0)]
            dh = np.concatenate([dh, da @ opt.p[4].T])
        d1 = dh * h * (1.0 - h)
        opt.step([xb.T @ d1, d1.sum(axis=0), *grads], alpha, average)
    return sq / max(met * NUM_OUTPUTS, 1)


def held_out(boards: np.ndarray, share: float) -> np.ndarray:
    """Which boards are held out: those whose board's CRC-32 falls in the first ``share`` of its range
    (a function of the position alone, so duplicates fall on the same side)."""
    cut = round(share * _HOLDOUT_SCALE)
    flat = np.ascontiguousarray(boards, dtype=np.int8).reshape(len(boards), -1)
    return np.fromiter((zlib.crc32(row.tobytes()) % _HOLDOUT_SCALE < cut for row in flat), bool, len(flat))


def encode_boards(boards: np.ndarray, race: bool = False) -> np.ndarray:
    """The inputs of ``boards`` (``(n, 2, 25)`` int8) as float32 ``(n, NUM_INPUTS)``, or with ``race`` the race
    net's ``(n, RACE_INPUTS)``."""
    n_in = encoding.RACE_INPUTS if race else encoding.NUM_INPUTS
    x = np.empty((len(boards), n_in), dtype=np.float32)
    row = np.empty(n_in)
    for i, b in enumerate(np.ascontiguousarray(boards, dtype=np.int8)):
        encoding.encode_dense(b, row)
        x[i] = row
    return x


@dataclass(slots=True)
class NetData:
    """One net's positions: training and held-out inputs and targets, and optionally those of its auxiliary
    labels (``aux``: another ``NetData``)."""

    x: np.ndarray
    t: np.ndarray
    x_val: np.ndarray
    t_val: np.ndarray
    aux: NetData | None = None


def split(
    boards: np.ndarray, targets: np.ndarray, holdout: float, nets: tuple[str, ...] = NETS
) -> tuple[dict[str, NetData], dict[str, int]]:
    """The data of each net (by the phase of each board) and counts of what was used and left out; a net
    not in ``nets`` gets no positions (so it is not fitted)."""
    phases = np.fromiter((phase(b) for b in boards), np.int64, len(boards))
    val = held_out(boards, holdout)
    data = {}
    for name in NETS:
        mine = (phases == PHASE_OF[name]) & (name in nets)
        tr, ho = mine & ~val, mine & val
        race = name == "race"
        data[name] = NetData(
            encode_boards(boards[tr], race),
            np.asarray(targets[tr], dtype=np.float32),
            encode_boards(boards[ho], race),
            np.asarray(targets[ho], dtype=np.float32),
        )
    counts = {
        "labels": len(boards),
        **{f"{n}_train": len(d.x) for n, d in data.items()},
        **{f"{n}_holdout": len(d.x_val) for n, d in data.items()},
        "not_used": int(np.sum((phases != CONTACT) & (phases != RACE))),
    }
    return data, counts


def shard_files(labels: str | Path, shards: int, teachers: str = "", plies: str = "") -> list[str]:
    """The shard files a run uses: the manifest's first ``shards`` (0: all), of those the ones
    whose teacher contains one of the comma-separated ``teachers`` ("": every teacher) and whose
    depth is one of the comma-separated ``plies`` ("": every depth).

    >>> teacher_filter(" 8ca5aff2372a, ebf324e68d0d ")
    ['8ca5aff2372a', 'ebf324e68d0d']
    >>> plies_filter("3, 2")
    [3, 2]

    Raises:
        EngineError: if the folder has no manifest, fewer shards than asked for, or no shard of
            those teachers and depths.
        InvalidInputError: if ``plies`` is not a list of depths 1 to 3.
    """
    entries = read_manifest(Path(labels))["shards"]
    if not entries:
        raise EngineError(f"no label shards listed in {str(labels)!r}")
    if shards > len(entries):
        raise EngineError(f"{str(labels)!r} lists {len(entries)} shards, not {shards}")
    chosen = entries[: shards or len(entries)]
    wanted = teacher_filter(teachers)
    if wanted:
        chosen = [e for e in chosen if any(w in str(e.get("teacher", "")) for w in wanted)]
        if not chosen:
            raise EngineError(f"no label shard in {str(labels)!r} has a teacher matching {teachers!r}")
    depths = plies_filter(plies)
    if depths:
        chosen = [e for e in chosen if e.get("plies") in depths]
        if not chosen:
            raise EngineError(f"no label shard in {str(labels)!r} of those teachers is labelled at {plies!r} plies")
    return [str(e["file"]) for e in chosen]


def teacher_filter(teachers: str) -> list[str]:
    """The non-empty, stripped parts of a comma-separated list of teacher names."""
    return [t.strip() for t in teachers.split(",") if t.strip()]


def nets_filter(nets: str) -> tuple[str, ...]:
    """The nets of a comma-separated list such as ``"race"`` ("": both).

    Raises:
        InvalidInputError: for a part that is not a net's name.
    """
    parts = tuple(p.strip() for p in nets.split(",") if p.strip())
    if not all(p in NETS for p in parts):
        raise InvalidInputError(f"invalid nets {nets!r}: expected comma-separated names among {', '.join(NETS)}")
    return parts or NETS


def plies_filter(plies: str) -> list[int]:
    """The depths of a comma-separated list such as ``"2,3"`` ("" or only commas: none, meaning every depth).

    Raises:
        InvalidInputError: for a part that is not a depth 1 to 3.
    """
    parts = [p.strip() for p in plies.split(",") if p.strip()]
    if not all(p in ("1", "2", "3") for p in parts):
        raise InvalidInputError(f"invalid label depths {plies!r}: expected comma-separated plies 1 to 3, e.g. '3'")
    return [int(p) for p in parts]


def shards_digest(labels: str | Path, files: list[str]) -> str:
    """A sha256 prefix of the shards' own sha256s (from the manifest), in order: names the data."""
    by_file = {str(e.get("file")): str(e.get("sha256")) for e in read_manifest(Path(labels))["shards"]}
    return hashlib.sha256("\n".join(by_file.get(f, "") for f in files).encode()).hexdigest()[:16]


@dataclass(slots=True)
class FitState:
    """A run's state: the optimisers of both nets, the epochs done, the best nets so far."""

    config: FitConfig
    files: list[str]
    opts: dict[str, _Adam]
    epoch: int = 0
    seconds: float = 0.0
    history: list[dict] = field(default_factory=list)
    best: dict[str, list[np.ndarray]] = field(default_factory=dict)
    best_loss: dict[str, float | None] = field(default_factory=dict)
    best_epoch: dict[str, int] = field(default_factory=dict)
    init_record: dict = field(default_factory=dict)
    aux_files: list[str] = field(default_factory=list)

    @classmethod
    def fresh(cls, config: FitConfig) -> FitState:
        config.check()
        files = shard_files(config.labels, config.shards, config.teachers, config.plies)
        aux_files = aux_shard_files(config, files)
        rng = np.random.default_rng(config.seed)
        record: dict = {}
        if config.init_from:
            contact, race = warm_start(config.init_from, config.contact_hidden, config.race_hidden, rng)
            meta, _ = read_npz(config.init_from)
            record = {
                "file": config.init_from,
                "sha256": hashlib.sha256(Path(config.init_from).read_bytes()).hexdigest()[:12],
                "meta": meta,
            }
        else:
            contact = Net.random(config.contact_hidden, rng)
            race = Net.random(config.race_hidden, rng, inputs=encoding.RACE_INPUTS)
        aux = bool(aux_files)
        opts = {"contact": _Adam(contact, aux), "race": _Adam(race, aux)}
        return cls(config, files, opts, init_record=record, aux_files=aux_files)

    def save(self, path: Path) -> None:
        """Write the checkpoint atomically."""
        meta = {
            "kind": "fit",
            "config": self.config.to_json(),
            "files": self.files,
            "aux_files": self.aux_files,
            "epoch": self.epoch,
            "seconds": self.seconds,
            "history": self.history,
            "steps": {n: o.t for n, o in self.opts.items()},
            "best_loss": self.best_loss,
            "best_epoch": self.best_epoch,
            "init_record": self.init_record,
            "encoding": encoding.NAME,
            "encoding_version": encoding.VERSION,
        }
        arrays: dict[str, np.ndarray] = {}
        for name, opt in self.opts.items():
            arrays.update(opt.state(name))
        for name, params in self.best.items():
            arrays.update({f"best_{name}_{p}": a for p, a in zip(_PARAMS, params)})
        write_npz(path, meta, arrays)

    @classmethod
    def load(cls, path: Path) -> FitState:
        """Read a checkpoint.

        Raises:
            EngineError: if it is not a fitting checkpoint for this encoding.
        """
        meta, a = read_npz(path, "checkpoint")
        if meta.get("kind") != "fit" or meta.get("encoding_version") != encoding.VERSION:
            raise EngineError(f"{str(path)!r} is not a fitting checkpoint for encoding {encoding.NAME!r}")
        opts = {n: _Adam.restore(a, n, meta["steps"][n]) for n in NETS}
        best = {n: [a[f"best_{n}_{p}"] for p in _PARAMS] for n in NETS if f"best_{n}_w1" in a}
        return cls(
            FitConfig.from_json(meta["config"]),
            meta["files"],
            opts,
            meta["epoch"],
            meta["seconds"],
            meta["history"],
            best,
            meta["best_loss"],
            meta["best_epoch"],
            meta["init_record"],
            meta.get("aux_files", []),
        )

    def weights(self, counts: dict[str, int]) -> NetPair:
        """The best nets so far (each net at its epoch of lowest held-out error) with the training record."""
        nets = {n: Net(*(p.astype(np.float64) for p in self.best[n])) for n in NETS}
        cfg = self.config
        meta = {
            "method": (
                "fitted to the n-ply labels of training/labels by minibatch Adam on the outputs' cross-entropy"
                + (
                    f", with an auxiliary output layer fitted to {cfg.aux_ratio:g} other labels per label"
                    if self.aux_files
                    else ""
                )
                + (f", weights averaged (decay {cfg.average:g} per step)" if cfg.average else "")
                + (", from " + Path(cfg.init_from).name if cfg.init_from else ", from random weights")
                + " (backgammon fit)"
            ),
            "config": cfg.to_json(),
            "labels": {
                "folder": cfg.labels,
                "shards": len(self.files),
                "first": self.files[0],
                "last": self.files[-1],
                "digest": shards_digest(cfg.labels, self.files),
                **counts,
            },
            "epochs": self.epoch,
            "best_epoch": self.best_epoch,
            "holdout_mse": self.best_loss,
            "seconds": round(self.seconds, 1),
            "history": self.history,
        }
        if self.init_record:
            meta["init_record"] = self.init_record
        if self.aux_files:
            meta["aux_labels"] = {
                "shards": len(self.aux_files),
                "first": self.aux_files[0],
                "last": self.aux_files[-1],
                "digest": shards_digest(cfg.labels, self.aux_files),
            }
        return NetPair(nets["contact"], nets["race"], meta)


def aux_shard_files(config: FitConfig, files: list[str]) -> list[str]:
    """The auxiliary label shards of a run (none when ``aux_ratio`` is 0): those of the first ``shards``
    that match ``aux_teachers`` and ``aux_plies`` and are not among the run's main ``files``.

    Raises:
        EngineError: if an auxiliary ratio is set and no such shard is left.
    """
    if config.aux_ratio == 0:
        return []
    main = set(files)
    aux = [f for f in shard_files(config.labels, config.shards, config.aux_teachers, config.aux_plies) if f not in main]
    if not aux:
        raise EngineError(f"no auxiliary label shards in {config.labels!r}: every one that matches is a main one")
    return aux


def load_data(state: FitState) -> tuple[dict[str, NetData], dict[str, int]]:
    """The run's shards, split into each net's training and held-out data (with their auxiliary data)."""
    cfg = state.config
    boards, targets = load_labels(cfg.labels, state.files)
    data, counts = split(boards, targets, cfg.holdout, nets_filter(cfg.nets))
    if state.aux_files:
        boards, targets = load_labels(cfg.labels, state.aux_files)
        aux, aux_counts = split(boards, targets, cfg.holdout, nets_filter(cfg.nets))
        for name in NETS:
            data[name].aux = aux[name]
        counts.update({f"aux_{k}": v for k, v in aux_counts.items()})
    return data, counts


def fit_epoch(state: FitState, data: dict[str, NetData]) -> dict:
    """One epoch of both nets; updates the best nets; returns the epoch's figures."""
    cfg = state.config
    t0 = time.perf_counter()
    alpha = cfg.alpha_at(state.epoch)
    info: dict = {"epoch": state.epoch + 1, "alpha": alpha}
    for k, name in enumerate(NETS):
        d = data[name]
        opt = state.opts[name]
        if len(d.x) == 0:  # a net left out (--nets) or without positions: not fitted
            info[f"{name}_holdout"], info[f"{name}_holdout_equity_rms"] = errors(opt.net_avg, d.x_val, d.t_val)
            continue
        rng = np.random.default_rng([cfg.seed, state.epoch, k])
        order = rng.permutation(len(d.x))
        extra = d.aux if d.aux is not None and len(d.aux.x) and len(opt.p) > len(_PARAMS) else None
        if extra is not None:
            # each epoch meets a fresh sample of the auxiliary labels, mixed into the main ones
            n = min(round(cfg.aux_ratio * len(d.x)), len(extra.x))
            order = rng.permutation(np.concatenate([order, -1 - rng.choice(len(extra.x), n, replace=False)]))
        aux = None if extra is None else (extra.x, extra.t)
        info[f"{name}_train"] = train_epoch(opt, d.x, d.t, order, cfg.batch, alpha, cfg.average, aux)
        val, eq = errors(opt.net_avg, d.x_val, d.t_val)
        info[f"{name}_holdout"], info[f"{name}_holdout_equity_rms"] = val, eq
        if extra is not None:
            aux_val = errors(opt.aux_avg, extra.x_val, extra.t_val)
            info[f"{name}_aux_holdout"], info[f"{name}_aux_holdout_equity_rms"] = aux_val
        best = state.best_loss.get(name)
        if val is None or best is None or val < best:  # without held-out positions: the latest
            state.best_loss[name] = val
            state.best_epoch[name] = state.epoch + 1
            state.best[name] = [a.copy() for a in opt.net_avg]
    state.epoch += 1
    state.seconds += time.perf_counter() - t0
    info["seconds"] = round(time.perf_counter() - t0, 1)
    return info


def baseline(state: FitState, data: dict[str, NetData]) -> dict:
    """The held-out error of the starting nets (epoch 0); they are the best nets until an epoch beats them."""
    info: dict = {"epoch": 0}
    for name in NETS:
        params = state.opts[name].p[: len(_PARAMS)]
        val, eq = errors(params, data[name].x_val, data[name].t_val)
        info[f"{name}_holdout"], info[f"{name}_holdout_equity_rms"] = val, eq
        state.best_loss[name] = val
        state.best_epoch[name] = 0
        state.best[name] = [a.copy() for a in params]
    return info


def run(
    run_dir: str | Path,
    config: FitConfig,
    epochs: int,
    progress: Callable[[str], None] | None = None,
) -> FitState:
    """Fit until ``epochs`` epochs in all, resuming from ``run_dir``'s checkpoint if there is one; write
    ``checkpoint.npz``, ``train.log`` and ``weights.npz`` (with ``weights.json``) after every epoch.
    ``progress`` gets a line of text per step (loading, each epoch).

    Raises:
        InvalidInputError: for a negative epoch count or settings outside their ranges.
        EngineError: if the labels cannot be read or the checkpoint belongs to another configuration.
    """
    if epochs < 0:
        raise InvalidInputError(f"expected epochs >= 0, got {epochs!r}")
    config.check()
    say = progress or (lambda line: None)
    run_dir = Path(run_dir)
    state: FitState = open_run(run_dir, config, FitState)
    t0 = time.perf_counter()
    data, counts = load_data(state)
    say(
        f"{counts['labels']} labels from {len(state.files)} shards in {time.perf_counter() - t0:.1f} s: "
        f"contact {counts['contact_train']} + {counts['contact_holdout']} held out, "
        f"race {counts['race_train']} + {counts['race_holdout']} held out, "
        f"{counts['not_used']} bear-offs and finished games not used"
        + (
            f"; auxiliary: {counts['aux_labels']} labels from {len(state.aux_files)} shards, contact "
            f"{counts['aux_contact_train']} + {counts['aux_contact_holdout']} held out, race "
            f"{counts['aux_race_train']} + {counts['aux_race_holdout']} held out"
            if state.aux_files
            else ""
        )
    )
    if len(data["contact"].x) + len(data["race"].x) == 0:
        raise EngineError(f"no contact or race positions to fit in {str(config.labels)!r}")
    with (run_dir / LOG).open("a", encoding="utf-8") as log:

        def record(info: dict) -> None:
            state.save(run_dir / CHECKPOINT)
            state.weights(counts).save(run_dir / WEIGHTS, record=True)
            log.write(json.dumps({**info, "time": time.strftime("%H:%M:%S", time.gmtime())}) + "\n")
            log.flush()
            say(describe(info, epochs))

        if state.epoch == 0 and not state.history:
            info = baseline(state, data)
            state.history.append(info)
            record(info)
        while state.epoch < epochs:
            info = fit_epoch(state, data)
            state.history.append(info)
            record(info)
    return state


def describe(info: dict, epochs: int) -> str:
    """One line of an epoch's figures."""
    parts = [f"epoch {info['epoch']}/{epochs}:"]
    for name in NETS:
        train = f"train {info[name + '_train']:.6f} " if name + "_train" in info else ""
        val, eq = info[name + "_holdout"], info[name + "_holdout_equity_rms"]
        held = "none held out" if val is None else f"held out {val:.6f} (equity rms {eq:.4f})"
        if info.get(name + "_aux_holdout") is not None:
            held += f", auxiliary {info[name + '_aux_holdout']:.6f}"
        parts.append(f"{name} {train}{held}")
    if "seconds" in info:
        parts.append(f"{info['seconds']} s")
    return "  ".join(parts)


__all__ = [
    "WEIGHTS",
    "FitConfig",
    "FitState",
    "encode_boards",
    "errors",
    "held_out",
    "nets_filter",
    "plies_filter",
    "run",
    "shard_files",
    "split",
]
