"""Make the web table's sound effects: short mono 16-bit WAV files synthesised with numpy.

    .venv/bin/python scripts/make_sounds.py [OUT_DIR]

OUT_DIR defaults to src/backgammon/server/static/sounds. The output is deterministic (a fixed seed):
- dice.wav: a rattle, a few bright clicks of decaying noise at irregular times (dice hitting the board);
- move.wav: one soft wooden click (a checker put down);
- end.wav: two rising tones with a soft decay (a game is over).
"""

from __future__ import annotations

import sys
import wave
from pathlib import Path

import numpy as np

RATE = 22050


def _click(rng: np.random.Generator, length: float, decay: float, tone: float, brightness: float) -> np.ndarray:
    """A knock: a short burst of filtered noise plus a damped tone."""
    n = int(RATE * length)
    t = np.arange(n) / RATE
    env = np.exp(-t / decay)
    noise = rng.standard_normal(n)
    # a one-pole low-pass: brightness 1 keeps everything, small values keep only the thud
    smooth = np.empty(n)
    acc = 0.0
    for i in range(n):
        acc += brightness * (noise[i] - acc)
        smooth[i] = acc
    return env * (0.6 * smooth / (np.abs(smooth).max() or 1.0) + 0.5 * np.sin(2 * np.pi * tone * t))


def dice(rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(int(RATE * 0.42))
    for start, gain in ((0.0, 1.0), (0.06, 0.8), (0.13, 0.9), (0.2, 0.55), (0.27, 0.45), (0.33, 0.3)):
        c = gain * _click(rng, 0.06, 0.012, rng.uniform(1800, 2600), 0.55)
        i = int(RATE * (start + rng.uniform(0, 0.015)))
        out[i : i + len(c)] += c[: len(out) - i]
    return out


def move(rng: np.random.Generator) -> np.ndarray:
    return _click(rng, 0.09, 0.018, 520, 0.2)


def end(_rng: np.random.Generator) -> np.ndarray:
    parts = []
    for freq, length in ((523.25, 0.16), (783.99, 0.42)):
        t = np.arange(int(RATE * length)) / RATE
        attack = np.minimum(1.0, t / 0.01)
        parts.append(attack * np.exp(-t / 0.15) * (np.sin(2 * np.pi * freq * t) + 0.3 * np.sin(4 * np.pi * freq * t)))
    return np.concatenate(parts)


def write(path: Path, samples: np.ndarray, volume: float = 0.7) -> None:
    samples = samples / (np.abs(samples).max() or 1.0) * volume
    pcm = (samples * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())


def main(argv: list[str]) -> None:
    out = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "src/backgammon/server/static/sounds"
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(18)
    for name, make, volume in (("dice", dice, 0.6), ("move", move, 0.5), ("end", end, 0.5)):
        path = out / f"{name}.wav"
        write(path, make(rng), volume)
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
