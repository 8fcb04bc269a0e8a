#!/usr/bin/env bash
# The wheel is complete: build it, install it in a fresh venv, and use it from a folder with no
# checkout in sight (db upgrade, probe, best, serve, a dashboard page) on SQLite and PostgreSQL.
# Run by .ci/run; any failing step fails CI. About two minutes on two cores.
#   AUTOTUNE_TEST_PG  admin URL of the PostgreSQL server (a database is created and dropped);
#                     "skip" leaves PostgreSQL out.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
PG_ADMIN="${AUTOTUNE_TEST_PG:-postgresql+psycopg://postgres@127.0.0.1:5432/postgres}"
TMP="$(mktemp -d -t autotune-wheel-XXXXXX)"
SERVER_PID=""
PG_DB=""

step() { printf 'wheel-smoke: [%3ds] %s\n' "$SECONDS" "$*" >&2; }
die() { printf 'wheel-smoke: FAILED: %s\n' "$*" >&2; exit 1; }

cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  if [ -n "$PG_DB" ]; then pg_admin "DROP DATABASE IF EXISTS \"$PG_DB\" WITH (FORCE)" || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

pg_admin() {  # one statement on the admin database, through the wheel's own psycopg
  "$VENV/bin/python" - "$PG_ADMIN" "$1" <<'EOF'
import sys
import sqlalchemy
engine = sqlalchemy.create_engine(sys.argv[1], isolation_level="AUTOCOMMIT")
with engine.connect() as conn:
    conn.exec_driver_sql(sys.argv[2])
engine.dispose()
EOF
}

# 1. Build from a copy of what the wheel is made of: no stale build/ folder can leak into it.
step "building the wheel"
mkdir -p "$TMP/src" "$TMP/dist" "$TMP/work"
cp -r "$ROOT/pyproject.toml" "$ROOT/README.md" "$ROOT/autotune" "$ROOT/api" "$ROOT/migrations" \
  "$TMP/src/"
find "$TMP/src" -name __pycache__ -prune -exec rm -rf {} +
"$PYTHON" -m pip wheel -q --no-deps -w "$TMP/dist" "$TMP/src" >/dev/null
WHEEL="$(ls "$TMP/dist"/autotune-*.whl)"

# 2. A fresh venv: the CPU build of torch first (never a CUDA download), then the wheel.
step "installing $(basename "$WHEEL") in a fresh venv"
VENV="$TMP/venv"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --no-compile "torch==2.13.0" "${WHEEL}[postgres]" 2>&1 \
  | grep -v "is ignored" || true
"$VENV/bin/python" -c "import torch" || die "torch did not install"
"$VENV/bin/python" -c "import autotune" || die "the wheel did not install"

# 3. Everything below runs from a folder that holds only a training script.
cd "$TMP/work"
unset PYTHONPATH
cp "$ROOT/tests/scripts/basic.py" "$ROOT/tests/scripts/tiny.py" .
AUTOTUNE="$VENV/bin/autotune"
where="$("$VENV/bin/python" -c 'import autotune.api; print(autotune.__file__, autotune.api.__file__)')"
# The wheel's only top-level import name is autotune: no `api` beside a user's own.
if "$VENV/bin/python" -c 'import api' 2>/dev/null; then die "the wheel installed a top-level api"; fi
case "$where" in
  "$VENV"/*" $VENV"/*) ;;
  *) die "autotune was imported from outside the venv: $where" ;;
esac

free_port() {
  "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

get() {  # GET a URL; prints the body; fails unless 200
  "$VENV/bin/python" - "$1" <<'EOF'
import sys
import urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=10) as r:
    assert r.status == 200, r.status
    sys.stdout.write(r.read().decode())
EOF
}

smoke() {
  local url="$1" label="$2"
  step "$label: autotune db upgrade"
  "$AUTOTUNE" db upgrade --storage "$url" || die "$label: db upgrade"

  step "$label: autotune probe basic.py"
  "$AUTOTUNE" probe basic.py --trials 3 --warmup 0.1 --window 0.25 --windows 2 \
    --trial-timeout 60 --storage "$url" --json -- --latency 0.002 \
    >"probe-$label.json" 2>"probe-$label.log" || { cat "probe-$label.log" >&2; die "$label: probe"; }
  local study
  study="$("$VENV/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["study"])' \
    "probe-$label.json")"

  step "$label: autotune best $study --json"
  "$AUTOTUNE" best "$study" --json --storage "$url" >"best-$label.json" || die "$label: best"
  "$VENV/bin/python" - "best-$label.json" <<'EOF' || die "$label: best --json lacks a recommendation"
import json, sys
best = json.load(open(sys.argv[1]))
assert best["recommended"]["config"]["num_workers"] is not None, best
EOF

  step "$label: autotune serve"
  local port
  port="$(free_port)"
  "$AUTOTUNE" serve --storage "$url" --port "$port" 2>"serve-$label.log" &
  SERVER_PID=$!
  local base="http://127.0.0.1:$port"
  for _ in $(seq 100); do
    get "$base/api/v1/health" >/dev/null 2>&1 && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "serve-$label.log" >&2; die "$label: serve exited"; }
    sleep 0.2
  done
  get "$base/api/v1/health" >/dev/null || die "$label: /api/v1/health did not answer"
  get "$base/api/v1/studies" | grep -q "\"$study\"" || die "$label: /api/v1/studies lacks $study"
  get "$base/" | grep -q "<h1>Studies</h1>" || die "$label: the dashboard's studies page"
  get "$base/studies/$study" | grep -q "$study" || die "$label: the study page"
  get "$base/static/dashboard.js" >/dev/null || die "$label: the dashboard's own script"
  get "$base/static/plotly.min.js" >/dev/null || die "$label: plotly.js is not served"
  kill "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
  if grep -q Traceback "serve-$label.log"; then cat "serve-$label.log" >&2; die "$label: serve"; fi
}

smoke "sqlite:///$TMP/work/autotune.db" sqlite

if [ "$PG_ADMIN" = skip ]; then
  step "PostgreSQL left out (AUTOTUNE_TEST_PG=skip)"
else
  PG_DB="autotune_wheel_$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  pg_admin "CREATE DATABASE \"$PG_DB\"" || die "cannot create a database on $PG_ADMIN"
  pg_url="$("$VENV/bin/python" -c 'import sqlalchemy, sys; print(sqlalchemy.make_url(sys.argv[1]).set(database=sys.argv[2]).render_as_string(hide_password=False))' "$PG_ADMIN" "$PG_DB")"
  smoke "$pg_url" postgres
fi
step "passed"
