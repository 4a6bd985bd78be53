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
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import sys
from pathlib import Path

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


def configure() -> None:
    """Point ``NUMBA_CACHE_DIR`` at the cache directory of these kernels, unless it is set or unusable."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        where = base / "backgammon" / "numba" / fingerprint()
        where.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # no usable cache directory: numba's own default applies
    os.environ["NUMBA_CACHE_DIR"] = str(where)
