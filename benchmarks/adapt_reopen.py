"""A run whose loading turns 8x slower halfway: `autotune run --adapt` against the same job
kept on the settings its search first settled on.

Each pair, one at a time: (a) `autotune run --adapt` of tests/scripts/ordered.py, whose
samples load 8x slower once half its batches are trained (the script makes the flag its
dataset reads), tuning and the reopened search included; (b) the same job as a plain script
with the workers (a) first settled on, from its first step, slowed the same way. Both print
the order digest, which must be the same. What (b) against (a) shows is what reopening the
search buys where the loading changes under a settled run (tests/cli/test_adapt.py checks
that it reopens; the time is measured here, interleaved, not by one pair in the suite).

    python benchmarks/adapt_reopen.py [--repeats 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "scripts" / "ordered.py"
CLI = [sys.executable, "-m", "autotune.cli"]
# 48 epochs of 48 batches, 8x slower from the middle on (the suite's test's job).
ARGS = ["--epochs", "48", "--samples", "384", "--latency-ms", "2", "--step-ms", "5"]
ARGS += ["--slower-after", "1152", "--slower-by", "8"]
QUICK = ["--segments", "4", "--max-workers", "16", "--warmup", "0.2", "--window", "0.3"]


def _timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, done


def _digest(stdout: str) -> str:
    words = stdout.split()
    return words[words.index("digest") + 1] if "digest" in words else ""


def pair(db: str, flag: Path) -> dict[str, Any]:
    flag.unlink(missing_ok=True)
    adapt = [*CLI, "run", str(SCRIPT), "--adapt", "--storage", db, *QUICK, "--", *ARGS]
    adapt_s, adapted = _timed([*adapt, "--slow-flag", str(flag)])
    settled = int(adapted.stderr.split("settled on workers=")[1].split()[0])
    reopened = "searching again from the settled settings" in adapted.stderr
    flag.unlink(missing_ok=True)
    plain = [sys.executable, str(SCRIPT), *ARGS, "--slow-flag", str(flag)]
    kept_s, kept = _timed([*plain, "--num-workers", str(settled)])
    return {
        "adapt_s": adapt_s,
        "kept_s": kept_s,
        "settled_workers": settled,
        "reopened": reopened,
        "same_order": _digest(kept.stdout) == _digest(adapted.stdout) != "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    pairs = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            pairs.append(pair(f"sqlite:///{Path(tmp) / f'r{r}.db'}", Path(tmp) / "slower"))
            print(json.dumps(pairs[-1]), flush=True)
    result = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "adapt_s": statistics.median(p["adapt_s"] for p in pairs),
        "kept_s": statistics.median(p["kept_s"] for p in pairs),
        "kept_over_adapt": statistics.median(p["kept_s"] / p["adapt_s"] for p in pairs),
        "all_reopened": all(p["reopened"] for p in pairs),
        "same_order": all(p["same_order"] for p in pairs),
        "pairs": pairs,
    }
    print(json.dumps({k: v for k, v in result.items() if k != "pairs"}, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
