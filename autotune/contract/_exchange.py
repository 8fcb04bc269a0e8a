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
    """Written by a run settled by order k whose data wait rose for good (a ``Drift``): it
    polls for order k + 1 again (a reopened search)."""
    return Path(directory) / f"drift-{k}.json"


def adapt_loader_path(directory: str | Path) -> Path:
    """Written once the training loader is found: a ``LoaderFound``."""
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


@dataclass(frozen=True)
class LoaderFound:
    """A live run's word on its training loader, once found: whether its settings can be
    switched mid-run (``why`` not, when not), and whether within an epoch (an iterable
    dataset's only at the next epoch, and a settled run's drift is never searched again)."""

    switchable: bool = True
    mid_epoch: bool = True
    why: str = ""

    def to_json(self) -> str:
        return json.dumps(
            {"switchable": self.switchable, "why": self.why, "mid_epoch": self.mid_epoch}
        )

    @classmethod
    def from_json(cls, text: str) -> LoaderFound:
        raw = json.loads(text)
        return cls(
            switchable=bool(raw.get("switchable", True)),
            mid_epoch=bool(raw.get("mid_epoch", True)),
            why=str(raw.get("why") or ""),
        )


@dataclass(frozen=True)
class Drift:
    """Why a settled run asks for a search again: its figures, then and now
    (``probe/session/_drift.py`` finds it). ``rank``: the rank whose wait rose, set by the
    search from the folder it was read in; never written."""

    wait_per_batch_s: float  # the mean of the windows that rose
    step_s: float  # seconds per batch in them
    reference_wait_per_batch_s: float
    reference_step_s: float
    windows: int
    # Set when it is the load beside the run that changed, not the wait: the cores other
    # processes used in the settled reference window, and in the quiet windows since.
    cores_then: float | None = None
    cores_now: float | None = None
    rank: int = 0

    def to_json(self) -> str:
        return json.dumps(
            {
                "wait_per_batch_s": self.wait_per_batch_s,
                "step_s": self.step_s,
                "reference_wait_per_batch_s": self.reference_wait_per_batch_s,
                "reference_step_s": self.reference_step_s,
                "windows": self.windows,
                "cores_then": self.cores_then,
                "cores_now": self.cores_now,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Drift:
        raw = json.loads(text)
        return cls(
            wait_per_batch_s=float(raw.get("wait_per_batch_s") or 0.0),
            step_s=float(raw.get("step_s") or 0.0),
            reference_wait_per_batch_s=float(raw.get("reference_wait_per_batch_s") or 0.0),
            reference_step_s=float(raw.get("reference_step_s") or 0.0),
            windows=int(raw.get("windows") or 0),
            cores_then=_float_or_none(raw.get("cores_then")),
            cores_now=_float_or_none(raw.get("cores_now")),
        )


def _float_or_none(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None
