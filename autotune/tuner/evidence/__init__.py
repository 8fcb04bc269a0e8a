"""What the measurements show: noise, other processes' load, ceilings, diagnoses, the
confirmation re-measure, and the recommendation they support."""

from autotune.tuner.evidence._candidates import loader_cost
from autotune.tuner.evidence._ceiling import (
    MAX_CEILING_GAP,
    bound_for,
    bound_windows,
    ceiling_rate,
    ceiling_windows,
    changes_step,
    check_ceiling,
    measure_ceiling,
    near_ceiling,
    record_from_baseline,
    step_changed,
    transport_rate,
    wait_fraction,
)
from autotune.tuner.evidence._confirm import UNCONFIRMED, confirm_study
from autotune.tuner.evidence._diagnosis import (
    CPU_BUSY,
    INPUT_BOUND_WAIT,
    diagnose,
    load_time_per_batch,
    loader_cpu_per_s,
    transport_bound,
    workers_busy,
)
from autotune.tuner.evidence._epoch import pass_name
from autotune.tuner.evidence._load import (
    comparable_baseline,
    load_noise,
    may_lead,
    measured_quiet,
    steady_load,
    under_load,
)
from autotune.tuner.evidence._noise import (
    NOISE_FLOOR,
    clearly_better,
    median,
    relative_spread,
    sustained,
    window_range,
)
from autotune.tuner.evidence._pick import KNEE_LOSS, NEAR, near, reaches
from autotune.tuner.evidence._recommendation import as_given, recommended_trial, summarize
from autotune.tuner.evidence._shards import (
    ShardBound,
    epoch_bound,
    most_workers,
    shard_bound,
    too_few_shards,
)
from autotune.tuner.evidence._trials import (
    best_usable,
    duplicate_of,
    frozen_from_result,
    trial_config,
    trial_result,
    trial_state,
)
from autotune.tuner.evidence._verdict import baseline_failure, short_script_verdict
from autotune.tuner.evidence._windows import MIN_CORES

__all__ = [
    "CPU_BUSY",
    "INPUT_BOUND_WAIT",
    "KNEE_LOSS",
    "MAX_CEILING_GAP",
    "MIN_CORES",
    "NEAR",
    "NOISE_FLOOR",
    "UNCONFIRMED",
    "ShardBound",
    "as_given",
    "baseline_failure",
    "best_usable",
    "bound_for",
    "bound_windows",
    "ceiling_rate",
    "ceiling_windows",
    "changes_step",
    "check_ceiling",
    "clearly_better",
    "comparable_baseline",
    "confirm_study",
    "diagnose",
    "duplicate_of",
    "epoch_bound",
    "frozen_from_result",
    "load_noise",
    "load_time_per_batch",
    "loader_cost",
    "loader_cpu_per_s",
    "may_lead",
    "measure_ceiling",
    "measured_quiet",
    "median",
    "most_workers",
    "near",
    "near_ceiling",
    "pass_name",
    "reaches",
    "recommended_trial",
    "record_from_baseline",
    "relative_spread",
    "shard_bound",
    "short_script_verdict",
    "steady_load",
    "step_changed",
    "summarize",
    "sustained",
    "too_few_shards",
    "transport_bound",
    "transport_rate",
    "trial_config",
    "trial_result",
    "trial_state",
    "under_load",
    "wait_fraction",
    "window_range",
    "workers_busy",
]
