"""Self-play TD training of the contact and race nets.

The game loop (move generation, forward pass, TD(0) update) runs in numba
(:mod:`backgammon.training._selfplay`); this module drives it in chunks, writes a
resumable checkpoint after each chunk, logs progress, and measures strength
against pubeval as it goes.

Determinism: game ``g`` of a run seeds its own dice from ``(seed, g)`` and
checkpoints keep the weights in float64, so a run stopped and resumed from a
checkpoint reaches exactly the state of an uninterrupted run.

>>> cfg = TrainConfig(seed=1)
>>> cfg.alpha_at(0) > cfg.alpha_at(10**7)
True
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from backgammon.engine import encoding
from backgammon.engine.network import Net, NetArrays, NetPair, arrays_of, kernel_arrays, nets_of, read_npz, write_npz
from backgammon.engine.pubeval import WC, WR
from backgammon.errors import EngineError, InvalidInputError
from backgammon.training import _selfplay as sp

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

CHECKPOINT = "checkpoint.npz"
BEST = "best.npz"
LOG = "train.log"


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """Everything that determines a training run."""

    seed: int = 1
    contact_hidden: int = 96
    race_hidden: int = 48
    alpha: float = 0.1
    # the learning rate halves at each of these game counts
    alpha_steps: tuple[int, ...] = (100_000, 300_000, 800_000)
    init_scale: float = 0.1
    # 0: online TD(0); above 0: TD(lambda) by offline lambda-returns after each game
    lam: float = 0.0
    # a weights file to start from instead of random weights (see :func:`warm_start`)
    init_from: str = ""

    def alpha_at(self, game: int) -> float:
        """Learning rate for game number ``game``."""
        return halved(self.alpha, self.alpha_steps, game)

    def to_json(self) -> dict:
        return config_json(self)

    @classmethod
    def from_json(cls, d: dict) -> TrainConfig:
        # lam and init_from: runs from before they were settings
        return config_from_json(cls, {"lam": 0.0, "init_from": "", **d})


@dataclass(slots=True)
class TrainState:
    """Mutable state of a run: the nets, the games played, running statistics."""

    config: TrainConfig
    contact: Net
    race: Net
    games: int = 0
    plies: int = 0
    seconds: float = 0.0
    history: list[dict] = field(default_factory=list)
    best_score: float | None = None

    @classmethod
    def fresh(cls, config: TrainConfig) -> TrainState:
        rng = np.random.default_rng(config.seed)
        if config.init_from:
            contact, race = warm_start(
                config.init_from, config.contact_hidden, config.race_hidden, rng, config.init_scale
            )
            return cls(config, contact, race)
        return cls(
            config,
            Net.random(config.contact_hidden, rng, config.init_scale),
            Net.random(config.race_hidden, rng, config.init_scale, encoding.RACE_INPUTS),
        )

    def arrays(self) -> NetArrays:
        return kernel_arrays(self.contact, self.race)

    def net_pair(self, extra: dict | None = None) -> NetPair:
        meta = {
            "games": self.games,
            "seconds": round(self.seconds, 1),
            "config": self.config.to_json(),
            "method": (
                f"self-play TD({self.config.lam:g})"
                + (", online" if self.config.lam == 0 else ", offline lambda-returns after each game")
                + ", 0-ply greedy move choice, cross-entropy gradient"
            ),
        }
        if extra:
            meta.update(extra)
        return NetPair(self.contact.copy(), self.race.copy(), meta)

    def save(self, path: Path) -> None:
        """Write a float64 checkpoint atomically."""
        meta = {
            "config": self.config.to_json(),
            "games": self.games,
            "plies": self.plies,
            "seconds": self.seconds,
            "history": self.history,
            "best_score": self.best_score,
            "encoding": encoding.NAME,
            "encoding_version": encoding.VERSION,
        }
        write_npz(path, meta, arrays_of(self.contact, self.race))

    @classmethod
    def load(cls, path: Path) -> TrainState:
        """Read a checkpoint.

        Raises:
            EngineError: if it cannot be read or was made for another encoding.
        """
        meta, a = read_npz(path, "checkpoint")
        if meta.get("encoding") != encoding.NAME or meta.get("encoding_version") != encoding.VERSION:
            raise EngineError(
                f"checkpoint {str(path)!r} was made for encoding {meta.get('encoding')!r}, expected {encoding.NAME!r}"
            )
        contact, race = nets_of(a, f"checkpoint {str(path)!r}")
        return cls(
            TrainConfig.from_json(meta["config"]),
            contact,
            race,
            meta["games"],
            meta["plies"],
            meta["seconds"],
            meta["history"],
            meta["best_score"],
        )


def config_json(config: DataclassInstance) -> dict:
    """A run configuration (a dataclass with ``alpha_steps``) as JSON-ready data."""
    d = asdict(config)
    d["alpha_steps"] = list(d["alpha_steps"])
    return d


def config_from_json(cls: type, d: dict) -> Any:
    """The configuration of class ``cls`` that :func:`config_json` wrote."""
    return cls(**{**d, "alpha_steps": tuple(d["alpha_steps"])})


def halved(alpha: float, steps: tuple[int, ...], at: int) -> float:
    """``alpha`` halved once for each of ``steps`` that ``at`` has reached."""
    return alpha * 0.5 ** sum(1 for s in steps if at >= s)


def warm_start(
    path: str | Path, contact_hidden: int, race_hidden: int, rng: np.random.Generator, scale: float = 0.1
) -> tuple[Net, Net]:
    """The nets of a weights file, widened to this encoding and these hidden sizes.

    The file may be made for an older encoding whose inputs are a prefix of the
    current one (version 1 is a prefix of version 2, and the contact inputs of the
    race net's): the new inputs get zero weights. Hidden units beyond the file's get small random input weights and
    zero output weights. Either way the widened nets compute exactly what the
    file's nets computed, and training goes on from there.

    Raises:
        EngineError: if the file cannot be read, has more inputs or hidden
            units than asked for, or is not a weights file.
    """
    meta, a = read_npz(path)
    if meta.get("encoding_version", 0) > encoding.VERSION:
        raise EngineError(f"weights file {str(path)!r} is for a newer encoding {meta.get('encoding')!r}")
    nets = []
    sizes = ((contact_hidden, encoding.NUM_INPUTS), (race_hidden, encoding.RACE_INPUTS))
    for old, (hidden, inputs) in zip(nets_of(a, f"weights file {str(path)!r}"), sizes):
        w1, b1, w2, b2 = old.w1, old.b1, old.w2, old.b2
        n_in, h = w1.shape
        if n_in > inputs or h > hidden:
            raise EngineError(
                f"weights file {str(path)!r} has {n_in} inputs and {h} hidden units; "
                f"cannot fit them into {inputs} inputs and {hidden} hidden units"
            )
        nw1 = np.zeros((inputs, hidden))
        nw1[:n_in, :h] = w1
        nw1[:, h:] = rng.uniform(-scale, scale, (inputs, hidden - h))
        nb1 = np.zeros(hidden)
        nb1[:h] = b1
        nw2 = np.zeros((hidden, w2.shape[1]))
        nw2[:h] = w2
        nets.append(Net(nw1, nb1, nw2, b2.copy()))
    return nets[0], nets[1]


def open_run(run_dir: Path, config: Any, state_class: Any) -> Any:
    """The state of a run in ``run_dir``: its checkpoint if there is one (for the same ``config``), else
    ``state_class.fresh(config)``; the directory is created if missing.

    Raises:
        EngineError: if the checkpoint belongs to another configuration.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt = run_dir / CHECKPOINT
    if not ckpt.exists():
        return state_class.fresh(config)
    state = state_class.load(ckpt)
    if state.config != config:
        raise EngineError(
            f"checkpoint in {str(run_dir)!r} has config {state.config.to_json()!r}, "
            f"not {config.to_json()!r}; use another directory"
        )
    return state


def train_chunk(state: TrainState, ngames: int) -> dict:
    """Play and learn from ``ngames`` games; return the chunk's statistics.

    Learning-rate steps take effect at chunk boundaries that cross them: the
    chunk is split there so the rate is a function of the game number only.
    """
    stats = np.zeros(8)
    start = state.games
    end = start + ngames
    t0 = time.perf_counter()
    g = start
    while g < end:
        nxt = min([end] + [s for s in state.config.alpha_steps if s > g])
        if state.config.lam > 0:
            sp.td_lambda_games(
                *state.arrays(), state.config.seed, g, nxt - g, state.config.alpha_at(g), state.config.lam, stats
            )
        else:
            sp.td_train_games(*state.arrays(), state.config.seed, g, nxt - g, state.config.alpha_at(g), stats)
        g = nxt
    dt = time.perf_counter() - t0
    state.games = end
    state.plies += int(stats[1])
    state.seconds += dt
    return {
        "games": int(stats[0]),
        "plies": int(stats[1]),
        "rms_td_error": math.sqrt(stats[2] / max(stats[1], 1)),
        "first_player_wins": stats[3] / max(stats[0], 1),
        "gammons": stats[4] / max(stats[0], 1),
        "backgammons": stats[5] / max(stats[0], 1),
        "games_per_s": stats[0] / dt if dt > 0 else 0.0,
    }


def versus_pubeval(contact: Net, race: Net, pairs: int, seed: int = 20261129) -> tuple[float, float, int]:
    """Points per game of the nets (0-ply) against pubeval, with its standard error and the game count.

    Cubeless money games; each of ``pairs`` dice sequences is played twice, sides swapped.
    """
    res = np.zeros(2 * pairs)
    sp.duel_pubeval(
        contact.w1, contact.b1, contact.w2, contact.b2, race.w1, race.b1, race.w2, race.b2, WC, WR, seed, pairs, res
    )
    pair_means = res.reshape(pairs, 2).mean(axis=1)
    se = float(pair_means.std(ddof=1) / math.sqrt(pairs)) if pairs > 1 else float("nan")
    return float(res.mean()), se, 2 * pairs


def run(
    run_dir: str | Path,
    config: TrainConfig,
    total_games: int,
    chunk: int = 2000,
    eval_every: int = 20_000,
    eval_pairs: int = 500,
    progress: Callable[[TrainState, dict], None] | None = None,
) -> TrainState:
    """Train until ``total_games`` games, resuming from ``run_dir``'s checkpoint if there is one.

    Writes ``checkpoint.npz`` after every chunk, ``best.npz`` (a weights file)
    whenever the pubeval score improves, and appends JSON lines to ``train.log``.

    Raises:
        InvalidInputError: for a non-positive game count or chunk.
        EngineError: if the checkpoint belongs to a run with another configuration.
    """
    if total_games < 0 or chunk <= 0 or eval_every <= 0:
        raise InvalidInputError(f"expected positive game counts, got total={total_games!r} chunk={chunk!r}")
    run_dir = Path(run_dir)
    state = open_run(run_dir, config, TrainState)
    ckpt = run_dir / CHECKPOINT
    log = (run_dir / LOG).open("a", encoding="utf-8")
    try:
        while state.games < total_games:
            n = min(chunk, total_games - state.games)
            before = state.games
            info = train_chunk(state, n)
            info.update(
                total_games=state.games,
                total_seconds=round(state.seconds, 1),
                alpha=state.config.alpha_at(state.games),
                time=time.strftime("%H:%M:%S", time.gmtime()),
            )
            if state.games // eval_every != before // eval_every or state.games >= total_games:
                score, se, ngames = versus_pubeval(state.contact, state.race, eval_pairs)
                info.update(vs_pubeval=round(score, 4), vs_pubeval_se=round(se, 4), vs_pubeval_games=ngames)
                state.history.append({"games": state.games, "vs_pubeval": score, "se": se, "n": ngames})
                if state.best_score is None or score > state.best_score:
                    state.best_score = score
                    state.net_pair(
                        {
                            "vs_pubeval": {
                                "ppg": score,
                                "se": se,
                                "games": ngames,
                                "note": "cubeless money, 0-ply, dice pairs swapped",
                            }
                        }
                    ).save(run_dir / BEST)
            state.save(ckpt)
            log.write(json.dumps(info) + "\n")
            log.flush()
            if progress is not None:
                progress(state, info)
    finally:
        log.close()
    return state
