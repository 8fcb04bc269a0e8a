#!/usr/bin/env bash
# Every GPU check of the project in one command, for a short lease on a GPU machine (one call
# of 9 minutes on an H200), most wanted first: the card's own figures and NVTX; the probe's
# ranges in a torch.profiler trace of a real probe; whole `autotune probe` studies of the
# copy-bound and the transfer-heavy examples, twice each, with long runs of each pick and of
# the script as written; `--tune-batch-size` where the largest batches run out of GPU memory,
# under `--max-gpu-mem`; `autotune run --adapt` against a long `autotune run --study` of what
# it settled on; the GPU tests; the copy-bound grid (pinned or not x k = 0..4, twice: about
# 13 s a probe on an H200, so the 200 s it gets holds 15 of its 22 probes).
# Each step has its own time limit; its output is packed into $OUT/session.tar.gz as soon as
# it ends (a device lease returns few files), so it is kept even when a later one fails.
# STEPS picks some of them for a rerun, e.g. STEPS="studies adapt".
#
#   OUT=/tmp/gpu bash benchmarks/gpu_session.sh      # from the checkout's root
#
# Wheels the GPU machine lacks (and autotune's own) travel in .whl/ and go to /tmp/site.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/gpu_session}
WORK=${WORK:-/tmp/gpu_work}  # everything the steps write; packed into $OUT after each
mkdir -p "$OUT" "$WORK"
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
LOG="$WORK/session.log"
STEPS=${STEPS:-"checks profiled studies longruns batchsize adapt tests grid"}
: >>"$LOG"

if [ -z "${NO_WHEELS:-}" ] && compgen -G "$ROOT/.whl/*.whl" >/dev/null; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$ROOT"/.whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site
fi

wants() { [[ " $STEPS " == *" $1 "* ]]; }

START=$(date +%s)
DEADLINE=${DEADLINE:-540}  # seconds for all steps (the call: 600 at most): a step gets what is left, none under 15 s

step() {  # step NAME SECONDS COMMAND...: run it, keep its output (stdout to $STDOUT if set)
  local name=$1 limit=$2 start rc left
  shift 2
  start=$(date +%s)
  left=$((DEADLINE - (start - START)))
  if [ "$left" -lt 15 ]; then
    echo "===== $name skipped: ${left}s left of the session's ${DEADLINE}s" | tee -a "$LOG"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  echo "===== $name (limit ${limit}s): $*" >>"$LOG"
  timeout -k 5 "$limit" "$@" >>"${STDOUT:-$LOG}" 2>>"$LOG"
  rc=$?
  echo "===== $name rc=$rc in $(($(date +%s) - start))s" | tee -a "$LOG"
  pack
}

pack() {  # the steps' files and the study database, as one file under $OUT
  [ -f /tmp/gpu_session.db ] && cp /tmp/gpu_session.db "$WORK/"
  tar -czf "$OUT/session.tar.gz" -C "$WORK" . 2>/dev/null
  cp "$LOG" "$OUT/session.log"
}

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv
  nproc
  $PY -c "import torch, optuna, sqlalchemy, nvtx, pynvml; print(torch.__version__, torch.version.cuda, optuna.__version__)"
} >>"$LOG" 2>&1

cd "$ROOT" || exit 3
if wants checks; then
  step gpu_checks 45 $PY benchmarks/gpu_checks.py --json "$WORK/gpu_checks.json" \
    --trace /tmp/gpu_checks_trace.json
fi
if wants profiled; then
  step profiled 60 $PY benchmarks/gpu_profiled.py --json "$WORK/profiled.json"
fi

# The CLI from outside the checkout, so the installed wheel (with its migrations) answers.
cd /tmp || exit 3
EX="$ROOT/examples"
DB=sqlite:////tmp/gpu_session.db
COPY=(--size 512 --batch-size 256 --pool 512)
TRANSFER=(--size 224 --batch-size 256 --depth 2)
study() {  # study NAME SCRIPT ARGS...: one whole search with the defaults and a time budget
  local name=$1 script=$2
  shift 2
  STDOUT="$WORK/study_$name.json" step "study_$name" 75 $PY -m autotune.cli probe "$EX/$script" \
    --storage $DB --study "$name" --budget 40s --json -- "$@"
}
if wants studies; then
  study copy1 gpu_copy_bound.py "${COPY[@]}"
  study transfer1 gpu_transfer.py "${TRANSFER[@]}"
  study copy2 gpu_copy_bound.py "${COPY[@]}"
  study transfer2 gpu_transfer.py "${TRANSFER[@]}"
fi
if wants longruns; then
  # Each study's pick against the script as written, long runs interleaved (the examples
  # print samples/s per epoch; gpu_transfer prints only its epochs, so it is timed whole).
  for round in 1 2; do
    STDOUT="$WORK/long_copy_written_$round.log" step "long_copy_written_$round" 60 \
      $PY "$EX/gpu_copy_bound.py" "${COPY[@]}" --samples 65536 --epochs 2
    STDOUT="$WORK/long_copy_pick_$round.log" step "long_copy_pick_$round" 60 \
      $PY -m autotune.cli run "$EX/gpu_copy_bound.py" --storage $DB --study "copy$round" \
      -- "${COPY[@]}" --samples 65536 --epochs 2
  done
  STDOUT="$WORK/long_transfer_written.log" step long_transfer_written 60 \
    $PY "$EX/gpu_transfer.py" "${TRANSFER[@]}" --samples 131072 --epochs 1
  STDOUT="$WORK/long_transfer_pick.log" step long_transfer_pick 60 \
    $PY -m autotune.cli run "$EX/gpu_transfer.py" --storage $DB --study transfer1 \
    -- "${TRANSFER[@]}" --samples 131072 --epochs 1
fi
if wants adapt; then
  STDOUT="$WORK/adapt.log" step run_adapt 90 $PY -m autotune.cli run "$EX/gpu_copy_bound.py" \
    --adapt --segments 6 --storage $DB --study adapt -- "${COPY[@]}" --samples 65536 --epochs 4
  STDOUT="$WORK/adapt_settled.log" step run_settled 60 $PY -m autotune.cli run \
    "$EX/gpu_copy_bound.py" --storage $DB --study adapt -- "${COPY[@]}" --samples 65536 --epochs 2
fi
if wants batchsize; then
  # 17 layers of 64 channels at 128x128: about 135 MB of activations a sample, so 256 (the
  # script's own) fits, 512 is over a 60 GiB budget, 1024 is over an H200's memory. (One
  # layer of 1024 channels made a 2^32-element activation, which a CUDA kernel could not
  # index: an illegal memory access, 2026-11-27.)
  STDOUT="$WORK/study_batchsize.json" step study_batchsize 90 $PY -m autotune.cli probe \
    "$EX/gpu_copy_bound.py" --storage $DB --study batchsize --tune-batch-size --max-gpu-mem 60 \
    --budget 45s --json -- "${COPY[@]}" --width 64 --depth 16
fi
if wants tests; then
  cd "$ROOT" || exit 3
  step pytest_gpu 100 $PY -m pytest -p no:cacheprovider -q -o addopts="-ra --strict-markers" \
    tests/probe/loader/test_streams.py tests/probe/machine/test_gpu.py tests/runner/test_zygote.py
fi
if wants grid; then
  cd "$ROOT" || exit 3
  step copy_grid 200 $PY benchmarks/gpu_path.py --parts copy --repeats 2 --json "$WORK/copy_grid.json"
fi
pack  # the study database travels in it: `autotune show NAME --storage sqlite:///...` reads it
grep -E "^=====|passed|failed|error|Error" "$LOG" | tail -n 60
