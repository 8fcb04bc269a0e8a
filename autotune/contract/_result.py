"""What a probe reports: its result, and the figures inside it."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune.contract._config import LoaderConfig, Status
from autotune.contract._exchange import write_whole


def by_worker_count(raw: dict[Any, Any] | None) -> dict[int, float] | None:
    """Figures keyed by worker count, read back from JSON (whose keys are strings)."""
    return {int(k): float(v) for k, v in raw.items()} if raw else None


def _known(cls: Any, raw: dict[str, Any]) -> dict[str, Any]:
    """``raw``'s keys that are fields of ``cls``: keys of fields since removed are dropped,
    so stored results still load."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in raw.items() if k in names}


@dataclass(frozen=True)
class MeasuredLoader:
    """The loader a probe measured, so a user can check it is the training loader."""

    loader: str | None = None  # type names: "DataLoader", "SlowTrain"
    dataset: str | None = None
    batch_size: int | None = None
    framework: str | None = None  # one of FRAMEWORKS, or None: the script's own code
    # The library's class and method that built or iterated it ("NeuralNetClassifier.fit");
    # None for the script's own code.
    built_by: str | None = None
    # Mode "adapt" only: the (epoch, batch) where the segment's settings took over; None
    # from the run's start. Left out of the JSON when None (as are the fields below), as it
    # always was outside a live run.
    switched_at: list[int] | None = None
    # Whole shards its workers split among them, where the library says (``shards_in``: the
    # library, "datasets" or "webdataset"): past that count a worker gets none and idles.
    shards: int | None = None
    shards_in: str | None = None
    # Over an IterableDataset (its order and its length are its workers'); None: not read.
    iterable: bool | None = None
    # The global generators ("numpy", "random", "torch") that loading a batch drew from in
    # the main process (no workers: probe/loader/_global_draws.py); None: none seen or not read.
    global_draws: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        # Fields added since the JSON was first written appear only where known.
        for name in ("switched_at", "shards", "shards_in", "iterable", "global_draws"):
            if out[name] is None:
                del out[name]
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> MeasuredLoader | None:
        return cls(**_known(cls, raw)) if raw else None


@dataclass(frozen=True)
class GpuReading:
    """The GPU part of a result: NVML's samples, torch's peak, the streams and their copies.
    With nothing known every figure is None (a CPU trial, no NVML), and ``notes`` says why."""

    device_name: str | None = None
    util_mean_pct: float | None = None
    util_max_pct: float | None = None
    util_samples: int | None = None
    util_series: list[int] | None = None
    mem_series: list[int] | None = None
    mem_used_peak_bytes: int | None = None
    max_memory_allocated_bytes: int | None = None
    # Host-to-device copies on the side streams (probe/loader/_streams.py), when any ran.
    h2d_copy_s: float | None = None
    h2d_exposed_s: float | None = None
    h2d_hidden_fraction: float | None = None
    h2d_batches: int | None = None
    num_streams: int | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> GpuReading | None:
        if raw is None:
            return None
        data = _known(cls, raw)
        data["notes"] = list(data.get("notes") or [])
        return cls(**data)


@dataclass(frozen=True)
class RankFigures:
    """One rank's own figures in a multi-process probe (the result's are the job's)."""

    rank: int
    status: str = "ok"
    reason: str = ""
    samples_per_s: float | None = None
    windows: list[float] = field(default_factory=list)
    step_p50_s: float | None = None
    exit_code: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> RankFigures:
        return cls(**_known(cls, raw))


@dataclass(frozen=True)
class LoaderPass:
    """One pass of a loader other than the training loader during the epoch seen (an
    evaluation or validation pass), from its iterator's creation to its end."""

    loader: str  # type names, as the script's code builds them
    dataset: str
    batch_size: int | None
    num_workers: int
    seconds: float
    batches: int
    startup_s: float | None  # iterator creation to its first batch
    site: str | None = None  # file:line of its DataLoader(...) call
    # Over an IterableDataset: its order depends on its workers, so its settings are never
    # changed.
    iterable: bool = False
    # Started while the training loader's pass was still open (Lightning's
    # ``val_check_interval`` below 1, the Trainer's ``eval_steps``): its time is inside the
    # training pass, and so inside the windows that measure it.
    in_training: bool = False


@dataclass(frozen=True)
class EpochFigures:
    """Where one epoch of the script goes on the wall clock (probe/measure/_epoch.py): from
    the training loader's first batch of one epoch to its first batch of the next, so one
    restart of the training loader's workers is inside it. ``epoch_s`` is None when the probe
    saw no epoch end, and ``reason`` says why."""

    epoch_s: float | None = None
    train_s: float | None = None  # the training loader's batches and steps
    startup_s: float | None = None  # its workers' start-up at the next epoch (iter to batch)
    first_startup_s: float | None = None  # its first epoch's: once per run when persistent
    passes: list[LoaderPass] = field(default_factory=list)  # the other loaders' passes
    builds_s: float | None = None  # DataLoader(...) constructions in the epoch
    rest_s: float | None = None  # everything else: logging, checkpoints, the script's own work
    rebuilt: bool = False  # the training loader was built anew within the epoch
    epoch_batches: int | None = None  # the training loader's batches per epoch (its len)
    # Start-up charged once per epoch into ``windows``/``samples_per_s`` (seconds; 0: none),
    # and the windows before the charge (what the progress file carried).
    charged_startup_s: float = 0.0
    uncharged_windows: list[float] = field(default_factory=list)
    reason: str = ""

    @property
    def outside_s(self) -> float | None:
        """The epoch's time outside the training loader: other passes, builds, the rest."""
        if self.epoch_s is None or self.train_s is None or self.startup_s is None:
            return None
        return max(0.0, self.epoch_s - self.train_s - self.startup_s)

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> EpochFigures | None:
        if not raw:
            return None
        passes = [LoaderPass(**_known(LoaderPass, p)) for p in raw.get("passes") or []]
        return cls(**{**_known(cls, raw), "passes": passes})


@dataclass
class ProbeResult:
    """What one probe measured. Times in seconds, memory in bytes, rates in samples/s."""

    status: Status = "ok"
    reason: str = ""
    script_config: LoaderConfig = field(default_factory=LoaderConfig)
    applied_config: LoaderConfig = field(default_factory=LoaderConfig)
    windows: list[float] = field(default_factory=list)
    # Cores that processes outside the probe's tree used during each window (empty: not
    # read); windows taken under interference are noise (tuner/evidence/_windows.py).
    interference_cores: list[float] = field(default_factory=list)
    samples_per_s: float | None = None
    step_p50_s: float | None = None
    step_p95_s: float | None = None
    data_wait_fraction: float | None = None
    wait_per_batch_s: float | None = None
    compute_per_batch_s: float | None = None
    time_to_first_batch_s: float | None = None
    # False: the rate was still climbing at max_warmup_s and measuring started anyway.
    steady_state: bool | None = None
    warmup_s_used: float | None = None  # from the first iterator to the first window
    batches: int = 0
    samples: int = 0
    batch_size: int | None = None
    main_cpu_s: float | None = None
    # The CPU the script's thread spent inside the measured loader's __next__ over the
    # windows: its loading, where the loader has no workers (main_cpu_s also holds the step's,
    # on as many cores as torch has threads).
    main_wait_cpu_s: float | None = None
    worker_cpu_s: float | None = None
    measured_wall_s: float | None = None
    epoch_starts: int = 0
    # True: epochs were short, so each window was one epoch's batches (probe/measure/_meter.py).
    epoch_windows: bool = False
    startup_fraction: float | None = None
    # The process tree's host memory at its peak, with pages that forked workers share with
    # their parent counted once (anonymous + shmem PSS, see probe/machine/_sampler.py); the
    # key keeps its old name for stored results, but it is no longer a sum of RSS.
    peak_rss_bytes: int | None = None
    # Mode "ceiling" only: samples/s the loader's machinery delivers with free samples and no
    # step (the best over worker counts), per worker count ("0", "8"), or why there is none.
    transport_samples_per_s: float | None = None
    transport_by_workers: dict[int, float] | None = None
    transport_reason: str = ""
    # Mode "baseline" only: the compute ceiling measured after the baseline in the same process
    # (its own warm-up and windows; never in the progress file). ceiling_samples_per_s is the
    # median of ceiling_windows, set only when ceiling_status is "ok"; otherwise ceiling_status
    # says why there is none (the script ended or failed first, the probe was stopped, ...).
    # The fields above (windows, samples_per_s, peak_rss_bytes, ...) stay the baseline's.
    ceiling_windows: list[float] = field(default_factory=list)
    ceiling_interference_cores: list[float] = field(default_factory=list)
    ceiling_samples_per_s: float | None = None
    ceiling_status: str = ""
    cpu_count: int | None = None
    # torch's intra-op threads in the probed process, as it ran: its default (the cores it
    # sees), OMP_NUM_THREADS, or what the script set; None where torch was never imported.
    torch_threads: int | None = None
    gpu: GpuReading | None = None
    measured_loader: MeasuredLoader | None = None
    # Batches the measured loader gave the script when the script ended by itself (not
    # stopped by the probe): the length of its run, so later probes fit inside it.
    script_batches: int | None = None
    # A setting of the trial that could not be applied safely to that loader, and why; the
    # figures are of the settings in applied_config.
    not_applied: str = ""
    # Workers of the measured loader (over an IterableDataset) that delivered no batch while
    # their iterator delivered twice as many batches as it has workers: the dataset gave them
    # nothing to load. None where not known (no workers, a map-style dataset, too few batches).
    idle_workers: int | None = None
    # One entry per rank of a multi-process probe; the figures above are the job's: rates
    # summed over ranks, times of the slowest rank.
    ranks: list[RankFigures] | None = None
    wall_s: float | None = None
    exit_code: int | None = None
    stderr_tail: str = ""
    # The epoch on the wall clock; None where not measured (mode "ceiling", older results).
    epoch: EpochFigures | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def measured(self) -> bool:
        """Windows a comparison may use: a whole probe's, or those taken before the script's
        own run ended (``ended_early``: a short script, fast at these settings)."""
        return bool(self.windows) and self.status in ("ok", "ended_early")

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        # The measured loader's own JSON: ``switched_at`` only where a live run set it.
        out["measured_loader"] = self.measured_loader.to_dict() if self.measured_loader else None
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> ProbeResult:
        # Keys of fields since removed (``profile_path``) are dropped: stored results still load.
        data = _known(cls, raw)
        data["gpu"] = GpuReading.from_dict(raw.get("gpu"))
        data["measured_loader"] = MeasuredLoader.from_dict(raw.get("measured_loader"))
        ranks = raw.get("ranks")
        data["ranks"] = [RankFigures.from_dict(r) for r in ranks] if ranks is not None else None
        data["script_config"] = LoaderConfig.from_dict(raw.get("script_config"))
        data["applied_config"] = LoaderConfig.from_dict(raw.get("applied_config"))
        data["transport_by_workers"] = by_worker_count(raw.get("transport_by_workers"))
        data["epoch"] = EpochFigures.from_dict(raw.get("epoch"))
        return cls(**data)

    def write(self, path: str | Path) -> None:
        write_whole(Path(path), json.dumps(self.to_dict()))

    @classmethod
    def read(cls, path: str | Path) -> ProbeResult:
        return cls.from_dict(json.loads(Path(path).read_text()))
