"""The seam between the tuner and the probes: config in, result out."""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field

from autotune.contract import ProbeResult, TrialConfig

# Called with (window index, samples/s) as each window closes; return True to stop the trial.
WindowCallback = Callable[[int, float], bool]


@dataclass(frozen=True)
class Target:
    """The user's script and the arguments it is run with, untouched."""

    script: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    # Ranks started on this node, torchrun-style; 1: the script alone, no rank variables.
    nproc_per_node: int = 1


class BaseRunner(abc.ABC):
    """Runs one probe of ``target`` with ``config`` and classifies how it ended."""

    @abc.abstractmethod
    def run(
        self,
        target: Target,
        config: TrialConfig,
        *,
        timeout_s: float,
        on_window: WindowCallback | None = None,
    ) -> ProbeResult:
        """Run one probe to completion, timeout or pruning; never raises for a failed trial.

        The returned result's ``status`` says how it ended ("ok", "crashed", "hung", ...);
        ``reason`` says why in words a user can act on. ``KeyboardInterrupt`` propagates
        after the probe's whole process tree is gone.
        """
