"""The typed values a study keeps between probes, and between the processes that search it.

Each serialises to the JSON object an earlier release stored under the same key, and reads
any such object back (a key it lacks takes its default): studies outlive releases.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, TypeVar

from autotune.answer import Diagnosis, OtherLoaders
from autotune.contract import (
    BATCH_SIZE,
    LoaderConfig,
    MeasuredLoader,
    ProbeResult,
    ProbeSettings,
    by_worker_count,
)

T = TypeVar("T")


def known(cls: type[T], raw: dict[str, Any] | None) -> dict[str, Any]:
    """The entries of ``raw`` that ``cls`` has fields for: newer keys are ignored, not fatal."""
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return {k: v for k, v in (raw or {}).items() if k in names}


@dataclass(frozen=True)
class Readings:
    """Windows kept on the study, with the interference read during each
    (``probe/machine/_outside_cpu.py``): outside cores per window (None: not read), the cores
    from which one counts as disturbed."""

    windows: list[float] = field(default_factory=list)
    interference_cores: list[float | None] = field(default_factory=list)
    interference_limits: list[float] = field(default_factory=list)
    disturbed: list[bool] = field(default_factory=list)  # for people reading the record
    cpu_count: int | None = None


@dataclass(frozen=True)
class Ceiling(Readings):
    """The compute ceiling (``samples_per_s``, ``windows``) and the transport ceiling, measured
    once per study; ``status`` says why the compute figure is missing, ``transport_reason``
    why the transport one is."""

    samples_per_s: float | None = None
    transport_samples_per_s: float | None = None
    transport_by_workers: dict[int, float] | None = None
    transport_reason: str | None = None
    status: str | None = None
    remeasured: bool = False

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Ceiling:
        values = known(cls, raw)
        values["transport_by_workers"] = by_worker_count(raw.get("transport_by_workers"))
        return cls(**values)


@dataclass(frozen=True)
class Contender(Readings):
    """One config re-measured by confirmation, its windows pooled over its runs."""

    trial: int = -1
    config: dict[str, Any] = field(default_factory=dict)
    median: float | None = None
    ci95: list[float] | None = None
    runs: int = 1


@dataclass(frozen=True)
class Confirmation:
    """The pick among the leaders, re-measured interleaved with the baseline (or skipped when
    one config won by far more than the noise: ``skipped``, ``why``)."""

    winner: int
    median: float | None = None
    ci95: list[float] | None = None
    fastest: int | None = None
    baseline_median: float | None = None
    probe_seconds: float = 0.0
    candidates: list[Contender] = field(default_factory=list)
    skipped: bool = False
    why: str | None = None
    interval: str | None = None
    # Re-measured afresh because the runs compared were measured under different loads: the
    # search's windows were set aside, and only the interleaved ones count.
    fresh: bool = False
    # Why no speedup could be stated (the load would not hold still between the runs
    # compared): the script as written is then the answer.
    incomparable: str | None = None
    # Why the winner is not the fastest measured: a cheaper config reaches it (the knee), or
    # nothing was clearly faster than the script as written, whose settings then stay.
    choice: str | None = None
    # The script as written measured in two processes, where one is one draw of its rate:
    # what each read, and the figure the speedup is over (``evidence/_draws.py``).
    draws: str | None = None

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Confirmation:
        values = known(cls, raw)
        values["candidates"] = [
            Contender(**known(Contender, c)) for c in raw.get("candidates") or []
        ]
        return cls(**values)


@dataclass(frozen=True)
class SeedRecord:
    """The worker count predicted to hide loading, and what capped it."""

    predicted: int | None = None
    cap: int | None = None
    reason: str | None = None
    # The finished study whose answer was the first guess instead (a warm start), if any.
    from_study: str | None = None


@dataclass(frozen=True)
class Shape:
    """A finished study's loader as a later study on the same hardware compares its own: one
    batch's size and what it costs one loading process and the step, the worker count the
    model predicted from them, and the answer's settings for it."""

    batch_size: int
    load_s: float
    step_s: float
    predicted: int
    config: LoaderConfig
    # The most workers its data could feed (its shards, an epoch's batches), where known.
    bound: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "config": self.config.to_dict()}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Shape | None:
        try:
            return cls(
                batch_size=int(raw[BATCH_SIZE]),
                load_s=float(raw["load_s"]),
                step_s=float(raw["step_s"]),
                predicted=int(raw["predicted"]),
                config=LoaderConfig.from_dict(raw.get("config")),
                bound=int(raw["bound"]) if raw.get("bound") else None,
            )
        except (KeyError, TypeError, ValueError):
            return None  # a shape an older or newer release wrote otherwise: no warm start


@dataclass(frozen=True)
class StoredShape:
    """Another study's shape, with what says whether it holds here: its name, script, hardware
    fingerprint, ranks and when it was created."""

    study: str
    script: str | None
    hardware_id: str | None
    nproc_per_node: int
    created_at: float
    shape: Shape


@dataclass(frozen=True)
class SharedOptions:
    """What every `autotune join` shares with the study's creator: budget, space, measuring."""

    trials: int
    trial_timeout_s: float
    settings: ProbeSettings
    tune_batch_size: bool = False
    max_workers: int | None = None
    max_gpu_mem_bytes: int | None = None
    patience: int | None = None
    min_windows: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> SharedOptions:
        values = known(cls, raw)
        values["settings"] = ProbeSettings(**known(ProbeSettings, raw.get("settings")))
        return cls(**values)


@dataclass(frozen=True)
class Identity:
    """What a study measures: the script, its arguments, this hardware, the ranks."""

    script: str | None = None
    args: list[str] = field(default_factory=list)
    hardware: dict[str, Any] = field(default_factory=dict)
    nproc_per_node: int = 1
    script_sha256: str | None = None
    autotune_version: str | None = None
    created_at: float | None = None
    host: str | None = None


@dataclass(frozen=True)
class StudyState:
    """Everything the search keeps on a study, read in one go (one storage round trip)."""

    identity: Identity = field(default_factory=Identity)
    ceiling: Ceiling | None = None
    confirmation: Confirmation | None = None
    seed: SeedRecord | None = None
    predicted_workers: int | None = None
    seeded: bool = False
    # A worker count that failed (crash, memory): the space stays below it.
    worker_cap: int | None = None
    # Batches the script's whole run takes, once a probe saw it end by itself.
    script_batches: int | None = None
    # Probe time spent outside trials (ceilings, confirmation).
    extra_probe_seconds: float = 0.0
    # Set when the answer is a judgement rather than a search (a script too short to tune).
    verdict: str | None = None
    stop_reason: str | None = None
    diagnosis: Diagnosis | None = None
    options: SharedOptions | None = None
    # The evaluation loaders' own settings, once tuned after the training loader's.
    others: OtherLoaders | None = None
    # The finished search's answer, as a warm start for later studies (``Shape``).
    shape: Shape | None = None


Role = str  # "baseline" | "seeded" | "search"


@dataclass(frozen=True)
class TrialRecord:
    """What a probe said of one trial.

    ``config`` is what the probe actually applied, ``script_config`` what the script itself
    wrote; ``partial`` means the script ended before every window was measured (usable with
    at least one window); ``duplicate_of`` names the trial already measured with the same
    settings (no probe was run); ``output_tail`` is kept for failures only."""

    role: Role = "search"
    status: str | None = None
    reason: str | None = None
    config: LoaderConfig = field(default_factory=LoaderConfig)
    script_config: LoaderConfig = field(default_factory=LoaderConfig)
    result: ProbeResult | None = None
    partial: bool = False
    output_tail: str | None = None
    duplicate_of: int | None = None

    @property
    def measured(self) -> bool:
        """A probe finished and its result was recorded: not a trial whose process was killed
        (failed by its stale heartbeat and retried as a new trial)."""
        return self.status is not None

    # The figures read without the whole result.
    @property
    def data_wait_fraction(self) -> float | None:
        return self.result.data_wait_fraction if self.result is not None else None

    @property
    def samples_per_s(self) -> float | None:
        return self.result.samples_per_s if self.result is not None else None

    def stored(self, names: Iterable[str]) -> dict[str, Any]:
        """The result's fields ``names`` as stored (JSON values; None where absent): for a
        mirror that copies them as they are."""
        data = self.result.to_dict() if self.result is not None else {}
        return {name: data.get(name) for name in names}

    @property
    def windows(self) -> list[float]:
        return [float(w) for w in self.result.windows] if self.result is not None else []

    @property
    def wall_s(self) -> float:
        """The probe's wall time (0 where none was recorded)."""
        return float(self.result.wall_s or 0.0) if self.result is not None else 0.0

    @property
    def measured_loader(self) -> MeasuredLoader | None:
        return self.result.measured_loader if self.result is not None else None

    @classmethod
    def of_result(cls, result: ProbeResult, role: Role) -> TrialRecord:
        # The output's tail is kept on the record, for failures only, not in the result.
        tail = result.stderr_tail
        return cls(
            role=role,
            status=result.status,
            reason=result.reason,
            config=result.applied_config,
            script_config=result.script_config,
            result=replace(result, stderr_tail=""),
            partial=result.status == "ended_early",
            output_tail=tail if result.status != "ok" else None,
        )
