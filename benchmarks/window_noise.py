"""How many windows, of what length, does a probe need? Fine-grained probes against long runs.

For each (workload, config), strictly one process at a time and interleaved round by round
(fine probe A, long A, fine probe B, long B, ...): a *fine* probe measures ``--fine-windows``
windows of ``--fine-s`` seconds after the usual steady-state warm-up; a *long* run measures
``--long-s`` seconds in four windows (``under_load.long_rate``'s method). From each fine
probe's window sequence the probe policies below are replayed offline: the first k windows
(of fine length, or merged in threes into windows three times as long), stopped by a fixed
count or by the sequential rule ``ProbeSettings.enough`` would apply with the given
``settled_spread``. Each policy's figure (the median of its windows, as the tuner reads a
probe) is set against the median of the long runs of the same config in the same run.

Reported per config and policy: the median |figure / long - 1| over rounds, the worst, and the
measured seconds the policy spends; the spread between the long runs themselves (what one run
of a config differs from the next) is the floor no probe can beat.

    python benchmarks/window_noise.py [--rounds 4] [--fine-s 0.5] [--fine-windows 15]
                                      [--long-s 16] [--out docs/window-noise.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from under_load import long_rate, run_header

from autotune.contract import LoaderConfig, ProbeSettings, TrialConfig
from autotune.runner import BaseRunner, SubprocessRunner, Target

ROOT = Path(__file__).resolve().parent.parent
SCRIPT_ARGS = ("--epochs", "100000")


def _workers(n: int) -> LoaderConfig:
    return LoaderConfig(num_workers=n, persistent_workers=True) if n else LoaderConfig()


CONFIGS: dict[str, tuple[str, LoaderConfig]] = {
    "io_bound, as written": ("io_bound", LoaderConfig()),
    "io_bound, 16 workers": ("io_bound", _workers(16)),
    "io_bound, 48 workers": ("io_bound", _workers(48)),
    "io_bound, 96 workers": ("io_bound", _workers(96)),
    "longtail_io, 32 workers": ("longtail_io", _workers(32)),
    "cpu_bound, 2 workers": ("cpu_bound", _workers(2)),
    "model_bound, as written": ("model_bound", LoaderConfig()),
}


def merged(windows: Sequence[float], k: int) -> list[float]:
    """Consecutive windows of equal length merged k at a time (rates averaged)."""
    return [statistics.fmean(windows[i : i + k]) for i in range(0, len(windows) - k + 1, k)]


def fixed(n: int, k: int) -> Callable[[Sequence[float]], tuple[float, int] | None]:
    """The median of the first n windows of k fine windows each; fine windows spent."""

    def policy(fine: Sequence[float]) -> tuple[float, int] | None:
        windows = merged(fine, k)[:n]
        return (statistics.median(windows), n * k) if len(windows) == n else None

    return policy


def sequential(
    least: int, most: int, k: int, spread: float
) -> Callable[[Sequence[float]], tuple[float, int] | None]:
    """``ProbeSettings.enough`` with ``min_windows=least``, ``windows=most``,
    ``settled_spread=spread`` over windows of k fine windows each."""
    settings = ProbeSettings(windows=most, min_windows=least, settled_spread=spread)

    def policy(fine: Sequence[float]) -> tuple[float, int] | None:
        windows = merged(fine, k)
        for n in range(1, len(windows) + 1):
            if settings.enough(windows[:n]):
                return statistics.median(windows[:n]), n * k
        return None

    return policy


def policies() -> dict[str, Callable[[Sequence[float]], tuple[float, int] | None]]:
    out: dict[str, Callable[[Sequence[float]], tuple[float, int] | None]] = {}
    out["5 x 3 (today's default: 5 windows of 3 fine ones)"] = fixed(5, 3)
    out["today's rule: 2-5 x 3, settled 5%"] = sequential(2, 5, 3, 0.05)
    for n in (2, 3):
        out[f"{n} x 3"] = fixed(n, 3)
    for n in (3, 4, 6, 9):
        out[f"{n} x 1"] = fixed(n, 1)
    out["3-9 x 1, settled 10%"] = sequential(3, 9, 1, 0.10)
    out["3-6 x 1, settled 15%"] = sequential(3, 6, 1, 0.15)
    return out


def run(
    runner: BaseRunner, rounds: int, fine_s: float, fine_windows: int, long_s: float
) -> dict[str, Any]:
    fine_settings = ProbeSettings(window_s=fine_s, windows=fine_windows, min_windows=0)
    raw: dict[str, dict[str, list[Any]]] = {
        name: {"fine": [], "long": [], "warmup_s": [], "wall_s": []} for name in CONFIGS
    }
    for r in range(rounds):
        for name, (workload, config) in CONFIGS.items():
            script = ROOT / "examples" / f"{workload}.py"
            trial = TrialConfig(loader=config, settings=fine_settings, mode="measure")
            res = runner.run(Target(str(script), SCRIPT_ARGS), trial, timeout_s=180)
            if res.ok and res.windows:
                raw[name]["fine"].append(list(res.windows))
                raw[name]["warmup_s"].append(res.warmup_s_used)
                raw[name]["wall_s"].append(res.wall_s)
            rate = long_rate(runner, script, config, long_s)
            if rate:
                raw[name]["long"].append(rate)
            print(f"round {r + 1} {name}: fine {res.samples_per_s} long {rate}", flush=True)
    report: dict[str, Any] = {"header": run_header(), "fine_s": fine_s, "configs": {}}
    for name, data in raw.items():
        longs = data["long"]
        if not longs or not data["fine"]:
            continue
        long = statistics.median(longs)
        rows = {}
        for label, policy in policies().items():
            errors, spent = [], []
            for fine in data["fine"]:
                got = policy(fine)
                if got is None:
                    continue
                errors.append(abs(got[0] / long - 1))
                spent.append(got[1] * fine_s)
            if errors:
                rows[label] = {
                    "median_error": round(statistics.median(errors), 4),
                    "worst_error": round(max(errors), 4),
                    "measured_s": round(statistics.median(spent), 2),
                }
        rows_long = [abs(x / long - 1) for x in longs]
        report["configs"][name] = {
            "long_median": round(long, 1),
            "long_runs_error": round(max(rows_long), 4),
            "warmup_s": [round(x or 0, 2) for x in data["warmup_s"]],
            "policies": rows,
            "raw": data,
        }
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--fine-s", type=float, default=0.5)
    parser.add_argument("--fine-windows", type=int, default=15)
    parser.add_argument("--long-s", type=float, default=16.0)
    parser.add_argument("--configs", default=";".join(CONFIGS), help="names, separated by ;")
    parser.add_argument("--out", default="docs/window-noise.json")
    args = parser.parse_args()
    wanted = [c.strip() for c in args.configs.split(";") if c.strip()]
    for name in list(CONFIGS):
        if name not in wanted:
            del CONFIGS[name]
    report = run(SubprocessRunner(), args.rounds, args.fine_s, args.fine_windows, args.long_s)
    Path(args.out).write_text(json.dumps(report, indent=1))
    for name, row in report["configs"].items():
        print(f"\n{name}: long {row['long_median']} (long runs within {row['long_runs_error']})")
        for label, p in row["policies"].items():
            print(
                f"  {label:52s} median err {p['median_error']:.3f} worst {p['worst_error']:.3f}"
                f"  measured {p['measured_s']} s"
            )


if __name__ == "__main__":
    main()
