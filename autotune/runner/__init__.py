"""Runs probes: one subprocess per trial, whole process tree killed when it ends."""

from autotune.runner._base import BaseRunner, Target, WindowCallback
from autotune.runner._subprocess import SubprocessRunner, kill_group

__all__ = ["BaseRunner", "SubprocessRunner", "Target", "WindowCallback", "kill_group"]
