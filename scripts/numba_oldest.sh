#!/usr/bin/env bash
# The numba cache hook (src/backgammon/engine/_numba_cache.py patches numba's private
# numba.core.caching) on the OLDEST numba that pyproject.toml's bounds allow, in a throw-away
# virtual environment: tests/test_numba_cache.py and the compiled move generator's differential
# test. The project's own .venv has the newest numba the bounds allow, where the whole suite runs.
# Usage: bash scripts/numba_oldest.sh   (the environment goes in $NUMBA_OLDEST_VENV, default under /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:-.venv}/bin/python"
spec=$("$PY" -c 'import tomllib; print(next(d for d in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"] if d.startswith("numba")))')
oldest=$(echo "$spec" | sed -n 's/.*>=\([0-9.]*\).*/\1/p')
[ -n "$oldest" ] || { echo "numba_oldest: no lower bound in '$spec'" >&2; exit 1; }
ENV_DIR="${NUMBA_OLDEST_VENV:-/tmp/backgammon-numba-$oldest}"
if [ ! -x "$ENV_DIR/bin/python" ]; then
  "$(readlink -f "$PY")" -m venv "$ENV_DIR"
  # numba 0.59 needs numpy 1.x; the releases after it take numpy 1.26 too
  "$ENV_DIR/bin/python" -m pip install -q "numba==$oldest" "numpy<2" "pytest>=8" "pytest-timeout>=2.3" "hypothesis>=6.100"
fi
echo "== the numba cache hook on numba $("$ENV_DIR/bin/python" -c 'import numba; print(numba.__version__)') ($spec)"
PYTHONPATH="$PWD/src" XDG_CACHE_HOME="$ENV_DIR/cache" "$ENV_DIR/bin/python" -m pytest -q -p no:randomly -p no:cacheprovider \
  tests/test_numba_cache.py tests/differential/test_movegen_kernel.py
