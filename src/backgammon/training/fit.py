"""Fitting the contact and race nets to labelled positions (``backgammon fit``).

The labels are the committed shards of ``training/labels`` (:mod:`backgammon.training.labels`: n-ply
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

A run lives in a directory like a TD run (:mod:`backgammon.training.train`): ``checkpoint.npz`` after
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
import itertools
import json
import math
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from backgammon.engine import encoding
from backgammon.engine.movegen import CONTACT, RACE, phase
from backgammon.engine.network import NUM_OUTPUTS, Net, NetPair, read_npz, weights_digest, write_npz
from backgammon.errors import EngineError, InvalidInputError
from backgammon.training.labels import load_labels, load_siblings, read_manifest
from backgammon.training.train import CHECKPOINT, LOG, config_from_json, config_json, halved, open_run, warm_start

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
    sibling_weight: float = 0.0  # weight of the loss on the errors between a decision's plays (0: none)
    sibling_teachers: str = ""  # like teachers, for the sibling shards (``backgammon label --siblings``)
    sibling_plies: str = ""  # like plies, for the sibling shards
    sibling_groups: int = 16  # decisions met per Adam step beside the batch of labels

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
        if not 0 <= self.sibling_weight < math.inf or self.sibling_groups < 1:
            raise InvalidInputError(
                f"expected a sibling weight >= 0 and at least 1 decision per step, got "
                f"{self.sibling_weight!r}, {self.sibling_groups!r}"
            )
        plies_filter(self.plies)
        plies_filter(self.aux_plies)
        plies_filter(self.sibling_plies)
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


# d(equity)/d(output) for the five outputs: equity = 2 win - 1 + win gammon + win backgammon - lose gammon - ...
_EQUITY_WEIGHTS = np.array([2.0, 1.0, 1.0, -1.0, -1.0], dtype=np.float32)


@dataclass(slots=True)
class GroupData:
    """The contact results of sibling decisions (``backgammon label --siblings``): inputs, targets and ``starts``
    (decision ``i`` is rows ``starts[i]:starts[i + 1]``), for training and held out."""

    x: np.ndarray
    t: np.ndarray
    starts: np.ndarray
    x_val: np.ndarray
    t_val: np.ndarray
    starts_val: np.ndarray


class _GroupBatches:
    """Whole decisions for each Adam step: ``per_step`` of them at a time in the order ``perm``, starting over
    when it runs out."""

    def __init__(self, starts: np.ndarray, perm: np.ndarray, per_step: int) -> None:
        lengths = np.diff(starts)[perm]
        self.rows = np.concatenate([np.arange(starts[g], starts[g + 1]) for g in perm])
        self.gid = np.repeat(np.arange(len(perm)), lengths)
        self.first = np.concatenate([[0], np.cumsum(lengths)])
        self.per_step = min(per_step, len(perm))
        self.next = 0

    def take(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the next decisions and each row's decision among them (0, 1, ...)."""
        if self.next + self.per_step > len(self.first) - 1:
            self.next = 0
        lo, hi = self.first[self.next], self.first[self.next + self.per_step]
        self.next += self.per_step
        return self.rows[lo:hi], self.gid[lo:hi] - self.gid[lo]


def centred_gradient(y: np.ndarray, t: np.ndarray, gid: np.ndarray, weight: float) -> np.ndarray:
    """The gradient, at the output sums, of ``weight`` times the sum over rows of the squared deviation of each
    row's equity error (outputs ``y`` against targets ``t``) from the mean error of its decision (``gid``: each
    row's decision, 0, 1, ...): a loss on the errors between the plays of a decision alone."""
    e = (y - t) @ _EQUITY_WEIGHTS
    dev = (e - (np.bincount(gid, e) / np.bincount(gid))[gid]).astype(np.float32)
    return np.float32(2.0 * weight) * dev[:, None] * _EQUITY_WEIGHTS * y * (1.0 - y)


def train_epoch(
    opt: _Adam,
    x: np.ndarray,
    t: np.ndarray,
    order: np.ndarray,
    batch: int,
    alpha: float,
    average: float,
    aux: tuple[np.ndarray, np.ndarray] | None = None,
    groups: tuple[np.ndarray, np.ndarray, _GroupBatches, float] | None = None,
) -> float:
    """One pass of minibatch Adam over ``x[order]``; returns the mean squared error per output met (before
    each step) on those rows. With ``aux`` (inputs and targets of auxiliary labels, for an optimiser with an
    auxiliary output layer), a negative entry ``-1 - i`` of ``order`` is the auxiliary row ``i``: it trains
    the auxiliary outputs and, through them, the shared hidden layer. With ``groups`` (inputs, targets, the
    decisions to take and a weight), each step also meets whole decisions: their rows are labels like the
    others, and the weight times the squared deviation of each row's equity error from its decision's mean
    error is added to the loss (only the errors *between* a decision's plays, which choose the play)."""
    sq = 0.0
    met = 0
    for i in range(0, len(order), batch):
        rows = order[i : i + batch]
        if aux is None:
            xb, tb = x[rows], t[rows]
            k = len(rows)
        else:
            own, other = rows[rows >= 0], -1 - rows[rows < 0]
            xb, tb = x[own], t[own]
            k = len(own)
        n_own = k
        if groups is not None:
            gx, gt, batches, weight = groups
            g_rows, gid = batches.take()
            xb, tb = np.concatenate([xb, gx[g_rows]]), np.concatenate([tb, gt[g_rows]])
            n_own += len(g_rows)
        if aux is not None:
            xb, tb = np.concatenate([xb, aux[0][other]]), np.concatenate([tb, aux[1][other]])
        w1, b1, w2, b2 = opt.p[:4]
        h = _sigmoid(xb @ w1 + b1)
        y = _sigmoid(h[:n_own] @ w2 + b2)
        d2 = y - tb[:n_own]  # cross-entropy of sigmoid outputs: the gradient at the output sums
        sq += float(np.sum(d2[:k].astype(np.float64) ** 2))
        met += k
        if groups is not None and weight > 0:
            d2[k:] += centred_gradient(y[k:], tb[k:n_own], gid, weight)
        d2 /= np.float32(len(xb))
        dh = d2 @ w2.T
        grads = [h[:n_own].T @ d2, d2.sum(axis=0)]
        if aux is not None:
            da = (_sigmoid(h[n_own:] @ opt.p[4] + opt.p[5]) - tb[n_own:]) / np.float32(len(xb))
            grads += [h[n_own:].T @ da, da.sum(axis=0)]
            dh = np.concatenate([dh, da @ opt.p[4].T])
        d1 = dh * h * (1.0 - h)
        opt.step([xb.T @ d1, d1.sum(axis=0), *grads], alpha, average)
    return sq / max(met * NUM_OUTPUTS, 1)


def decision_errors(params: list[np.ndarray], x: np.ndarray, t: np.ndarray, starts: np.ndarray) -> dict:
    """How a net chooses among the plays of sibling decisions (``starts`` as in :class:`GroupData`): ``within``,
    the rms deviation of each play's equity error from its decision's mean error (what the choice depends on),
    and ``regret``, the mean shortfall by the labels of the play the net ranks best from the best play (the
    mover's equity); None without decisions."""
    if len(starts) < 2:
        return {"within": None, "regret": None}
    y = np.concatenate([forward(params, x[i : i + _EVAL_CHUNK])[1] for i in range(0, len(x), _EVAL_CHUNK)])
    err = (equity(y) - equity(t)).astype(np.float64)
    label = -equity(t).astype(np.float64)  # each row is the opponent's position: the mover's equity
    value = -equity(y).astype(np.float64)
    within = regret = 0.0
    for a, b in itertools.pairwise(starts):
        e = err[a:b]
        within += float(np.sum((e - e.mean()) ** 2))
        regret += float(label[a:b].max() - label[a + int(np.argmax(value[a:b]))])
    return {"within": math.sqrt(within / (starts[-1] - starts[0])), "regret": regret / (len(starts) - 1)}


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
    groups: GroupData | None = None


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


def split_groups(boards: np.ndarray, targets: np.ndarray, group: np.ndarray, holdout: float) -> GroupData:
    """The contact net's sibling decisions: each decision's contact results (a decision left with fewer than two
    is dropped), a decision held out as a whole when its first result is (:func:`held_out`)."""
    phases = np.fromiter((phase(b) for b in boards), np.int64, len(boards))
    rows = np.flatnonzero(phases == CONTACT)
    sizes = np.bincount(group[rows], minlength=int(group.max()) + 1 if len(group) else 0)
    rows = rows[sizes[group[rows]] >= 2]
    g = group[rows]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(g)) + 1, [len(g)]]) if len(g) else np.zeros(1, np.int64)
    held = held_out(boards[rows[starts[:-1]]], holdout) if len(g) else np.zeros(0, bool)

    def part(which: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lengths = np.diff(starts)[which]
        picked = (
            np.concatenate([rows[starts[i] : starts[i + 1]] for i in np.flatnonzero(which)])
            if which.any()
            else rows[:0]
        )
        return (
            encode_boards(boards[picked]),
            np.asarray(targets[picked], dtype=np.float32),
            np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        )

    x, t, st = part(~held)
    x_val, t_val, st_val = part(held)
    return GroupData(x, t, st, x_val, t_val, st_val)


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
    sibling_files: list[str] = field(default_factory=list)

    @classmethod
    def fresh(cls, config: FitConfig) -> FitState:
        config.check()
        sibling_files = sibling_shard_files(config)
        files = [
            f
            for f in shard_files(config.labels, config.shards, config.teachers, config.plies)
            if f not in sibling_files
        ]
        if not files:
            raise EngineError(f"no label shards in {config.labels!r} beside the sibling shards")
        aux_files = aux_shard_files(config, files + sibling_files)
        rng = np.random.default_rng(config.seed)
        record: dict = {}
        if config.init_from:
            contact, race = warm_start(config.init_from, config.contact_hidden, config.race_hidden, rng)
            meta, _ = read_npz(config.init_from)
            record = {
                "file": config.init_from,
                "sha256": weights_digest(config.init_from),
                "meta": meta,
            }
        else:
            contact = Net.random(config.contact_hidden, rng)
            race = Net.random(config.race_hidden, rng, inputs=encoding.RACE_INPUTS)
        aux = bool(aux_files)
        opts = {"contact": _Adam(contact, aux), "race": _Adam(race, aux)}
        return cls(config, files, opts, init_record=record, aux_files=aux_files, sibling_files=sibling_files)

    def save(self, path: Path) -> None:
        """Write the checkpoint atomically."""
        meta = {
            "kind": "fit",
            "config": self.config.to_json(),
            "files": self.files,
            "aux_files": self.aux_files,
            "sibling_files": self.sibling_files,
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
            meta.get("sibling_files", []),
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
                + (
                    f", with the errors between the plays of {len(self.sibling_files)} shards of sibling decisions "
                    f"weighted {cfg.sibling_weight:g}"
                    if self.sibling_files
                    else ""
                )
                + (f", weights averaged (decay {cfg.average:g} per step)" if cfg.average else "")
                + (", from " + Path(cfg.init_from).name if cfg.init_from else ", from random weights")
                + " (backgammon fit)"
            ),
            "config": cfg.to_json(),
            "labels": {"folder": cfg.labels, **_shards_record(cfg.labels, self.files), **counts},
            "epochs": self.epoch,
            "best_epoch": self.best_epoch,
            "holdout_mse": self.best_loss,
            **(
                {"selected_by": "the contact net: its held-out decisions' within error (holdout_mse holds it)"}
                if self.sibling_files
                else {}
            ),
            "seconds": round(self.seconds, 1),
            "history": self.history,
        }
        if self.init_record:
            meta["init_record"] = self.init_record
        if self.aux_files:
            meta["aux_labels"] = _shards_record(cfg.labels, self.aux_files)
        if self.sibling_files:
            meta["sibling_labels"] = _shards_record(cfg.labels, self.sibling_files)
        return NetPair(nets["contact"], nets["race"], meta)


def _shards_record(folder: str, files: list[str]) -> dict:
    """How a weights record names a list of shards: their count, first, last and content digest."""
    return {"shards": len(files), "first": files[0], "last": files[-1], "digest": shards_digest(folder, files)}


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


def sibling_shard_files(config: FitConfig) -> list[str]:
    """The sibling shards of a run (none when ``sibling_weight`` is 0): those of the first ``shards`` made by
    ``backgammon label --siblings`` that match ``sibling_teachers`` and ``sibling_plies``.

    Raises:
        EngineError: if a sibling weight is set and no such shard is listed.
    """
    if config.sibling_weight == 0:
        return []
    entries = read_manifest(Path(config.labels))["shards"]
    grouped = {str(e.get("file")) for e in entries if (e.get("settings") or {}).get("siblings")}
    matching = shard_files(config.labels, config.shards, config.sibling_teachers, config.sibling_plies)
    files = [f for f in matching if f in grouped]
    if not files:
        raise EngineError(f"no sibling shards (backgammon label --siblings) of those teachers in {config.labels!r}")
    return files


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
    if state.sibling_files and "contact" in nets_filter(cfg.nets):
        groups = split_groups(*load_siblings(cfg.labels, state.sibling_files), cfg.holdout)
        data["contact"].groups = groups
        counts.update(
            sibling_decisions=len(groups.starts) - 1,
            sibling_holdout=len(groups.starts_val) - 1,
            sibling_rows=len(groups.x) + len(groups.x_val),
        )
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
        groups = None
        if d.groups is not None and len(d.groups.starts) > 1:
            perm = rng.permutation(len(d.groups.starts) - 1)
            groups = (
                d.groups.x,
                d.groups.t,
                _GroupBatches(d.groups.starts, perm, cfg.sibling_groups),
                cfg.sibling_weight,
            )
        info[f"{name}_train"] = train_epoch(opt, d.x, d.t, order, cfg.batch, alpha, cfg.average, aux, groups)
        val, eq = errors(opt.net_avg, d.x_val, d.t_val)
        info[f"{name}_holdout"], info[f"{name}_holdout_equity_rms"] = val, eq
        if d.groups is not None:
            dec = decision_errors(opt.net_avg, d.groups.x_val, d.groups.t_val, d.groups.starts_val)
            info[f"{name}_decisions_within"], info[f"{name}_decisions_regret"] = dec["within"], dec["regret"]
        if extra is not None:
            aux_val = errors(opt.aux_avg, extra.x_val, extra.t_val)
            info[f"{name}_aux_holdout"], info[f"{name}_aux_holdout_equity_rms"] = aux_val
        val = _selection_error(info, name, val)
        best = state.best_loss.get(name)
        if val is None or best is None or val < best:  # without held-out positions: the latest
            state.best_loss[name] = val
            state.best_epoch[name] = state.epoch + 1
            state.best[name] = [a.copy() for a in opt.net_avg]
    state.epoch += 1
    state.seconds += time.perf_counter() - t0
    info["seconds"] = round(time.perf_counter() - t0, 1)
    return info


def _selection_error(info: dict, name: str, val: float | None) -> float | None:
    """What picks a net's best epoch: its held-out decisions' within error when it has sibling decisions (what
    the sibling loss aims at), else its held-out error per output."""
    within = info.get(f"{name}_decisions_within")
    return within if within is not None else val


def baseline(state: FitState, data: dict[str, NetData]) -> dict:
    """The held-out error of the starting nets (epoch 0); they are the best nets until an epoch beats them."""
    info: dict = {"epoch": 0}
    for name in NETS:
        params = state.opts[name].p[: len(_PARAMS)]
        val, eq = errors(params, data[name].x_val, data[name].t_val)
        info[f"{name}_holdout"], info[f"{name}_holdout_equity_rms"] = val, eq
        g = data[name].groups
        if g is not None:
            dec = decision_errors(params, g.x_val, g.t_val, g.starts_val)
            info[f"{name}_decisions_within"], info[f"{name}_decisions_regret"] = dec["within"], dec["regret"]
        state.best_loss[name] = _selection_error(info, name, val)
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
        + (
            f"; siblings: {counts['sibling_decisions']} decisions + {counts['sibling_holdout']} held out "
            f"({counts['sibling_rows']} contact results) from {len(state.sibling_files)} shards"
            if "sibling_decisions" in counts
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
        if info.get(name + "_decisions_within") is not None:
            held += (
                f", held-out decisions: within {info[name + '_decisions_within']:.5f}, "
                f"regret {1000 * info[name + '_decisions_regret']:.2f} mp"
            )
        parts.append(f"{name} {train}{held}")
    if "seconds" in info:
        parts.append(f"{info['seconds']} s")
    return "  ".join(parts)


def _stage_number(meta: dict) -> int:
    """The stage number of a shipped weights file: its ``stage_number``, or one past the highest stage
    its ``previous`` records name (``"stage-13 selected"``), or 0 for a file with neither."""
    if isinstance(meta.get("stage_number"), int):
        return int(meta["stage_number"])
    numbers = [int(k.split()[0][6:]) for k in meta.get("previous", {}) if k.startswith("stage-") and k[6:7].isdigit()]
    return max(numbers) + 1 if numbers else 0


_STAGE_PREFIX = re.compile(r"\s*stage\s+(\d+)\s*:\s*", re.IGNORECASE)


def _without_stage_prefix(stage: str, number: int) -> str:
    """``stage`` without a leading "stage N:" naming the stage being shipped (``ship`` numbers it itself).

    Raises:
        InvalidInputError: if the prefix names another stage, or nothing follows it.
    """
    m = _STAGE_PREFIX.match(stage)
    if m is None:
        return stage
    if int(m.group(1)) != number:
        raise InvalidInputError(
            f"--stage {stage!r} names stage {m.group(1)}, but this is stage {number}: "
            "give the description alone, ship numbers the stage"
        )
    rest = stage[m.end() :]
    if not rest.strip():
        raise InvalidInputError("say what the stage is (--stage), not only its number")
    return rest


def ship(run_dir: str | Path, into: str | Path, stage: str, selected: str, strength: dict, note: str = "") -> NetPair:
    """Make a fit run's nets the weights file ``into`` (the package's, for shipping), keeping its history.

    The run must have started from ``into`` as it is now (``--init-from``; its record holds the file's
    digest), so that a net the run did not fit (``--nets``) is the one ``into`` holds. The file's record
    gains the run's stage (``stage``: a short name, the run's configuration, epochs, history, label shards,
    ``note``); ``selected`` (how the nets were chosen) and ``strength`` (the figures measured: a JSON
    object) replace the file's own, which move to ``previous`` under ``stage-N``, N the outgoing stage's
    number (``stage_number``). Writes ``into`` and its ``.json`` record; returns the new nets.

    Raises:
        InvalidInputError: for an empty ``stage`` or ``selected``, or ``strength`` not a non-empty object.
        EngineError: if the run has no weights, or did not start from ``into`` as it is now.
    """
    run_dir, into = Path(run_dir), Path(into)
    if not stage.strip() or not selected.strip():
        raise InvalidInputError("say what the stage is (--stage) and how its nets were selected (--selected)")
    if not isinstance(strength, dict) or not strength:
        raise InvalidInputError("the strength record must be a JSON object with the figures measured")
    if not (run_dir / WEIGHTS).is_file():
        raise EngineError(f"no {WEIGHTS} in {str(run_dir)!r}: is it a finished backgammon fit run?")
    new = NetPair.load(run_dir / WEIGHTS)
    old = NetPair.load(into)
    digest = weights_digest(into)
    started = new.meta.get("init_record", {}).get("sha256")
    if started != digest:
        raise EngineError(
            f"the run {str(run_dir)!r} started from weights {started or 'at random'}, not from {str(into)!r} "
            f"({digest}): fit from those weights (--init-from) to ship into them"
        )
    meta = dict(old.meta)
    config = dict(new.meta["config"])
    try:  # the file the run started from, as the repository names it (not this machine's absolute path)
        config["init_from"] = Path(config["init_from"]).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (KeyError, ValueError):
        pass
    number = _stage_number(meta)
    stage = _without_stage_prefix(stage, number + 1)
    keys = ("epochs", "best_epoch", "history", "holdout_mse", "selected_by", "labels", "aux_labels", "sibling_labels")
    record = {"stage": stage, "config": config, **{k: new.meta[k] for k in keys if k in new.meta}}
    record["seconds"] = new.meta.get("seconds", 0.0)
    if note:
        record["note"] = note
    previous = dict(meta.get("previous", {}))
    previous[f"stage-{number} selected"] = meta.get("selected")
    previous[f"stage-{number} strength"] = meta.get("strength")
    meta.update(
        previous=previous,
        stages=[*meta.get("stages", []), record],
        stage_number=number + 1,
        selected=selected,
        strength=strength,
        config=config,
        method=f"{meta.get('method', '')}; stage {number + 1}: {stage}".lstrip("; "),
        seconds=round(float(meta.get("seconds", 0.0)) + float(record["seconds"]), 1),
    )
    for key in ("labels", "aux_labels", "sibling_labels"):
        meta.pop(key, None)
        if key in new.meta:
            meta[key] = new.meta[key]
    fitted = nets_filter(config.get("nets", ""))
    pair = NetPair(
        new.contact if "contact" in fitted else old.contact, new.race if "race" in fitted else old.race, meta
    )
    pair.save(into, record=True)
    return pair


__all__ = [
    "WEIGHTS",
    "FitConfig",
    "FitState",
    "GroupData",
    "centred_gradient",
    "decision_errors",
    "encode_boards",
    "errors",
    "held_out",
    "nets_filter",
    "plies_filter",
    "run",
    "shard_files",
    "ship",
    "sibling_shard_files",
    "split",
    "split_groups",
]
