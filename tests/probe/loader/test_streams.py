"""The k-stream prefetcher.

CPU tests cover the structure walk, the copy accounting and the failure reasons. The tests
marked ``gpu`` run the real prefetcher on CUDA and are skipped, with the reason, elsewhere.
"""

from __future__ import annotations

import collections
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from autotune.contract import STREAMS_CPU_WORK, GpuReading, LoaderConfig, ProbeSettings
from autotune.probe.loader._streams import CopyStats, StreamPrefetcher, make_streams
from autotune.probe.measure import map_tensors
from autotune.probe.session._failure import cpu_work_on_batch, is_cuda_oom, is_oom
from tests.conftest import EXAMPLES, probe

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs CUDA: torch.cuda.is_available() is False")


class Pair(NamedTuple):
    x: torch.Tensor
    label: int


# --- CPU: the structure walk ---------------------------------------------------------------
def test_map_tensors_keeps_structure_and_types() -> None:
    t = torch.arange(4)
    batch = {
        "img": t,
        "pair": Pair(t, 3),
        "seq": [t, (t, "name", None)],
        "ordered": collections.OrderedDict(a=t),
        "default": collections.defaultdict(list, b=t),
        "meta": {"id": 7, "path": "a.png"},
    }
    out = map_tensors(lambda x: x + 1, batch)
    assert torch.equal(out["img"], t + 1)
    assert isinstance(out["pair"], Pair)
    assert out["pair"].label == 3
    assert torch.equal(out["pair"].x, t + 1)
    assert isinstance(out["seq"], list)
    assert isinstance(out["seq"][1], tuple)
    assert out["seq"][1][1:] == ("name", None)
    assert type(out["ordered"]) is collections.OrderedDict
    assert type(out["default"]) is collections.defaultdict
    assert out["default"].default_factory is list
    assert out["meta"] == {"id": 7, "path": "a.png"}
    assert torch.equal(batch["img"], t), "the input batch must not be changed"


def test_map_tensors_visits_every_tensor_once() -> None:
    seen: list[int] = []

    def visit(x: torch.Tensor) -> torch.Tensor:
        seen.append(int(x.item()))
        return x

    map_tensors(visit, ((torch.tensor(1), [torch.tensor(2)]), {"k": torch.tensor(3)}, "s", 4))
    assert sorted(seen) == [1, 2, 3]


def test_prefetcher_needs_a_stream() -> None:
    with pytest.raises(ValueError, match="at least one stream"):
        StreamPrefetcher(iter([]), [])


# --- CPU: copy accounting --------------------------------------------------------------------
class _FakeEvent:
    """Stands in for a timing CUDA event: a timestamp in milliseconds."""

    def __init__(self, ms: float) -> None:
        self.ms = ms

    def elapsed_time(self, end: _FakeEvent) -> float:
        return end.ms - self.ms


def test_copy_stats_split_hidden_from_exposed() -> None:
    stats = CopyStats(active=True)
    # copy 0..10 ms, consumer ready at 20: fully hidden.
    stats.add(_FakeEvent(0), _FakeEvent(10), _FakeEvent(20))
    # copy 20..30 ms, consumer ready at 26: stalls 4 ms.
    stats.add(_FakeEvent(20), _FakeEvent(30), _FakeEvent(26))
    # copy 40..50 ms queued behind others, consumer ready at 0: stall capped at the copy.
    stats.add(_FakeEvent(40), _FakeEvent(50), _FakeEvent(0))
    stats.fold()
    s = stats.onto(GpuReading())
    assert s.h2d_batches == 3
    assert s.h2d_copy_s == pytest.approx(0.030)
    assert s.h2d_exposed_s == pytest.approx(0.014)
    assert s.h2d_hidden_fraction == pytest.approx(1 - 14 / 30)


def test_copy_stats_ignore_batches_outside_measurement() -> None:
    stats = CopyStats(active=False)
    stats.add(_FakeEvent(0), _FakeEvent(10), _FakeEvent(20))
    stats.fold()
    assert stats.onto(GpuReading()) == GpuReading(h2d_batches=0)


# --- CPU: how failures are named ----------------------------------------------------------
def test_cpu_work_on_a_gpu_batch_is_recognised() -> None:
    numpy_err = TypeError(
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
        "tensor to host memory first."
    )
    mixed = RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!"
    )
    assert cpu_work_on_batch(numpy_err)
    assert cpu_work_on_batch(mixed)
    assert not cpu_work_on_batch(ValueError("corrupt sample 3"))
    assert not cpu_work_on_batch(KeyError("can't convert cuda"))


def test_cuda_oom_is_oom_and_named() -> None:
    exc = torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
    assert is_oom(exc)
    assert is_cuda_oom(exc)
    assert is_oom(MemoryError())
    assert not is_cuda_oom(MemoryError())


@pytest.mark.skipif(CUDA, reason="checks the CPU-only path; this machine has CUDA")
def test_streams_without_cuda_are_a_noop_with_a_note() -> None:
    """A real probe: num_streams=2 where torch has no CUDA; the trial still measures."""
    res = probe(
        str(EXAMPLES / "tiny_model.py"),
        "--epochs",
        "1000",
        loader=LoaderConfig(num_streams=2),
        settings=ProbeSettings(warmup_s=0.2, window_s=0.3, windows=2),
    )
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.applied_config.num_streams == 0
    assert res.gpu is not None
    assert res.gpu.num_streams == 0
    assert res.gpu.h2d_hidden_fraction is None
    assert res.gpu.util_mean_pct is None
    assert res.gpu.max_memory_allocated_bytes is None
    assert any("num_streams=2 not applied" in n for n in res.gpu.notes)


# --- GPU: the real prefetcher --------------------------------------------------------------
class _Random(Dataset[Any]):
    """Fresh random data per index, nested, large enough that copies take real time."""

    def __init__(self, n: int, numel: int) -> None:
        self.n, self.numel = n, numel

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Any:
        g = torch.Generator().manual_seed(i)
        return {
            "x": torch.rand(self.numel, generator=g),
            "pair": (torch.randint(0, 255, (64,), generator=g, dtype=torch.uint8), i),
            "id": i,
        }


def _keep(it: Iterator[Any], kept: list[Any]) -> Iterator[Any]:
    """Pass batches through, keeping a private copy of each as the reference."""
    for batch in it:
        kept.append(map_tensors(lambda t: t.clone(), batch))
        yield batch


def _cpu(batch: Any) -> Any:
    return map_tensors(lambda t: t.cpu(), batch)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("pin", [False, True])
def test_gpu_same_batches_as_plain_iteration(k: int, pin: bool) -> None:
    loader = DataLoader(_Random(64, 4096), batch_size=8, pin_memory=pin)
    plain = [_cpu(b) for b in loader]
    streamed = []
    for batch in StreamPrefetcher(iter(loader), make_streams(k)):
        assert batch["x"].is_cuda
        assert batch["pair"][0].is_cuda
        assert batch["x"].device.index == torch.cuda.current_device()
        assert batch["x"].to("cuda") is batch["x"], "the script's .to() must be a no-op"
        streamed.append(_cpu(batch))
    assert len(streamed) == len(plain) == 8
    assert all(_same(a, b) for a, b in zip(plain, streamed, strict=True))


@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_gpu_no_copy_is_read_before_it_lands(k: int) -> None:
    """Read every batch on the consumer's stream at once, and again after a GPU-side delay.

    Without the event wait the first read races the copy; without record_stream the late
    read sees memory the allocator already gave to a later copy. Both would differ from
    the CPU reference, computed from a private copy of the source batch.
    """
    kept: list[Any] = []
    loader = DataLoader(_Random(400, 1 << 20), batch_size=4, num_workers=2, pin_memory=True)
    early, late = [], []
    for batch in StreamPrefetcher(_keep(iter(loader), kept), make_streams(k)):
        early.append(batch["x"].double().sum())
        torch.cuda._sleep(200_000)  # keep the consumer's stream busy past the next copies
        late.append(batch["x"].double().sum())
        del batch
    torch.cuda.synchronize()
    ref = [b["x"].double().sum() for b in kept]
    assert len(ref) == len(early) == 100
    assert [float(v) for v in early] == [float(v) for v in ref]
    assert [float(v) for v in late] == [float(v) for v in ref]


@pytest.mark.gpu
@needs_cuda
def test_gpu_memory_does_not_grow_over_1000_batches() -> None:
    data = [torch.rand(64, 1024) for _ in range(8)]
    stats = CopyStats(active=False)  # timing events off the measured span are not kept
    streams = make_streams(2)

    def source() -> Iterator[Any]:
        for i in range(1000):
            yield (data[i % 8], {"y": data[(i + 1) % 8]})

    torch.cuda.synchronize()
    marks = []
    for i, (x, d) in enumerate(StreamPrefetcher(source(), streams, stats=stats)):
        (x * d["y"]).sum()
        if i in (100, 999):
            torch.cuda.synchronize()
            marks.append(torch.cuda.memory_allocated())
    batch_bytes = 2 * 64 * 1024 * 4
    assert marks[1] <= marks[0] + 4 * batch_bytes, marks
    assert not stats._pending


@pytest.mark.gpu
@needs_cuda
def test_gpu_probe_reports_copy_overlap_and_gpu_figures() -> None:
    res = probe(
        str(EXAMPLES / "gpu_transfer.py"),
        "--size",
        "128",
        "--batch-size",
        "64",
        loader=LoaderConfig(num_streams=2, pin_memory=True, num_workers=2),
        settings=ProbeSettings(warmup_s=0.5, window_s=0.5, windows=3),
    )
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.applied_config.num_streams == 2
    gpu = res.gpu
    assert gpu is not None and gpu.h2d_batches and gpu.h2d_copy_s
    assert gpu.h2d_hidden_fraction is not None and 0.0 <= gpu.h2d_hidden_fraction <= 1.0
    assert gpu.max_memory_allocated_bytes and gpu.device_name


@pytest.mark.gpu
@needs_cuda
def test_gpu_script_doing_cpu_work_on_batches_fails_classified(tmp_path: Path) -> None:
    script = tmp_path / "numpy_step.py"
    script.write_text(
        textwrap.dedent(
            """
            import torch
            from torch.utils.data import DataLoader, TensorDataset

            loader = DataLoader(TensorDataset(torch.rand(4096, 8)), batch_size=16)
            for _ in range(100):
                for (x,) in loader:
                    x.numpy().sum()  # CPU work on the batch
            """
        )
    )
    res = probe(str(script), loader=LoaderConfig(num_streams=1))
    assert res.status == "crashed"
    assert res.reason.startswith(STREAMS_CPU_WORK), res.reason


@pytest.mark.gpu
@needs_cuda
def test_gpu_cuda_oom_is_its_own_failure_class(tmp_path: Path) -> None:
    script = tmp_path / "oom.py"
    script.write_text(
        textwrap.dedent(
            """
            import torch
            from torch.utils.data import DataLoader, TensorDataset

            loader = DataLoader(TensorDataset(torch.rand(512, 8)), batch_size=16)
            for (x,) in loader:
                torch.empty(1 << 50, dtype=torch.uint8, device="cuda")
            """
        )
    )
    res = probe(str(script))
    assert res.status == "oom"
    assert res.reason.startswith("CUDA out of memory"), res.reason
