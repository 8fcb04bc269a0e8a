"""What the baseline costs, and what it measures: two source trees side by side, in one run.

Each round runs ``autotune probe SCRIPT --trials 1 --json`` (the baseline alone: the script as
written, then the compute and transport ceilings in the same process) once with this tree and
once with the tree at ``--before`` (a checkout of an older commit, put first on PYTHONPATH),
alternating which goes first, each in a fresh folder with a fresh SQLite study. Reported per
workload and tree: the baseline's probing seconds, its samples/s and both ceilings, medians
over the rounds, so that a cheaper baseline is seen to measure what the dearer one did.

    git worktree add /tmp/before HEAD~1
    python benchmarks/baseline_cost.py --before /tmp/before [--rounds 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from under_load import run_header

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ("io_bound", "cpu_bound", "model_bound")


def _baseline(tree: Path, workload: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        script = str(ROOT / "examples" / f"{workload}.py")
        storage = f"sqlite:///{folder}/autotune.db"
        command = [sys.executable, "-m", "autotune.cli", "probe", script]
        out = subprocess.run(
            [*command, "--trials", "1", "--json", "--storage", storage],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    answer = json.loads(out.stdout)
    transport = answer["transport_ceiling_samples_per_s"]
    return {
        "probe_s": answer["probe_seconds"],
        "samples_per_s": answer["baseline"]["samples_per_s"],
        "compute": answer["ceiling_samples_per_s"],
        "transport": transport,
    }


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if r[key] is not None]
    return statistics.median(values) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the older tree's root")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": ROOT}
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        w: {t: [] for t in trees} for w in WORKLOADS
    }
    for rnd in range(args.rounds):
        for workload in WORKLOADS:
            order = list(trees) if rnd % 2 == 0 else list(reversed(trees))
            for name in order:
                row = _baseline(trees[name], workload)
                runs[workload][name].append(row)
                print(workload, name, row, flush=True)
    summary: dict[str, Any] = {}
    for workload, by_tree in runs.items():
        summary[workload] = {
            name: {key: _median(rows, key) for key in rows[0]} for name, rows in by_tree.items()
        }
        before, after = summary[workload]["before"], summary[workload]["after"]
        print(
            f"{workload}: probing {before['probe_s']:.1f} s -> {after['probe_s']:.1f} s;"
            f" samples/s {before['samples_per_s']:,.0f} -> {after['samples_per_s']:,.0f};"
            f" compute {before['compute'] or 0:,.0f} -> {after['compute'] or 0:,.0f};"
            f" transport {before['transport'] or 0:,.0f} -> {after['transport'] or 0:,.0f}"
        )
    if args.out:
        args.out.write_text(
            json.dumps({"header": run_header(), "runs": runs, "summary": summary}, indent=1)
        )


if __name__ == "__main__":
    main()
