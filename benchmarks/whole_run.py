"""The user's clock: a script's whole run as written against the same run with autotune's answer.

1. ``autotune probe SCRIPT --trials N --json -- PROBE_ARGS`` finds the answer (a fresh SQLite
   study in a temporary folder).
2. ``python SCRIPT RUN_ARGS`` (as written) and ``autotune run SCRIPT --study S -- RUN_ARGS``
   (the answer applied) are timed by the wall clock, from start to exit, interleaved
   (A B A B ...) ``--repeats`` times; medians are reported. Process start-up, imports and
   every epoch are inside both, as the user waits for them.

The speedup the probe stated is a loader's rate; the ratio of the two medians is what the user
sees, and the answer's epoch (as written and with the answer, stated from the probes) is kept
beside it. Never run beside other probes or benchmarks: they measure each other.

    python benchmarks/whole_run.py tests/scripts/libraries/fastai_train.py \\
        --run-args 3 --trials 8 [--repeats 3] [--out docs/whole-run-fastai.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _timed(command: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{shlex.join(command)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script")
    parser.add_argument("--probe-args", default="", help="the script's arguments in the probes")
    parser.add_argument("--run-args", default="", help="the script's arguments in timed runs")
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    opts = parser.parse_args()
    cli = [sys.executable, "-m", "autotune.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'autotune.db'}"
        probe = [*cli, "probe", opts.script, "--trials", str(opts.trials), "--json"]
        probe += ["--storage", url, "--study", "s", "--", *shlex.split(opts.probe_args)]
        started = time.perf_counter()
        proc = subprocess.run(probe, capture_output=True, text=True, timeout=3600)
        search_s = time.perf_counter() - started
        if proc.returncode != 0:
            sys.exit(f"the probe exited {proc.returncode}:\n{proc.stderr[-2000:]}")
        answer: dict[str, Any] = json.loads(proc.stdout)
        run_args = shlex.split(opts.run_args)
        written = [sys.executable, opts.script, *run_args]
        tuned = [*cli, "run", opts.script, "--study", "s", "--storage", url, "--", *run_args]
        as_written: list[float] = []
        with_answer: list[float] = []
        for _ in range(opts.repeats):
            as_written.append(_timed(written))
            with_answer.append(_timed(tuned))
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "script": opts.script,
        "run_args": run_args,
        "search_s": round(search_s, 1),
        "recommended": answer["recommended"]["config"] if answer.get("recommended") else None,
        "stated_speedup": answer.get("speedup"),
        "as_written_s": as_written,
        "with_answer_s": with_answer,
        "whole_run_speedup": statistics.median(as_written) / statistics.median(with_answer),
        # One epoch on the wall clock as the probes saw it (as written, with the answer), and
        # the evaluation loaders' own settings where any were tuned.
        "epoch": answer.get("epoch"),
        "others": answer.get("others"),
    }
    text = json.dumps(result, indent=1)
    print(text)
    if opts.out is not None:
        opts.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
