"""Real probes of framework scripts: the training loader is measured, whatever built it, and
torchrun-style ranks sum, fail and end together."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from autotune.contract import LoaderConfig, MeasuredLoader, ProbeResult, TrialConfig
from autotune.runner import SubprocessRunner, Target, merge_rank_results
from tests.conftest import FAST, MARK_ENV, SCRIPTS, assert_no_orphans, probe

FRAMEWORKS = SCRIPTS / "frameworks"
TUNED = LoaderConfig(num_workers=1, batch_size=16)


def ranks_probe(*args: str, timeout_s: float = 60, nproc: int = 2) -> ProbeResult:
    """One real multi-rank probe of ddp_gloo.py; asserts nothing of it survives."""
    mark = uuid.uuid4().hex
    target = Target(
        str(FRAMEWORKS / "ddp_gloo.py"), args, env={MARK_ENV: mark}, nproc_per_node=nproc
    )
    config = TrialConfig(loader=LoaderConfig(num_workers=1), settings=FAST)
    result = SubprocessRunner().run(target, config, timeout_s=timeout_s)
    assert_no_orphans(mark)
    return result


@pytest.mark.slow
def test_lightning_measures_the_train_loader_not_the_sanity_check(tmp_path: Path) -> None:
    pytest.importorskip("lightning")
    report = tmp_path / "seen.json"
    res = probe(
        str(FRAMEWORKS / "lightning_train.py"), "--report", str(report), loader=TUNED, timeout_s=90
    )
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.measured_loader == MeasuredLoader(
        loader="DataLoader",
        dataset="SlowTrain",
        batch_size=8,
        framework="lightning",
        built_by="Trainer.fit",  # train_dataloader() runs inside it
        iterable=False,
    )
    assert res.script_config.batch_size == 8 and res.script_config.num_workers == 0
    assert res.batch_size == 16
    # Settings on the train loader only; the val loader (batch 4) keeps its own.
    seen = json.loads(report.read_text())
    assert seen == {"train_workers": 1, "train_batch": 16, "val_workers": 0, "val_batch_size": 4}


@pytest.mark.slow
def test_lightning_fit_that_ends_in_the_replay_still_gets_a_compute_ceiling() -> None:
    # One epoch of 512 batches: the baseline's windows take a few hundred, and the replay
    # runs through the rest of the fit loop in well under a window.
    pytest.importorskip("lightning")
    settings = replace(FAST, window_s=0.5, windows=2)
    res = probe(
        str(FRAMEWORKS / "lightning_train.py"),
        "--max-epochs",
        "1",
        settings=settings,
        mode="baseline",
        timeout_s=120,
    )
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.ceiling_status == "ok", res.ceiling_status
    assert res.ceiling_samples_per_s and res.samples_per_s
    assert res.ceiling_samples_per_s > 2 * res.samples_per_s  # the step without the loading
    assert res.script_batches == 512  # it saw the whole fit: later probes fit inside it


@pytest.mark.slow
def test_hf_trainer_measures_the_train_loader_not_eval(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    report = tmp_path / "seen.json"
    res = probe(
        str(FRAMEWORKS / "hf_trainer.py"), "--report", str(report), loader=TUNED, timeout_s=90
    )
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.measured_loader == MeasuredLoader(
        loader="DataLoader",
        dataset="SlowText",
        batch_size=8,
        framework="transformers",
        built_by="Recording.train",  # the script's own subclass of the Trainer
        iterable=False,
    )
    assert res.applied_config.num_workers == 1
    assert res.batch_size == 8  # Accelerate's batch_sampler owns the size: not applied
    seen = json.loads(report.read_text())  # eval ran every 5 steps, before the choice too
    assert seen["train_workers"] == 1 and seen["eval_workers"] == 0


@pytest.mark.slow
def test_two_ranks_sum_their_throughput_and_leave_nothing() -> None:
    res = ranks_probe()
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.ranks is not None and [r.status for r in res.ranks] == ["ok", "ok"]
    per_rank = [r.samples_per_s for r in res.ranks]
    assert res.windows == [
        pytest.approx(a + b) for a, b in zip(*(r.windows for r in res.ranks), strict=False)
    ]
    assert res.samples_per_s is not None and res.samples_per_s > max(per_rank)
    assert res.applied_config.num_workers == 1
    assert res.measured_loader is not None and res.measured_loader.dataset == "Slow"


@pytest.mark.slow
def test_a_crashing_rank_fails_the_trial_with_its_error() -> None:
    res = ranks_probe("--crash-rank", "1")
    assert res.status == "crashed"
    assert res.reason.startswith("rank 1: ")
    assert "rank 1 diverged at step 30" in res.reason


@pytest.mark.slow
def test_a_hanging_rank_is_hung_and_killed() -> None:
    # The same job without the hang ends well within the timeout (3 s of 12 here), so the
    # hang, not a slow start, is what the timeout caught.
    assert ranks_probe(timeout_s=12).status == "ok"
    res = ranks_probe("--hang-rank", "1", timeout_s=12)
    assert res.status == "hung"
    assert "timeout" in res.reason


def _rank(status: str, windows: list[float], step: float, reason: str = "") -> ProbeResult:
    return ProbeResult(
        status=status,  # type: ignore[arg-type]
        reason=reason,
        windows=windows,
        samples_per_s=sorted(windows)[len(windows) // 2] if windows else None,
        step_p50_s=step,
        batches=10,
        samples=80,
    )


def test_merge_sums_rates_and_keeps_the_slowest_rank() -> None:
    job = merge_rank_results([_rank("ok", [10, 12, 11], 0.1), _rank("ok", [9, 10], 0.2)])
    assert job.status == "ok"
    assert job.windows == [19, 22]
    assert job.samples_per_s == pytest.approx(20.5)
    assert job.step_p50_s == 0.2
    assert (job.batches, job.samples) == (20, 160)
    assert job.ranks is not None and [r.rank for r in job.ranks] == [0, 1]


def test_merge_takes_the_other_ranks_out_of_each_ranks_interference() -> None:
    # Each rank's tree used 1 core; each read the other rank's core as outside its tree.
    ranks = [_rank("ok", [10, 12, 11], 0.1), _rank("ok", [9, 10, 10], 0.1)]
    for res, cores in zip(ranks, ([1.0, 1.9, 1.05], [1.1, 2.1, 0.9]), strict=True):
        res.main_cpu_s, res.worker_cpu_s, res.measured_wall_s = 0.5, 1.0, 1.5
        res.interference_cores = cores
    job = merge_rank_results(ranks)
    assert job.interference_cores == pytest.approx([0.05, 1.0, 0.025])
    ranks[1].interference_cores = []  # a rank without readings: the job has none
    assert merge_rank_results(ranks).interference_cores == []


def test_merge_names_the_failed_rank() -> None:
    ranks = [_rank("ok", [10], 0.1), _rank("oom", [], 0.1, "CUDA out of memory")]
    job = merge_rank_results(ranks)
    assert (job.status, job.reason) == ("oom", "rank 1: CUDA out of memory")
    ended = merge_rank_results([_rank("ok", [1], 0.1), _rank("ended_early", [1], 0.1, "short")])
    assert (ended.status, ended.reason) == ("ended_early", "rank 1: short")
