#!/usr/bin/env bash
# Every GPU check of the project in one command, for a short lease on a GPU machine: the gpu
# tests, the machine's own figures and NVTX, the GPU-path benchmark, a whole `autotune probe`
# study and an `autotune run --adapt` run of the transfer-heavy example, then ncu on NVTX.
# Each step has its own time limit and its log is kept under $OUT even when a later one fails.
#
#   OUT=/tmp/gpu bash benchmarks/gpu_session.sh      # from the checkout's root
#
# Wheels the GPU machine lacks (and autotune's own) travel in .whl/ and go to /tmp/site.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/gpu_session}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
LOG="$OUT/session.log"
: >"$LOG"

if [ -z "${NO_WHEELS:-}" ] && compgen -G "$ROOT/.whl/*.whl" >/dev/null; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$ROOT"/.whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site
fi

step() {  # step NAME SECONDS COMMAND...: run it, keep its output (stdout to $STDOUT if set)
  local name=$1 limit=$2 start rc
  shift 2
  start=$(date +%s)
  echo "===== $name (limit ${limit}s): $*" >>"$LOG"
  timeout -k 5 "$limit" "$@" >>"${STDOUT:-$LOG}" 2>>"$LOG"
  rc=$?
  echo "===== $name rc=$rc in $(($(date +%s) - start))s" | tee -a "$LOG"
}

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv
  nproc
  $PY -c "import torch, optuna, sqlalchemy, nvtx, pynvml; print(torch.__version__, torch.version.cuda, optuna.__version__)"
} >>"$LOG" 2>&1

cd "$ROOT" || exit 3
step pytest_gpu 150 $PY -m pytest -p no:cacheprovider -v -o addopts="-ra --strict-markers" \
  tests/probe/loader/test_streams.py tests/probe/machine/test_gpu.py
step gpu_checks 60 $PY benchmarks/gpu_checks.py --json "$OUT/gpu_checks.json" \
  --trace /tmp/gpu_checks_trace.json
step gpu_path 180 $PY benchmarks/gpu_path.py --json "$OUT/gpu_path.json" --trials 6 \
  --workers $(($(nproc) * 3 / 2))

# The CLI from outside the checkout, so the installed wheel (with its migrations) answers.
cd /tmp || exit 3
EX="$ROOT/examples"
TRANSFER=(--size 224 --batch-size 256 --depth 2)
STDOUT="$OUT/study.json" step probe_study 130 $PY -m autotune.cli probe "$EX/gpu_transfer.py" --storage sqlite:////tmp/s.db \
  --study transfer --trials 10 --timeout 90 --json -- "${TRANSFER[@]}"
step run_adapt 100 $PY -m autotune.cli run "$EX/gpu_transfer.py" --adapt --storage \
  sqlite:////tmp/a.db -- "${TRANSFER[@]}" --samples 65536 --epochs 3
if command -v ncu >/dev/null; then
  step ncu_nvtx 60 ncu --nvtx --nvtx-include "autotune@step/" -c 2 --section LaunchStats \
    $PY "$ROOT/benchmarks/gpu_checks.py" --ncu-target
fi
grep -E "^=====|passed|failed|error" "$LOG" | tail -n 40
