"""The right pick on a quiet machine: autotune's answer against a long-run grid.

For each workload, strictly one probe at a time:

1. ``autotune probe`` (the real CLI, ``--json``, a fresh SQLite study): its pick, the speedup
   it states, the seconds of probing;
2. long runs of the pick, the script as written and a grid of worker counts, interleaved
   (``--rounds`` rounds), each ``--long-s`` seconds of windows after the steady-state warm-up
   (``benchmarks/under_load.py``'s ``long_rate``).

Reported per workload: ``pick_vs_best`` (the pick's long runs against the best of the grid's:
1.00 or more is the grid's best), ``pick_vs_written`` (against the script as written: never
below 1 by more than noise), ``knee`` (the fewest grid workers whose long runs reach 95 % of
the grid's best) and ``pick_workers_vs_knee`` (the pick's worker count against it: 1.5 or
less is the issue's bar), and the stated speedup against the long runs' own.

    python benchmarks/pick_quality.py [--long-s 8] [--rounds 2] [--out docs/pick-quality.json]
        [--workloads io_bound,model_bound,cpu_bound,longtail_io,slots,lightning,fastai]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from under_load import compare, long_rate, run_header, search

from autotune.contract import LoaderConfig
from autotune.runner import SubprocessRunner

ROOT = Path(__file__).resolve().parent.parent
# The knee: the fewest workers whose rate reaches this share of the grid's best.
KNEE_SHARE = 0.95
WORKLOADS: dict[str, tuple[Path, tuple[str, ...], tuple[int, ...]]] = {
    "io_bound": (
        ROOT / "examples/io_bound.py",
        ("--epochs", "100000"),
        (0, 4, 8, 16, 32, 64, 128),
    ),
    "model_bound": (
        ROOT / "examples/model_bound.py",
        ("--epochs", "100000", "--width", "512"),
        (0, 1, 2, 4),
    ),
    "cpu_bound": (ROOT / "examples/cpu_bound.py", ("--epochs", "100000"), (0, 1, 2, 3, 4, 8)),
    # Issue 49's long tail: 2 % of reads stall for 50 ms.
    "longtail_io": (
        ROOT / "examples/longtail_io.py",
        ("--epochs", "100000"),
        (0, 8, 16, 32, 64, 96, 128),
    ),
    # Storage that serves 4 requests at once: the rate stops growing at 4 workers.
    "slots": (
        ROOT / "tests/scripts/limited_store.py",
        ("--slots", "4", "--latency-ms", "10"),
        (0, 2, 3, 4, 6, 8, 16, 32),
    ),
    # A library script of the suite: Lightning's Trainer over 4 ms samples.
    "lightning": (
        ROOT / "tests/scripts/frameworks/lightning_train.py",
        ("--latency", "0.004"),
        (0, 1, 2, 4, 8, 16, 32),
    ),
    # A library script of the suite: fastai as its tutorials write it (DataBlock, Learner.fit
    # with a validation pass each epoch), 3 ms a record; its rate peaks near 12 workers.
    "fastai": (
        ROOT / "tests/scripts/libraries/fastai_learner_train.py",
        (str(10**6), "/tmp/autotune-pick-quality-records"),
        (0, 2, 4, 8, 12, 16, 32, 48),
    ),
}


def knee(grid: dict[int, float]) -> int | None:
    """The fewest workers whose rate reaches ``KNEE_SHARE`` of the best."""
    if not grid:
        return None
    best = max(grid.values())
    return min(n for n, rate in grid.items() if rate >= KNEE_SHARE * best)


def run_workload(name: str, *, trials: int, long_s: float, rounds: int) -> dict[str, Any]:
    script, args, counts = WORKLOADS[name]
    runner = SubprocessRunner()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        answer = search(script, f"sqlite:///{tmp}/pick.db", trials, script_args=args)
        searched = time.monotonic() - started
    pick = LoaderConfig.from_dict((answer.get("recommended") or {}).get("config") or {})
    configs = {
        f"{n} workers": LoaderConfig(num_workers=n, persistent_workers=n > 0) for n in counts
    }
    picked, rows = compare(
        pick, configs, lambda c: long_rate(runner, script, c, long_s, args), rounds
    )
    grid = {n: statistics.median(rows[f"{n} workers"]) for n in counts if rows[f"{n} workers"]}
    best = max(grid.values(), default=None)
    pick_long = statistics.median(picked) if picked else None
    written = grid.get(0)
    at_knee = knee(grid)
    workers = pick.num_workers or 0
    return {
        "workload": name,
        "pick": answer.get("recommended", {}).get("config"),
        "choice": answer.get("choice"),
        "speedup": answer.get("speedup"),
        "speedup_long": pick_long / written if pick_long and written else None,
        "pick_vs_best": pick_long / best if pick_long and best else None,
        "pick_vs_written": pick_long / written if pick_long and written else None,
        "knee": at_knee,
        "pick_workers_vs_knee": workers / at_knee if at_knee else None,
        "search_s": round(searched, 1),
        "probe_seconds": answer.get("probe_seconds"),
        "trials": answer.get("trials"),
        "pick_long_samples_per_s": picked,
        "grid_long_samples_per_s": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--long-s", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--trials", type=int, default=14)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {
        **run_header(),
        "long_s": args.long_s,
        "rounds": args.rounds,
        "results": [],
    }
    for name in args.workloads.split(","):
        row = run_workload(name, trials=args.trials, long_s=args.long_s, rounds=args.rounds)
        report["results"].append(row)
        print(json.dumps({k: v for k, v in row.items() if "long_samples" not in k}), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
