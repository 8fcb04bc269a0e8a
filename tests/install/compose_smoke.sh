#!/usr/bin/env bash
# The compose stack, run for real through a Docker daemon: build the images from a local
# Debian base and the host's wheels (no registry is needed), bring up PostgreSQL, the schema,
# the API and two workers; the workers search a study on an example script inside their
# containers, one probe at a time through the shared lock; the API answers the best settings
# on the host's loopback; `down` leaves no container and the study survives a restart.
#
#   PYTHON=python bash tests/install/compose_smoke.sh
#
# Skips, saying why, where no daemon can be started or no Compose is installed. The local base
# image is made once with debootstrap and kept (AUTOTUNE_SMOKE_BASE names another one).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
PYTHON="${PYTHON:-python3}"
CACHE="${AUTOTUNE_SMOKE_CACHE:-/var/cache/autotune-smoke}"
BASE="${AUTOTUNE_SMOKE_BASE:-autotune-smoke/bookworm:latest}"
START=$SECONDS
LAST=$SECONDS

say() { echo "compose-smoke: $*"; }
step() { say "$1: $((SECONDS - LAST)) s"; LAST=$SECONDS; }
skip() { say "SKIPPED: $*"; exit 0; }
die() { say "FAILED: $*"; exit 1; }

# --- the daemon and Compose ------------------------------------------------------------------
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null 2>&1 || skip "no Docker daemon here, and no dockerd to start (Debian: apt-get install docker.io)"
  [ "$(id -u)" = 0 ] || skip "no Docker daemon running, and starting dockerd needs root"
  mkdir -p "$CACHE"
  # Outlives this script on purpose: the images it keeps are what makes the next run fast.
  nohup dockerd >"$CACHE/dockerd.log" 2>&1 &
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    kill -0 $! 2>/dev/null || skip "dockerd could not start here: $(tail -n 1 "$CACHE/dockerd.log")"
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || skip "dockerd did not answer within 60 s: $(tail -n 1 "$CACHE/dockerd.log")"
  step "daemon started"
fi
if docker compose version >/dev/null 2>&1; then
  COMPOSE=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  COMPOSE=(docker-compose)
else
  skip "no Docker Compose (the compose plugin, or Debian's docker-compose)"
fi

# --- images: a local Debian base, the host's wheels --------------------------------------------
if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null 2>&1 || skip "no base image $BASE and no debootstrap to make one"
  rootfs="$(mktemp -d)"
  # One base for both images: Python for autotune, Debian's PostgreSQL 15 for the database.
  debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates,postgresql-15 \
    bookworm "$rootfs" http://deb.debian.org/debian >"$rootfs.log" 2>&1 \
    || die "debootstrap failed: $(tail -n 1 "$rootfs.log")"
  tar -C "$rootfs" -c . | docker import - "$BASE" >/dev/null
  rm -rf "$rootfs" "$rootfs.log"
  step "base image $BASE made with debootstrap"
fi
host_py="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
base_py="$(docker run --rm "$BASE" python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[ "$host_py" = "$base_py" ] || skip "the host's wheels are for Python $host_py, $BASE has $base_py"

export AUTOTUNE_WHEELS=.docker-wheels
rm -rf "$AUTOTUNE_WHEELS"
mkdir -p "$AUTOTUNE_WHEELS"
# The host's own versions (its CPU build of torch among them), so nothing new is resolved.
"$PYTHON" -m pip freeze --exclude-editable | grep -v '^autotune' >"$AUTOTUNE_WHEELS/constraints.txt"
"$PYTHON" -m pip wheel -q -w "$AUTOTUNE_WHEELS" -c "$AUTOTUNE_WHEELS/constraints.txt" \
  ".[postgres]" "setuptools>=77" 2>&1 | grep -v '^WARNING: Location' || true
ls "$AUTOTUNE_WHEELS"/torch-*.whl >/dev/null 2>&1 || die "pip wheel did not bring torch into $AUTOTUNE_WHEELS"
# The image builds autotune's own wheel; this one differs on every build (its timestamps)
# and would make Docker reinstall every dependency each time.
rm -f "$AUTOTUNE_WHEELS"/autotune-*.whl
step "wheels gathered"

export COMPOSE_PROJECT_NAME="autotune-smoke-$$"
export AUTOTUNE_BASE_IMAGE="$BASE"
export AUTOTUNE_IMAGE="autotune-smoke/autotune:latest"
export AUTOTUNE_POSTGRES_IMAGE="autotune-smoke/postgres:15"
export POSTGRES_PASSWORD="smoke-$RANDOM$RANDOM"
export AUTOTUNE_API_TOKEN="token-$RANDOM$RANDOM"
export AUTOTUNE_STUDY="smoke-io"
export AUTOTUNE_API_PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
export AUTOTUNE_WORKSPACE="$ROOT"
export AUTOTUNE_LOCK_DIR="$(mktemp -d)"
export AUTOTUNE_SHM_SIZE=1g
API="http://127.0.0.1:$AUTOTUNE_API_PORT/api/v1"
compose() { "${COMPOSE[@]}" --profile cpu "$@"; }
project_containers() { docker ps -aq --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME"; }
cleanup() {
  compose down -v --remove-orphans >/dev/null 2>&1 || true
  rm -rf "$ROOT/$AUTOTUNE_WHEELS" "$AUTOTUNE_LOCK_DIR"
}
trap cleanup EXIT

docker build -q -t "$AUTOTUNE_POSTGRES_IMAGE" --build-arg BASE_IMAGE="$BASE" \
  -f tests/install/compose/postgres.Dockerfile tests/install/compose >/dev/null
compose build -q migrate >/dev/null
step "images built (autotune from its wheel, PostgreSQL $(docker run --rm --entrypoint postgres "$AUTOTUNE_POSTGRES_IMAGE" --version | awk '{print $3}'))"

# --- up: postgres, migrate, api -----------------------------------------------------------------
# get METHOD URL [JSON-BODY [TOKEN]]: prints the status and the JSON answer on one line.
get() { "$PYTHON" - "$@" <<'PY'
import json, sys, urllib.error, urllib.request
method, url, body, token = (sys.argv[1:] + ["", ""])[:4]
headers = {"Content-Type": "application/json"} if body else {}
if token:
    headers["Authorization"] = f"Bearer {token}"
request = urllib.request.Request(url, body.encode() or None, headers, method=method)
try:
    with urllib.request.urlopen(request, timeout=10) as r:
        print(r.status, json.dumps(json.load(r)))
except urllib.error.HTTPError as e:
    print(e.code, "{}")
PY
}
wait_api() {
  for _ in $(seq 1 240); do
    "$PYTHON" -c "import urllib.request as u; u.urlopen('$API/health', timeout=2)" 2>/dev/null && return 0
    sleep 0.5
  done
  compose logs --tail 20 api
  die "the API did not answer on $API within 120 s"
}
compose up -d postgres migrate api
wait_api
step "postgres, migrate and api up"

# Secure defaults, as a user gets them: the database publishes no port, the API only on the
# host's loopback, and no write without the token.
pg="$(compose ps -q postgres)"
[ -z "$(docker port "$pg")" ] || die "the database publishes a port: $(docker port "$pg")"
api_port="$(docker port "$(compose ps -q api)" 8000)"
case "$api_port" in 127.0.0.1:*) ;; *) die "the API is published on $api_port, not on 127.0.0.1 only" ;; esac
read -r code _ < <(get DELETE "$API/studies/$AUTOTUNE_STUDY")
[ "$code" = 401 ] || [ "$code" = 403 ] || die "a write without the token answered $code"

# --- the study: created in a container, searched by two workers ---------------------------------
script=/workspace/examples/io_bound.py
compose run --rm --no-deps -T worker-cpu autotune probe "$script" --study "$AUTOTUNE_STUDY" \
  --trials 6 --seed-only --warmup 0.5 --window 0.5 --windows 3 -- --epochs 20 --samples 2048 \
  >/dev/null
step "study created in a container (baseline measured, seeds queued)"
compose up -d --no-deps --scale worker-cpu=2 worker-cpu
workers=($(compose ps -q worker-cpu))
[ "${#workers[@]}" = 2 ] || die "expected 2 workers, found ${#workers[@]}"
for w in "${workers[@]}"; do
  code="$(timeout 600 docker wait "$w")" || die "worker $w did not finish within 600 s"
  [ "$code" = 0 ] || { docker logs --tail 20 "$w"; die "worker $w exited with $code"; }
done
step "two workers searched the study"

read -r code trials < <(get GET "$API/studies/$AUTOTUNE_STUDY/trials?limit=100")
[ "$code" = 200 ] || die "trials answered $code"
"$PYTHON" - "$trials" <<'PY' || die "the trials are not what two workers taking turns leave"
import json, sys
items = json.loads(sys.argv[1])["items"]
for t in items:
    print("  trial", t["number"], t["role"], t["state"], t["status"], t["samples_per_s"], t["reason"] or "")
assert all(t["state"] not in ("running", "waiting") for t in items), "trials left unfinished"
searched = [t for t in items if t["role"] != "baseline" and t["status"] is not None]
assert len(searched) >= 2, f"the workers probed {len(searched)} trials"
spans = sorted((t["started_at"], t["completed_at"]) for t in items if t["completed_at"])
overlaps = [(a, b) for a, b in zip(spans, spans[1:]) if b[0] < a[1]]
assert not overlaps, f"probes ran at the same time: {overlaps}"
PY
read -r code best < <(get GET "$API/studies/$AUTOTUNE_STUDY/best")
[ "$code" = 200 ] || die "best answered $code"
recommended="$("$PYTHON" -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1])["config"], sort_keys=True))' "$best")"
speedup="$("$PYTHON" -c 'import json, sys; print(json.loads(sys.argv[1])["speedup"] or 0)' "$best")"
say "best from the host: $recommended, ${speedup}x the script as written"
# The example waits on I/O for every sample: the workers' search must find more loader workers.
"$PYTHON" -c "import sys; sys.exit(not float('$speedup') > 2)" || die "the search found ${speedup}x, not the latency-bound example's speedup"

# A write with the token goes through: the API got it from the compose file's environment.
read -r code _ < <(get PUT "$API/studies/$AUTOTUNE_STUDY/note" '{"note": "smoke"}' "$AUTOTUNE_API_TOKEN")
[ "$code" = 200 ] || die "a write with the token answered $code"

# --- down, and the study survives a restart -----------------------------------------------------
compose down
[ -z "$(project_containers)" ] || die "containers left after down: $(project_containers)"
step "down (no container left)"
compose up -d postgres migrate api
wait_api
read -r code best < <(get GET "$API/studies/$AUTOTUNE_STUDY/best")
again="$("$PYTHON" -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1])["config"], sort_keys=True))' "$best")"
[ "$again" = "$recommended" ] || die "after a restart the best is $again, was $recommended"
read -r code study < <(get GET "$API/studies/$AUTOTUNE_STUDY")
"$PYTHON" -c 'import json, sys; sys.exit(json.loads(sys.argv[1]).get("note") != "smoke")' "$study" \
  || die "the study's note did not survive the restart"
step "restarted: the study is still there"
compose down -v
[ -z "$(project_containers)" ] || die "containers left after down -v"
say "passed in $((SECONDS - START)) s"
