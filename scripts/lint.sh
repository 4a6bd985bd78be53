#!/usr/bin/env bash
# The static checks CI runs before the tests: ruff's linter, ruff's formatter (check only) and mypy
# (strict on the core, formats and lessons; normal elsewhere; settings in pyproject.toml).
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

if [ -n "$failed" ]; then
  echo "lint: FAILED:$failed" >&2
  exit 1
fi
echo "lint: ruff check, ruff format --check and mypy passed"
