"""Does a short probe predict the long run? Probe vs long-run samples/s, config by config.

For each CPU example workload and each config (the script as written; 2, 8 and 32 workers with
persistent workers; optionally a pick from --picks), run, strictly one at a time and
interleaved (probe A, long A, probe B, long B, ...; with --reverse, again in reverse order):

- the probe: ``SubprocessRunner`` with default ``ProbeSettings`` (what the tuner sees);
- the long run: the same probe machinery with the config applied, but ``LONG_WINDOWS``
  windows of ``--long-s / LONG_WINDOWS`` seconds each, after the same steady-state warm-up
  (capped at ``max_warmup_s``). The script is given ``--epochs 100000`` in both, so neither
  ends early. Why this method: every example must be measurable the same way and not every
  example prints its own rate (model_bound.py does not); long windows span epoch boundaries,
  worker restarts, memory growth and slow drifts exactly as a real run does. What it cannot
  catch is an error in the timing code shared by both (the meter's own tests and
  benchmarks/probe_overhead.py cover that).

Reported: per config the ratio probe/long (medians when repeated), per workload the median and
the worst ratio (farthest from 1) and Kendall's tau-b between the probe's ordering of the
configs and the long run's.

    python benchmarks/agreement.py [--long-s 60] [--workloads io_bound,cpu_bound]
                                   [--picks picks.json] [--reverse] [--quick]
                                   [--out docs/agreement.json]

``--picks`` is a JSON object {workload: {num_workers: .., prefetch_factor: .., ...}}.
The runner is injectable (``run_workload(..., runner=...)``): tests/benchmarks/test_agreement.py
checks the arithmetic with a fake one.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from autotune.contract import LoaderConfig, ProbeResult, ProbeSettings, TrialConfig
from autotune.runner import BaseRunner, SubprocessRunner, Target

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
WORKLOADS = (
    "io_bound",
    "longtail_io",
    "cpu_bound",
    "model_bound",
    "startup_bound",
    "flaky_workers",
)
SCRIPT_ARGS = ("--epochs", "100000")
LONG_WINDOWS = 4
PROBE_TIMEOUT_S = 180.0


def fixed_configs(quick: bool) -> dict[str, LoaderConfig]:
    configs = {"as_written": LoaderConfig()}
    for workers in (2,) if quick else (2, 8, 32):
        configs[f"w{workers}_persistent"] = LoaderConfig(
            num_workers=workers, persistent_workers=True
        )
    return configs


def kendall_tau(xs: list[float], ys: list[float]) -> float | None:
    """Kendall's tau-b of two paired lists (ties in either list handled); None if undefined."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(xs)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denom = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denom if denom else None


def worst(ratios: list[float]) -> float | None:
    """The ratio farthest from 1 (by log: 0.5 and 2.0 are equally bad)."""
    return max(ratios, key=lambda r: abs(math.log(r))) if ratios else None


@dataclass
class ConfigRow:
    name: str
    config: LoaderConfig
    probe: list[float] = field(default_factory=list)
    long: list[float] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        if not self.probe or not self.long:
            return None
        return statistics.median(self.probe) / statistics.median(self.long)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "config": {k: v for k, v in self.config.to_dict().items() if v is not None},
            "probe_samples_per_s": self.probe,
            "long_samples_per_s": self.long,
            "statuses": self.statuses,
            "ratio": self.ratio,
        }


def long_settings(long_s: float, base: ProbeSettings | None = None) -> ProbeSettings:
    base = base or ProbeSettings()
    return replace(base, window_s=long_s / LONG_WINDOWS, windows=LONG_WINDOWS)


def _one(
    runner: BaseRunner, target: Target, config: LoaderConfig, settings: ProbeSettings, t: float
) -> ProbeResult:
    trial = TrialConfig(loader=config, settings=settings, mode="measure")
    return runner.run(target, trial, timeout_s=t)


def run_workload(
    name: str,
    configs: dict[str, LoaderConfig],
    *,
    runner: BaseRunner,
    long_s: float,
    reverse: bool = False,
    probe_settings: ProbeSettings | None = None,
    log: Any = print,
) -> dict[str, Any]:
    target = Target(str(EXAMPLES / f"{name}.py"), SCRIPT_ARGS)
    short = probe_settings or ProbeSettings()
    long = long_settings(long_s, short)
    long_timeout = long_s + long.max_warmup_s + PROBE_TIMEOUT_S
    rows = [ConfigRow(key, cfg) for key, cfg in configs.items()]
    order = rows + (rows[::-1] if reverse else [])
    for row in order:
        p = _one(runner, target, row.config, short, PROBE_TIMEOUT_S)
        q = _one(runner, target, row.config, long, long_timeout)
        row.statuses.append(f"{p.status}/{q.status}")
        if p.ok and p.samples_per_s:
            row.probe.append(p.samples_per_s)
        if q.ok and q.samples_per_s:
            row.long.append(q.samples_per_s)
        log(
            f"{name} {row.name}: probe {p.status} {p.samples_per_s or 0:.0f}/s, "
            f"long {q.status} {q.samples_per_s or 0:.0f}/s"
        )
    paired = [r for r in rows if r.ratio is not None]
    ratios = [r.ratio for r in paired if r.ratio is not None]
    tau = kendall_tau(
        [statistics.median(r.probe) for r in paired], [statistics.median(r.long) for r in paired]
    )
    return {
        "workload": name,
        "configs": [r.to_dict() for r in rows],
        "median_ratio": statistics.median(ratios) if ratios else None,
        "worst_ratio": worst(ratios),
        "kendall_tau": tau,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--long-s", type=float, default=60.0)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--picks", default="", help="JSON file: {workload: {loader config}}")
    parser.add_argument("--reverse", action="store_true", help="repeat in reverse order")
    parser.add_argument("--quick", action="store_true", help="two configs per workload")
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    picks = json.loads(Path(args.picks).read_text()) if args.picks else {}
    runner = SubprocessRunner(python=sys.executable)
    started = time.time()
    results = []
    for name in [w for w in args.workloads.split(",") if w]:
        configs = fixed_configs(args.quick)
        if name in picks:
            configs["pick"] = LoaderConfig.from_dict(picks[name])
        results.append(
            run_workload(name, configs, runner=runner, long_s=args.long_s, reverse=args.reverse)
        )
        r = results[-1]
        print(
            f"== {name}: median ratio {r['median_ratio']}, worst {r['worst_ratio']}, "
            f"tau {r['kendall_tau']}",
            flush=True,
        )
    report = {
        "long_s": args.long_s,
        "probe_settings": ProbeSettings().__dict__,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "wall_s": time.time() - started,
        "workloads": results,
    }
    text = json.dumps(report, indent=2)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
