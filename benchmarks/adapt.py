"""Tune while training: `autotune run --adapt` against the alternatives.

For each example, as fixed-length runs, one at a time and interleaved across examples:
  (a) the script as written;
  (b) `autotune probe` with its defaults, then `autotune run --study` (probe time included);
  (c) `autotune run --adapt` (tuning included);
  (d) `autotune run --study` with the settings (c) settled on, from the first step: the
      regret of (c) is its time beyond (d).
Every run prints the examples' order digest (examples/_common.py): (c) must train on the
same samples in the same order as (a); (b) is reported too (it keeps the order as well where
the recommendation turns persistent workers on, which in plain torch reshuffles every epoch
after the first).

    python benchmarks/adapt.py [--rounds 1] [--only io_bound,model_bound] [--out FILE]
                               [--cost-repeats N]

--cost-repeats N: N more pairs (as written, --adapt) of the model-bound example, interleaved,
for the cost of adapting where there is nothing to gain: a few per cent is far below this
machine's run-to-run swing, so it is read off the median of the pairs' ratios.
--overhead-repeats N: the same cost taken apart: the seconds --adapt adds to a 10-second
model-bound run that settles inside (N interleaved pairs; what any run pays once), and the
microseconds per batch of the switchable loader against the plain one (in this process).
--steady-repeats N: N interleaved pairs of the model-bound example, as written and with
--adapt, compared epoch by epoch once the search has settled (whole runs swing too much).
--ranks-repeats N: N interleaved pairs of a fixed-length 2-rank DDP job on gloo
(tests/scripts/ddp_ordered.py, latency-bound, its own tiny data) under torchrun as written and
under `autotune run --adapt --nproc-per-node 2` (tuning included), with each rank's order
digest, which must be the same.
--eval-repeats N: N interleaved pairs of a fit loop whose validation pass is about a third of
its epoch as written (tests/scripts/epochs.py, both loaders at 0 workers), as written and with
--adapt: the whole run, and the script's own epochs and validation passes once settled (the
median of its last three), with the validation order digest of every pass.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import optuna

from autotune.state import record_of

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CLI = [sys.executable, "-m", "autotune.cli"]
# Each about 50 s as written on a 2-core machine: long enough for a search to pay off.
RUNS: dict[str, list[str]] = {
    "io_bound": ["--epochs", "3", "--samples", "4096"],
    "cpu_bound": ["--epochs", "8", "--samples", "4096"],
    "model_bound": ["--epochs", "10"],
    "startup_bound": ["--epochs", "80"],
}


def timed(cmd: list[str]) -> tuple[float, str, str]:
    """Wall seconds to the process's end, its stdout and stderr; fails loudly."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, done.stdout, done.stderr


def digest(stdout: str) -> str:
    words = stdout.split()
    return words[words.index("digest") + 1] if "digest" in words else ""


def one(name: str, db: str, tag: str) -> dict[str, Any]:
    script = str(EXAMPLES / f"{name}.py")
    args = RUNS[name]
    out: dict[str, Any] = {"example": name, "args": args}
    written, stdout, _ = timed([sys.executable, script, *args])
    out["written_s"], out["written_digest"] = written, digest(stdout)

    probe_study = f"{name}-probe-{tag}"
    probe_s, _, _ = timed([*CLI, "probe", script, "--storage", db, "--study", probe_study,
                           "--json", "--", *args])  # fmt: skip
    run_s, stdout, _ = timed([*CLI, "run", script, "--storage", db, "--study", probe_study,
                              "--", *args])  # fmt: skip
    out.update(probe_s=probe_s, probe_run_s=run_s, probe_digest=digest(stdout))

    adapt_study = f"{name}-adapt-{tag}"
    adapt_s, stdout, stderr = timed([*CLI, "run", script, "--adapt", "--storage", db,
                                     "--study", adapt_study, "--", *args])  # fmt: skip
    study = optuna.load_study(study_name=adapt_study, storage=db)
    out.update(
        adapt_s=adapt_s,
        adapt_digest=digest(stdout),
        segments=len(study.get_trials(deepcopy=False)),
        adapt_said=[line for line in stderr.splitlines() if "settled on" in line],
    )
    best_s, _, _ = timed([*CLI, "run", script, "--storage", db, "--study", adapt_study,
                          "--", *args])  # fmt: skip
    out["best_from_start_s"] = best_s
    out["regret_s"] = adapt_s - best_s
    out["speedup_vs_written"] = written / adapt_s
    out["adapt_over_probe_and_run"] = adapt_s / (probe_s + run_s)
    out["same_order"] = out["written_digest"] == out["adapt_digest"]
    # Plain torch draws its sampler's seed once with persistent workers, every epoch without:
    # a recommendation that turns them on reshuffles later epochs (adapt keeps the script's).
    out["probe_run_same_order"] = out["written_digest"] == out["probe_digest"]
    return out


def cost(repeats: int, db: str) -> dict[str, Any]:
    """Adapting a model-bound run: the ratio of its time to the script's, pair by pair."""
    script, args = str(EXAMPLES / "model_bound.py"), RUNS["model_bound"]
    ratios, segments = [], []
    for r in range(repeats):
        written, _, _ = timed([sys.executable, script, *args])
        name = f"cost-{r}"
        adapted, _, _ = timed([*CLI, "run", script, "--adapt", "--storage", db, "--study", name,
                               "--", *args])  # fmt: skip
        study = optuna.load_study(study_name=name, storage=db)
        segments.append(len(study.get_trials(deepcopy=False)))
        ratios.append(adapted / written)
        print(json.dumps({"cost_pair": r, "written_s": written, "adapt_s": adapted}), flush=True)
    return {
        "example": "model_bound",
        "args": args,
        "pairs": repeats,
        "adapt_over_written_median": statistics.median(ratios),
        "ratios": ratios,
        "segments": segments,
    }


def fixed_cost(repeats: int, db: str) -> dict[str, Any]:
    """Seconds `--adapt` adds to a model-bound run, as written and with --adapt, interleaved;
    the median of the pairs' differences. The runs are about 10 s: long enough for the search
    to settle inside them, as it does in any run worth tuning (a run that ends mid-segment
    also pays for the search's bookkeeping after its end, which a long run never sees)."""
    script, args = str(EXAMPLES / "model_bound.py"), ["--epochs", "3"]
    diffs, written_s = [], []
    segments: list[list[str | None]] = []
    for r in range(repeats):
        written, _, _ = timed([sys.executable, script, *args])
        name = f"fixed-{r}"
        adapted, _, _ = timed([*CLI, "run", script, "--adapt", "--storage", db, "--study",
                               name, "--", *args])  # fmt: skip
        trials = optuna.load_study(study_name=name, storage=db).get_trials(deepcopy=False)
        statuses = [record_of(t).status for t in trials]
        segments.append(statuses)
        diffs.append(adapted - written)
        written_s.append(written)
        print(json.dumps({"fixed_pair": r, "written_s": written, "adapt_s": adapted,
                          "segments": statuses}), flush=True)  # fmt: skip
    return {
        "example": "model_bound",
        "args": args,
        "pairs": repeats,
        "written_s_median": statistics.median(written_s),
        "added_s_median": statistics.median(diffs),
        "added_s": diffs,
        "segments": segments,  # the status of each segment of each --adapt run
    }


def steady_cost(repeats: int, db: str) -> dict[str, Any]:
    """Whether a settled run trains slower than the script as written: the median epoch time
    after the third epoch of model_bound `--epochs 10`, as written and with --adapt,
    interleaved. Whole-run times swing by far more than the cost sought; epoch times after
    the search has settled show what the run pays per second of training."""
    script, args = str(EXAMPLES / "model_bound.py"), RUNS["model_bound"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # each epoch's line stamped as it is printed

    def epochs(cmd: list[str]) -> tuple[float, float]:
        t0, stamps = time.perf_counter(), []
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)  # fmt: skip
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("epoch"):
                stamps.append(time.perf_counter())
        proc.wait()
        steady = [b - a for a, b in itertools.pairwise(stamps[2:])]
        return stamps[0] - t0, statistics.median(steady)

    rows = []
    for r in range(repeats):
        written = epochs([sys.executable, script, *args])
        adapted = epochs([*CLI, "run", script, "--adapt", "--storage", db, "--study",
                          f"steady-{r}", "--", *args])  # fmt: skip
        row = {"written_first_epoch_s": written[0], "written_epoch_s": written[1],
               "adapt_first_epoch_s": adapted[0], "adapt_epoch_s": adapted[1]}  # fmt: skip
        rows.append(row)
        print(json.dumps({"steady_pair": r, **row}), flush=True)
    med = {k: statistics.median(row[k] for row in rows) for k in rows[0]}
    return {
        "example": "model_bound",
        "args": args,
        "pairs": repeats,
        **{f"{k}_median": v for k, v in med.items()},
        "settled_epoch_ratio": med["adapt_epoch_s"] / med["written_epoch_s"],
        "pairs_raw": rows,
    }


DDP_SCRIPT = ROOT / "tests" / "scripts" / "ddp_ordered.py"
DDP_ARGS = ["--epochs", "6", "--samples", "4096", "--latency-ms", "5"]


def rank_digests(stdout: str) -> dict[str, str]:
    return dict(re.findall(r"rank (\d+) digest ([0-9a-f]{64})", stdout))


def ranks(repeats: int, db: str) -> dict[str, Any]:
    """A 2-rank DDP job: torchrun as written against --adapt, in interleaved pairs."""
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    pairs = []
    for _ in range(repeats):
        plain_s, plain_out, _ = timed([*torchrun, "--nproc-per-node=2", str(DDP_SCRIPT), *DDP_ARGS])
        adapt = [*CLI, "run", str(DDP_SCRIPT), "--adapt", "--nproc-per-node", "2"]
        adapt_s, adapt_out, _ = timed([*adapt, "--storage", db, "--", *DDP_ARGS])
        same = (
            rank_digests(plain_out) == rank_digests(adapt_out) and len(rank_digests(plain_out)) == 2
        )
        pairs.append({"torchrun_s": plain_s, "adapt_s": adapt_s, "same_order": same})
        print(json.dumps(pairs[-1]), flush=True)
    return {
        "torchrun_s": statistics.median(p["torchrun_s"] for p in pairs),
        "adapt_s": statistics.median(p["adapt_s"] for p in pairs),
        "speedup": statistics.median(p["torchrun_s"] / p["adapt_s"] for p in pairs),
        "same_order": all(p["same_order"] for p in pairs),
        "pairs": pairs,
    }


EVAL_SCRIPT = ROOT / "tests" / "scripts" / "epochs.py"
EVAL_ARGS = [
    *("--size", "512", "--latency", "0.003", "--val-size", "256", "--val-latency", "0.003"),
    *("--epochs", "12", "--build-once"),
]


def eval_passes(repeats: int, db: str, tmp: Path) -> dict[str, Any]:
    """The validation pass tuned on its own passes, against the script as written."""
    pairs = []
    for i in range(repeats):
        row: dict[str, Any] = {}
        for tag, head in (("written", [sys.executable]), ("adapt", [*CLI, "run", "--adapt"])):
            report = tmp / f"eval-{tag}-{i}.jsonl"
            tail = ["--storage", db, "--"] if tag == "adapt" else []
            wall, _, _ = timed(
                [*head, str(EVAL_SCRIPT), *tail, *EVAL_ARGS, "--report", str(report)]
            )
            epochs = [json.loads(line) for line in report.read_text().splitlines()]
            row[f"{tag}_s"] = wall
            row[f"{tag}_epoch_s"] = statistics.median(e["epoch_s"] for e in epochs[-3:])
            row[f"{tag}_val_s"] = statistics.median(e["val_s"] for e in epochs[-3:])
            row[f"{tag}_first_val_s"] = epochs[0]["val_s"]
            row[f"{tag}_orders"] = sorted({e["val_order"] for e in epochs})
        row["same_order"] = row["written_orders"] == row["adapt_orders"]
        row["speedup"] = row["written_s"] / row["adapt_s"]
        pairs.append(row)
        print(json.dumps(row), flush=True)

    def med(key: str) -> float:
        return statistics.median(p[key] for p in pairs)

    return {
        "written_s": med("written_s"),
        "adapt_s": med("adapt_s"),
        "speedup": med("speedup"),
        "written_epoch_s": med("written_epoch_s"),
        "settled_epoch_s": med("adapt_epoch_s"),
        "written_val_s": med("written_val_s"),
        "settled_val_s": med("adapt_val_s"),
        "same_order": all(p["same_order"] for p in pairs),
        "pairs": pairs,
    }


def per_batch_cost(batches: int = 3000, repeats: int = 5) -> dict[str, Any]:
    """Microseconds a batch costs through the switchable loader against the plain one (0
    workers, a trivial dataset: the loader's own cost is all there is)."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    from autotune.probe.loader._switch import SwitchableLoader

    data = TensorDataset(torch.arange(batches * 8))

    def seconds(make: Any) -> float:
        torch.manual_seed(0)
        t0 = time.perf_counter()
        for _ in make():
            pass
        return time.perf_counter() - t0

    plain, switched = [], []
    for _ in range(repeats):  # interleaved
        plain.append(seconds(lambda: DataLoader(data, batch_size=8, shuffle=True)))
        loader = DataLoader(data, batch_size=8, shuffle=True)
        switched.append(seconds(lambda loader=loader: SwitchableLoader(loader)))
    per = 1e6 / batches
    return {
        "plain_us": statistics.median(plain) * per,
        "switchable_us": statistics.median(switched) * per,
        "added_us": (statistics.median(switched) - statistics.median(plain)) * per,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", default=",".join(RUNS))
    parser.add_argument("--out", default="")
    parser.add_argument("--cost-repeats", type=int, default=0)
    parser.add_argument("--overhead-repeats", type=int, default=0)
    parser.add_argument("--steady-repeats", type=int, default=0)
    parser.add_argument("--ranks-repeats", type=int, default=0)
    parser.add_argument("--eval-repeats", type=int, default=0)
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            db = f"sqlite:///{Path(tmp) / f'round{r}.db'}"
            for name in names:  # interleaved: each round visits every example once
                row = one(name, db, f"r{r}")
                row["round"] = r
                rows.append(row)
                print(json.dumps(row), flush=True)
        model_cost = (
            cost(args.cost_repeats, f"sqlite:///{Path(tmp) / 'cost.db'}")
            if args.cost_repeats
            else None
        )
        fixed = (
            fixed_cost(args.overhead_repeats, f"sqlite:///{Path(tmp) / 'fixed.db'}")
            if args.overhead_repeats
            else None
        )
        steady = (
            steady_cost(args.steady_repeats, f"sqlite:///{Path(tmp) / 'steady.db'}")
            if args.steady_repeats
            else None
        )
        multi_rank = (
            ranks(args.ranks_repeats, f"sqlite:///{Path(tmp) / 'ranks.db'}")
            if args.ranks_repeats
            else None
        )
        evaluation = (
            eval_passes(args.eval_repeats, f"sqlite:///{Path(tmp) / 'eval.db'}", Path(tmp))
            if args.eval_repeats
            else None
        )
    summary = []
    for name in names:
        mine = [r for r in rows if r["example"] == name]
        if not mine:
            continue

        def med(key: str, rows_: list[dict[str, Any]] = mine) -> float:
            return statistics.median(r[key] for r in rows_)

        summary.append(
            {
                "example": name,
                "written_s": med("written_s"),
                "probe_plus_run_s": med("probe_s") + med("probe_run_s"),
                "adapt_s": med("adapt_s"),
                "best_from_start_s": med("best_from_start_s"),
                "speedup_vs_written": med("speedup_vs_written"),
                "adapt_over_probe_and_run": med("adapt_over_probe_and_run"),
                "regret_s": med("regret_s"),
                "regret_share": med("regret_s") / med("best_from_start_s"),
                "segments": med("segments"),
                "same_order": all(r["same_order"] for r in mine),
                "probe_run_same_order": all(r["probe_run_same_order"] for r in mine),
            }
        )
    result = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "rounds": args.rounds,
        "summary": summary,
        "model_bound_cost": model_cost,
        "fixed_cost": fixed,
        "steady_cost": steady,
        "two_ranks": multi_rank,
        "evaluation_passes": evaluation,
        "per_batch": per_batch_cost() if args.overhead_repeats else None,
        "runs": rows,
    }
    print(json.dumps({k: v for k, v in result.items() if k != "runs"}, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
