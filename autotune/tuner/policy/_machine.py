"""The machine a rank has.

With several ranks on a node, each rank's loader has the cores and the memory budget of one
rank, and the job's rates are shared out among them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Machine:
    """What one rank has: its share of the cores and of the host-memory budget."""

    cpu_count: int
    ranks: int = 1
    mem_budget_bytes: int | None = None

    def per_rank(self, rate: float | None) -> float | None:
        """A job's samples/s (summed over ranks) as one rank's."""
        return rate / self.ranks if rate else rate
