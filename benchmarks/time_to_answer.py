"""Time to an answer, before and after a change, in one run on one machine.

For each workload, strictly one probe at a time and interleaved (before, after, before,
after, ...): the real CLI (``autotune probe --json``, a fresh SQLite study) as checked out at
``--before`` (a git worktree, put first on ``PYTHONPATH``, so every probe subprocess runs that
code too) and as it is in this checkout. Reported per workload and version: the wall seconds
of the whole command (what the user waits for), the probing seconds the answer states, the
number of trials, and the pick. Then long runs of both versions' picks, interleaved
(``under_load.py``'s ``long_rate``): ``after_pick_vs_before`` is the after-pick's long-run
rate against the before-pick's (issue 50 asks at least 0.97).

    python benchmarks/time_to_answer.py --before REF [--workloads io_bound,cpu_bound]
                                        [--rounds 2] [--long-s 8] [--warm] [--out FILE]

``--warm``: the after-runs share one storage that already holds a finished study of the same
workload (measured once first, not timed), and each passes ``--fresh``, as a user who probes
again after editing the script: the warm start against a cold one (``--before HEAD`` for the
same code on both sides).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from under_load import long_rate, run_header

from autotune.contract import LoaderConfig
from autotune.runner import SubprocessRunner

ROOT = Path(__file__).resolve().parent.parent
# (script, its arguments, autotune's own options): README's first command, the other
# examples as a user would first run them, and the suite's Lightning and MONAI scripts.
WORKLOADS: dict[str, tuple[Path, tuple[str, ...], tuple[str, ...]]] = {
    "io_bound": (ROOT / "examples/io_bound.py", (), ("--trials", "12")),
    "cpu_bound": (ROOT / "examples/cpu_bound.py", (), ("--trials", "12")),
    "model_bound": (ROOT / "examples/model_bound.py", (), ("--trials", "12")),
    "longtail_io": (ROOT / "examples/longtail_io.py", (), ("--trials", "12")),
    "lightning": (
        ROOT / "tests/scripts/frameworks/lightning_train.py",
        ("--latency", "0.004"),
        ("--trials", "12"),
    ),
    # A library whose import costs seconds in every probe the zygote does not preload it for.
    "monai": (ROOT / "tests/scripts/libraries/monai_train.py", (), ("--trials", "12")),
}


def answer(
    script: Path,
    args: tuple[str, ...],
    options: tuple[str, ...],
    code: Path | None,
    storage: str | None = None,
) -> dict[str, Any]:
    """One ``autotune probe --json`` run (in ``storage``, else a fresh SQLite file): the
    answer, and the wall seconds it took."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(code), env.get("PYTHONPATH", "")]).rstrip(":")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "autotune.cli", "probe", str(script)]
        cmd += ["--storage", storage or f"sqlite:///{tmp}/t.db", "--json", *options]
        cmd += ["--fresh", "--", *args] if storage else ["--", *args]
        started = time.monotonic()
        # Run from the temporary directory: `-m` puts the working directory first on sys.path.
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800, cwd=tmp)
        wall = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"autotune probe failed ({done.returncode}): {done.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(done.stdout)
    return {
        "wall_s": round(wall, 1),
        "probe_seconds": out.get("probe_seconds"),
        "trials": out.get("trials"),
        "pick": (out.get("recommended") or {}).get("config"),
        "speedup": out.get("speedup"),
        "started_from": out.get("started_from"),
    }


def worktree(ref: str, where: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), ref],
        check=True,
        capture_output=True,
    )
    return where


def run_workload(
    name: str, before: Path, *, rounds: int, long_s: float, warm: str | None = None
) -> dict[str, Any]:
    script, args, options = WORKLOADS[name]
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    if warm is not None:
        answer(script, args, options, None, warm)  # the stored answer the after-runs start from
    for _ in range(rounds):
        runs["before"].append(answer(script, args, options, before))
        runs["after"].append(answer(script, args, options, None, warm))
        print(name, runs["before"][-1], runs["after"][-1], flush=True)
    runner = SubprocessRunner()
    longs: dict[str, list[float]] = {"before": [], "after": []}
    picks = {v: LoaderConfig.from_dict(runs[v][-1]["pick"] or {}) for v in runs}
    for _ in range(rounds):
        for version, config in picks.items():
            rate = long_rate(runner, script, config, long_s, args)
            if rate:
                longs[version].append(rate)
    row: dict[str, Any] = {"workload": name}
    for version in runs:
        row[version] = {
            "wall_s": statistics.median(r["wall_s"] for r in runs[version]),
            "probe_seconds": statistics.median(r["probe_seconds"] or 0 for r in runs[version]),
            "trials": [r["trials"] for r in runs[version]],
            "pick_workers": [(r["pick"] or {}).get("num_workers") for r in runs[version]],
            "pick_long_samples_per_s": longs[version],
            "runs": runs[version],
        }
    b, a = longs["before"], longs["after"]
    row["after_wall_vs_before"] = round(row["after"]["wall_s"] / row["before"]["wall_s"], 2)
    row["after_pick_vs_before"] = (
        round(statistics.median(a) / statistics.median(b), 3) if a and b else None
    )
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="a git ref: the code to compare with")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--long-s", type=float, default=8.0)
    parser.add_argument("--warm", action="store_true", help="after-runs start from a stored answer")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {
        **run_header(),
        "before": args.before,
        "after": subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        + " and the working tree",
        "warm": args.warm,
        "results": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        before = worktree(args.before, Path(tmp) / "before")
        try:
            for name in args.workloads.split(","):
                warm = f"sqlite:///{tmp}/warm-{name}.db" if args.warm else None
                row = run_workload(name, before, rounds=args.rounds, long_s=args.long_s, warm=warm)
                report["results"].append(row)
                print(json.dumps({k: v for k, v in row.items() if k not in ("before", "after")}))
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                capture_output=True,
            )
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
