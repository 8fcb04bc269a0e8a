"""The tuning-quality benchmark's logic, on the fake runner: no real probes, so it can't rot."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from autotune.contract import LoaderConfig, ProbeSettings
from tests.tuner.fake_runner import FakeRunner

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    path = ROOT / "benchmarks" / "tuning_quality.py"
    spec = importlib.util.spec_from_file_location("tuning_quality", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_grid_counts_zero_workers_once() -> None:
    bench = _bench()
    configs = bench.grid_configs(bench.GRID)
    assert len(configs) == 1 + 6 * 2 * 2
    assert configs.count(LoaderConfig(num_workers=0)) == 1


def test_one_workload_end_to_end_on_the_fake_runner(tmp_path: Path) -> None:
    bench = _bench()
    workload = bench.Workload("fake_io", "fake.py", (), "input-latency", "fake I/O")
    runner = FakeRunner(load_s=1.0, compute_s=0.01)
    result = bench.run_workload(
        workload,
        runner=runner,
        settings=ProbeSettings(windows=4),
        grid=bench.QUICK_GRID,
        repeats=3,
        workdir=tmp_path,
        cpu_count=2,
        hardware={"id": "fake", "cpu_count": 2},
        script_path=str(tmp_path / "fake.py"),
    )
    verdict = result["verdict"]
    assert result["grid"]["trials"] == len(bench.grid_configs(bench.QUICK_GRID))
    assert result["grid"]["best"]["config"]["num_workers"] == 32
    assert len(result["confirmation"]["grid_best_runs"]) == 3
    assert len(result["confirmation"]["autotune_runs"]) == 3
    assert result["tpe"]["trials"] == result["autotune"]["trials"]
    assert verdict["ratio"] is not None
    assert verdict["ratio"] > 0.5
    # The tuner's diagnosis is the tuner's business; the benchmark must record and judge it.
    assert verdict["targets"]["diagnosis"] == (verdict["diagnosis"] == "input-latency")
    assert verdict["speedup_over_written"] > 1
    assert set(verdict["targets"]) == {"ratio", "probe_share", "trials_to_97pct", "diagnosis"}
    assert "fake_io" in bench.table([result])
