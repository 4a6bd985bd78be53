#!/usr/bin/env bash
# The static checks CI runs before the tests: ruff's linter, ruff's formatter (check only), mypy
# (strict on the core, formats, lessons and protocols; normal elsewhere; settings in pyproject.toml),
# the layer contracts (lint-imports; [tool.importlinter] in pyproject.toml), the size limits of
# functions and modules under src/ (scripts/long_functions.py) and tsc --checkJs on the
# browser's JavaScript (scripts/jsconfig.json).
# Every check runs; the script fails if any of them fails.
# Usage: bash scripts/lint.sh   (the tools come from .venv, or from $VENV/bin)
set -uo pipefail
cd "$(dirname "$0")/.."
BIN="${VENV:-.venv}/bin"

failed=""
run() {  # run NAME COMMAND...: run COMMAND, remember NAME if it fails
  local name=$1
  shift
  echo "== $name"
  "$@" || failed="$failed [$name]"
}
run "ruff check" "$BIN/ruff" check .
run "ruff format --check" "$BIN/ruff" format --check .
run "mypy" "$BIN/mypy"
run "lint-imports" "$BIN/lint-imports"
run "size limits" "$BIN/python" scripts/long_functions.py  # no function over 150 lines, no module over 1,000
# The browser's JavaScript, type-checked with its JSDoc types (static/protocol-types.js: the wire
# formats, checked against the server by tests/server/test_js_types.py). TypeScript comes from the
# npm registry once, into a cache folder outside the tree.
TSC_DIR="${BACKGAMMON_TSC_DIR:-$HOME/.cache/backgammon/tsc}"
if [ ! -x "$TSC_DIR/node_modules/.bin/tsc" ]; then
  npm install --prefix "$TSC_DIR" typescript@5.9 --no-audit --no-fund --silent >/dev/null
fi
run "tsc --checkJs" "$TSC_DIR/node_modules/.bin/tsc" -p scripts/jsconfig.json

if [ -n "$failed" ]; then
  echo "lint: FAILED:$failed" >&2
  exit 1
fi
echo "lint: ruff check, ruff format --check, mypy, lint-imports, size limits and tsc passed"
