"""Where numba keeps the engine's compiled kernels (private).

numba's on-disk cache (``cache=True``) notices when a function's own source
file changes, but not when a jitted function it calls, in another file, does:
it would load machine code with the old callee inlined. So the cache goes in a
directory named by a hash of the *content* of every engine module that uses
numba (plus the Python version and platform; the training package's kernels, which
call the engine's, are filed below it by their own content and the engine's): an edit to a kernel starts a
fresh cache, while edits elsewhere and fresh checkouts of the same code reuse
it. Set ``NUMBA_CACHE_DIR`` yourself to choose another place.

Inside that directory numba would still file each kernel under a hash of its
source file's *absolute folder*, so a clone in another folder (or an install in
another environment) compiled every kernel again, about 40 s of CPU. The engine's
kernels are filed by content instead (:class:`ContentLocator`): the folder of a
kernel module is named by the hash of its engine, its path in the engine and its
own content, and its stamp is the hash of its content, so the same sources load
the same machine code wherever they lie and whatever their modification times.

:func:`configure` must run before numba is first imported; importing
:mod:`backgammon.engine` does it, and every module that imports numba lives
in that package or in :mod:`backgammon.training`, which imports the engine
first. (``import backgammon`` itself loads no numba.)

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
from typing import Any, ClassVar

ENGINE = Path(__file__).resolve().parent
TRAINING = ENGINE.parent / "training"  # the training package: its kernels call the engine's
_ROOTS: list[Path] = [ENGINE, TRAINING]  # the trees whose kernels are filed by content (ContentLocator)
_ROOT_KEYS: dict[Path, str] = {}  # each root's fingerprint, computed once a process
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


def file_by_content(root: Path) -> None:
    """File the kernels of the modules under ``root`` by content too (:class:`ContentLocator`).

    A module under ``root`` that jits a function for another module's kernels to call must
    itself load numba (see :func:`kernel_modules`), so that editing it starts a fresh cache.
    The kernels under ``root`` may call the engine's: its key includes the engine's (:func:`_root_key`).
    """
    root = Path(root).resolve()
    if root not in _ROOTS:
        _ROOTS.append(root)


def _root_key(root: Path) -> str:
    """The key of ``root``'s kernels: its :func:`fingerprint`, and for a root other than the engine's
    (whose kernels may inline the engine's) a hash of that and the engine's key."""
    key = _ROOT_KEYS.get(root)
    if key is None:
        key = fingerprint(root)
        if root != ENGINE:
            key = hashlib.sha256(f"{_root_key(ENGINE)}|{key}".encode()).hexdigest()[:16]
        _ROOT_KEYS[root] = key
    return key


class ContentLocator:
    """Files the compiled kernels of a module under a content root by content, not by path.

    One of numba's cache locators (``numba.core.caching.CacheImpl._locator_classes``), tried
    before numba's own for functions whose source file lies under :data:`ENGINE` or :data:`TRAINING`
    (or a root given to :func:`file_by_content`), when numba has a cache directory (``NUMBA_CACHE_DIR``, which
    :func:`configure` sets). The kernels go in ``<cache directory>/<module>-<key>``, the key a
    hash of the root's :func:`fingerprint` (every kernel module's content), the module's path in
    the root and its content: an edit to the module or to a jitted callee in another kernel module
    gives a fresh folder, a copy elsewhere the same one. The stamp numba checks is the hash of the
    module's content (numba's own is that from numba 0.68 on, its modification time and size before).
    Functions elsewhere are left to numba's locators.
    """

    _keys: ClassVar[dict[tuple[Path, int, int], tuple[str, str]]] = {}  # (path, mtime, size): (stamp, folder)
    _checked: ClassVar[set[str]] = set()  # folders found writable in this process

    def __init__(self, path: Path, root: Path, lineno: int, cache_dir: str) -> None:
        self._stamp, folder = self._key(path, root)
        self._cache_path = os.path.join(cache_dir, folder)
        self._lineno = lineno

    @classmethod
    def _key(cls, path: Path, root: Path) -> tuple[str, str]:
        """The stamp and folder name of ``path``: read and hashed once a process, again if it changes."""
        st = path.stat()
        memo = (path, st.st_mtime_ns, st.st_size)
        if memo not in cls._keys:
            data = path.read_bytes()
            digest = hashlib.sha256(f"{_root_key(root)}|{path.relative_to(root).as_posix()}|".encode())
            digest.update(data)
            cls._keys[memo] = hashlib.sha256(data).hexdigest(), f"{path.stem}-{digest.hexdigest()[:24]}"
        return cls._keys[memo]

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> ContentLocator | None:
        """A locator for ``py_func`` of ``py_file``, or None to leave it to numba's locators."""
        cache_dir = getattr(sys.modules.get("numba.core.config"), "CACHE_DIR", "")
        if not cache_dir:
            return None
        try:
            path = Path(py_file).resolve()
            root = next((root for root in _ROOTS if root in path.parents), None)
            if root is None:
                return None
            self = cls(path, root, py_func.__code__.co_firstlineno, cache_dir)
            if self._cache_path not in cls._checked:  # (saving a kernel checks again)
                self.ensure_cache_path()
                cls._checked.add(self._cache_path)
        except (OSError, ValueError):
            return None  # unreadable source or unusable folder: numba's locators decide
        return self

    def ensure_cache_path(self) -> None:
        import tempfile  # loaded with numba's caching anyway; not at every import of the engine

        os.makedirs(self._cache_path, exist_ok=True)
        tempfile.TemporaryFile(dir=self._cache_path).close()  # writable, as numba's locators check

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)


def file_kernels_by_content(caching: ModuleType) -> bool:
    """Put :class:`ContentLocator` first among the locators of ``caching`` (``numba.core.caching``); whether it is."""
    impl = getattr(caching, "CacheImpl", None)
    locators = getattr(impl, "_locator_classes", None)
    if not isinstance(locators, list):
        return False
    if ContentLocator not in locators:
        locators.insert(0, ContentLocator)
    return True


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


def _patch(caching: ModuleType) -> None:
    """What this module changes in ``numba.core.caching``."""
    file_kernels_by_content(caching)
    if not os.environ.get("BACKGAMMON_NUMBA_REFRESH"):
        lean_cache_loads(caching)  # else numba refreshes its registries as it comes (to compare)


class _PatchOnLoad(importlib.abc.Loader):
    """Loads ``numba.core.caching`` with its own loader, then applies :func:`_patch`."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        _patch(module)


class _CachingFinder(importlib.abc.MetaPathFinder):
    """Finds ``numba.core.caching`` where the path finder would, to load it through :class:`_PatchOnLoad`."""

    def find_spec(self, fullname: str, path: Any, target: ModuleType | None = None) -> Any:
        if fullname != "numba.core.caching":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchOnLoad(spec.loader)
        return spec


def _patch_when_numba_loads() -> None:
    caching = sys.modules.get("numba.core.caching")
    if caching is not None:
        _patch(caching)
    elif not any(isinstance(finder, _CachingFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _CachingFinder())


def configure() -> None:
    """Point ``NUMBA_CACHE_DIR`` at the cache directory of these kernels, unless it is set or unusable.

    Also arranges, once numba loads, that the engine's kernels are filed by content
    (:class:`ContentLocator`) and that cached kernels load lean (:func:`lean_cache_loads`, unless
    ``BACKGAMMON_NUMBA_REFRESH`` is set).
    """
    _patch_when_numba_loads()
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        where = base / "backgammon" / "numba" / _root_key(ENGINE)
        where.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # no usable cache directory: numba's own default applies
    os.environ["NUMBA_CACHE_DIR"] = str(where)
