"""The files the runner and the probe (or a live run and its search) exchange besides the
config and the result: the progress lines, and the orders and segments of mode "adapt"."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from autotune.contract._config import LoaderConfig


@dataclass(frozen=True)
class ProgressLine:
    """One line of the progress file the probe appends to as it goes (JSON lines).

    A closed window (``window``, ``samples_per_s``), so the runner can prune mid-trial; or
    the last line, ``exit_code``: the result file is final and the script has unwound, so the
    runner may end the process tree at once instead of waiting on the interpreter's exit
    (torch's teardown, tens of workers reaped: 0.6-1 s a probe, measured).
    """

    window: int | None = None
    samples_per_s: float | None = None
    exit_code: int | None = None

    @property
    def done(self) -> bool:
        return self.exit_code is not None

    def to_json(self) -> str:
        if self.done:
            return json.dumps({"done": True, "exit_code": self.exit_code})
        return json.dumps({"window": self.window, "samples_per_s": self.samples_per_s})

    @classmethod
    def from_json(cls, text: str) -> ProgressLine:
        raw = json.loads(text)
        if raw.get("done"):
            return cls(exit_code=int(raw.get("exit_code") or 0))
        return cls(window=int(raw["window"]), samples_per_s=float(raw["samples_per_s"]))


# --- mode "adapt": the files a live run and its search exchange ------------------------------
# Segment 0 is the script as written; the search sends the order for segment k (k >= 1) once
# it has read segment k - 1's result. Every file is written whole, then renamed into place.


def adapt_order_path(directory: str | Path, k: int) -> Path:
    return Path(directory) / f"order-{k}.json"


def adapt_segment_path(directory: str | Path, k: int) -> Path:
    """Segment k's result (a ``ProbeResult``); its windows stream to ``adapt_progress_path``."""
    return Path(directory) / f"segment-{k}.json"


def adapt_progress_path(directory: str | Path, k: int) -> Path:
    return Path(directory) / f"progress-{k}.jsonl"


def adapt_rank_dir(directory: str | Path, rank: int, world: int) -> Path:
    """Where rank ``rank`` of a ``world``-rank live run writes its files (the orders are the
    job's, in ``directory``): the folder itself for a single process."""
    return Path(directory) / f"rank-{rank}" if world > 1 else Path(directory)


def adapt_drift_path(directory: str | Path, k: int) -> Path:
    """Written by a run settled by order k whose data wait rose for good: it polls for order
    k + 1 again (a reopened search)."""
    return Path(directory) / f"drift-{k}.json"


def adapt_loader_path(directory: str | Path) -> Path:
    """Written once the training loader is found: ``{"mid_epoch": bool}``."""
    return Path(directory) / "loader.json"


def write_whole(path: Path, text: str) -> None:
    """Readers never see half a file: written beside, then renamed over."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


@dataclass(frozen=True)
class AdaptOrder:
    """The search's word to a live run: load with ``config`` from the next batch on; with
    ``settle``, for the rest of the run (no segment is measured)."""

    config: LoaderConfig
    settle: bool = False

    def to_json(self) -> str:
        return json.dumps({"config": self.config.to_dict(), "settle": self.settle})

    @classmethod
    def from_json(cls, text: str) -> AdaptOrder:
        raw = json.loads(text)
        return cls(LoaderConfig.from_dict(raw.get("config")), bool(raw.get("settle")))
