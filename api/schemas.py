"""The shapes the API answers with: together with the routes, they are the OpenAPI contract."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from autotune.answer import Baseline, Bottleneck, Epoch, Failure, OtherLoaders, Recommended
from autotune.contract import GpuReading, LoaderConfig, MeasuredLoader, RankFigures


class ErrorBody(BaseModel):
    detail: str = Field(description="What went wrong and what to do about it.")
    errors: list[dict[str, Any]] | None = Field(
        None, description="Each invalid parameter, for 422 answers."
    )


class Health(BaseModel):
    status: str
    version: str
    schema_revision: str | None
    studies: int


class Host(BaseModel):
    fingerprint: str
    description: str
    cpu_model: str | None = None
    cpu_count: int | None = None
    memory_gb: int | None = None
    gpu_model: str | None = None
    gpu_count: int | None = None
    driver: str | None = None
    cuda: str | None = None
    torch: str | None = None
    platform: str | None = None


class TrialCounts(BaseModel):
    total: int
    complete: int
    failed: int
    pruned: int


# The settings of a trial, as the probe and the tuner exchange them (None: as the script wrote).
LoaderSettings = LoaderConfig


class Diagnosis(BaseModel):
    bottleneck: Bottleneck = Field(
        description="What limits the loop: the model step, CPU-bound loading, I/O-latency-bound "
        "loading, worker start-up, or unknown (nothing measured)."
    )
    summary: str = Field(description="One sentence, with the numbers that say so.")


class WindowCount(BaseModel):
    disturbed: int = Field(description="Windows measured while another process used the cores.")
    windows: int = Field(description="Windows with an interference reading.")


class LoadCondition(BaseModel):
    kind: Literal["quiet", "loaded", "changing", "unread"] = Field(
        description="The load the answer's own figures were measured under: a quiet machine, "
        "another process's steady load, a load that came and went, or no reading."
    )
    cores: float | None = Field(None, description="Mean cores other processes used meanwhile.")
    cpu_count: int | None = None
    text: str = Field(
        description='The condition in words ("with another process on 1.0 of 2 cores").'
    )


class Interference(BaseModel):
    summary: str = Field(description="One sentence: how much, how often, what it did.")
    windows: int = Field(description="Windows of every run in the study with a reading.")
    disturbed_windows: int = Field(
        description="Of those, measured while other processes used at least half a core, and "
        "at least a quarter of the cores the probe left free."
    )
    max_cores: float | None = Field(
        None, description="The most cores used outside the probe's process tree in one window."
    )
    recommended: WindowCount | None = None
    baseline: WindowCount | None = None
    ceiling: WindowCount | None = Field(None, description="The compute ceiling's windows.")
    widened: bool = Field(
        description="The recommended interval's upper end was raised to what a quiet machine "
        "could give."
    )
    condition: LoadCondition | None = Field(
        None, description="The load the answer was measured under, kept with it."
    )
    comparison: str | None = Field(
        None,
        description="Why no speedup is stated: the runs compared were measured under different "
        "loads and could not be re-measured like with like. Null when the comparison stands.",
    )


class StudyItem(BaseModel):
    name: str
    script: str | None
    args: list[str]
    host: Host | None
    state: str = Field(description="finished, running, stopped (interrupted) or empty.")
    trials: TrialCounts
    best_samples_per_s: float | None
    baseline_samples_per_s: float | None
    speedup: float | None
    ceiling_samples_per_s: float | None = None
    efficiency: float | None = Field(
        None, description="Best samples/s over the lower of the compute and transport ceilings."
    )
    note: str | None
    updated_at: float


class StudyPage(BaseModel):
    items: list[StudyItem]
    total: int
    limit: int
    offset: int


class StudyDetail(StudyItem):
    script_hash: str | None
    created_at: float | None
    stop_reason: str | None
    diagnosis: Diagnosis | None = Field(
        None, description="Why the loader is slow, as the tuner judged it."
    )
    # The answer's own types (autotune.answer): the API serves what the tuner computed.
    recommended: Recommended | None
    baseline: Baseline | None
    probe_seconds: float | None
    failures: list[Failure]
    transport_ceiling_samples_per_s: float | None = Field(
        None,
        description="What the loader's machinery delivers with zero-cost samples, at the "
        "recommended worker count.",
    )
    binding_ceiling: Literal["compute", "transport"] | None = Field(
        None, description="The lower ceiling, which the efficiency is stated against."
    )
    ceiling_missing: dict[str, str] = Field(
        default_factory=dict,
        description='Why a ceiling has no figure, by ceiling ("compute", "transport").',
    )
    nproc_per_node: int = Field(1, description="Ranks per node; settings are per rank.")
    verdict: str | None = Field(
        None, description="A judgement instead of a search, e.g. a script too short to tune."
    )
    choice: str | None = Field(
        None,
        description="Why the recommendation is not the fastest config measured: a cheaper one "
        "reaches it within noise (the knee), or nothing was clearly faster than the script as "
        "written, whose settings then stay.",
    )
    cores: str | None = Field(
        None,
        description="The cores the job had, where its CPU set (taskset, SLURM) or CPU quota "
        "(cgroup cpu.max, Kubernetes limits) gave it fewer than the node's.",
    )
    randomness: str | None = Field(
        None,
        description="What the recommended workers change besides speed where loading a batch "
        "draws from the global random generators (torch's, Python's random, numpy's): the "
        "augmentations drawn, and with torch's the training process's later draws; null where "
        "loading draws from none or stays in the main process.",
    )
    started_from: str | None = Field(
        None,
        description="The stored study on this hardware whose answer, for a loader of like "
        "shape, was the search's first guess (a warm start); null where the model's own "
        "prediction was.",
    )
    measured_loader: MeasuredLoader | None = Field(
        None,
        description="The loader measured: its type, dataset type, batch size, framework "
        "(lightning, fabric, transformers, accelerate, skorch, mmengine, fastai or null) and "
        "built_by, the library class and method that built or iterated it.",
    )
    interference: Interference | None = Field(
        None,
        description="CPU time other processes used during the measurement windows; null for "
        "studies measured before it was read.",
    )
    epoch: Epoch | None = Field(
        None,
        description="One epoch of the script on the wall clock, as written and with the "
        "recommendation: its share outside the training loader, the training loader's "
        "start-up paid per epoch, the other loaders' passes; reason says why a figure is "
        "missing. Null for studies measured before epochs were timed.",
    )
    others: OtherLoaders | None = Field(
        None,
        description="The epoch's other map-style loaders (evaluation, validation), tuned "
        "beside the recommendation: their settings (null: the script's stand, reason says "
        "why), their passes' seconds an epoch as written and tuned, each worker count "
        "tried, whether the settings hold for an IterableDataset's loader too (iterable), "
        "and for a live run (autotune run --adapt) each pass it saw, in order (passes). Null "
        "where the epoch had no such loader or the study predates it.",
    )


class RankRate(BaseModel):
    rank: int
    status: str | None = None
    samples_per_s: float | None = Field(None, description="This rank's own samples/s.")


class TrialItem(BaseModel):
    number: int
    state: str
    role: str | None
    status: str | None
    reason: str | None
    failure_class: str | None
    config: LoaderSettings | None
    samples_per_s: float | None
    data_wait_fraction: float | None
    step_p50_s: float | None
    step_p95_s: float | None
    wait_per_batch_s: float | None = None
    compute_per_batch_s: float | None = None
    partial: bool
    duplicate_of: int | None
    started_at: float | None
    completed_at: float | None
    rank_rates: list[RankRate] | None = Field(
        None,
        description="Multi-rank trials (a job's segment under --adapt --nproc-per-node N): "
        "each rank's status and samples/s, rank 0 first; samples_per_s is the job's.",
    )


class TrialPage(BaseModel):
    items: list[TrialItem]
    total: int
    limit: int
    offset: int


class TrialDetail(TrialItem):
    script_config: LoaderSettings | None
    windows: list[float] = Field(description="samples/s of each measurement window, in order.")
    time_to_first_batch_s: float | None
    main_cpu_s: float | None
    worker_cpu_s: float | None
    peak_rss_bytes: int | None = Field(
        None,
        description="Peak host memory of the probe's process tree, DataLoader workers included, "
        "with pages the workers share copy-on-write counted once (proportional set size).",
    )
    gpu: GpuReading | None
    batches: int | None
    samples: int | None
    wall_s: float | None
    output_tail: str | None
    steady_state: bool | None = Field(
        None, description="False when the rate was still climbing when warm-up had to end."
    )
    warmup_s_used: float | None = None
    transport_samples_per_s: float | None = Field(
        None, description="Ceiling probes: what the loader's machinery delivers with free samples."
    )
    transport_by_workers: dict[int, float] | None = None
    transport_reason: str | None = None
    measured_loader: MeasuredLoader | None = Field(
        None,
        description="The loader measured: its type, dataset type, batch size, framework "
        "(lightning, fabric, transformers, accelerate, skorch, mmengine, fastai or null) and "
        "built_by, the library class and method that built or iterated it.",
    )
    ranks: list[RankFigures] | None = Field(
        None, description="Multi-rank probes: each rank's own figures."
    )


class Recommendation(BaseModel):
    study: str
    trial: int
    config: LoaderSettings
    samples_per_s: float | None
    ci95: Any = Field(None, description="95% interval of samples/s when confirmation ran.")
    baseline: dict[str, Any] | None
    speedup: float | None
    snippet: str = Field(
        description="The settings to paste where the script's loader is made: its DataLoader(...) "
        "call, or the arguments of the library that builds it (TrainingArguments, skorch's "
        "iterator_train__*, MMEngine's train_dataloader dict, fastai's dataloaders())."
    )
    updated_at: float


class NoteIn(BaseModel):
    note: str = Field(max_length=10_000, description="Free text shown beside the study.")
