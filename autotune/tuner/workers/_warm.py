"""A stored answer as the first guess (a warm start).

A finished study keeps its answer's ``Shape``: one batch's size, what it costs one loading
process and the step, the worker count the model predicted from them, and the settings the
search recommended. A new study on the same hardware (fingerprint and ranks) whose baseline
has a like shape (each figure within ``WITHIN`` times the stored one) starts from that answer
instead of the model's prediction alone: the stored worker count, scaled by how the two
predictions differ, so the model's error on this machine is corrected by what was measured on it. An
answer that sat at its own data's bound (as many workers as its dataset had shards, or an
epoch had batches) says nothing of the model's error, only of that data: it starts only a
search of the same script. The search then measures around the guess as it would around any
seed: a warm start changes where it begins, never what it must show before it recommends.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import optuna

from autotune import state
from autotune.contract import LoaderConfig, ProbeResult
from autotune.state import Shape, StoredShape, baseline_of
from autotune.tuner.evidence import (
    ceiling_rate,
    load_time_per_batch,
    most_workers,
    recommended_trial,
    trial_config,
    trial_result,
)

# How far apart two loaders' batch size, load time and step time may be for one's answer to
# seed the other: a factor each way.
WITHIN = 2.0


@dataclass(frozen=True)
class Warm:
    """Where a warm start begins: the stored study, its answer, and the count seeded here."""

    study: str
    workers: int
    config: LoaderConfig

    then: int  # what the model predicted for the stored study's loader

    def note(self, predicted: int) -> str:
        picked = self.config.num_workers or 0
        return (
            f"seeded {self.workers} workers from study {self.study!r}: for a loader of like "
            f"shape (batch size, load and step time within {WITHIN:g}x) its search found "
            f"{picked} workers where the model predicted {self.then}; here the model predicts "
            f"{predicted}, before any bound"
        )


def shape_now(
    result: ProbeResult, predicted: int | None, ceiling: float | None
) -> tuple[int, float, float] | None:
    """This baseline's batch size, load and step seconds per batch; None where unknown. The
    step is the compute ceiling's where that is shorter, as the model takes it
    (``seed_workers``): a step that waited for data runs slower, by how much depends on the
    machine's load at that moment (4x apart on two runs of one script)."""
    load, step, batch = load_time_per_batch(result), result.compute_per_batch_s, result.batch_size
    if step and batch and ceiling:
        step = min(step, batch / ceiling)
    if not predicted or not batch or not load or not step or load <= 0 or step <= 0:
        return None
    return batch, load, step


def _within(a: float, b: float) -> bool:
    return a > 0 and b > 0 and max(a, b) / min(a, b) <= WITHIN


def _distance(shape: Shape, batch: int, load: float, step: float) -> float:
    return sum(
        abs(math.log(x / y))
        for x, y in ((shape.batch_size, batch), (shape.load_s, load), (shape.step_s, step))
    )


def warm_start(
    stored: Sequence[StoredShape],
    *,
    own: str,
    script: str | None,
    hardware_id: str | None,
    nproc_per_node: int,
    now: tuple[int, float, float],
    predicted: int,
) -> Warm | None:
    """The stored answer this study starts from, or None: among the other studies on this
    hardware and ranks with a like shape, the same script first, then the nearest shape, then
    the newest."""
    batch, load, step = now
    alike = [
        s
        for s in stored
        if s.study != own
        and hardware_id is not None
        and s.hardware_id == hardware_id
        and s.nproc_per_node == nproc_per_node
        and (s.shape.config.num_workers or 0) > 0
        and s.shape.predicted > 0
        and _within(s.shape.batch_size, batch)
        and _within(s.shape.load_s, load)
        and _within(s.shape.step_s, step)
    ]
    if not alike:
        return None

    def same(s: StoredShape) -> bool:
        return script is not None and s.script is not None and Path(s.script) == Path(script)

    def bounded(s: StoredShape) -> bool:
        bound = s.shape.bound
        return bound is not None and (s.shape.config.num_workers or 0) >= bound

    alike = [s for s in alike if same(s) or not bounded(s)]
    if not alike:
        return None
    best = min(alike, key=lambda s: (not same(s), _distance(s.shape, batch, load, step),
                                     -s.created_at))  # fmt: skip
    picked = best.shape.config.num_workers or 0
    workers = max(1, round(picked * predicted / best.shape.predicted))
    return Warm(best.study, workers, best.shape.config, best.shape.predicted)


def answer_shape(study: optuna.Study) -> Shape | None:
    """What a finished study keeps for later warm starts: None unless it recommends workers
    for a baseline whose shape and prediction are known."""
    known = state.load(study)
    if known.seed is None or not known.seed.predicted:
        return None
    base = baseline_of(study.get_trials(deepcopy=False))
    best = recommended_trial(study, known)
    result = trial_result(base) if base is not None else None
    if best is None or result is None:
        return None
    config = trial_config(best)
    ceiling = ceiling_rate(known.ceiling)
    ranks = known.identity.nproc_per_node
    now = shape_now(result, known.seed.predicted, ceiling / ranks if ceiling else None)
    if not config.num_workers or now is None:
        return None
    batch, load, step = now
    bound = most_workers(study.get_trials(deepcopy=False), batch_sizes_tuned=False)
    return Shape(batch, load, step, known.seed.predicted, config, bound)
