"""Agreement under load: autotune beside a CPU-spinning process, checked by long runs.

For each example, with one process spinning on a core for the whole time (started here and
running before the search starts):

1. ``autotune probe`` (the real CLI, ``--json``) searches: its pick and the figure it states;
2. then, strictly one at a time and interleaved (pick, grid[0], grid[1], ..., then again), long
   runs of the pick and of a small grid of worker counts under the same spinner: the same
   probe machinery with the config applied and ``--long-s`` seconds of windows after the
   steady-state warm-up (``benchmarks/agreement.py``'s method).

Reported per example: the stated figure against the pick's long run (``stated_vs_long``:
1.00 is exact), the pick's long run against the best long run of the grid (``pick_vs_grid``:
1.00 or more means the search found the grid's best or better), and what the answer said of
the load (its ``interference.condition``, ``comparison`` and speedup).

    python benchmarks/under_load.py [--workloads io_bound,model_bound] [--long-s 12]
                                    [--rounds 2] [--trials 12] [--out docs/under-load.json]
                                    [--script-args="--latency-ms 20"] [--grid 0,4,12]
                                    [--probe-args="--max-workers 12"] [--spin baseline]
                                    [--grid-threads 1]

``--script-args`` go to every example (after ``--epochs 100000``), ``--probe-args`` to the
search's ``autotune probe``; ``--grid`` is the worker counts of the grid, and
``--grid-threads`` adds each of them again with that many torch threads. ``--spin
baseline`` kills the spinner at the CLI's own line for trial #0, so the script as written is
measured beside it and everything after on a quiet machine: the stated speedup
(``speedup``) against the one the long runs show (``speedup_long``, the pick against 0
workers, as the examples are written).

The search and the long runs share the machine with the spinner only: run nothing else
beside it (two probes measure each other).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from autotune.contract import LoaderConfig, ProbeSettings, TrialConfig
from autotune.runner import BaseRunner, SubprocessRunner, Target

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SPIN = "print('spinning', flush=True)\nwhile True: pass"
GRID = (0, 4, 16, 48)
LONG_WINDOWS = 4
SCRIPT_ARGS = ("--epochs", "100000")


def run_header() -> dict[str, str]:
    """The machine and the time a benchmark's report was measured on."""
    return {
        "machine": f"{platform.node()} {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


@contextmanager
def spinner() -> Iterator[subprocess.Popen[str]]:
    """One process spinning on a core until the block ends."""
    with subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True) as p:
        try:
            assert p.stdout is not None
            if p.stdout.readline().strip() != "spinning":
                raise RuntimeError("the spinner did not start")
            yield p
        finally:
            p.kill()


def search(
    script: Path,
    db: str,
    trials: int,
    extra: tuple[str, ...] = (),
    timeout_s: float = 1500,
    script_args: tuple[str, ...] = SCRIPT_ARGS,
    on_line: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """The real CLI's answer (``--json``) for ``script``; ``on_line`` sees each line of its
    progress (stderr) as it is written."""
    cmd = [sys.executable, "-m", "autotune.cli", "probe", str(script), "--storage", db]
    cmd += ["--json", "--trials", str(trials), "--trial-timeout", "90", *extra]
    err: list[str] = []

    def follow(stream: IO[str]) -> None:
        for line in stream:
            err.append(line)
            on_line(line)

    with subprocess.Popen(
        [*cmd, "--", *script_args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        reader = threading.Thread(target=follow, args=(proc.stderr,), daemon=True)
        reader.start()
        out = proc.stdout.read()
        code = proc.wait(timeout=timeout_s)
        reader.join(timeout=60)
    if code != 0:
        raise RuntimeError(f"autotune probe failed ({code}): {''.join(err)[-2000:]}")
    answer: dict[str, Any] = json.loads(out)
    return answer


def stop_after_baseline(spin: subprocess.Popen[str]) -> Callable[[str], None]:
    """Kills ``spin`` at the CLI's own line for trial #0: the script as written is measured
    beside the spinner, every later trial on a quiet machine."""

    def on_line(line: str) -> None:
        if line.strip().startswith("#0 ") and spin.poll() is None:
            spin.kill()

    return on_line


def long_rate(
    runner: BaseRunner,
    script: Path,
    config: LoaderConfig,
    long_s: float,
    script_args: tuple[str, ...] = SCRIPT_ARGS,
) -> float | None:
    """Samples/s of ``config`` over ``long_s`` seconds of windows after warm-up."""
    settings = ProbeSettings(window_s=long_s / LONG_WINDOWS, windows=LONG_WINDOWS, min_windows=0)
    trial = TrialConfig(loader=config, settings=settings, mode="measure")
    result = runner.run(Target(str(script), script_args), trial, timeout_s=long_s + 180)
    return result.samples_per_s if result.ok else None


def grid_configs(
    workers: tuple[int, ...] = GRID, threads: tuple[int, ...] = ()
) -> dict[str, LoaderConfig]:
    """Each worker count as the script otherwise runs it, and again with each of ``threads``
    torch threads (``LoaderConfig.threads``)."""
    grid = {f"{n} workers": LoaderConfig(num_workers=n, persistent_workers=n > 0) for n in workers}
    for t in threads:
        for n in workers:
            grid[f"{n} workers, {t} threads"] = replace(grid[f"{n} workers"], threads=t)
    return grid


def compare(
    pick: LoaderConfig,
    grid: dict[str, LoaderConfig],
    measure: Callable[[LoaderConfig], float | None],
    rounds: int,
) -> tuple[list[float], dict[str, list[float]]]:
    """Long runs of the pick and the grid, interleaved, ``rounds`` times each."""
    picked: list[float] = []
    rows: dict[str, list[float]] = {name: [] for name in grid}
    for _ in range(rounds):
        rate = measure(pick)
        if rate:
            picked.append(rate)
        for name, config in grid.items():
            rate = measure(config)
            if rate:
                rows[name].append(rate)
    return picked, rows


def summarize(
    answer: dict[str, Any], picked: list[float], rows: dict[str, list[float]]
) -> dict[str, Any]:
    """The two ratios the benchmark is for, from the answer and the long runs."""
    stated = (answer.get("recommended") or {}).get("samples_per_s")
    pick_long = statistics.median(picked) if picked else None
    grid = {name: statistics.median(v) for name, v in rows.items() if v}
    best = max(grid.values(), default=None)
    said = answer.get("interference") or {}
    as_written = statistics.median(rows["0 workers"]) if rows.get("0 workers") else None
    return {
        "pick": (answer.get("recommended") or {}).get("config"),
        "stated_samples_per_s": stated,
        "pick_long_samples_per_s": picked,
        "grid_long_samples_per_s": rows,
        "stated_vs_long": stated / pick_long if stated and pick_long else None,
        "pick_vs_grid": pick_long / best if pick_long and best else None,
        "best_of_grid": max(grid, key=lambda k: grid[k]) if grid else None,
        "speedup": answer.get("speedup"),
        # The examples' loaders are written with 0 workers: the speedup the long runs show.
        "speedup_long": pick_long / as_written if pick_long and as_written else None,
        "condition": said.get("condition"),
        "comparison": said.get("comparison"),
        "stop_reason": answer.get("stop_reason"),
        "probe_seconds": answer.get("probe_seconds"),
    }


def run_workload(
    name: str,
    db: str,
    *,
    trials: int,
    long_s: float,
    rounds: int,
    extra: tuple[str, ...] = (),
    grid: tuple[int, ...] = GRID,
    grid_threads: tuple[int, ...] = (),
    script_args: tuple[str, ...] = SCRIPT_ARGS,
    spin: str = "all",
) -> dict[str, Any]:
    script = EXAMPLES / f"{name}.py"
    runner = SubprocessRunner()
    with spinner() as p:
        started = time.monotonic()
        on_line = stop_after_baseline(p) if spin == "baseline" else (lambda line: None)
        answer = search(script, db, trials, extra, script_args=script_args, on_line=on_line)
        searched = time.monotonic() - started
        pick = LoaderConfig.from_dict((answer.get("recommended") or {}).get("config") or {})
        picked, rows = compare(
            pick,
            grid_configs(grid, grid_threads),
            lambda c: long_rate(runner, script, c, long_s, script_args),
            rounds,
        )
    return {"workload": name, "search_s": round(searched, 1), **summarize(answer, picked, rows)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workloads", default="io_bound,model_bound")
    parser.add_argument("--long-s", type=float, default=12.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--db", default="sqlite:///under-load.db")
    parser.add_argument("--out", default=None)
    parser.add_argument("--script-args", default="", help="more arguments to every example")
    parser.add_argument("--probe-args", default="", help="more arguments to autotune probe")
    parser.add_argument("--grid", default=",".join(map(str, GRID)), help="worker counts")
    parser.add_argument(
        "--grid-threads",
        default="",
        help="torch thread counts: every grid worker count again with each (e.g. 1)",
    )
    parser.add_argument(
        "--spin",
        choices=("all", "baseline"),
        default="all",
        help="all: the spinner runs throughout; baseline: only while the script as written is"
        " measured (killed at the CLI's line for #0; later trials and long runs are quiet)",
    )
    args = parser.parse_args(argv)
    script_args = (*SCRIPT_ARGS, *shlex.split(args.script_args))
    grid = tuple(int(n) for n in args.grid.split(","))
    report: dict[str, Any] = {
        **run_header(),
        "spinner": "one process spinning on a core for the whole run"
        if args.spin == "all"
        else "one process spinning on a core until the script as written was measured",
        "script_args": list(script_args),
        "probe_args": shlex.split(args.probe_args),
        "workloads": [],
    }
    for name in args.workloads.split(","):
        row = run_workload(
            name,
            args.db,
            trials=args.trials,
            long_s=args.long_s,
            rounds=args.rounds,
            extra=tuple(shlex.split(args.probe_args)),
            grid=grid,
            grid_threads=tuple(int(t) for t in args.grid_threads.split(",") if t),
            script_args=script_args,
            spin=args.spin,
        )
        print(json.dumps(row), flush=True)
        report["workloads"].append(row)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
