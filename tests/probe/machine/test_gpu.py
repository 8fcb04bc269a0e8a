"""GPU figures of a trial: null and quiet without CUDA or NVML, sampled where they exist."""

from __future__ import annotations

import sys
import time
import types
from typing import Any

import pytest
import torch

from autotune.probe.machine._gpu import GPU_KEYS, GpuSampler, empty_gpu_fields

CUDA = torch.cuda.is_available()


def _fake_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make this CPU-only torch look like a process that initialised CUDA."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=None: "Fake GPU")
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda i=None: None)
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda i=None: 123)
    props = types.SimpleNamespace(uuid="1234-abcd")
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i=None: props)


def test_empty_fields_are_all_null() -> None:
    fields = empty_gpu_fields()
    assert set(fields) == {*GPU_KEYS, "notes"}
    assert all(fields[k] is None for k in GPU_KEYS)
    assert fields["notes"] == []


@pytest.mark.skipif(CUDA, reason="checks the CPU-only path; this machine has CUDA")
def test_without_cuda_fields_stay_null(capsys: pytest.CaptureFixture[str]) -> None:
    sampler = GpuSampler(0.01)
    sampler.start()
    sampler.stop()
    sampler.stop()  # idempotent: the session stops it again on its way out
    assert all(sampler.fields[k] is None for k in GPU_KEYS)
    assert sampler.fields["notes"] == ["no CUDA device in this process: GPU fields are null"]
    assert capsys.readouterr().err == ""  # nothing to say on a CPU machine


def test_without_nvml_one_log_line_and_torch_figures_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_cuda(monkeypatch)

    class NVMLError(Exception):
        pass

    def no_library() -> None:
        raise NVMLError("NVML Shared Library Not Found")

    fake = types.SimpleNamespace(NVMLError=NVMLError, nvmlInit=no_library)
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    sampler = GpuSampler(0.01)
    sampler.start()
    sampler.stop()
    f = sampler.fields
    assert f["util_mean_pct"] is None
    assert f["mem_used_peak_bytes"] is None
    assert f["device_name"] == "Fake GPU"
    assert f["max_memory_allocated_bytes"] == 123
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "NVML unavailable" in err


def test_without_pynvml_one_log_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_cuda(monkeypatch)
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    sampler = GpuSampler(0.01)
    sampler.start()
    sampler.stop()
    assert sampler.fields["util_mean_pct"] is None
    assert capsys.readouterr().err.count("\n") == 1


def test_nvml_samples_are_summarised(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_cuda(monkeypatch)
    calls: dict[str, Any] = {"shutdown": 0}

    class NVMLError(Exception):
        pass

    readings = iter([10, 30, 50] + [50] * 10_000)

    def by_uuid(text: str) -> str:
        calls["uuid"] = text
        return "handle"

    def shutdown() -> None:
        calls["shutdown"] += 1

    fake = types.SimpleNamespace(
        NVMLError=NVMLError,
        nvmlInit=lambda: None,
        nvmlShutdown=shutdown,
        nvmlDeviceGetHandleByUUID=by_uuid,
        nvmlDeviceGetUtilizationRates=lambda h: types.SimpleNamespace(gpu=next(readings)),
        nvmlDeviceGetMemoryInfo=lambda h: types.SimpleNamespace(used=2**30),
    )
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    sampler = GpuSampler(0.005)
    sampler.start()
    deadline = time.monotonic() + 5
    while len(sampler._util) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    sampler.stop()
    f = sampler.fields
    assert calls["uuid"] == "GPU-1234-abcd"  # NVML's name for torch's device
    assert calls["shutdown"] == 1
    assert f["util_samples"] >= 3
    assert f["util_max_pct"] == 50
    assert 10 <= f["util_mean_pct"] <= 50
    assert f["mem_used_peak_bytes"] == 2**30
    assert f["util_series"][:3] == [10, 30, 50]
    assert len(f["mem_series"]) == len(f["util_series"]) == f["util_samples"]


def test_a_failing_sampler_never_fails_the_trial(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_cuda(monkeypatch)

    def broken(i: int | None = None) -> None:
        raise RuntimeError("driver went away")

    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", broken)
    sampler = GpuSampler(0.01)
    sampler.start()
    sampler.stop()
    assert any("driver went away" in n for n in sampler.fields["notes"])
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.gpu
@pytest.mark.skipif(not CUDA, reason="needs CUDA: torch.cuda.is_available() is False")
def test_gpu_sampler_reads_the_real_device() -> None:
    x = torch.ones(1024, 1024, device="cuda")
    sampler = GpuSampler(0.02)
    sampler.start()
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        x = x @ x / 1024
    torch.cuda.synchronize()
    sampler.stop()
    f = sampler.fields
    assert f["device_name"]
    assert f["max_memory_allocated_bytes"] > 0
    if f["util_samples"] is None:
        pytest.skip(f"CUDA works but NVML does not here: {f['notes']}")
    assert f["util_samples"] > 0
    assert f["mem_used_peak_bytes"] > 0
