"""The one contract between the tuner (outside) and the probe (inside the user's process).

Config in, result out, both as JSON. Standard library only: the probe imports this module
inside the user's script, so it must stay cheap to import.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

CONFIG_ENV = "AUTOTUNE_PROBE_CONFIG"

LOADER_KEYS = (
    "num_workers",
    "prefetch_factor",
    "pin_memory",
    "persistent_workers",
    "batch_size",
    "num_streams",
    "device",
)

Mode = Literal["measure", "ceiling", "run"]

# How a trial ended. "ok" is the only status a recommendation may come from.
Status = Literal[
    "ok",
    "ended_early",
    "no_dataloader",
    "crashed",
    "hung",
    "oom",
    "over_memory",
    "interrupted",
    "pruned",
]
FAILED_STATUSES = frozenset(
    {"no_dataloader", "crashed", "hung", "oom", "over_memory", "interrupted"}
)
# Start of a "crashed" trial's reason when num_streams > 0 met a script that does CPU work on
# its batches: that setting can never apply to this script, whatever the others are.
STREAMS_CPU_WORK = "num_streams cannot apply: the script does CPU work on its batches"


@dataclass(frozen=True)
class LoaderConfig:
    """DataLoader settings for one trial. ``None`` means: keep what the script wrote."""

    num_workers: int | None = None
    prefetch_factor: int | None = None
    pin_memory: bool | None = None
    persistent_workers: bool | None = None
    batch_size: int | None = None
    num_streams: int | None = None
    device: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> LoaderConfig:
        data = data or {}
        return cls(**{k: data.get(k) for k in LOADER_KEYS})

    def merged_over(self, base: LoaderConfig) -> LoaderConfig:
        """This config's set values on top of ``base``'s."""
        return LoaderConfig(
            **{k: (v if v is not None else getattr(base, k)) for k, v in self.to_dict().items()}
        )


@dataclass(frozen=True)
class ProbeSettings:
    """How long and how carefully one probe measures."""

    warmup_batches: int = 5
    warmup_s: float = 1.0
    window_s: float = 1.5
    windows: int = 5
    min_batches_per_window: int = 3
    ceiling_cache_batches: int = 8
    max_host_mem_bytes: int | None = None
    sample_interval_s: float = 0.1


@dataclass(frozen=True)
class TrialConfig:
    """Everything one probe subprocess needs; written to a JSON file the runner names."""

    loader: LoaderConfig = field(default_factory=LoaderConfig)
    settings: ProbeSettings = field(default_factory=ProbeSettings)
    mode: Mode = "measure"
    result_path: str = ""
    progress_path: str = ""
    # Where to write a Chrome trace (torch.profiler) of `profile_steps` steps taken after the
    # measurement; empty: no trace.
    profile_path: str = ""
    profile_steps: int = 5

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> TrialConfig:
        raw = json.loads(text)
        return cls(
            loader=LoaderConfig.from_dict(raw.get("loader")),
            settings=ProbeSettings(**raw.get("settings", {})),
            mode=raw.get("mode", "measure"),
            result_path=raw.get("result_path", ""),
            progress_path=raw.get("progress_path", ""),
            profile_path=raw.get("profile_path", ""),
            profile_steps=raw.get("profile_steps", 5),
        )


@dataclass
class ProbeResult:
    """What one probe measured. Times in seconds, memory in bytes, rates in samples/s."""

    status: Status = "ok"
    reason: str = ""
    script_config: LoaderConfig = field(default_factory=LoaderConfig)
    applied_config: LoaderConfig = field(default_factory=LoaderConfig)
    windows: list[float] = field(default_factory=list)
    samples_per_s: float | None = None
    step_p50_s: float | None = None
    step_p95_s: float | None = None
    data_wait_fraction: float | None = None
    wait_per_batch_s: float | None = None
    compute_per_batch_s: float | None = None
    time_to_first_batch_s: float | None = None
    batches: int = 0
    samples: int = 0
    batch_size: int | None = None
    main_cpu_s: float | None = None
    worker_cpu_s: float | None = None
    measured_wall_s: float | None = None
    epoch_starts: int = 0
    startup_fraction: float | None = None
    peak_rss_bytes: int | None = None
    cpu_count: int | None = None
    gpu: dict[str, Any] | None = None
    profile_path: str | None = None  # the Chrome trace the probe wrote, when asked to
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
        known = {f.name for f in dataclasses.fields(cls)}
        data = {k: v for k, v in raw.items() if k in known}
        data["script_config"] = LoaderConfig.from_dict(raw.get("script_config"))
        data["applied_config"] = LoaderConfig.from_dict(raw.get("applied_config"))
        return cls(**data)

    def write(self, path: str | Path) -> None:
        # Write then rename, so the runner never reads half a file.
        target = Path(path)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_dict()))
        tmp.replace(target)

    @classmethod
    def read(cls, path: str | Path) -> ProbeResult:
        return cls.from_dict(json.loads(Path(path).read_text()))
