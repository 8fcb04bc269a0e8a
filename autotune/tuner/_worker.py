"""Workers: several processes, on one machine or many, searching one study in turn.

Optuna's RDB storage is the queue: each worker asks, probes and tells; heartbeats fail the
trial of a worker that died and queue its settings again. One probe at a time per machine,
because two probes on one machine measure each other.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from autotune.contract import ProbeSettings
from autotune.tuner._heartbeat import fail_stale_trials
from autotune.tuner._options import Outcome, TunerOptions
from autotune.tuner._records import counted
from autotune.tuner._stop import EXHAUSTED, DuplicateStreak
from autotune.tuner._study import StudyError
from autotune.tuner._tuner import Tuner
from autotune.tuner._verdict import baseline_failure

# Containers on one host each have their own /tmp: point AUTOTUNE_LOCK at a shared file there.
LOCK_PATH = Path(
    os.environ.get("AUTOTUNE_LOCK") or Path(tempfile.gettempdir()) / "autotune-probe.lock"
)
_OPTIONS_ATTR = "worker_options"


def save_options(study: optuna.Study, options: TunerOptions) -> None:
    """What every worker must share with the study's creator: budget, space, measurement."""
    study.set_user_attr(
        _OPTIONS_ATTR,
        {
            "trials": options.trials,
            "trial_timeout_s": options.trial_timeout_s,
            "settings": asdict(options.settings),
            "tune_batch_size": options.tune_batch_size,
            "max_workers": options.max_workers,
            "max_gpu_mem_bytes": options.max_gpu_mem_bytes,
            "patience": options.patience,
            "min_windows": options.min_windows,
        },
    )


def load_options(study: optuna.Study, **overrides: Any) -> TunerOptions:
    saved = study.user_attrs.get(_OPTIONS_ATTR)
    if saved is None:
        raise StudyError(
            f"study {study.study_name!r} was not created for workers; create it with "
            "`autotune probe SCRIPT --storage URL --study NAME --workers-only`"
        )
    values = {**saved, "settings": ProbeSettings(**saved["settings"])}
    values.update({k: v for k, v in overrides.items() if v is not None})
    return TunerOptions(**values)


@contextmanager
def machine_lock(path: Path = LOCK_PATH) -> Iterator[None]:
    """Held around each probe: the kernel frees it when its process dies, even by SIGKILL."""
    with path.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _open_slots(study: optuna.Study, trials: int) -> tuple[int, bool]:
    """(trials counted, whether one more may start): running trials hold budget too, so
    workers on several machines do not overshoot it."""
    all_trials = study.get_trials(deepcopy=False)
    done = len(counted(all_trials))
    running = sum(1 for t in all_trials if t.state == TrialState.RUNNING)
    waiting = any(t.state == TrialState.WAITING for t in all_trials)
    return done, waiting or done + running < trials


def work(tuner: Tuner, *, lock_path: Path = LOCK_PATH, poll_s: float = 1.0) -> Outcome:
    """Probe trials of ``tuner.study`` until it holds ``options.trials`` counted trials."""
    baseline = tuner.baseline_trial()
    failure = baseline_failure(baseline) if baseline is not None else None
    if failure is not None:
        raise StudyError(failure)
    verdict = tuner.study.user_attrs.get("verdict")
    if verdict:
        raise StudyError(f"nothing to search in study {tuner.study.study_name!r}: {verdict}")
    if baseline is None or not tuner.study.user_attrs.get("seeded"):
        raise StudyError(
            f"study {tuner.study.study_name!r} has no baseline yet; create it with "
            "`autotune probe ... --workers-only` first"
        )
    space = tuner.search_space()
    total = tuner.options.trials
    streak = DuplicateStreak()
    reason = None
    while reason is None:
        fail_stale_trials(tuner.study)
        with machine_lock(lock_path):
            done, may_start = _open_slots(tuner.study, total)
            if done >= total:
                reason = f"reached --trials {total}"
            elif may_start:
                if streak.exhausted(tuner.next_trial(space)):
                    reason = EXHAUSTED
                continue
        if reason is None:
            time.sleep(poll_s)  # the last trials run elsewhere; wait for them or their retry
    return tuner.finish(reason)
