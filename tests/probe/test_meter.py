from __future__ import annotations

import torch

from autotune.contract import ProbeSettings
from autotune.probe._meter import Meter, ReplayIterator, count_samples

SETTINGS = ProbeSettings(
    warmup_batches=2, warmup_s=0.0, window_s=1.0, windows=3, min_batches_per_window=2
)


def test_count_samples_nested() -> None:
    assert count_samples(torch.zeros(5, 3)) == 5
    assert count_samples((torch.zeros(7, 2), torch.zeros(7))) == 7
    assert count_samples({"x": [torch.zeros(3, 1)], "y": torch.zeros(3)}) == 3
    assert count_samples([1, 2, 3, 4]) == 4


def test_windows_close_after_warmup(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    clock = iter(float(i) * 0.25 for i in range(10_000))
    monkeypatch.setattr("autotune.probe._meter.perf_counter", lambda: next(clock))
    done = []
    meter = Meter(SETTINGS, on_done=lambda: done.append(True))
    t = 0.0
    meter.iter_started(t)
    while not meter.done:
        meter.record(t, t + 0.1, 10)
        t += 0.5
    assert len(meter.windows) == 3 and done == [True]
    summary = meter.summary()
    assert summary["samples_per_s"] > 0
    assert 0 < summary["data_wait_fraction"] <= 1
    assert summary["step_p50_s"] > 0


def test_replay_serves_cached_batches_forever() -> None:
    source = iter([1, 2, 3])
    replay = ReplayIterator(source, 2)
    assert [next(replay) for _ in range(6)] == [1, 2, 1, 2, 1, 2]
