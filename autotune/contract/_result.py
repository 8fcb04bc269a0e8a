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
    gpu: dict[str, Any] | None = None
    # The loader measured: {"loader", "dataset" (type names), "batch_size", "framework" (one of
    # FRAMEWORKS or null), "built_by" (the library's class and method that built or iterated
    # it, "NeuralNetClassifier.fit"; null for the script's own code)}.
    measured_loader: dict[str, Any] | None = None
    # Batches the measured loader gave the script when the script ended by itself (not
    # stopped by the probe): the length of its run, so later probes fit inside it.
    script_batches: int | None = None
    # A setting of the trial that could not be applied safely to that loader, and why; the
    # figures are of the settings in applied_config.
    not_applied: str = ""
    # One entry per rank of a multi-process probe (rank, status, samples_per_s, ...); the
    # figures above are the job's: rates summed over ranks, times of the slowest rank.
    ranks: list[dict[str, Any]] | None = None
    wall_s: float | None = None
    exit_code: int | None = None
    stderr_tail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> ProbeResult:
        # Keys of fields since removed (``profile_path``) are dropped: stored results still load.
        known = {f.name for f in dataclasses.fields(cls)}
        data = {k: v for k, v in raw.items() if k in known}
        data["script_config"] = LoaderConfig.from_dict(raw.get("script_config"))
        data["applied_config"] = LoaderConfig.from_dict(raw.get("applied_config"))
        data["transport_by_workers"] = by_worker_count(raw.get("transport_by_workers"))
        return cls(**data)

    def write(self, path: str | Path) -> None:
        write_whole(Path(path), json.dumps(self.to_dict()))

    @classmethod
    def read(cls, path: str | Path) -> ProbeResult:
        return cls.from_dict(json.loads(Path(path).read_text()))
