"""The probe's named ranges: NVTX for Nsight, and torch record_functions while torch.profiler
records (it does not record NVTX), so a script's own trace shows where its time went."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from torch.profiler import ProfilerActivity, profile

from autotune.probe.measure import NvtxRanges
from tests.conftest import probe


def _names(trace: Path) -> Counter[str]:
    events = json.loads(trace.read_text())["traceEvents"]
    return Counter(str(e.get("name", "")) for e in events)


def test_ranges_reach_torch_profiler_only_while_it_records() -> None:
    ranges = NvtxRanges()
    for _ in range(3):
        ranges.push_wait()
        ranges.pop()
    assert ranges._open == []  # nothing kept while nobody records
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(5):
            ranges.push_wait()
            ranges.pop()
            ranges.push_step()
            ranges.pop()
    names = Counter(e.name for e in prof.events())
    assert names["autotune:data_wait"] == 5
    assert names["autotune:step"] == 5
    assert ranges._open == []


def test_a_probed_scripts_own_profiler_trace_shows_the_probes_ranges(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    result = probe("profiled.py", "--trace", str(trace))
    assert result.ok, result.reason
    names = _names(trace)
    # Every batch the probe timed was a wait and then a step in the script's own trace.
    assert names["autotune:data_wait"] >= 10, names.most_common(8)
    assert names["autotune:step"] >= 10, names.most_common(8)
