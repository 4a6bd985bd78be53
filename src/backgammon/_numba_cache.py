"""Where numba keeps this package's compiled kernels (private).

numba's on-disk cache (``cache=True``) notices when a function's own source
file changes, but not when a jitted function it calls, in another file, does:
it would load machine code with the old callee inlined. So the cache goes in a
directory named by a fingerprint of every source file of the package (paths,
sizes, modification times): any edit or upgrade starts a fresh cache. Set
``NUMBA_CACHE_DIR`` yourself to choose another place; this must happen before
numba is first imported, which importing :mod:`backgammon` first ensures.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def configure() -> None:
    """Point ``NUMBA_CACHE_DIR`` at this source tree's own cache directory, unless it is set or unusable."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    try:
        for path in sorted(root.rglob("*.py")):
            st = path.stat()
            digest.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        where = base / "backgammon" / "numba" / digest.hexdigest()[:16]
        where.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # no usable cache directory: numba's own default applies
    os.environ["NUMBA_CACHE_DIR"] = str(where)
