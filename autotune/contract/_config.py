"""What a trial asks of the probe: the loader settings, how to measure, the mode."""

from __future__ import annotations

import dataclasses
import json
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

CONFIG_ENV = "AUTOTUNE_PROBE_CONFIG"
RANK_DIR_ENV = "AUTOTUNE_RANK_DIR"  # the trial's directory, shared by its ranks
RUNNER_PID_ENV = "AUTOTUNE_RUNNER_PID"  # the process that started the probe, its parent
# The variables that set torch's intra-op threads (``LoaderConfig.threads``), read by torch
# (and MKL) when it is imported.
THREAD_ENVS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
# In a probe zygote's environment, 0: it preloads none of the script's libraries.
PRELOAD_ENV = "AUTOTUNE_ZYGOTE_PRELOAD"

# The precision the tuner holds a ceiling to: a run within this share of one is at it. So a
# ceiling's windows need agree no closer than this for its probe to stop.
CEILING_GAP = 0.10

# "baseline": "measure" (the script as written), then in the same process the compute ceiling
# (the step replaying cached batches) and the transport ceiling, reported in ceiling_* and
# transport_* fields: one start-up for the three.
# "adapt": the whole training, whose loader moves through the configs the search outside
# sends while it trains (``AdaptOrder``), one measured segment each (``adapt_segment_path``).
Mode = Literal["measure", "ceiling", "baseline", "run", "adapt"]

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
    # autotune could not apply the trial's settings to the script's loader: its own limit,
    # never the script's failure.
    "not_applied",
]
FAILED_STATUSES = frozenset(
    {"no_dataloader", "crashed", "hung", "oom", "over_memory", "interrupted", "not_applied"}
)
# Start of a "crashed" trial's reason when num_streams > 0 met a script that does CPU work on
# its batches: that setting can never apply to this script, whatever the others are.
STREAMS_CPU_WORK = "num_streams cannot apply: the script does CPU work on its batches"
# Start of a "crashed" trial's reason when a dataset that splits whole shards among workers
# failed for a worker that got none: the trial's worker count caused it, not the script.
TOO_FEW_SHARDS = (
    "more workers than the dataset has shards (the setting's failure, not the script's)"
)


# The loader settings' names, as DataLoader takes them and as JSON and Optuna store them:
# everywhere else they are spelt through these (or LoaderConfig's fields).
NUM_WORKERS: Final = "num_workers"
PREFETCH_FACTOR: Final = "prefetch_factor"
PIN_MEMORY: Final = "pin_memory"
PERSISTENT_WORKERS: Final = "persistent_workers"
BATCH_SIZE: Final = "batch_size"
# torch's prefetch depth for a loader with workers that names none.
DEFAULT_PREFETCH: Final = 2


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
    # torch's intra-op threads in the training process (OMP_NUM_THREADS). With another
    # process on some of the cores, torch's default (every core) makes each step wait at its
    # threads' barriers for a thread that shares a core with it, so fewer threads can run the
    # step faster (measured: docs/benchmarks.md, "Agreement under load").
    threads: int | None = None

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

    def under_torch_rules(self) -> LoaderConfig:
        """The same settings as torch accepts them: with no workers there is no
        prefetch_factor and no persistent_workers (DataLoader raises otherwise)."""
        if self.num_workers is None or self.num_workers > 0:
            return self
        return dataclasses.replace(self, prefetch_factor=None, persistent_workers=False)

    def dataloader_kwargs(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The script's DataLoader ``arguments`` with this config applied under torch's rules.

        - no ``batch_size`` when the script gave a ``batch_sampler`` or turned batching off;
        - ``prefetch_factor`` and ``persistent_workers`` only with workers > 0;
        - with no workers, every worker-only option goes back to torch's default
          (``multiprocessing_context`` and ``timeout`` too), or DataLoader raises.

        ``num_streams``, ``device`` and ``threads`` are not DataLoader arguments: the probe
        applies them.
        """
        new = dict(arguments)
        if self.num_workers is not None:
            new[NUM_WORKERS] = self.num_workers
        if self.pin_memory is not None:
            new[PIN_MEMORY] = self.pin_memory
        batched = new.get("batch_sampler") is None and new.get(BATCH_SIZE) is not None
        if self.batch_size is not None and batched:
            new[BATCH_SIZE] = self.batch_size
        if int(new.get(NUM_WORKERS) or 0) > 0:
            for key in WORKER_ONLY_KEYS:
                if getattr(self, key) is not None:
                    new[key] = getattr(self, key)
        else:
            new.update(WORKER_ONLY_ARGUMENTS)
        return new

    @classmethod
    def of_arguments(cls, arguments: dict[str, Any]) -> LoaderConfig:
        """The settings DataLoader ``arguments`` give, with torch's defaults made explicit:
        prefetch ``DEFAULT_PREFETCH`` with workers and none without, no batch size where a
        batch sampler decides it, no copy streams."""
        workers = int(arguments.get(NUM_WORKERS) or 0)
        prefetch = arguments.get(PREFETCH_FACTOR)
        return cls(
            num_workers=workers,
            prefetch_factor=(DEFAULT_PREFETCH if prefetch is None else prefetch)
            if workers > 0
            else None,
            pin_memory=bool(arguments.get(PIN_MEMORY, False)),
            persistent_workers=bool(arguments.get(PERSISTENT_WORKERS, False)),
            batch_size=None
            if arguments.get("batch_sampler") is not None
            else arguments.get(BATCH_SIZE),
            num_streams=0,
        )

    def dataloader_values(self) -> dict[str, Any]:
        """The DataLoader arguments this config sets (its None values left out), under
        torch's rules: what a snippet or a DataLoader(...) call passes."""
        loader = self.under_torch_rules()
        return {k: getattr(loader, k) for k in DATALOADER_KEYS if getattr(loader, k) is not None}


def worker_values(arguments: dict[str, Any]) -> dict[str, Any]:
    """The worker settings ``DataLoader.__init__`` leaves on a loader for ``arguments``:
    prefetch, persistence and a timeout only with workers, torch's prefetch by default."""
    workers = int(arguments.get(NUM_WORKERS) or 0)
    prefetch = arguments.get(PREFETCH_FACTOR)
    return {
        NUM_WORKERS: workers,
        PREFETCH_FACTOR: (DEFAULT_PREFETCH if prefetch is None else int(prefetch))
        if workers > 0
        else None,
        PIN_MEMORY: bool(arguments.get(PIN_MEMORY)),
        PERSISTENT_WORKERS: bool(arguments.get(PERSISTENT_WORKERS)) and workers > 0,
        "timeout": (arguments.get("timeout") or 0) if workers > 0 else 0,
    }


# Every setting a trial can carry, in the order people read them.
LOADER_KEYS = tuple(f.name for f in dataclasses.fields(LoaderConfig))
# torch accepts these only with num_workers > 0.
WORKER_ONLY_KEYS = (PREFETCH_FACTOR, PERSISTENT_WORKERS)
# Every DataLoader argument torch refuses beside num_workers=0, with the value it expects
# there: its __init__ raises a ValueError for the first three, and a timeout other than 0
# fails at the first iteration.
WORKER_ONLY_ARGUMENTS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        PREFETCH_FACTOR: None,
        PERSISTENT_WORKERS: False,
        "multiprocessing_context": None,
        "timeout": 0,
    }
)
# The DataLoader settings a search tunes (the others stay the script's), in the order
# people read them.
TUNED_KEYS = (NUM_WORKERS, PREFETCH_FACTOR, PIN_MEMORY, PERSISTENT_WORKERS)

# Where a measured loader's settings are edited, found at run time from the library code that
# built or iterated it (autotune/probe/loader/_site.py); null is the script's DataLoader(...).
FRAMEWORKS = (
    "lightning",  # the Lightning Trainer: train_dataloader() of a DataModule or LightningModule
    "fabric",  # Lightning Fabric: the DataLoader given to fabric.setup_dataloaders()
    "transformers",  # the Hugging Face Trainer: TrainingArguments(dataloader_*=...)
    "accelerate",  # the DataLoader given to accelerator.prepare()
    "skorch",  # the net's iterator_train__* parameters
    "mmengine",  # the Runner's train_dataloader=dict(...)
    "fastai",  # DataBlock(...).dataloaders(..., num_workers=...)
)
# Frameworks whose loader takes no prefetch_factor: fastai's keeps torch's 2 on the stand-in
# it hands torch, and no argument of dataloaders() sets it, so a deeper queue is never tried.
NO_PREFETCH_FRAMEWORKS = frozenset({"fastai"})

# The settings that are DataLoader arguments; the others the probe applies itself.
DATALOADER_KEYS = (BATCH_SIZE, NUM_WORKERS, PREFETCH_FACTOR, PERSISTENT_WORKERS, PIN_MEMORY)


@dataclass(frozen=True)
class ProbeSettings:
    """How long and how carefully one probe measures."""

    warmup_batches: int = 5
    # The least warm-up; measuring starts once the loader is also in steady state (every
    # worker has delivered and the delivery rate stopped climbing), or at max_warmup_s.
    warmup_s: float = 1.0
    max_warmup_s: float = 30.0
    # A warm-up sub-window whose rate is within this of the previous one ends the ramp.
    steady_tolerance: float = 0.05
    window_s: float = 1.5
    # Three windows, not more: one probe's figure differs from the next probe's of the same
    # config by as much as a long run differs from the next (4-16 % here), so a fourth and a
    # fifth window narrow an interval that drift between probes has already widened
    # (docs/benchmarks.md, "How many windows a probe needs").
    windows: int = 3
    # Adaptive length: from this many windows on, a probe whose windows already agree within
    # ``settled_spread`` ((max - min) / median) stops early; 0 always measures ``windows``.
    # More windows would only narrow an interval that is already narrow.
    min_windows: int = 0
    settled_spread: float = 0.05
    # ... unless their median reaches this rate (samples/s; None: no such rate): a probe that
    # may lead measures every window, since two windows agree within 5 % by chance and a
    # bursty loader's first windows read high.
    settled_below: float | None = None
    min_batches_per_window: int = 3
    ceiling_cache_batches: int = 8
    # Mode "ceiling" also measures the transport ceiling (cached samples through the loader's
    # own machinery, no step) with 0 and min(cpu_count, transport_workers) workers.
    transport: bool = True
    transport_workers: int = 8
    max_host_mem_bytes: int | None = None
    sample_interval_s: float = 0.1
    # Batches the script's whole run takes, once a probe saw it end by itself (None: not
    # known); warm-up and windows are then sized to fit (probe/measure/_fit.py).
    script_batches: int | None = None
    # Seconds after the probe's process started by which it stops measuring with the windows
    # it has (two at least), so a probe slowed by a loaded machine reports what it measured
    # instead of being killed at the trial timeout with nothing (None: no deadline).
    deadline_s: float | None = None

    def for_ceiling(self, *, beside: bool = False) -> ProbeSettings:
        """These settings for measuring a ceiling, which is only used to ``CEILING_GAP``.

        ``beside``: after the baseline, in its process, where the replay's only ramp is the
        step's own, already run by the baseline: a third of the window, a quarter of the
        least warm-up (docs/benchmarks.md, "The compute ceiling beside the baseline")."""
        ceiling = dataclasses.replace(
            self, settled_spread=max(self.settled_spread, CEILING_GAP), settled_below=None
        )
        if not beside:
            return ceiling
        return dataclasses.replace(ceiling, window_s=self.window_s / 3, warmup_s=self.warmup_s / 4)

    def enough(self, windows: Sequence[float]) -> bool:
        """Whether a probe with these windows is done measuring."""
        n = len(windows)
        if n >= self.windows:
            return True
        if not self.min_windows or n < self.min_windows:
            return False
        mid = statistics.median(windows)
        if self.settled_below is not None and mid >= self.settled_below:
            return False
        return mid > 0 and (max(windows) - min(windows)) / mid <= self.settled_spread


@dataclass(frozen=True)
class TrialConfig:
    """Everything one probe subprocess needs; written to a JSON file the runner names."""

    loader: LoaderConfig = field(default_factory=LoaderConfig)
    settings: ProbeSettings = field(default_factory=ProbeSettings)
    mode: Mode = "measure"
    result_path: str = ""
    progress_path: str = ""
    # Mode "adapt": the directory where the search and the run exchange orders and segments.
    exchange_dir: str = ""
    # Settings for every other map-style loader the script iterates once the training loader
    # is chosen (its evaluation and validation passes); None: as the script has them.
    others: LoaderConfig | None = None
    # ``others`` applies to IterableDataset loaders too (a probe's own process only, or a
    # run whose study showed their streams split across workers: the same batches a pass).
    others_iterable: bool = False
    # A directory the runner made and removes once the probe's processes are gone: where the
    # probe's DataLoader workers keep their temporary files ("": each its own, as by default).
    workers_tmp: str = ""

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
            exchange_dir=raw.get("exchange_dir", ""),
            others=LoaderConfig.from_dict(raw["others"]) if raw.get("others") else None,
            others_iterable=bool(raw.get("others_iterable")),
            workers_tmp=raw.get("workers_tmp", ""),
        )
