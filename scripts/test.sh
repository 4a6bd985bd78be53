#!/usr/bin/env bash
# Install everything from scratch (system packages, a virtual environment, the
# project with its server and test extras) and run the whole test suite.
# Usage: bash scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
need=""
[ -x /usr/bin/chromium ] || need="$need chromium"
[ -x /usr/games/gnubg ] || need="$need gnubg"
[ -d /usr/share/fonts/opentype/noto ] || need="$need fonts-noto-cjk"
if [ -n "$need" ]; then
  echo "installing system packages:$need"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[server,test]'

exec .venv/bin/python -m pytest -q -n 2 "$@"
