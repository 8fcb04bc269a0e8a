"""The CLI's defaults, declared once: every command, its help and the checks between commands
read them here. The probe's come from ``ProbeSettings`` itself; the search's are the
``TunerOptions`` defaults (a test holds them equal: the tuner is not imported here, so that
``autotune --help`` does not load Optuna)."""

from __future__ import annotations

from autotune.contract import ProbeSettings

_PROBE = ProbeSettings()
WARMUP_S = _PROBE.warmup_s
MAX_WARMUP_S = _PROBE.max_warmup_s
WINDOW_S = _PROBE.window_s
WINDOWS = _PROBE.windows

TRIALS = 20
TIMEOUT_S = 1800.0
TRIAL_TIMEOUT_S = 120.0
PATIENCE = 2
MIN_WINDOWS = 2
# `autotune run --adapt`: settings the live run may try, its own included.
SEGMENTS = 12
