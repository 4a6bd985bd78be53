"""numba's kernel cache goes in a directory named by the content of the engine's kernel modules."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from backgammon.engine import _numba_cache

SHOW = "import os, backgammon.engine; print(os.environ['NUMBA_CACHE_DIR'])"


def _run(env: dict, show: str = SHOW) -> str:
    out = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_cache_directory_is_named_by_the_kernels(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    first = _run(env)
    assert first == str(tmp_path / "backgammon" / "numba" / _numba_cache.fingerprint()) and os.path.isdir(first)
    assert _run(env) == first  # the same sources, the same directory


def test_a_chosen_cache_directory_is_kept(tmp_path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert _run(env) == str(tmp_path / "mine")


def test_an_unusable_cache_home_falls_back_to_numba(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(blocker)
    show = "import os, backgammon.engine; print(os.environ.get('NUMBA_CACHE_DIR', 'unset'))"
    assert _run(env, show) == "unset"


def test_every_module_that_imports_numba_is_in_the_engine_or_training() -> None:
    package = Path(_numba_cache.ENGINE).parent
    roots = (_numba_cache.ENGINE, _numba_cache.TRAINING)
    outside = [
        path
        for path in package.rglob("*.py")
        if not any(root in path.parents for root in roots) and _numba_cache._IMPORTS_NUMBA.search(path.read_bytes())
    ]
    assert outside == []
    names = {path.name for path in _numba_cache.kernel_modules()}
    assert {"movegen.py", "search.py", "network.py", "nply.py"} <= names and "levels.py" not in names
    training = {path.name for path in _numba_cache.kernel_modules(_numba_cache.TRAINING)}
    assert {"_selfplay.py", "_distill.py"} <= training and "movegen.py" not in training


def _copy_engine(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(_numba_cache.ENGINE, root, ignore=shutil.ignore_patterns("__pycache__", "data"))
    return root


def test_fingerprint_follows_kernel_content_not_times_or_other_files(tmp_path) -> None:
    root = _copy_engine(tmp_path, "a")
    clone = _copy_engine(tmp_path, "b")
    base = _numba_cache.fingerprint(root)
    assert _numba_cache.fingerprint(clone) == base  # a fresh copy of the same code
    os.utime(clone / "movegen.py", (1_000_000, 1_000_000))
    assert _numba_cache.fingerprint(clone) == base  # modification times do not count
    plain = clone / "levels.py"
    plain.write_text(plain.read_text() + "\n# an edit outside the kernels\n")
    assert _numba_cache.fingerprint(clone) == base
    kernel = clone / "movegen.py"
    kernel.write_text(kernel.read_text() + "\n# an edit to a kernel\n")
    assert _numba_cache.fingerprint(clone) != base


KERNEL = """
import numpy as np
from numba import njit


@njit(cache=True)
def roots(n):
    out = np.empty(n)  # an array made in the kernel: numba's runtime must be up
    for i in range(n):
        out[i] = np.sqrt(i) / 3.0
    return out
"""

LOAD = """
import sys
import backgammon.engine
sys.path.insert(0, sys.argv[1])
import kernel
print(repr(kernel.roots(7).tolist()))
print(sum(kernel.roots.stats.cache_hits.values()), 'numba.np.linalg' in sys.modules)
"""


def test_cached_kernels_load_without_the_registries_and_compute_the_same(tmp_path) -> None:
    (tmp_path / "kernel.py").write_text(KERNEL)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("BACKGAMMON_NUMBA_REFRESH", None)

    def load(extra: dict[str, str]) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", LOAD, str(tmp_path)],
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.split("\n")

    compiled = load({})  # a miss: numba compiles (its compiler refreshes the registries itself)
    assert compiled[1] == "0 True"
    lean = load({})  # a hit: machine code loaded without refreshing the registries
    assert lean[1] == "1 False" and lean[0] == compiled[0]
    full = load({"BACKGAMMON_NUMBA_REFRESH": "1"})  # numba as it comes
    assert full[1] == "1 True" and full[0] == compiled[0]


HELPER = """
from numba import njit


@njit(cache=True)
def factor():
    return 3.0
"""

CALLER = """
import numpy as np
from numba import njit

from helper import factor


@njit(cache=True)
def scaled(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.sqrt(i) / factor()  # a jitted callee in another file, inlined into this kernel
    return out
"""

LOAD_BY_CONTENT = """
import sys
from pathlib import Path

from backgammon.engine import _numba_cache

_numba_cache.file_by_content(Path(sys.argv[1]))
sys.path.insert(0, sys.argv[1])
import kernel

print(repr(kernel.scaled(7).tolist()))
stats = kernel.scaled.stats
locator = type(kernel.scaled._cache._impl.locator).__name__
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), locator)
"""


def test_kernels_are_filed_by_content_not_by_path_or_time(tmp_path) -> None:
    """A copy of the same kernels elsewhere, with new modification times, loads them; an edit to a callee does not."""
    first = tmp_path / "checkout"
    first.mkdir()
    (first / "helper.py").write_text(HELPER)
    (first / "kernel.py").write_text(CALLER)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("BACKGAMMON_NUMBA_REFRESH", None)

    def load(root: Path, **extra: str) -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", LOAD_BY_CONTENT, str(root)],
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=True,
        )
        values, counts = done.stdout.split("\n")[:2]
        return values, counts

    values, counts = load(first)
    assert counts == "0 1 ContentLocator"  # compiled
    assert load(first) == (values, "1 0 ContentLocator")  # loaded

    clone = tmp_path / "elsewhere" / "clone"
    shutil.copytree(first, clone, ignore=shutil.ignore_patterns("__pycache__"))
    for path in clone.glob("*.py"):
        os.utime(path, (2_000_000_000, 2_000_000_000))
    assert load(clone) == (values, "1 0 ContentLocator")  # another folder, other times: loaded, not compiled
    assert load(clone, BACKGAMMON_NUMBA_REFRESH="1") == (values, "1 0 ContentLocator")

    helper = clone / "helper.py"
    helper.write_text(helper.read_text().replace("return 3.0", "return 4.0"))
    edited, counts = load(clone)  # kernel.py unchanged, its callee edited: compiled again
    assert counts == "0 1 ContentLocator" and edited != values
    assert load(clone) == (edited, "1 0 ContentLocator")
    assert load(first) == (values, "1 0 ContentLocator")  # the original still loads its own


def test_the_engines_kernels_are_filed_by_content(tmp_path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    show = (
        "from backgammon.engine import movegen as m; c = m.new_workspace._cache;"
        " print(type(c._impl.locator).__name__, c.cache_path)"
    )
    name, path = _run(env, show).split(" ", 1)
    assert name == "ContentLocator"
    assert Path(path).parent == tmp_path / "cache" and Path(path).name.startswith("movegen-")


def test_the_training_kernels_are_filed_by_content_under_a_key_that_follows_the_engines(tmp_path, monkeypatch) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    show = (
        "from backgammon.training import _selfplay as s; c = s.roll._cache;"
        " print(type(c._impl.locator).__name__, c.cache_path)"
    )
    name, path = _run(env, show).split(" ", 1)
    assert name == "ContentLocator"
    assert Path(path).parent == tmp_path / "cache" and Path(path).name.startswith("_selfplay-")
    # the training kernels inline the engine's: another engine, another key for the same training sources
    keys = _numba_cache._ROOT_KEYS
    training = _numba_cache.TRAINING
    found = []
    for engine_key in ("a" * 16, "b" * 16):
        monkeypatch.setitem(keys, _numba_cache.ENGINE, engine_key)
        monkeypatch.delitem(keys, training, raising=False)
        found.append(_numba_cache._root_key(training))
    assert found[0] != found[1] and _numba_cache.fingerprint(training) not in found
