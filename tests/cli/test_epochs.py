"""The epoch on the wall clock, through the real CLI and real probes: the figures the
answer states against the script's own clock, and start-up charged once per epoch."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SCRIPTS

# Epochs timed by the script's clock against the probe's: nothing beside it (tests/turns.py).
pytestmark = pytest.mark.alone

SCRIPT = str(SCRIPTS / "epochs.py")
# The script's line that builds its validation loader: the answer names the loader by it.
VAL_LINE = next(
    n
    for n, line in enumerate(Path(SCRIPT).read_text().splitlines(), 1)
    if "DataLoader(val_set" in line
)


def _probe(  # type: ignore[type-arg]
    db_url: str, *script_args: str, fresh: bool = False, trials: int = 4, window: float = 1.0
) -> dict:
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "autotune.cli", "probe", SCRIPT),
            *("--storage", db_url, "--trials", str(trials), "--json"),
            *(("--fresh",) if fresh else ()),
            *("--window", str(window), "--windows", "3"),
            *("--", *script_args),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    answer: dict = json.loads(proc.stdout)  # type: ignore[type-arg]
    assert answer["epoch"] is not None, proc.stderr
    answer["stderr"] = proc.stderr  # (not part of the answer) what the search did, for failures
    return answer


def _own_clock(tmp_path: Path, *script_args: str) -> list[dict]:  # type: ignore[type-arg]
    """The script's own epochs 2-4, as written and without autotune; the first one (its
    imports, the first fork) is no steady epoch."""
    report = tmp_path / "own.jsonl"
    subprocess.run(
        [sys.executable, SCRIPT, *script_args, "--epochs", "4", "--report", str(report)],
        check=True,
        timeout=300,
    )
    return [json.loads(line) for line in report.read_text().splitlines()][1:]


@pytest.mark.slow
def test_workers_restarted_every_epoch_pay_their_start_up_per_epoch(
    db_url: str, tmp_path: Path
) -> None:
    # 16 batches of 8 an epoch; the loader is rebuilt every epoch with 2 workers that each
    # take 0.3 s to start: about 0.15 s of batches with workers, against 0.3 s with none.
    args = ("--workers", "2", "--worker-start", "0.3", "--size", "128", "--latency", "0.002")
    answer = _probe(db_url, *args)
    epoch = answer["epoch"]
    own = _own_clock(tmp_path, *args)
    startup = statistics.median(e["startup_s"] for e in own)
    assert epoch["startup_s"] == pytest.approx(startup, rel=0.25), (epoch, own)
    # Workers whose start-up costs more than they save within an epoch are not recommended.
    assert answer["recommended"]["config"]["num_workers"] == 0, (answer, answer["stderr"])
    assert epoch["recommended_s"] < epoch["as_written_s"]


@pytest.mark.slow
def test_the_epoch_and_its_validation_pass_both_tuned(db_url: str, tmp_path: Path) -> None:
    # Training: 64 batches of 8 at 3 ms a sample, 0 workers; validation: 32 batches of 8 at
    # 3 ms a sample, 0 workers: about a third of the epoch (2.3 s as written). Both loaders
    # are built once, so workers (persistent if recommended) need not restart every epoch:
    # forking many of them each epoch on a loaded 2-core machine varies by 2x from run to run.
    args = ("--size", "512", "--latency", "0.003", "--val-size", "256", "--val-latency", "0.003")
    args += ("--build-once",)
    # Three trials: the script as written, the seeded worker count and one neighbour; this
    # test is about the epoch around the pick, not how far the search goes.
    # Windows of 0.5 s of training: the validation pass as written (0.8 s) runs between
    # training epochs of 0.2 s, so each window's wall is several times its length.
    answer = _probe(db_url, *args, trials=3, window=0.5)
    if (answer.get("interference") or {}).get("comparison"):
        # The machine's load changed between the script as written and the settings: the
        # answer refuses a speedup it could not show (the script as written stays), which is
        # right; this test is about epochs, so it measures again on the next study.
        assert answer["recommended"]["config"]["num_workers"] == 0, answer
        answer = _probe(db_url, *args, fresh=True, trials=3, window=0.5)
    epoch = answer["epoch"]
    own = _own_clock(tmp_path, *args)
    assert epoch["as_written_s"] == pytest.approx(
        statistics.median(e["epoch_s"] for e in own), rel=0.15
    ), (epoch, own)
    assert [p["batches"] for p in epoch["passes"]] == [32]
    assert 0.2 < epoch["outside_share"] < 0.5, epoch
    # `autotune run --study`: the epochs the recommendation makes, by the script's own clock.
    report = tmp_path / "run.jsonl"
    subprocess.run(
        [
            *(sys.executable, "-m", "autotune.cli", "run", SCRIPT, "--study", answer["study"]),
            *("--storage", db_url, "--", *args, "--epochs", "6", "--report", str(report)),
        ],
        check=True,
        timeout=300,
    )
    ran = [json.loads(line) for line in report.read_text().splitlines()][1:]
    tuned = statistics.median(e["epoch_s"] for e in ran)
    # Two runs apart on a shared 2-core machine: each alone moves by up to 30 % (the figure
    # was 0.43 s against the run's 0.34 s in one CI run; within 3 % on a quiet box).
    assert epoch["recommended_s"] == pytest.approx(tuned, rel=0.35), (epoch, ran)
    # Both loaders got settings of their own, and whole epochs by the script's clock show it:
    # validation as written alone takes a third of the written epoch (256 of 768 samples at
    # the same latency), so with it untuned no epoch could run 3x faster; 3.5x needs both.
    # (Picks ran 4.7-6x here: the knee, 7 workers, against 15 when the fastest was taken.)
    assert answer["recommended"]["config"]["num_workers"] > 0, (answer, answer["stderr"])
    others = answer["others"]
    assert others["config"]["num_workers"] > 0, (others, answer["stderr"])
    (named,) = others["loaders"]  # the validation loader, at its DataLoader(...) line
    assert named.startswith("Tiny at ") and named.endswith(f"epochs.py:{VAL_LINE}"), others
    written = statistics.median(e["epoch_s"] for e in own)
    assert written / tuned >= 3.5, (own, ran)
