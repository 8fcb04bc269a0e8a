"""The agreement benchmark's arithmetic, on a fake runner: no real probes."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

from autotune.contract import LoaderConfig, ProbeResult, TrialConfig
from autotune.runner import BaseRunner, Target
from autotune.runner._base import WindowCallback

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    path = ROOT / "benchmarks" / "agreement.py"
    spec = importlib.util.spec_from_file_location("agreement", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class RateRunner(BaseRunner):
    """Long runs deliver 100 x workers + 50; the probe sees 10% less with 8 workers."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, bool]] = []

    def run(
        self,
        target: Target,
        config: TrialConfig,
        *,
        timeout_s: float,
        on_window: WindowCallback | None = None,
    ) -> ProbeResult:
        workers = config.loader.num_workers or 0
        long = config.settings.window_s >= 10
        self.calls.append((workers, long))
        rate = 100.0 * workers + 50
        if not long and workers == 8:
            rate *= 0.9
        if workers == 32:
            return ProbeResult(status="crashed", reason="too many open files")
        return ProbeResult(status="ok", samples_per_s=rate)


def test_kendall_tau() -> None:
    bench = _bench()
    assert bench.kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert bench.kendall_tau([1, 2, 3, 4], [40, 30, 20, 10]) == -1.0
    assert bench.kendall_tau([1, 2, 3], [1, 3, 2]) == 1 / 3
    # tau-b with a tie: (C - D) / sqrt((C + D + Tx)(C + D + Ty)) = 2 / sqrt(3 * 2)
    assert math.isclose(bench.kendall_tau([1, 2, 3], [1, 2, 2]), 2 / math.sqrt(6))
    assert bench.kendall_tau([1], [1]) is None


def test_worst_ratio_is_farthest_from_one_either_way() -> None:
    bench = _bench()
    assert bench.worst([0.9, 1.05, 1.8]) == 1.8
    assert bench.worst([0.4, 1.05, 1.8]) == 0.4
    assert bench.worst([]) is None


def test_run_workload_interleaves_and_reports_ratios() -> None:
    bench = _bench()
    runner = RateRunner()
    out = bench.run_workload(
        "io_bound",
        bench.fixed_configs(quick=False),
        runner=runner,
        long_s=60,
        reverse=True,
        log=lambda *a: None,
    )
    # probe A, long A, probe B, long B, ..., then the same in reverse.
    assert runner.calls[:4] == [(0, False), (0, True), (2, False), (2, True)]
    assert runner.calls[-2:] == [(0, False), (0, True)] and len(runner.calls) == 16
    rows = {r["name"]: r for r in out["configs"]}
    assert rows["as_written"]["ratio"] == 1.0
    assert math.isclose(rows["w8_persistent"]["ratio"], 0.9)
    assert rows["w32_persistent"]["ratio"] is None  # crashed both ways: no pair
    assert rows["w32_persistent"]["statuses"] == ["crashed/crashed"] * 2
    assert out["median_ratio"] == 1.0 and math.isclose(out["worst_ratio"], 0.9)
    assert out["kendall_tau"] == 1.0  # the 10% dip does not change the order


def test_long_settings_span_the_long_run() -> None:
    bench = _bench()
    s = bench.long_settings(60)
    assert s.window_s * s.windows == 60
    assert isinstance(bench.fixed_configs(quick=True)["w2_persistent"], LoaderConfig)
