"""The switchable epoch, with real forked DataLoader workers over tiny datasets."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any

import psutil
import pytest
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, RandomSampler

from autotune.probe.loader._switch import Settings, SwitchableLoader
from tests.conftest import as_foreground

Switches = dict[tuple[int, int], Settings]  # (epoch, after batch; -1: before the epoch)


def _worker() -> int:
    info = torch.utils.data.get_worker_info()
    return -1 if info is None else info.id


class Ids(Dataset[torch.Tensor]):
    """Sample i is [i, worker id (-1 in the main process), pid, the worker's torch seed]."""

    def __init__(self, n: int = 64) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> torch.Tensor:
        return torch.tensor([i, _worker(), os.getpid(), torch.initial_seed() % 2**31])


class RaisesInWorkers(Ids):
    def __getitem__(self, i: int) -> torch.Tensor:
        if _worker() >= 0:
            raise RuntimeError("this dataset cannot run in a worker")
        return super().__getitem__(i)


class ExitsInWorker0(Ids):
    def __getitem__(self, i: int) -> torch.Tensor:
        if _worker() == 0:
            os._exit(1)
        return super().__getitem__(i)


class HangsInWorkers(Ids):
    def __getitem__(self, i: int) -> torch.Tensor:
        if _worker() >= 0:
            time.sleep(3600)
        return super().__getitem__(i)


class HoldsTheDoneLock(Ids):
    """Each worker takes the lock of torch's shared done event, as ``is_set()`` does for a
    moment, and hangs there: a kill then leaves the lock held by a dead process."""

    def __getitem__(self, i: int) -> torch.Tensor:
        if _worker() >= 0:
            frame = sys._getframe()
            while frame.f_code.co_name != "_worker_loop":
                assert frame.f_back is not None
                frame = frame.f_back
            frame.f_locals["done_event"]._cond.acquire()
            time.sleep(3600)
        return super().__getitem__(i)


class BadIndex(Ids):
    def __getitem__(self, i: int) -> torch.Tensor:
        if i == 13:
            raise ValueError("index 13 is corrupt")
        return super().__getitem__(i)


class Stream(IterableDataset[torch.Tensor]):
    """0..n-1, each worker yielding its share."""

    def __init__(self, n: int = 24) -> None:
        self.n = n

    def __iter__(self) -> Any:
        info = torch.utils.data.get_worker_info()
        share = 1 if info is None else info.num_workers
        for i in range(self.n):
            if i % share == max(_worker(), 0):
                yield torch.tensor([i, _worker(), os.getpid(), 0])


def seeded(dataset: Dataset[torch.Tensor], drop_last: bool = False, **kw: Any) -> DataLoader[Any]:
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(7))  # type: ignore[arg-type]
    return DataLoader(dataset, batch_size=4, sampler=sampler, drop_last=drop_last, **kw)


def epochs(
    loader: DataLoader[Any], switches: Switches | None = None, n: int = 2, **kw: Any
) -> tuple[list[list[torch.Tensor]], SwitchableLoader]:
    """Each epoch's batches through the wrapper, switching after the batches named."""
    wrapped = SwitchableLoader(loader, **kw)
    switches = switches or {}
    out: list[list[torch.Tensor]] = []
    try:
        for epoch in range(n):
            if (epoch, -1) in switches:
                wrapped.switch(switches[(epoch, -1)])
            out.append([])
            for b, batch in enumerate(wrapped):
                out[-1].append(batch)
                if (epoch, b) in switches:
                    wrapped.switch(switches[(epoch, b)])
    finally:
        wrapped.close()
    return out, wrapped


def plain(loader: DataLoader[Any], n: int = 2) -> list[list[torch.Tensor]]:
    return [list(loader) for _ in range(n)]


def ids(batches: list[torch.Tensor]) -> list[int]:
    return [int(i) for b in batches for i in b[:, 0]]


def digest(run: list[list[torch.Tensor]]) -> str:
    return hashlib.sha256(repr([ids(e) for e in run]).encode()).hexdigest()


def assert_settings_served(run: list[list[torch.Tensor]], wrapped: SwitchableLoader) -> None:
    """Every batch came from the workers its segment's settings name (0: the main process)."""
    for epoch, batches in enumerate(run):
        workers = 0
        for pos, batch in enumerate(batches):
            for event in wrapped.events:
                if event.kind != "deferred" and (event.epoch, event.batch) <= (epoch, pos):
                    workers = event.settings["num_workers"]
            seen = set(batch[:, 1].tolist())
            assert seen == {-1} if workers == 0 else seen <= set(range(workers)), (epoch, pos)


def new_children(before: set[int], wait_s: float = 10.0) -> list[int]:
    """Children started since ``before`` that are still alive after at most ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while True:
        left = []
        for child in psutil.Process().children(recursive=True):
            try:
                if child.pid not in before and child.status() != psutil.STATUS_ZOMBIE:
                    left.append(child.pid)
            except psutil.NoSuchProcess:
                continue
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def children() -> set[int]:
    return {c.pid for c in psutil.Process().children(recursive=True)}


@pytest.mark.parametrize("drop_last", [False, True])
def test_switches_mid_epoch_keep_the_seeded_order(drop_last: bool) -> None:
    # 126 samples, so drop_last changes the last batch (126 = 31 * 4 + 2), and an epoch long
    # enough for 2 workers x prefetch 4 to drain between switches.
    last = len(seeded(Ids(126), drop_last)) - 1
    switches: Switches = {
        (0, 0): {"num_workers": 2},  # right after the epoch starts
        (0, 2): {"prefetch_factor": 4},
        (0, 9): {"num_workers": 0},
        (0, last - 1): {"num_workers": 3, "pin_memory": False},  # one batch before the end
        (1, -1): {"num_workers": 2},  # before the epoch's first batch
        (1, 6): {"num_workers": 0},
        (1, 15): {"num_workers": 3},
    }
    before = children()
    expected = plain(seeded(Ids(126), drop_last))  # each run its own sampler generator
    run, wrapped = epochs(seeded(Ids(126), drop_last), switches)
    assert digest(run) == digest(expected)
    assert [len(e) for e in run] == [last + 1] * 2
    assert [e.kind for e in wrapped.events] == ["switched"] * 7
    assert [e.settings["num_workers"] for e in wrapped.events] == [2, 2, 0, 3, 2, 0, 3]
    assert wrapped.events[1].settings["prefetch_factor"] == 4
    # Where each took effect: with 0 workers at the next batch; with w workers and prefetch p
    # after the w * p batches dispatched ahead, plus one per batch delivered since.
    positions = [(e.epoch, e.batch) for e in wrapped.events]
    assert positions == [(0, 1), (0, 7), (0, 18), (0, last), (1, 0), (1, 11), (1, 16)]
    assert_settings_served(run, wrapped)
    assert not new_children(before)


def test_switches_keep_a_global_seed_shuffle() -> None:
    loader = DataLoader(Ids(40), batch_size=4, shuffle=True)
    torch.manual_seed(123)
    expected = plain(loader)
    torch.manual_seed(123)
    run, wrapped = epochs(loader, {(0, 2): {"num_workers": 2}, (1, 2): {"num_workers": 0}})
    assert digest(run) == digest(expected)
    assert len(wrapped.events) == 2
    torch.manual_seed(124)  # the digest does tell shuffles apart
    assert digest(plain(loader)) != digest(expected)


@pytest.mark.filterwarnings("ignore:This DataLoader will create")  # a 1-core runner
def test_a_switch_before_the_first_batch_is_the_plain_loader_with_those_settings() -> None:
    # Worker ids and seeds included: the segment seeds workers as the plain loader would.
    torch.manual_seed(5)
    expected = plain(seeded(Ids(24), num_workers=2))
    torch.manual_seed(5)
    run, _ = epochs(seeded(Ids(24)), {(0, -1): {"num_workers": 2}})
    columns = [0, 1, 3]  # the pid differs from run to run
    assert [[b[:, columns].tolist() for b in e] for e in run] == [
        [b[:, columns].tolist() for b in e] for e in expected
    ]
    assert {int(s) for e in run for b in e for s in b[:, 3]} != {5}  # seeded in workers


@pytest.mark.parametrize("dataset", [RaisesInWorkers(32), ExitsInWorker0(32)])
def test_a_crashing_config_is_abandoned_without_losing_a_batch(dataset: Ids) -> None:
    before = children()
    expected = plain(seeded(dataset), n=1)
    run, wrapped = epochs(seeded(dataset), {(0, 2): {"num_workers": 2}}, n=1)
    assert ids(run[0]) == ids(expected[0])
    assert len(ids(run[0])) == len(set(ids(run[0]))) == 32
    kinds = [(e.kind, e.batch, e.settings["num_workers"]) for e in wrapped.events]
    assert kinds == [("switched", 3, 2), ("abandoned", 3, 0)]
    assert "num_workers': 2" in wrapped.events[1].reason
    assert_settings_served(run, wrapped)
    assert not new_children(before)


@pytest.mark.parametrize("dataset", [HangsInWorkers(24), HoldsTheDoneLock(24)])
def test_a_hanging_config_is_abandoned_and_its_workers_killed(dataset: Ids) -> None:
    before = children()
    started = time.monotonic()
    run, wrapped = epochs(
        seeded(dataset), {(0, 1): {"num_workers": 2}}, n=1, first_batch_timeout_s=2
    )
    assert time.monotonic() - started < 60  # not the workers' hour of sleep
    assert ids(run[0]) == ids(plain(seeded(Ids(24)), n=1)[0])
    assert [e.kind for e in wrapped.events] == ["switched", "abandoned"]
    assert "timed out" in wrapped.events[1].reason
    assert not new_children(before)


def test_an_iterable_dataset_switches_at_the_next_epoch() -> None:
    loader = DataLoader(Stream(24), batch_size=4)
    expected = plain(loader)
    run, wrapped = epochs(loader, {(0, 1): {"num_workers": 2}})
    assert not wrapped.mid_epoch
    assert ids(run[0]) == ids(expected[0])  # the switch waited: same order, main process
    assert {int(w) for b in run[0] for w in b[:, 1]} == {-1}
    assert sorted(ids(run[1])) == sorted(ids(expected[1]))
    assert {int(w) for b in run[1] for w in b[:, 1]} == {0, 1}
    kinds = [(e.kind, e.epoch, e.batch) for e in wrapped.events]
    assert kinds == [("deferred", 0, 2), ("switched", 1, 0)]


@pytest.mark.parametrize("switches", [{}, {(0, 0): {"num_workers": 2}}])
def test_a_dataset_error_surfaces_as_it_would_without_the_wrapper(switches: Switches) -> None:
    loader = DataLoader(BadIndex(32), batch_size=4)
    seen: list[torch.Tensor] = []
    with pytest.raises(ValueError, match="index 13"):
        seen.extend(loader)
    wrapped = SwitchableLoader(loader)
    got: list[torch.Tensor] = []
    with pytest.raises(ValueError, match="index 13"):
        for b, batch in enumerate(wrapped):
            got.append(batch)
            if (0, b) in switches:
                wrapped.switch(switches[(0, b)])
    wrapped.close()
    assert ids(got) == ids(seen) == list(range(12))
    assert [e.kind for e in wrapped.events] == (["switched", "abandoned"] if switches else [])


def test_persistent_workers_serve_every_epoch_until_switched_away() -> None:
    before = children()
    expected = plain(seeded(Ids(24)), n=3)
    switches: Switches = {
        (0, -1): {"num_workers": 2, "persistent_workers": True},
        (1, 1): {"num_workers": 0},  # cuts the persistent segment mid-epoch
    }
    run, wrapped = epochs(seeded(Ids(24)), switches, n=3)
    assert digest(run) == digest(expected)
    pids = [{int(s[2]) for b in e for s in b if s[1] >= 0} for e in run]
    assert len(pids[0]) == 2 and pids[0] == pids[1]  # the same two workers, both epochs
    assert not pids[2]
    assert [(e.epoch, e.batch) for e in wrapped.events] == [(0, 0), (1, 6)]
    assert_settings_served(run, wrapped)
    assert not new_children(before)


def test_an_unbatched_loader_switches_over_its_sampler() -> None:
    def loader() -> DataLoader[Any]:
        generator = torch.Generator().manual_seed(3)
        return DataLoader(
            Ids(20), batch_size=None, sampler=RandomSampler(range(20), generator=generator)
        )

    expected = [[int(s[0]) for s in e] for e in plain(loader())]
    run, wrapped = epochs(loader(), {(0, 3): {"num_workers": 2}, (1, 9): {"num_workers": 0}})
    assert [[int(s[0]) for s in e] for e in run] == expected
    assert all(s.shape == (4,) for e in run for s in e)  # samples, not batches
    assert [(e.epoch, e.batch) for e in wrapped.events] == [(0, 4), (1, 14)]


def test_only_worker_settings_can_be_switched() -> None:
    wrapped = SwitchableLoader(seeded(Ids(8)))
    with pytest.raises(ValueError, match="batch_size"):
        wrapped.switch({"batch_size": 8})
    with pytest.raises(ValueError, match="prefetch_factor"):
        wrapped.switch({"num_workers": 2, "prefetch_factor": 0})


# Ctrl-C as a terminal sends it, while a switch forks its workers: every fork sends the
# process SIGINT from an at-fork hook, the moment CPython would drop the KeyboardInterrupt
# ("Exception ignored in ... _releaseLock") and the new worker die of its own copy. With a
# thread beside the training's (the probe's sampler, a pin-memory thread), the kernel hands
# a SIGINT the main thread blocks to that thread, and CPython still runs the handler in the
# main thread: only the handler itself can hold it.
CTRL_C_AT_FORK = """
import os, signal, sys, threading
import torch
from torch.utils.data import DataLoader
from autotune.probe.loader import SwitchableLoader

if sys.argv[1:] == ["--thread"]:
    threading.Thread(target=threading.Event().wait, daemon=True).start()
os.register_at_fork(before=lambda: os.kill(os.getpid(), signal.SIGINT))
wrapped = SwitchableLoader(DataLoader(torch.arange(64), batch_size=4))
batches = 0
try:
    for epoch in range(3):
        for batch in wrapped:
            batches += 1
            if batches == 2:
                wrapped.switch({"num_workers": 2})
except KeyboardInterrupt:
    print("interrupted after", batches, flush=True)
    raise
print("finished", batches, [e.kind for e in wrapped.events], flush=True)
"""


@pytest.mark.parametrize("beside", [[], ["--thread"]], ids=["alone", "thread-beside"])
def test_ctrl_c_while_a_switch_forks_its_workers_reaches_the_training(beside: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CTRL_C_AT_FORK), *beside],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=as_foreground,  # a suite started in the background ignores SIGINT
    )
    # As Python ends on an uncaught KeyboardInterrupt: status 130 (death by SIGINT) or 1.
    assert proc.stdout.startswith("interrupted after 2"), (proc.stdout, proc.stderr)
    assert proc.returncode != 0, proc.stdout


class SigintHandlers(Dataset[bool]):
    """Sample i: whether the process that loaded it has Python's own SIGINT handler."""

    def __len__(self) -> int:
        return 16

    def __getitem__(self, i: int) -> bool:
        return signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_workers_a_switch_forks_keep_the_script_s_sigint_handler() -> None:
    # Python's own handler, as a script started from a terminal has it (a suite started in
    # the background inherits SIGINT ignored); the previous one is put back after.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        # Held only while they fork: each worker then has Ctrl-C as the script's workers would.
        wrapped = SwitchableLoader(DataLoader(SigintHandlers(), batch_size=4))
        seen: list[bool] = []
        for i, batch in enumerate(wrapped):
            seen += batch.tolist()
            if i == 0:
                wrapped.switch({"num_workers": 2})
        assert seen == [True] * 16
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
