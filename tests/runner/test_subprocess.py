"""Real probes in real subprocesses: every way a trial can end, and nothing left behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autotune.contract import LoaderConfig
from tests.conftest import every_window, probe


def test_ok_probe_measures_windows_and_applies_settings() -> None:
    res = probe("basic.py", loader=LoaderConfig(num_workers=2, prefetch_factor=3))
    assert res.status == "ok", res.reason + res.stderr_tail
    assert every_window(res) and res.samples_per_s and res.samples_per_s > 0
    assert res.script_config.num_workers == 0
    assert res.applied_config.num_workers == 2 and res.applied_config.prefetch_factor == 3
    assert res.step_p50_s and res.step_p95_s and res.step_p95_s >= res.step_p50_s
    assert res.data_wait_fraction is not None and 0 <= res.data_wait_fraction <= 1
    assert res.time_to_first_batch_s and res.time_to_first_batch_s > 0
    assert res.worker_cpu_s is not None and res.worker_cpu_s > 0
    assert res.peak_rss_bytes and res.peak_rss_bytes > 10 * 2**20


@pytest.mark.parametrize("context", ["spawn", "forkserver", "fork"])
def test_every_start_method(context: str) -> None:
    res = probe(
        "basic.py", "--context", context, "--workers", "1", loader=LoaderConfig(num_workers=2)
    )
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.applied_config.num_workers == 2


def test_module_level_loader_without_main_guard() -> None:
    res = probe("module_level.py", loader=LoaderConfig(num_workers=2))
    assert res.status == "ok", res.reason + res.stderr_tail


def test_subclass_built_in_a_callback_each_epoch(tmp_path: Path) -> None:
    report = tmp_path / "seen.json"
    res = probe("callbacks.py", "--report", str(report), loader=LoaderConfig(num_workers=1))
    assert res.status == "ok", res.reason + res.stderr_tail
    seen = json.loads(report.read_text())
    # The train loader (rebuilt every epoch at one call site) is tuned; eval keeps its own.
    assert seen == {"train_workers": 1, "eval_workers": 0, "train_type": "MyLoader"}
    assert res.epoch_starts > 1


def test_infinite_sampler_batch_sampler_and_broad_except() -> None:
    res = probe("infinite.py", loader=LoaderConfig(num_workers=1, batch_size=64))
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.applied_config.batch_size is None  # batch_sampler: batch_size not applied
    assert res.batch_size == 8


def test_crash_in_a_worker_is_classified() -> None:
    res = probe("crash_in_worker.py", loader=LoaderConfig(num_workers=2))
    assert res.status == "crashed"
    assert "corrupt sample 20" in res.reason + res.stderr_tail


def test_hang_is_killed_at_the_trial_timeout() -> None:
    res = probe("hang.py", loader=LoaderConfig(num_workers=2), timeout_s=8)
    assert res.status == "hung"
    assert "timeout" in res.reason


def test_once_the_result_is_final_the_interpreters_exit_is_not_awaited(tmp_path: Path) -> None:
    # The script's atexit hook sleeps 600 s: a runner that waited for the process to exit
    # would call it hung at the trial timeout.
    report = tmp_path / "cleanup.txt"
    res = probe("slow_exit.py", "--report", str(report), loader=LoaderConfig(num_workers=2))
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.exit_code == 0 and every_window(res)
    assert report.read_text() == "cleaned up"  # the script's own clean-up still ran


@pytest.mark.parametrize("persistent", [False, True])
def test_a_probe_ended_at_once_leaves_no_temporary_directory(
    tmp_path: Path, persistent: bool
) -> None:
    # Each worker that sends a batch by file descriptor opens a socket in a temporary
    # directory of its own, removed at its exit; the runner ends the probe's tree once the
    # result is final, and workers 0.4 s into a batch are still loading then.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    loader = LoaderConfig(num_workers=4, persistent_workers=persistent)
    res = probe("basic.py", "--latency", "0.05", loader=loader, env={"TMPDIR": str(tmp)})
    assert res.status == "ok", res.reason + res.stderr_tail
    assert sorted(p.name for p in tmp.iterdir()) == []


def test_with_no_workers_the_cpu_spent_loading_is_read_apart_from_the_step_s() -> None:
    # basic.py loads by sleeping (remote storage) and steps on torch's threads.
    res = probe("basic.py", "--latency", "0.005")
    assert res.status == "ok", res.reason + res.stderr_tail
    wall, wait = res.measured_wall_s, res.data_wait_fraction
    assert wall and wait and res.main_wait_cpu_s is not None
    assert res.main_wait_cpu_s / (wall * wait) < 0.5  # it slept


def test_script_that_ends_early_reports_what_there_was() -> None:
    res = probe("ends_early.py")
    assert res.status == "ended_early"
    assert res.batches == 10
    assert res.samples == 40  # the batches delivered before the loader was chosen too
    assert "ended after 10 batches" in res.reason


def test_script_without_a_dataloader() -> None:
    res = probe("no_loader.py")
    assert res.status == "no_dataloader"
    assert "never iterated a torch DataLoader" in res.reason


def test_ceiling_mode_replays_batches_without_loading_cost() -> None:
    slow = probe("basic.py", "--latency", "0.004")
    ceiling = probe("basic.py", "--latency", "0.004", mode="ceiling")
    assert slow.status == ceiling.status == "ok"
    assert ceiling.data_wait_fraction is not None and slow.data_wait_fraction is not None
    assert ceiling.data_wait_fraction < 0.2 < slow.data_wait_fraction
    assert ceiling.samples_per_s and slow.samples_per_s
    assert ceiling.samples_per_s > 2 * slow.samples_per_s


def test_over_the_host_memory_budget_is_stopped_and_reported() -> None:
    from dataclasses import replace

    from tests.conftest import FAST

    # The tree's figure counts pages shared with workers once and leaves out the libraries'
    # file pages: a probe of this script starts near 150 MiB and grows by 4 MiB a step.
    budget = replace(FAST, max_host_mem_bytes=300 * 2**20)
    res = probe("hog.py", settings=budget, loader=LoaderConfig(num_workers=1))
    assert res.status == "over_memory", res.reason + res.stderr_tail
    assert "over the budget of 0.29 GiB" in res.reason
    assert res.peak_rss_bytes is not None
    assert res.peak_rss_bytes > 300 * 2**20


def test_script_that_exits_with_a_message_before_loading_has_crashed() -> None:
    res = probe("exits_early.py")
    assert res.status == "crashed", res.reason
    assert res.reason == "data directory /nonexistent not found"
    assert res.exit_code == 1
    res = probe("exits_early.py", "--code")
    assert res.status == "crashed", res.reason
    assert "exited with code 3" in res.reason


def test_measuring_starts_after_slow_workers_have_ramped_up() -> None:
    from dataclasses import replace

    from tests.conftest import FAST

    # Worker 7 is ready 1.75 s after the first; a fixed 0.2 s warm-up would measure the ramp.
    res = probe("slow_start.py", "--workers", "8", settings=replace(FAST, window_s=0.5))
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.steady_state is True
    assert res.warmup_s_used is not None and res.warmup_s_used > 1.75
    # A window inside the ramp would be the lowest by far (measured: 13 vs 700 samples/s).
    assert res.windows[0] > 0.5 * max(res.windows), res.windows


def test_ceiling_mode_also_measures_the_transport_ceiling() -> None:
    import os

    slow = probe("basic.py", "--latency", "0.004")
    ceiling = probe("basic.py", "--latency", "0.004", mode="ceiling")
    assert ceiling.status == "ok", ceiling.reason + ceiling.stderr_tail
    assert ceiling.transport_reason == ""
    many = min(os.cpu_count() or 1, 8)
    assert ceiling.transport_by_workers and set(ceiling.transport_by_workers) == {0, many}
    assert ceiling.transport_samples_per_s == max(ceiling.transport_by_workers.values())
    # Free samples: far faster than loading them at 4 ms each.
    assert slow.samples_per_s and ceiling.transport_samples_per_s > 3 * slow.samples_per_s


def test_transport_ceiling_of_an_iterable_dataset() -> None:
    res = probe("iterable.py", "--latency", "0.002", mode="ceiling")
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.transport_samples_per_s and res.transport_samples_per_s > 0, res.transport_reason


def test_torch_threads_are_set_for_the_probed_process_and_read_back() -> None:
    # torch's own default in a fresh interpreter under this environment: the cores it sees.
    fresh = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
        capture_output=True,
        text=True,
        check=True,
    )
    default = int(fresh.stdout)
    as_written = probe("basic.py", loader=LoaderConfig())
    fewer = probe("basic.py", loader=LoaderConfig(threads=max(1, default - 1)))
    assert as_written.status == fewer.status == "ok", as_written.reason + fewer.reason
    assert as_written.torch_threads == default
    assert fewer.torch_threads == max(1, default - 1)
