"""What a probe costs before it measures: forked by the zygote against exec'd, in one run.

Two runners side by side, one forking its probes from a zygote that imported torch once
(``autotune/runner/_zygote.py``), one exec'ing each (``AUTOTUNE_ZYGOTE=0``, as before). Strictly
one probe at a time, interleaved (forked, exec'd, exec'd, forked, ...), the same trial each
time. Reported per mode: the probe's wall seconds as the runner waits for it (what a search
pays per trial), the seconds to its first window, and its samples/s, medians over the rounds;
the forked runner's first probe (the zygote's own start) is reported apart, since a search
pays it once.

    python benchmarks/probe_start.py [--rounds 6] [--workers 4] [--window 0.5] [--windows 2]
                                     [--script examples/io_bound.py] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from under_load import run_header

from autotune.contract import LoaderConfig, ProbeSettings, TrialConfig
from autotune.runner import SubprocessRunner, Target
from autotune.runner._zygote import ZYGOTE_ENV

ROOT = Path(__file__).resolve().parent.parent


def _probe(runner: SubprocessRunner, target: Target, config: TrialConfig) -> dict[str, Any]:
    started = time.monotonic()
    first: list[float] = []

    def on_window(index: int, rate: float) -> bool:
        if not first:
            first.append(time.monotonic() - started)
        return False

    res = runner.run(target, config, timeout_s=120, on_window=on_window)
    return {
        "wall_s": time.monotonic() - started,
        "first_window_s": first[0] if first else None,
        "samples_per_s": res.samples_per_s,
        "windows": [round(w) for w in res.windows],
        "status": res.status,
    }


def _in_mode(forked: bool, runner: SubprocessRunner, target: Target, config: TrialConfig) -> Any:
    os.environ[ZYGOTE_ENV] = "1" if forked else "0"
    try:
        return _probe(runner, target, config)
    finally:
        os.environ.pop(ZYGOTE_ENV, None)


def _medians(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key in ("wall_s", "first_window_s", "samples_per_s"):
        values = [r[key] for r in rows if r[key] is not None]
        out[key] = round(statistics.median(values), 3) if values else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--window", type=float, default=0.5)
    parser.add_argument("--windows", type=int, default=2)
    parser.add_argument("--script", default=str(ROOT / "examples/io_bound.py"))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()

    target = Target(args.script)
    loader = LoaderConfig(
        num_workers=args.workers,
        prefetch_factor=2 if args.workers else None,
        persistent_workers=bool(args.workers),
    )
    settings = ProbeSettings(window_s=args.window, windows=args.windows)
    config = TrialConfig(loader, settings)
    forked_runner, execd_runner = SubprocessRunner(), SubprocessRunner()
    zygote_start = _in_mode(True, forked_runner, target, config)
    rows: dict[str, list[dict[str, Any]]] = {"forked": [], "exec": []}
    for i in range(args.rounds):
        order = (True, False) if i % 2 == 0 else (False, True)
        for forked in order:
            runner = forked_runner if forked else execd_runner
            row = _in_mode(forked, runner, target, config)
            rows["forked" if forked else "exec"].append(row)
            print(("forked" if forked else "exec  "), json.dumps(row), flush=True)
    forked_runner.close()
    report = {
        **run_header(),
        "script": args.script,
        "config": {"workers": args.workers, "window_s": args.window, "windows": args.windows},
        "rounds": args.rounds,
        "zygote_first_probe": zygote_start,
        "forked": _medians(rows["forked"]),
        "exec": _medians(rows["exec"]),
        "rows": rows,
    }
    f, e = report["forked"], report["exec"]
    if f["wall_s"] and e["wall_s"]:
        report["wall_saved_s"] = round(e["wall_s"] - f["wall_s"], 3)
        report["wall_forked_vs_exec"] = round(f["wall_s"] / e["wall_s"], 3)
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
