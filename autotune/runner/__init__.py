"""Runs probes (one subprocess per trial) and live runs (the user's training): each process
tree is ended whole on every way out, and by its watcher should autotune itself be killed."""

from autotune.runner._base import BaseRunner, Target, WindowCallback
from autotune.runner._live import LiveRun, LiveRunner
from autotune.runner._process import kill_group
from autotune.runner._ranks import free_port, merge_rank_results, rank_env
from autotune.runner._subprocess import SubprocessRunner

__all__ = [
    "BaseRunner",
    "LiveRun",
    "LiveRunner",
    "SubprocessRunner",
    "Target",
    "WindowCallback",
    "free_port",
    "kill_group",
    "merge_rank_results",
    "rank_env",
]
