"""`autotune run --adapt` as a user runs it: one training, the same samples in the same order,
the segments in a study whose answer later plain runs apply; a second run starts from it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import optuna
import pytest

from autotune import state
from tests.conftest import MARK_ENV, SCRIPTS, as_foreground, assert_no_orphans

# The live runs are alone (tests/turns.py): a live search must settle before the training
# ends, which a neighbour's load delays. The refusals start no search and share the machine.

CLI = [sys.executable, "-m", "autotune.cli"]
SCRIPT = str(SCRIPTS / "ordered.py")
# 32 epochs of 512 samples: the search's three segments take about 9,000 samples at the rates
# of a quiet 2-core machine, and with 20 epochs (10,240) a busy one once ended the training
# before the third segment was done, so the run never settled.
ARGS = ["--epochs", "32", "--samples", "512", "--latency-ms", "1"]
QUICK = ["--segments", "3", "--max-workers", "6", "--warmup", "0.2", "--window", "0.3"]


def _cli(*args: str, mark: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, MARK_ENV: mark or uuid.uuid4().hex}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600, env=env)


def _digest(stdout: str) -> str:
    words = stdout.split()
    return words[words.index("digest") + 1]


@pytest.mark.alone
@pytest.mark.slow
def test_adapt_trains_once_on_the_same_samples_and_records_its_answer(db_url: str) -> None:
    # The order the script trains on: a DataLoader delivers the same batches in the same
    # order whatever its workers, so 4 of them give it in a fifth of the time 0 take.
    plain = subprocess.run(
        [sys.executable, SCRIPT, *ARGS, "--num-workers", "4"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert plain.returncode == 0, plain.stderr
    mark = uuid.uuid4().hex
    first = _cli("run", SCRIPT, "--adapt", "--storage", db_url, *QUICK, "--", *ARGS, mark=mark)
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    assert _digest(first.stdout) == _digest(plain.stdout)
    assert_no_orphans(mark)
    name = first.stderr.split("recorded in study ")[1].split()[0]
    answer = json.loads(_cli("best", name, "--storage", db_url, "--json").stdout)
    settled = answer["recommended"]["config"]
    assert settled["num_workers"] > 0, answer
    assert f"settled on workers={settled['num_workers']}" in first.stderr, first.stderr

    # A second run starts from the first one's answer instead of guessing from its figures.
    second = _cli("run", SCRIPT, "--adapt", "--storage", db_url, *QUICK, "--", *ARGS)
    assert second.returncode == 0, second.stderr
    assert f"seeded from study {name!r}" in second.stderr, second.stderr
    assert _digest(second.stdout) == _digest(plain.stdout)
    again = second.stderr.split("recorded in study ")[1].split()[0]
    trials = optuna.load_study(study_name=again, storage=db_url).get_trials(deepcopy=False)
    assert trials[1].params["num_workers"] == settled["num_workers"], trials[1].params
    assert "seeded {" in second.stderr and "from a stored answer" in second.stderr
    shown = _cli("show", again, "--storage", db_url)
    assert shown.returncode == 0 and "adapt" in shown.stdout, shown.stdout


@pytest.mark.alone
@pytest.mark.slow
def test_a_two_rank_ddp_job_adapts_as_one_and_keeps_each_rank_s_order(db_url: str) -> None:
    script = str(SCRIPTS / "ddp_ordered.py")
    args = ["--epochs", "6", "--samples", "2048", "--latency-ms", "5"]
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    # Each rank's order as written: its DistributedSampler's batches come in the same order
    # whatever the workers, so 4 each give it in a fraction of the 31 s that 0 take. Whether
    # the adapted job ends sooner, tuning included, is timed by `benchmarks/adapt.py
    # --ranks-repeats` (docs/benchmarks.md), interleaved, not by one pair here.
    plain = subprocess.run(
        [*torchrun, "--nproc-per-node=2", script, *args, "--num-workers", "4"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert plain.returncode == 0, plain.stderr
    quick = ["--segments", "5", "--max-workers", "12", "--warmup", "0.3", "--window", "0.5"]
    done = _cli(
        "run", script, "--adapt", "--nproc-per-node", "2", "--storage", db_url, *quick, "--", *args
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert _rank_digests(done.stdout) == _rank_digests(plain.stdout), (done.stdout, plain.stdout)
    assert len(_rank_digests(plain.stdout)) == 2
    name = done.stderr.split("recorded in study ")[1].split()[0]
    trials = optuna.load_study(study_name=name, storage=db_url).get_trials(deepcopy=False)
    segment = state.record_of(trials[1]).result
    ranks = segment.ranks if segment is not None else None  # each rank's own, per segment
    assert ranks is not None and [r.rank for r in ranks] == [0, 1], ranks
    assert all(r.samples_per_s for r in ranks), ranks
    # Latency-bound at 0 workers as written: the job's answer hides the loading with workers.
    answer = json.loads(_cli("best", name, "--storage", db_url, "--json").stdout)
    assert answer["recommended"]["config"]["num_workers"] > 0, (answer, done.stderr)


@pytest.mark.alone
@pytest.mark.slow
def test_a_rank_that_fails_ends_the_adapting_job_as_torchrun_would_with_its_reason(
    db_url: str,
) -> None:
    script = str(SCRIPTS / "rank_fails.py")
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    plain = subprocess.run(
        [*torchrun, "--nproc-per-node=2", script, "--fail-at", "400"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert plain.returncode != 0
    done = _cli(
        "run",
        script,
        "--adapt",
        "--nproc-per-node",
        "2",
        "--storage",
        db_url,
        *QUICK,
        "--",
        "--fail-at",
        "400",
    )
    assert done.returncode == plain.returncode, done.stderr
    name = done.stderr.split("recorded in study ")[1].split()[0]
    trials = optuna.load_study(study_name=name, storage=db_url).get_trials(deepcopy=False)
    last = state.record_of(trials[-1])
    assert last.status == "crashed", last
    assert (last.reason or "").startswith("rank 1: ValueError: bad sample 400 on rank 1"), last


def _rank_digests(stdout: str) -> dict[str, str]:
    """Each rank's ``rank R digest D``: R -> D (found anywhere: the ranks share one stdout)."""
    return dict(re.findall(r"rank (\d+) digest ([0-9a-f]{64})", stdout))


def test_run_asks_for_a_study_or_adapt() -> None:
    done = _cli("run", SCRIPT)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "--study NAME" in done.stderr and "--adapt" in done.stderr


@pytest.mark.slow
def test_a_stream_s_run_points_to_the_probe_s_answer_and_never_hides_it(db_url: str) -> None:
    # A stream is not switched mid-run, so the run measures only the script as written; the
    # probe's answer for the same script still holds and is what the run's last line gives.
    args = ["--epochs", "12", "--samples", "256", "--latency-ms", "2", "--iterable"]
    fast = ["--warmup", "0.2", "--window", "0.3", "--windows", "2", "--max-workers", "4"]
    probed = _cli("probe", SCRIPT, "--storage", db_url, "--trials", "2", *fast, "--", *args)
    assert probed.returncode == 0, probed.stderr
    name = probed.stderr.split("autotune: study ")[1].split()[0]
    workers = json.loads(_cli("best", name, "--storage", db_url, "--json").stdout)
    assert workers["recommended"]["config"]["num_workers"] > 0, workers
    for _ in range(2):  # the second run's stored answer is still the probe's, not the run's
        run = _cli("run", SCRIPT, "--adapt", "--storage", db_url, *QUICK, "--", *args)
        assert run.returncode == 0, run.stderr
        assert f"seeded from study {name!r}" in run.stderr, run.stderr
        said = " ".join(run.stderr.split())
        assert f"the stored answer of study {name} (workers=" in said, said
        assert f"--study {name} -- {' '.join(args)}" in said, said


def test_tuning_options_without_adapt_are_refused_in_words() -> None:
    done = _cli("run", SCRIPT, "--study", "x", "--segments", "4", "--window", "0.5")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "--segments, --window only apply with --adapt" in done.stderr
    # Given at its default value, an option is still given: refused the same way.
    done = _cli("run", SCRIPT, "--study", "x", "--segments", "12")
    assert done.returncode == 2 and "--segments only apply with --adapt" in done.stderr


def test_a_run_without_a_dataloader_is_told_so_and_keeps_its_exit_code(db_url: str) -> None:
    done = _cli("run", str(SCRIPTS / "no_loader.py"), "--adapt", "--storage", db_url)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "never iterated a torch DataLoader" in done.stderr, done.stderr
    assert "apply without tuning" not in done.stderr


def test_ctrl_c_before_the_loader_is_not_told_as_a_script_without_one(db_url: str) -> None:
    # The script sends its own group SIGINT, so autotune runs in a session of its own here.
    cmd = [*CLI, "run", str(SCRIPTS / "ctrl_c_early.py"), "--adapt", "--storage", db_url]
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=300, start_new_session=True,
        preexec_fn=as_foreground,
    )  # fmt: skip
    assert done.returncode == 130, done.stderr
    assert "KeyboardInterrupt" in done.stderr and "the loop ran" not in done.stdout
    assert "Ctrl-C ended it before autotune had its training loader" in done.stderr, done.stderr
    assert "never iterated a torch DataLoader" not in done.stderr, done.stderr


@pytest.mark.alone
@pytest.mark.slow
def test_a_run_whose_loading_turns_8x_slower_searches_again_on_the_same_samples(
    db_url: str, tmp_path: Path
) -> None:
    # The script itself makes every sample 8x slower to load halfway through its batches
    # (it creates the flag file its dataset reads, and prints when): no sleep of the test's
    # decides when, and the run's own study says when the search reopened.
    # 48 epochs of 48 batches; 8x slower from the middle on.
    half = 1152
    args = ["--epochs", "48", "--samples", "384", "--latency-ms", "2", "--step-ms", "5"]
    args += ["--slower-after", str(half), "--slower-by", "8"]
    quick = ["--segments", "4", "--max-workers", "16", "--warmup", "0.2", "--window", "0.3"]
    flag = tmp_path / "slower"
    done = _cli(
        "run", SCRIPT, "--adapt", "--storage", db_url, *quick, "--", *args, "--slow-flag", str(flag)
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    slower_at = float(done.stdout.split("slower at ")[1].split()[0])
    name = done.stderr.split("recorded in study ")[1].split()[0]
    trials = optuna.load_study(study_name=name, storage=db_url).get_trials(deepcopy=False)
    reopened = [t for t in trials if state.role(t) == "reopened"]
    assert reopened, done.stderr
    # The rise reopens it. On a shared VM a load that ended beside the run (another guest's
    # steal counts) may reopen it first; a search open when loading slows measures the
    # slower loading in its own segments. Either way, a segment measures it within 30 s.
    reasons = [state.record_of(t).reason or "" for t in reopened]
    kinds = ("reopened: the data wait rose", "reopened: the load beside the run ended")
    assert all(r.startswith(kinds) for r in reasons), reasons
    starts = [t.datetime_start.timestamp() for t in reopened if t.datetime_start is not None]
    after = [at for at in starts if at >= slower_at]
    assert after, (starts, slower_at, reasons)
    assert min(after) - slower_at < 30, (starts, slower_at, reasons)
    assert "searching again from the settled settings" in done.stderr
    shown = _cli("show", name, "--storage", db_url)  # the reopening, as the user reads it
    assert shown.returncode == 0 and "reopened" in shown.stdout, shown.stdout

    # The same samples in the same order as the script gives them, slowed or not: the order
    # is its sampler's, whatever the workers and the latency. How much sooner the adapted run
    # ends than the job kept on its first settled settings is timed by
    # `benchmarks/adapt_reopen.py` (docs/benchmarks.md), interleaved, not by one pair here.
    plain = subprocess.run(
        [sys.executable, SCRIPT, *args[:-4], "--num-workers", "4"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert plain.returncode == 0, plain.stderr
    assert _digest(plain.stdout) == _digest(done.stdout)


EPOCHS = str(SCRIPTS / "epochs.py")
# 256 training and 256 validation samples at 3 ms each, both loaders built once at 0 workers:
# the validation pass is about half of each epoch as written.
EVAL_ARGS = ["--size", "256", "--latency", "0.003", "--val-size", "256", "--val-latency", "0.003"]


def _validation_order() -> str:
    """The digest the script's validation pass gives as written: batches of 8, in order."""
    import hashlib

    import torch

    order = hashlib.sha256()
    for start in range(0, 256, 8):
        order.update(torch.arange(start, start + 8, dtype=torch.float32).numpy().tobytes())
    return order.hexdigest()


def _adapt_epochs(db_url: str, tmp_path: Path, *extra: str) -> tuple[list[dict], dict]:  # type: ignore[type-arg]
    report = tmp_path / "epochs.jsonl"
    proc = _cli(
        *("run", "--adapt", EPOCHS, "--storage", db_url, *QUICK),
        *("--", *EVAL_ARGS, "--build-once", "--report", str(report), *extra),
    )
    assert proc.returncode == 0, proc.stderr
    epochs = [json.loads(line) for line in report.read_text().splitlines()]
    name = re.search(r"--study (\S+)", proc.stderr)
    assert name, proc.stderr
    best = _cli("best", name.group(1), "--storage", db_url, "--json")
    assert best.returncode == 0, best.stderr
    answer = json.loads(best.stdout)
    answer["stderr"] = proc.stderr  # (not part of the answer) what the run said, for failures
    shown = _cli("show", name.group(1), "--storage", db_url)
    answer["show"] = shown.stdout
    return epochs, answer


@pytest.mark.alone
@pytest.mark.slow
def test_adapt_tunes_the_validation_loader_on_its_own_passes_in_the_same_order(
    db_url: str, tmp_path: Path
) -> None:
    epochs, answer = _adapt_epochs(db_url, tmp_path, "--epochs", "8")
    assert len(epochs) == 8
    # The script's own validation batches, in the script's order, in every pass.
    assert {e["val_order"] for e in epochs} == {_validation_order()}
    others = answer["others"]
    assert others is not None, answer["stderr"]
    assert others["config"] is not None and others["config"]["num_workers"] >= 2, others
    assert others["tuned_s"] < others["as_written_s"]
    passes = others["passes"]
    assert len(passes) == 8 and all("epochs.py" in p["loader"] for p in passes)
    assert passes[0]["num_workers"] == 0 and any(p["num_workers"] >= 2 for p in passes)
    # By the script's own clock: once settled, a validation pass takes at most half as long.
    first, settled = epochs[0]["val_s"], sorted(e["val_s"] for e in epochs[-3:])[1]
    assert settled <= first / 2, (first, [e["val_s"] for e in epochs], answer["stderr"])
    assert "other loaders' passes" in answer["show"]


@pytest.mark.alone
@pytest.mark.slow
def test_a_validation_setting_that_fails_in_a_pass_is_abandoned_and_the_run_goes_on(
    db_url: str, tmp_path: Path
) -> None:
    # Its dataset fails in any worker: the first worker count tried fails in its pass.
    epochs, answer = _adapt_epochs(db_url, tmp_path, "--epochs", "3", "--val-main-only")
    assert len(epochs) == 3  # the training ran to its end: not the script's failure
    assert {e["val_order"] for e in epochs} == {_validation_order()}  # no batch lost or repeated
    others = answer["others"]
    assert others is not None and others["config"] is None, answer["stderr"]
    assert "failed in a pass" in others["reason"] and "RuntimeError" in others["reason"]
    assert any(p["abandoned"] for p in others["passes"]), others["passes"]
