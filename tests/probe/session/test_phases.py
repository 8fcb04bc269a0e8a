"""Each mode is a list of phases, and a probe's result carries the part of each, and no other."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from autotune.contract import Mode, ProbeResult, ProbeSettings, TrialConfig
from autotune.probe.measure import EpochClock
from autotune.probe.measure._meter import Meter
from autotune.probe.session._phases import (
    BasePhase,
    CeilingsSkippedPhase,
    ComputeCeilingPhase,
    MeasurePhase,
    TransportCeilingPhase,
    phases_for,
)
from tests.conftest import FAST, every_window, probe


@dataclass
class _Host:
    """Enough of a session to build the phases; they touch nothing else until they run."""

    config: TrialConfig
    leads: list[bool] = field(default_factory=list)
    patch: Any = None
    sampler: Any = None
    clock: EpochClock = field(default_factory=EpochClock)

    def meter(self, settings: ProbeSettings, *, lead: bool, extra_warmup_batches: int = 0) -> Meter:
        self.leads.append(lead)
        return Meter(settings, extra_warmup_batches=extra_warmup_batches)

    def prefetch(self, it: Iterator[Any]) -> Iterator[Any]:
        return it

    def shutdown_workers(self) -> None:
        return None


def _phases(mode: Mode, *, transport: bool = True, multi_rank: bool = False) -> list[BasePhase]:
    host = _Host(TrialConfig(settings=replace(FAST, transport=transport), mode=mode))
    phases = phases_for(mode, host, multi_rank=multi_rank)
    assert host.leads[:1] in ([], [True]) and not any(host.leads[1:])  # one lead, first
    return phases


def _kinds(phases: list[BasePhase]) -> list[str]:
    return [type(p).__name__ for p in phases]


def test_which_phases_each_mode_runs() -> None:
    assert _kinds(_phases("measure")) == ["MeasurePhase"]
    assert _kinds(_phases("ceiling")) == ["ComputeCeilingPhase", "TransportCeilingPhase"]
    assert _kinds(_phases("baseline")) == [
        "MeasurePhase",
        "ComputeCeilingPhase",
        "TransportCeilingPhase",
    ]
    assert _phases("run") == []  # trains for real: nothing measured
    # No transport asked for: no phase for it. Several ranks: the baseline alone.
    assert _kinds(_phases("baseline", transport=False)) == ["MeasurePhase", "ComputeCeilingPhase"]
    assert _kinds(_phases("baseline", multi_rank=True)) == ["MeasurePhase", "CeilingsSkippedPhase"]


def _parts(res: ProbeResult) -> set[str]:
    """The phases whose part a result carries, read from its fields alone."""
    parts = set()
    # The script's loader at 4 ms a sample waits for data; a replay of cached batches does not.
    assert res.samples_per_s and res.data_wait_fraction is not None
    parts.add("MeasurePhase" if res.data_wait_fraction > 0.2 else "ComputeCeilingPhase")
    if res.ceiling_windows or res.ceiling_status:
        assert res.ceiling_status == "ok" and res.ceiling_samples_per_s, res.ceiling_status
        assert res.ceiling_samples_per_s > 2 * res.samples_per_s  # no data cost
        parts.add("ComputeCeilingPhase")
    if res.transport_by_workers or res.transport_reason:
        assert res.transport_reason == "" and res.transport_samples_per_s
        parts.add("TransportCeilingPhase")
    return parts


@pytest.mark.parametrize("mode", ["measure", "ceiling", "baseline"])
def test_a_probe_result_carries_the_part_of_each_of_its_modes_phases(mode: Mode) -> None:
    res = probe("basic.py", "--latency", "0.004", mode=mode)
    assert res.status == "ok", res.reason + res.stderr_tail
    assert _parts(res) == set(_kinds(_phases(mode)))
    # Whichever phase leads, its windows are the main ones.
    assert every_window(res)


def test_a_skipped_phase_says_why_in_its_part() -> None:
    (skipped,) = [
        p for p in _phases("baseline", multi_rank=True) if not isinstance(p, MeasurePhase)
    ]
    assert isinstance(skipped, CeilingsSkippedPhase)
    res = ProbeResult()
    skipped.report(res)
    assert res.ceiling_status.startswith("not measured: a multi-rank probe")
    assert res.ceiling_windows == [] and res.transport_by_workers is None


def test_a_ceiling_that_leads_reports_in_the_main_fields_only() -> None:
    lead, transport = _phases("ceiling")
    assert isinstance(lead, ComputeCeilingPhase) and isinstance(transport, TransportCeilingPhase)
    res = ProbeResult()
    lead.report(res)
    transport.report(res)  # not reached: nothing to say
    assert res == ProbeResult()
