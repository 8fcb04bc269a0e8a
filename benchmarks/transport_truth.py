"""Is the transport ceiling a ceiling? Its figure for N workers against a real probe with N.

The transport ceiling is what the loader's own machinery delivers through N workers when
samples cost nothing and there is no step: no run with N workers can beat it. For each script,
one baseline probe (which measures the ceilings after the script's own windows) and one probe
of the script with N workers, interleaved over ``--rounds``; the ratio transport / real must
not fall below 1 beyond noise. A stand-in that moves more than the real loader moves (a view
of a whole in-memory pool per sample, samples where the dataset fetches whole batches) reads
far below it.

    python benchmarks/transport_truth.py [--rounds 2] [--out docs/transport-truth.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path
from typing import Any

from autotune.contract import LoaderConfig, ProbeSettings, TrialConfig
from autotune.hardware import job_cores
from autotune.runner import SubprocessRunner, Target

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SETTINGS = ProbeSettings(warmup_s=1.0, window_s=1.0, windows=3)
# (name, script, args): in-memory data fetched a batch at a time, and per-sample datasets.
SCRIPTS: list[tuple[str, str, tuple[str, ...]]] = [
    ("copy_bound", "gpu_copy_bound.py", ("--size", "64", "--batch-size", "32", "--pool", "128")),
    ("transfer", "gpu_transfer.py", ("--size", "64", "--batch-size", "32")),
    ("io_bound", "io_bound.py", ("--epochs", "100000")),
]


def _probe(
    runner: SubprocessRunner, script: str, args: tuple[str, ...], config: TrialConfig
) -> Any:
    return runner.run(Target(str(EXAMPLES / script), args), config, timeout_s=180)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    workers = min(job_cores().usable, SETTINGS.transport_workers)
    runner = SubprocessRunner()
    rows: dict[str, dict[str, list[float]]] = {
        name: {"transport": [], "real": []} for name, *_ in SCRIPTS
    }
    try:
        for _ in range(args.rounds):
            for name, script, script_args in SCRIPTS:
                base = _probe(
                    runner, script, script_args, TrialConfig(settings=SETTINGS, mode="baseline")
                )
                figure = (base.transport_by_workers or {}).get(workers)
                real = _probe(
                    runner,
                    script,
                    script_args,
                    TrialConfig(
                        loader=LoaderConfig(num_workers=workers, persistent_workers=True),
                        settings=SETTINGS,
                    ),
                )
                if figure:
                    rows[name]["transport"].append(float(figure))
                if real.ok and real.samples_per_s:
                    rows[name]["real"].append(real.samples_per_s)
                print(name, figure, real.status, real.samples_per_s, file=sys.stderr, flush=True)
    finally:
        runner.close()
    table = {}
    for name, got in rows.items():
        t = statistics.median(got["transport"]) if got["transport"] else None
        r = statistics.median(got["real"]) if got["real"] else None
        table[name] = {**got, "workers": workers, "ratio": t / r if t and r else None}
        print(
            f"{name:12s} transport {t or 0:10,.0f}  real {r or 0:10,.0f}  "
            f"ratio {table[name]['ratio']}"
        )
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {"machine": platform.processor() or platform.machine(), "table": table}, indent=2
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
