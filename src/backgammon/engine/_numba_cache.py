"""Where numba keeps the engine's compiled kernels (private).

numba's on-disk cache (``cache=True``) notices when a function's own source
file changes, but not when a jitted function it calls, in another file, does:
it would load machine code with the old callee inlined. So the cache goes in a
directory named by a hash of the *content* of every engine module that uses
numba (plus the Python version and platform): an edit to a kernel starts a
fresh cache, while edits elsewhere and fresh checkouts of the same code reuse
it. Set ``NUMBA_CACHE_DIR`` yourself to choose another place.

:func:`configure` must run before numba is first imported; importing
:mod:`backgammon.engine` does it, and every module that imports numba lives
in that package. (``import backgammon`` itself loads no numba.)

It also makes loading a cached kernel lean (:func:`lean_cache_loads`): numba
refreshes every typing and lowering registry before it looks in its cache,
importing some fifty modules and installing thousands of templates, about a
seventh of a second at start-up; only compiling needs them, and numba's compiler
refreshes them itself. A kernel loaded either way is the same machine code.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import os
import platform
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ENGINE = Path(__file__).resolve().parent
_IMPORTS_NUMBA = re.compile(rb"^\s*(?:import numba|from numba[ .])", re.MULTILINE)


def kernel_modules(root: Path = ENGINE) -> list[Path]:
    """The engine's source files that import numba, in a stable order."""
    return [path for path in sorted(root.rglob("*.py")) if _IMPORTS_NUMBA.search(path.read_bytes())]


def fingerprint(root: Path = ENGINE) -> str:
    """A hash of the kernel modules' paths (relative to ``root``) and contents, the Python version and platform."""
    digest = hashlib.sha256(f"{sys.version}|{platform.machine()}\n".encode())
    for path in kernel_modules(root):
        data = path.read_bytes()
        digest.update(f"{path.relative_to(root).as_posix()}:{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()[:16]


def _load_overload(self: Any, sig: Any, target_context: Any) -> Any:
    """numba's ``Cache.load_overload`` without its refresh of the registries.

    A cached kernel is machine code: rebuilding it needs numba's runtime (NRT, which the
    refresh would initialise) but no typing or lowering registry. On a miss numba compiles,
    and its compiler refreshes the registries first.
    """
    _RTSYS.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


_RTSYS: Any = None


def lean_cache_loads(caching: ModuleType) -> bool:
    """Make ``caching`` (numba's ``numba.core.caching``) load kernels without a refresh; whether it did.

    Leaves numba as it is unless its cache has the shape this was written for (numba 0.59 on).
    """
    global _RTSYS
    cache = getattr(caching, "Cache", None)
    if cache is None or not all(
        hasattr(cache, name) for name in ("_load_overload", "_guard_against_spurious_io_errors")
    ):
        return False
    try:
        _RTSYS = importlib.import_module("numba.core.runtime").rtsys
    except (ImportError, AttributeError):
        return False
    cache.load_overload = _load_overload
    return True


class _PatchOnLoad(importlib.abc.Loader):
    """Loads ``numba.core.caching`` with its own loader, then applies :func:`lean_cache_loads`."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        lean_cache_loads(module)


class _CachingFinder(importlib.abc.MetaPathFinder):
    """Finds ``numba.core.caching`` where the path finder would, to load it through :class:`_PatchOnLoad`."""

    def find_spec(self, fullname: str, path: Any, target: ModuleType | None = None) -> Any:
        if fullname != "numba.core.caching":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchOnLoad(spec.loader)
        return spec


def _lean_loads_when_numba_loads() -> None:
    if os.environ.get("BACKGAMMON_NUMBA_REFRESH"):
        return  # numba exactly as it comes (to compare, or if a numba release breaks the shortcut)
    caching = sys.modules.get("numba.core.caching")
    if caching is not None:
        lean_cache_loads(caching)
    elif not any(isinstance(finder, _CachingFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _CachingFinder())


def configure() -> None:
    """Point ``NUMBA_CACHE_DIR`` at the cache directory of these kernels, unless it is set or unusable.

    Also arranges lean loads of cached kernels (:func:`lean_cache_loads`) once numba loads.
    """
    _lean_loads_when_numba_loads()
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        where = base / "backgammon" / "numba" / fingerprint()
        where.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # no usable cache directory: numba's own default applies
    os.environ["NUMBA_CACHE_DIR"] = str(where)
