"""The one contract between the tuner (outside) and the probe (inside the user's process).

Config in, result out, both as JSON. Standard library only: the probe imports this module
inside the user's script, so it must stay cheap to import.
"""

from autotune.contract._config import (
    CEILING_GAP,
    CONFIG_ENV,
    DATALOADER_KEYS,
    FAILED_STATUSES,
    FRAMEWORKS,
    LOADER_KEYS,
    RANK_DIR_ENV,
    RUNNER_PID_ENV,
    STREAMS_CPU_WORK,
    WORKER_ONLY_KEYS,
    LoaderConfig,
    Mode,
    ProbeSettings,
    Status,
    TrialConfig,
)
from autotune.contract._exchange import (
    AdaptOrder,
    Drift,
    LoaderFound,
    ProgressLine,
    adapt_drift_path,
    adapt_loader_path,
    adapt_order_path,
    adapt_progress_path,
    adapt_rank_dir,
    adapt_segment_path,
    write_whole,
)
from autotune.contract._result import (
    GpuReading,
    MeasuredLoader,
    ProbeResult,
    RankFigures,
    by_worker_count,
)

__all__ = [
    "CEILING_GAP",
    "CONFIG_ENV",
    "DATALOADER_KEYS",
    "FAILED_STATUSES",
    "FRAMEWORKS",
    "LOADER_KEYS",
    "RANK_DIR_ENV",
    "RUNNER_PID_ENV",
    "STREAMS_CPU_WORK",
    "WORKER_ONLY_KEYS",
    "AdaptOrder",
    "Drift",
    "GpuReading",
    "LoaderConfig",
    "LoaderFound",
    "MeasuredLoader",
    "Mode",
    "ProbeResult",
    "ProbeSettings",
    "ProgressLine",
    "RankFigures",
    "Status",
    "TrialConfig",
    "adapt_drift_path",
    "adapt_loader_path",
    "adapt_order_path",
    "adapt_progress_path",
    "adapt_rank_dir",
    "adapt_segment_path",
    "by_worker_count",
    "write_whole",
]
