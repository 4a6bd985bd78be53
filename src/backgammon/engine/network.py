"""Multi-layer perceptrons: numba inference and the weights file.

A net maps :mod:`~backgammon.engine.encoding` inputs through one sigmoid hidden
layer to five sigmoid outputs: win, win gammon, win backgammon, lose gammon,
lose backgammon (the side on roll's view, cumulative). The engine keeps two
nets, one for contact positions and one for races; the race net has the race
inputs too (:data:`~backgammon.engine.encoding.RACE_INPUTS`).

Weights live in an ``.npz`` file with the encoding's name and version; loading
a file made for another encoding raises :class:`~backgammon.errors.EngineError`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from backgammon.engine import encoding
from backgammon.errors import EngineError

NUM_OUTPUTS = 5
FORMAT = "backgammon-mlp"
FORMAT_VERSION = 1


@njit(cache=True, nogil=True)
def flip_outputs(src: np.ndarray, dst: np.ndarray) -> None:
    """``dst`` = the five outputs ``src`` of one side, seen from the other side."""
    dst[0] = 1.0 - src[0]
    dst[1] = src[3]
    dst[2] = src[4]
    dst[3] = src[1]
    dst[4] = src[2]


@njit(cache=True, nogil=True)
def outputs_equity5(o: np.ndarray) -> float:
    """The cubeless equity of five outputs (win, win gammon, win backgammon, lose gammon, lose backgammon) for
    their side: the one home of the expression in the compiled kernels."""
    return 2.0 * o[0] - 1.0 + o[1] - o[3] + o[2] - o[4]


@njit(cache=True, nogil=True, fastmath=True)
def forward_sparse(
    idx: np.ndarray,
    val: np.ndarray,
    k: int,
    w1: np.ndarray,
    b1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
    hidden: np.ndarray,
    out: np.ndarray,
) -> None:
    """Forward pass from sparse inputs; fills ``hidden`` and ``out``."""
    nh = b1.shape[0]
    for h in range(nh):
        hidden[h] = b1[h]
    for j in range(k):
        row = idx[j]
        v = val[j]
        for h in range(nh):
            hidden[h] += w1[row, h] * v
    # the output sums run alongside the hidden activations (one pass over w2's rows, each sum in order h)
    z0, z1, z2, z3, z4 = b2[0], b2[1], b2[2], b2[3], b2[4]
    for h in range(nh):
        a = 1.0 / (1.0 + np.exp(-hidden[h]))
        hidden[h] = a
        z0 += w2[h, 0] * a
        z1 += w2[h, 1] * a
        z2 += w2[h, 2] * a
        z3 += w2[h, 3] * a
        z4 += w2[h, 4] * a
    out[0] = 1.0 / (1.0 + np.exp(-z0))
    out[1] = 1.0 / (1.0 + np.exp(-z1))
    out[2] = 1.0 / (1.0 + np.exp(-z2))
    out[3] = 1.0 / (1.0 + np.exp(-z3))
    out[4] = 1.0 / (1.0 + np.exp(-z4))


@njit(cache=True, nogil=True, fastmath=True)
def forward_sparse32(
    idx: np.ndarray,
    val: np.ndarray,
    k: int,
    w1: np.ndarray,
    b1: np.ndarray,
    w2t: np.ndarray,
    b2: np.ndarray,
    hidden: np.ndarray,
    out: np.ndarray,
) -> None:
    """:func:`forward_sparse` in float32 (the labeller's fast path): ``val``, ``w1``, ``b1``, ``b2`` and
    ``hidden`` float32, ``w2t`` the output weights transposed (``(5, h)``, float32); ``out`` (five floats)
    gets the outputs. The weights files hold float32, so only the sums round differently: the outputs differ
    from :func:`forward_sparse`'s by about 1e-7 (``tests/engine/test_fast_labels.py`` checks it).
    """
    nh = b1.shape[0]
    for h in range(nh):
        hidden[h] = b1[h]
    for j in range(k):
        row = idx[j]
        v = val[j]
        for h in range(nh):
            hidden[h] += w1[row, h] * v
    one = np.float32(1.0)
    for h in range(nh):
        hidden[h] = one / (one + np.exp(-hidden[h]))
    for j in range(NUM_OUTPUTS):
        z = b2[j]
        for h in range(nh):
            z += w2t[j, h] * hidden[h]
        out[j] = 1.0 / (1.0 + np.exp(-np.float64(z)))


@dataclass(frozen=True, slots=True)
class Net:
    """One MLP's weights (float64 arrays, shapes ``(in, h), (h,), (h, 5), (5,)``)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @classmethod
    def random(
        cls, hidden: int, rng: np.random.Generator, scale: float = 0.1, inputs: int = encoding.NUM_INPUTS
    ) -> Net:
        """Small random weights (``inputs``: the contact net's by default; a race net takes
        :data:`~backgammon.engine.encoding.RACE_INPUTS`)."""
        return cls(
            rng.uniform(-scale, scale, (inputs, hidden)),
            np.zeros(hidden),
            rng.uniform(-scale, scale, (hidden, NUM_OUTPUTS)),
            np.zeros(NUM_OUTPUTS),
        )

    @property
    def hidden(self) -> int:
        return int(self.b1.shape[0])

    def copy(self) -> Net:
        return Net(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy())

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Batched forward pass: inputs ``(n, in)`` to outputs ``(n, 5)``."""
        h = 1.0 / (1.0 + np.exp(-(x @ self.w1 + self.b1)))
        return 1.0 / (1.0 + np.exp(-(h @ self.w2 + self.b2)))


PARTS = ("w1", "b1", "w2", "b2")
NAMES = ("contact", "race")


def write_npz(path: str | Path, meta: dict, arrays: dict[str, np.ndarray], compressed: bool = False) -> None:
    """Write ``arrays`` and the JSON ``meta`` to an ``.npz`` file atomically (a temporary file, then a rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp.npz")
    # As Any: numpy's stubs would match a name in **arrays to savez's own keyword allow_pickle (numpy >= 2.1),
    # which none of ours is.
    payload: dict[str, Any] = {"meta": np.array(json.dumps(meta, sort_keys=True)), **arrays}
    (np.savez_compressed if compressed else np.savez)(tmp, **payload)
    tmp.replace(path)


def read_npz(path: str | Path, what: str = "weights file") -> tuple[dict, dict[str, np.ndarray]]:
    """The JSON metadata and the arrays of an ``.npz`` file written by :func:`write_npz`.

    Raises:
        EngineError: if the file is missing or unreadable.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            return json.loads(str(z["meta"])), {k: z[k].copy() for k in z.files if k != "meta"}
    except (OSError, ValueError, KeyError) as exc:
        raise EngineError(f"cannot read {what} {str(path)!r}: {exc}") from None


def nets_of(arrays: dict[str, np.ndarray], source: str) -> tuple[Net, Net]:
    """The contact and race nets stored in ``arrays`` (as float64); ``source`` names the file in errors.

    Raises:
        EngineError: if an array is missing.
    """
    try:
        contact, race = (Net(*(arrays[f"{name}_{p}"].astype(np.float64) for p in PARTS)) for name in NAMES)
    except KeyError as exc:
        raise EngineError(f"{source} lacks array {exc.args[0]!r}") from None
    return contact, race


# The eight arrays of the two nets in the compiled kernels' order: contact w1, b1, w2, b2, then race w1, b1, w2, b2.
NetArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def with_race_inputs(race: Net) -> Net:
    """A race net with the race net's inputs: one made for the contact net's inputs (encoding version 3)
    gets zero weights on the race inputs, so it computes what it computed."""
    if race.w1.shape[0] != encoding.NUM_INPUTS:
        return race
    w1 = np.zeros((encoding.RACE_INPUTS, race.w1.shape[1]), dtype=race.w1.dtype)
    w1[: encoding.NUM_INPUTS] = race.w1
    return Net(w1, race.b1, race.w2, race.b2)


def kernel_arrays(contact: Net, race: Net) -> NetArrays:
    """The arrays the compiled kernels take for two nets (:data:`NetArrays`), the arrays themselves (no copy).

    Raises:
        EngineError: if a net's inputs are not its encoding's (the compiled kernels do not check bounds).
    """
    if contact.w1.shape[0] != encoding.NUM_INPUTS or race.w1.shape[0] != encoding.RACE_INPUTS:
        raise EngineError(
            f"nets with {contact.w1.shape[0]} and {race.w1.shape[0]} inputs; the encoding has "
            f"{encoding.NUM_INPUTS} (contact) and {encoding.RACE_INPUTS} (race)"
        )
    return (contact.w1, contact.b1, contact.w2, contact.b2, race.w1, race.b1, race.w2, race.b2)


def arrays_of(contact: Net, race: Net, dtype: type = np.float64) -> dict[str, np.ndarray]:
    """The arrays of two nets by their names in a file (``contact_w1`` ...)."""
    return {f"{name}_{p}": getattr(net, p).astype(dtype) for name, net in zip(NAMES, (contact, race)) for p in PARTS}


def weights_digest(path: str | Path) -> str:
    """A weights file's short name: the first 12 hex digits of its sha256 (the labels' teacher names and the
    fit runs' starting records use it)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class NetPair:
    """The contact net and the race net, with the file's metadata."""

    contact: Net
    race: Net
    meta: dict

    def __post_init__(self) -> None:
        object.__setattr__(self, "race", with_race_inputs(self.race))

    def save(self, path: str | Path, record: bool = False) -> None:
        """Write the weights (float32) and metadata to an ``.npz`` file.

        With ``record``, also write the metadata as readable JSON beside it
        (same name, ``.json``).
        """
        meta = dict(self.meta)
        meta.update(
            format=FORMAT, format_version=FORMAT_VERSION, encoding=encoding.NAME, encoding_version=encoding.VERSION
        )
        path = Path(path)
        write_npz(path, meta, arrays_of(self.contact, self.race, np.float32), compressed=True)
        if record:
            path.with_suffix(".json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> NetPair:
        """Read a weights file.

        Raises:
            EngineError: if the file is missing, unreadable, or made for
                another format or input encoding.
        """
        meta, arrays = read_npz(path)
        if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
            raise EngineError(
                f"weights file {str(path)!r} has format {meta.get('format')!r} "
                f"version {meta.get('format_version')!r}, expected {FORMAT!r} version {FORMAT_VERSION}"
            )
        made_for = (meta.get("encoding"), meta.get("encoding_version"))
        if made_for not in ((encoding.NAME, encoding.VERSION), (encoding.V3_NAME, 3)):
            raise EngineError(
                f"weights file {str(path)!r} was made for encoding {meta.get('encoding')!r} "
                f"version {meta.get('encoding_version')!r}, expected {encoding.NAME!r} version {encoding.VERSION}"
            )
        pair = cls(*nets_of(arrays, f"weights file {str(path)!r}"), meta)  # a version-3 race net gets its inputs
        for net, n_in in ((pair.contact, encoding.NUM_INPUTS), (pair.race, encoding.RACE_INPUTS)):
            if net.w1.shape[0] != n_in or net.w2.shape[1] != NUM_OUTPUTS:
                raise EngineError(f"weights file {str(path)!r} has shapes that do not fit the encoding")
        return pair
