"""Tuning quality vs an exhaustive grid.

For each workload, in one run and strictly one probe at a time:
  (a) autotune: Tuner + the runner, default TunerOptions except the probe settings, which
      every arm shares; a fresh SQLite study in a temporary directory;
  (b) an exhaustive grid (GRID / QUICK_GRID below; num_workers=0 counted once);
  (c) the script as written, and PyTorch's defaults (probed only where they differ);
  (d) the common heuristic num_workers = os.cpu_count();
  (e) plain Optuna TPE (default sampler, no seeding, pruning or ceiling) over the same
      SearchSpace, with as many trials as autotune used;
then grid-best and autotune's pick are re-measured interleaved (A B A B A B ...) and the
ratio of their medians is reported with the spread of the repeats.

    python benchmarks/tuning_quality.py [--quick] [--workloads io_bound,cpu_bound]
                                        [--out docs/benchmark-results.json]

The runner is injectable (``run_workload(..., runner=...)``) so a fake runner can test the
benchmark's logic without real probes (tests/benchmarks/test_tuning_quality.py).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune import state
from autotune.contract import LoaderConfig, ProbeResult, ProbeSettings, TrialConfig
from autotune.runner import BaseRunner, SubprocessRunner, Target
from autotune.tuner import (
    SearchSpace,
    StudyKey,
    Tuner,
    TunerOptions,
    open_study,
    recommended_trial,
    summarize,
    usable,
)
from autotune.tuner.workers import worker_range

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# Shared by every arm, so each arm pays the same per probe.
SETTINGS = ProbeSettings(warmup_s=0.5, window_s=0.75, windows=4)
QUICK_SETTINGS = ProbeSettings(warmup_s=0.3, window_s=0.5, windows=4)
GRID = {
    "num_workers": (0, 1, 2, 4, 8, 16, 32),
    "prefetch_factor": (2, 8),
    "persistent_workers": (False, True),
}
QUICK_GRID = {
    "num_workers": (0, 2, 8, 32),
    "prefetch_factor": (2,),
    "persistent_workers": (False, True),
}
TRIAL_TIMEOUT_S = 120.0
TARGET_RATIO = 0.97
TARGET_PROBE_SHARE = 0.25
TARGET_TRIALS = 8


@dataclass(frozen=True)
class Workload:
    name: str
    script: str
    args: tuple[str, ...] = ()
    expected: str = ""  # the diagnosis a correct tuner gives
    bottleneck: str = ""  # in words, for the table


WORKLOADS = (
    Workload("io_bound", "io_bound.py", (), "input-latency", "I/O latency (4 ms/sample)"),
    Workload(
        "longtail_io", "longtail_io.py", (), "input-latency", "long-tail I/O (2 ms, 2% at 50 ms)"
    ),
    Workload("cpu_bound", "cpu_bound.py", (), "input-cpu", "CPU-bound transforms"),
    Workload("model_bound", "model_bound.py", (), "model", "model step"),
    Workload("startup_bound", "startup_bound.py", (), "startup", "worker start-up, short epochs"),
    Workload("flaky_workers", "flaky_workers.py", (), "input-latency", "I/O; >8 workers crash"),
)


def grid_configs(grid: dict[str, tuple[Any, ...]]) -> list[LoaderConfig]:
    """The grid's configs; prefetch/persistence do not exist at 0 workers, so it is one point."""
    configs: list[LoaderConfig] = []
    for workers in grid["num_workers"]:
        if workers == 0:
            configs.append(LoaderConfig(num_workers=0))
            continue
        for prefetch, persistent in itertools.product(
            grid["prefetch_factor"], grid["persistent_workers"]
        ):
            configs.append(
                LoaderConfig(
                    num_workers=workers, prefetch_factor=prefetch, persistent_workers=persistent
                )
            )
    return configs


def _label(config: LoaderConfig | None) -> str:
    if config is None:
        return "-"
    parts = [f"{k}={v}" for k, v in config.to_dict().items() if v is not None]
    return " ".join(parts) or "as written"


def _median(values: list[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def _spread(values: list[float]) -> float | None:
    """(max - min) / median of repeated measurements of one config."""
    mid = _median(values)
    return (max(values) - min(values)) / mid if values and mid else None


@dataclass
class Prober:
    """Every probe of a workload goes through here: one at a time, with its cost counted."""

    runner: BaseRunner
    target: Target
    settings: ProbeSettings
    log: Callable[[str], None] = lambda text: None
    probes: int = 0
    seconds: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, config: LoaderConfig, arm: str) -> ProbeResult:
        trial = TrialConfig(loader=config, settings=self.settings)
        result = self.runner.run(self.target, trial, timeout_s=TRIAL_TIMEOUT_S)
        self.probes += 1
        self.seconds += result.wall_s or 0.0
        rate = f"{result.samples_per_s:,.0f}/s" if result.samples_per_s else result.status
        self.log(f"    [{arm}] {_label(config)}: {rate}")
        self.history.append(
            {
                "arm": arm,
                "config": config.to_dict(),
                "status": result.status,
                "samples_per_s": result.samples_per_s,
                "wall_s": result.wall_s,
            }
        )
        return result


def _rate(result: ProbeResult) -> float | None:
    return result.samples_per_s if result.ok else None


def run_grid(prober: Prober, grid: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
    before_n, before_s = prober.probes, prober.seconds
    rows: list[dict[str, Any]] = []
    for config in grid_configs(grid):
        result = prober(config, "grid")
        rows.append(
            {"config": config.to_dict(), "samples_per_s": _rate(result), "status": result.status}
        )
    measured = [r for r in rows if r["samples_per_s"]]
    best = max(measured, key=lambda r: r["samples_per_s"]) if measured else None
    return {
        "rows": rows,
        "best": best,
        "trials": prober.probes - before_n,
        "probe_seconds": prober.seconds - before_s,
    }


def run_autotune(
    workload: Workload,
    runner: BaseRunner,
    target: Target,
    settings: ProbeSettings,
    workdir: Path,
    *,
    cpu_count: int,
    hardware: dict[str, Any],
) -> tuple[optuna.Study, dict[str, Any]]:
    url = f"sqlite:///{workdir / f'{workload.name}.db'}"
    storage = optuna.storages.RDBStorage(url)
    key = StudyKey.for_target(target, hardware)
    study = open_study(storage, key.default_name(), key)
    tuner = Tuner(
        study, target, runner, TunerOptions(settings=settings), cpu_count=cpu_count, cuda=False
    )
    outcome = tuner.run()
    summary = summarize(study, url).to_dict()
    summary["outcome"] = outcome.stop_reason
    return study, summary


def run_tpe(prober: Prober, script: LoaderConfig, trials: int, cpu_count: int) -> dict[str, Any]:
    """Plain Optuna: the default TPESampler over the same space, nothing else."""
    before_n, before_s = prober.probes, prober.seconds
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize")
    space = SearchSpace.for_machine(cuda=False, max_workers=worker_range(cpu_count), script=script)
    best: tuple[float, LoaderConfig] | None = None
    for _ in range(trials):
        trial = study.ask()
        config = space.suggest(trial)
        rate = _rate(prober(config, "tpe"))
        if rate is None:
            study.tell(trial, state=TrialState.FAIL)
            continue
        study.tell(trial, rate)
        if best is None or rate > best[0]:
            best = (rate, config)
    return {
        "trials": prober.probes - before_n,
        "probe_seconds": prober.seconds - before_s,
        "best": None if best is None else {"samples_per_s": best[0], "config": best[1].to_dict()},
    }


def trials_to_reach(study: optuna.Study, threshold: float) -> int | None:
    """Counted trials (baseline = 1) until one first measured at least ``threshold``."""
    n = 0
    for t in sorted(study.get_trials(deepcopy=False), key=lambda t: t.number):
        if state.record_of(t).duplicate_of is not None or t.state == TrialState.RUNNING:
            continue
        n += 1
        if usable(t) and t.value is not None and t.value >= threshold:
            return n
    return None


def interleave(
    prober: Prober, a: LoaderConfig, b: LoaderConfig, repeats: int
) -> tuple[list[float], list[float]]:
    ra: list[float] = []
    rb: list[float] = []
    for _ in range(repeats):
        for config, sink, arm in ((a, ra, "confirm grid-best"), (b, rb, "confirm autotune")):
            rate = _rate(prober(config, arm))
            if rate is not None:
                sink.append(rate)
    return ra, rb


def run_workload(
    workload: Workload,
    *,
    runner: BaseRunner,
    settings: ProbeSettings,
    grid: dict[str, tuple[Any, ...]],
    repeats: int,
    workdir: Path,
    cpu_count: int,
    hardware: dict[str, Any],
    script_path: str | None = None,
    log: Callable[[str], None] = lambda text: None,
) -> dict[str, Any]:
    target = Target(script_path or str(EXAMPLES / workload.script), workload.args)
    prober = Prober(runner, target, settings, log)
    started = time.monotonic()

    log(f"  (c) as written / PyTorch defaults, (d) num_workers = cpu count ({cpu_count})")
    written = prober(LoaderConfig(), "as written")
    script = written.script_config
    defaults = LoaderConfig(num_workers=0, pin_memory=False, persistent_workers=False)
    same_as_defaults = (
        not script.num_workers and not script.pin_memory and not script.persistent_workers
    )
    torch_defaults = written if same_as_defaults else prober(defaults, "pytorch defaults")
    cpu_heuristic = prober(LoaderConfig(num_workers=cpu_count), "workers=cpu_count")

    log("  (b) grid")
    grid_out = run_grid(prober, grid)

    log("  (a) autotune")
    at_started = time.monotonic()
    counting = _Counting(runner, prober, "autotune")
    study, summary = run_autotune(
        workload,
        counting,
        target,
        settings,
        workdir,
        cpu_count=cpu_count,
        hardware=hardware,
    )
    autotune_wall = time.monotonic() - at_started
    at_trials = sum(summary["trials"].values())
    pick = recommended_trial(study)
    pick_config = LoaderConfig.from_dict(pick.params) if pick is not None else None
    if pick is not None and not pick.params:  # the baseline: the script as written
        pick_config = LoaderConfig()

    log(f"  (e) Optuna TPE, {at_trials} trials")
    tpe = run_tpe(prober, script, at_trials, cpu_count)

    out: dict[str, Any] = {
        "workload": workload.name,
        "bottleneck": workload.bottleneck,
        "script": workload.script,
        "args": list(workload.args),
        "as_written": {"config": script.to_dict(), "samples_per_s": _rate(written)},
        "pytorch_defaults": {
            "samples_per_s": _rate(torch_defaults),
            "same_as_written": same_as_defaults,
        },
        "cpu_count_heuristic": {"num_workers": cpu_count, "samples_per_s": _rate(cpu_heuristic)},
        "grid": grid_out,
        "autotune": {
            "summary": summary,
            "trials": at_trials,
            "probe_seconds": summary["probe_seconds"],
            "start_ups": counting.start_ups,
            "wall_s": autotune_wall,
            "pick": None if pick_config is None else pick_config.to_dict(),
        },
        "tpe": tpe,
    }
    grid_best = grid_out["best"]
    if grid_best is None or pick_config is None:
        out["verdict"] = {"error": "no usable grid point or no autotune pick"}
        return out
    best_config = LoaderConfig.from_dict(grid_best["config"])
    log(f"  re-measuring grid-best and autotune's pick interleaved, {repeats}x each")
    ra, rb = interleave(prober, best_config, pick_config, repeats)
    med_grid, med_at = _median(ra), _median(rb)
    ratio = med_at / med_grid if med_grid and med_at else None
    written_rate = _rate(written)
    diagnosis = (summary.get("diagnosis") or {}).get("bottleneck")
    reach = trials_to_reach(study, TARGET_RATIO * grid_best["samples_per_s"])
    probe_share = (
        summary["probe_seconds"] / grid_out["probe_seconds"] if grid_out["probe_seconds"] else None
    )
    # Against the lower of the compute and transport ceilings, as the summary states it.
    bounds = [summary.get("ceiling_samples_per_s"), summary.get("transport_ceiling_samples_per_s")]
    ceiling = min((b for b in bounds if b), default=None)
    tpe_best = (tpe["best"] or {}).get("samples_per_s")
    out["confirmation"] = {
        "grid_best_runs": ra,
        "autotune_runs": rb,
        "grid_best_median": med_grid,
        "autotune_median": med_at,
        "grid_best_spread": _spread(ra),
        "autotune_spread": _spread(rb),
    }
    out["verdict"] = {
        "ratio": ratio,
        "noise": max(s for s in (_spread(ra), _spread(rb), 0.0) if s is not None),
        "autotune_trials": at_trials,
        "grid_trials": grid_out["trials"],
        "probe_share": probe_share,
        "trials_to_97pct": reach,
        "speedup_over_written": med_at / written_rate if med_at and written_rate else None,
        "efficiency_vs_ceiling": med_at / ceiling if med_at and ceiling else None,
        "grid_best_vs_ceiling": med_grid / ceiling if med_grid and ceiling else None,
        "tpe_vs_grid_best": tpe_best / grid_best["samples_per_s"] if tpe_best else None,
        "cpu_heuristic_vs_grid_best": (
            _rate(cpu_heuristic) / grid_best["samples_per_s"] if _rate(cpu_heuristic) else None
        ),
        "diagnosis": diagnosis,
        "expected_diagnosis": workload.expected,
        "targets": {
            "ratio": ratio is not None and ratio >= TARGET_RATIO,
            "probe_share": probe_share is not None and probe_share <= TARGET_PROBE_SHARE,
            "trials_to_97pct": reach is not None and reach <= TARGET_TRIALS,
            "diagnosis": diagnosis == workload.expected,
        },
    }
    out["wall_s"] = time.monotonic() - started
    out["probes"] = prober.history
    return out


class _Counting(BaseRunner):
    """Passes autotune's probes to the real runner and logs them; autotune's own summary
    counts its probe-seconds, so nothing is added to the prober's total here."""

    def __init__(self, inner: BaseRunner, prober: Prober, arm: str) -> None:
        self.inner, self.prober, self.arm = inner, prober, arm
        self.start_ups = 0  # probe processes started: each pays Python and torch start-up

    def run(self, target: Target, config: TrialConfig, **kwargs: Any) -> ProbeResult:
        self.start_ups += 1
        result = self.inner.run(target, config, **kwargs)
        rate = f"{result.samples_per_s:,.0f}/s" if result.samples_per_s else result.status
        mode = "" if config.mode == "measure" else f" ({config.mode})"
        self.prober.log(
            f"    [{self.arm}] {_label(config.loader)}{mode}: {rate} "
            f"({len(result.windows)} windows, {result.wall_s or 0:.1f}s)"
        )
        self.prober.history.append(
            {
                "arm": self.arm,
                "mode": config.mode,
                "config": config.loader.to_dict(),
                "status": result.status,
                "samples_per_s": result.samples_per_s,
                "windows": len(result.windows),
                "wall_s": result.wall_s,
            }
        )
        return result


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _short(config: dict[str, Any]) -> str:
    return _label(LoaderConfig.from_dict(config))


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| workload | as written | grid-best (config) | autotune pick (config) | ratio ± noise "
        "| trials at/grid | start-ups at/grid | probe-s at/grid (share) | trials to 97% "
        "| speedup | eff. vs ceiling | TPE/grid | cpu_count/grid | diagnosis (expected) |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in results:
        v = r.get("verdict", {})
        c = r.get("confirmation", {})
        if "ratio" not in v:
            lines.append(f"| {r['workload']} | {v.get('error', '?')} |" + " |" * 12)
            continue
        best = r["grid"]["best"]
        ok = "✓" if v["targets"]["diagnosis"] else "✗"
        lines.append(
            f"| {r['workload']} | {_fmt(r['as_written']['samples_per_s'], ',.0f')} "
            f"| {_fmt(c['grid_best_median'], ',.0f')} ({_short(best['config'])}) "
            f"| {_fmt(c['autotune_median'], ',.0f')} ({_short(r['autotune']['pick'])}) "
            f"| {_fmt(v['ratio'], '.3f')} ± {_fmt(v['noise'], '.1%')} "
            f"| {v['autotune_trials']}/{v['grid_trials']} "
            f"| {r['autotune'].get('start_ups', '-')}/{v['grid_trials']} "
            f"| {r['autotune']['probe_seconds']:.0f}/{r['grid']['probe_seconds']:.0f} "
            f"({_fmt(v['probe_share'], '.0%')}) "
            f"| {v['trials_to_97pct'] or 'never'} | {_fmt(v['speedup_over_written'], '.2f')}x "
            f"| {_fmt(v['efficiency_vs_ceiling'], '.0%')} | {_fmt(v['tpe_vs_grid_best'], '.2f')} "
            f"| {_fmt(v['cpu_heuristic_vs_grid_best'], '.2f')} "
            f"| {v['diagnosis']} ({v['expected_diagnosis']}) {ok} |"
        )
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    import psutil

    from autotune.hardware import fingerprint

    hw = fingerprint()
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": hw.get("cpu_model"),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
        "torch": hw.get("torch"),
        "optuna": optuna.__version__,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller grid, shorter probes")
    parser.add_argument("--workloads", default="", help="comma-separated names (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved re-measurements each")
    parser.add_argument("--out", default="docs/benchmark-results.json")
    args = parser.parse_args(argv)
    chosen = [w for w in WORKLOADS if not args.workloads or w.name in args.workloads.split(",")]
    if not chosen:
        parser.error(f"no such workload; known: {', '.join(w.name for w in WORKLOADS)}")
    from autotune.hardware import fingerprint

    hardware = fingerprint()
    cpu_count = os.cpu_count() or 1
    settings = QUICK_SETTINGS if args.quick else SETTINGS
    grid = QUICK_GRID if args.quick else GRID
    report: dict[str, Any] = {
        "machine": machine(),
        "quick": args.quick,
        "settings": settings.__dict__,
        "grid": {k: list(v) for k, v in grid.items()},
        "repeats": args.repeats,
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "results": [],
    }
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="autotune-bench-") as tmp:
        for workload in chosen:
            log(f"== {workload.name}: {workload.bottleneck}")
            result = run_workload(
                workload,
                runner=SubprocessRunner(),
                settings=settings,
                grid=grid,
                repeats=args.repeats,
                workdir=Path(tmp),
                cpu_count=cpu_count,
                hardware=hardware,
                log=log,
            )
            report["results"].append(result)
            # Written after every workload, so a long run that is cut short keeps its results.
            out_path.write_text(json.dumps(report, indent=1, default=str))
            log(f"  done in {result.get('wall_s', 0):.0f}s")
    print(table(report["results"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
