#!/usr/bin/env bash
# Install everything from scratch (system packages, a virtual environment, the
# project with its server and test extras), then run the static checks
# (scripts/lint.sh), the numba cache hook on the oldest numba the bounds allow
# (scripts/numba_oldest.sh), the fast tier (pytest -m "not slow": no browser) and the slow
# tier (pytest -m slow: every browser test is also slow), stopping at the first failure; each tier
# lists its ten slowest tests (the suite should stay well under 15 minutes).
# Usage: bash scripts/test.sh [extra pytest arguments, given to both tiers]
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
need=""
[ -x /usr/bin/chromium ] || need="$need chromium"
[ -x /usr/games/gnubg ] || need="$need gnubg"
[ -d /usr/share/fonts/opentype/noto ] || need="$need fonts-noto-cjk"
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need="$need postgresql"
[ -x /usr/bin/redis-server ] || need="$need redis-server"  # the Redis bus tests start their own server
command -v npm >/dev/null 2>&1 || need="$need npm"  # the accessibility tests fetch axe-core with npm
if [ -n "$need" ]; then
  echo "installing system packages:$need"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[server,test,postgres,redis]'

bash scripts/lint.sh
bash scripts/numba_oldest.sh

# A throw-away PostgreSQL server for the test that runs the app on PostgreSQL.
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
PGDIR=$(mktemp -d /tmp/bg-pg.XXXXXX)
PGPORT=${BG_TEST_PG_PORT:-55432}
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$PGDIR"
as_pg "$PGBIN/initdb -D $PGDIR/data -A trust -U postgres >$PGDIR/initdb.log 2>&1"
as_pg "$PGBIN/pg_ctl -D $PGDIR/data -o '-p $PGPORT -k $PGDIR -h 127.0.0.1' -l $PGDIR/server.log -w start >/dev/null"
trap 'as_pg "$PGBIN/pg_ctl -D $PGDIR/data -m immediate stop >/dev/null 2>&1"; rm -rf "$PGDIR"' EXIT
as_pg "$PGBIN/createdb -h 127.0.0.1 -p $PGPORT -U postgres bgtest"
export BACKGAMMON_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:$PGPORT/bgtest"

# pytest exits with 5 when the arguments select no test of a tier: not a failure.
tier() {
  local name=$1
  shift
  echo "== tests: $name"
  local rc=0
  .venv/bin/python -m pytest -q -n 2 --durations=10 "$@" || rc=$?
  if [ "$rc" = 5 ]; then echo "(no test of the $name tier selected)"; rc=0; fi
  return "$rc"
}
tier "fast" -m "not slow" "$@"
tier "slow and browser" -m "slow" "$@"
