"""Does a refactor change what the tuner does? The same deterministic fake probes
(tests/tuner/fake_runner.py), run through this checkout's tuner and another checkout's, probe by
probe: every probe asked for, the pick, its rate and interval, the stop reason, the diagnosis.

    python benchmarks/tuner_parity.py --old /path/to/other/checkout

Each side runs in its own interpreter with its own checkout first on the path; the two
reports must be identical. Real probes cannot show this: on a shared machine the same config
measures 10-47 % apart between runs, so two searches take different paths for noise alone.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# name: FakeRunner arguments (failure rules are named, so they cross the process boundary)
SCENARIOS: dict[str, dict[str, Any]] = {
    "latency": {"load_s": 0.1, "compute_s": 0.01},
    "cpu": {"load_s": 0.1, "compute_s": 0.01, "cpu_bound": True, "cores": 2},
    "model": {"load_s": 0.0005, "compute_s": 0.05},
    "deep": {"load_s": 0.2, "compute_s": 0.005},
    "crash_above_8": {"load_s": 0.1, "compute_s": 0.01, "fail_above": 8},
    "noisy": {"load_s": 0.05, "compute_s": 0.01, "noise": 0.15, "seed": 3},
}

_SIDE = """
import json, sys
import optuna
from autotune.contract import ProbeSettings
from autotune.runner import Target
from autotune.tuner import StudyKey, Tuner, TunerOptions, open_study, summarize
from tests.tuner.fake_runner import FakeRunner

optuna.logging.set_verbosity(optuna.logging.ERROR)
out = {}
for name, kw in json.loads(sys.argv[1]).items():
    above = kw.pop("fail_above", None)
    if above is not None:
        kw["fail"] = lambda c, n=above: "crashed" if (c.num_workers or 0) > n else None
    for patience, ceiling in ((2, True), (4, True), (2, False), (4, False)):
        runner = FakeRunner(**kw)
        key = StudyKey("s.py", (), {"id": "x", "cpu_count": 2})
        study = open_study(optuna.storages.InMemoryStorage(), name, key, seed=7)
        settings = ProbeSettings(warmup_s=0.1, window_s=0.1, windows=4)
        options = TunerOptions(
            settings=settings, trials=14, patience=patience, ceiling=ceiling
        )
        outcome = Tuner(study, Target("s.py"), runner, options, cpu_count=2, cuda=False).run()
        answer = summarize(study, "mem")
        s = answer if isinstance(answer, dict) else answer.to_dict()
        rec = s["recommended"] or {}
        out[f"{name}/patience={patience}" + ("" if ceiling else "/no-ceiling")] = {
            "probes": [
                [c.mode, *(getattr(c.loader, k) for k in ("num_workers", "prefetch_factor"))]
                + [c.loader.persistent_workers]
                for c in runner.calls
            ],
            "pick": rec.get("config"),
            "rate": rec.get("samples_per_s"),
            "ci95": rec.get("ci95"),
            "speedup": s["speedup"],
            "stop": s["stop_reason"],
            "outcome": outcome.stop_reason,
            "trials": s["trials"],
            "diagnosis": s["diagnosis"],
            "efficiency": s["efficiency"],
            "binding": s["binding_ceiling"],
            "probe_seconds": s["probe_seconds"],
            "failures": s["failures"],
        }
print(json.dumps(out, sort_keys=True, default=str))
"""


def run_side(checkout: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, "-c", _SIDE, json.dumps(SCENARIOS)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: the tuner failed:\n{done.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other checkout")
    args = parser.parse_args()
    old, new = run_side(args.old.resolve()), run_side(ROOT)
    differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    for key in sorted(new):
        probes = len(new[key]["probes"])
        mark = "DIFFERS" if key in differ else "same"
        print(f"{key:40s} {mark:8s} {probes:2d} probes, stop: {new[key]['stop']}")
    if differ:
        for key in differ:
            print(f"\n{key}\n old: {json.dumps(old.get(key))}\n new: {json.dumps(new.get(key))}")
        return 1
    print(f"identical: {len(new)} searches, every probe, pick, interval and stop reason")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
