"""Mode "adapt": what a live run says of its other loaders' passes (evaluation, validation),
and the search's word on their settings. Beside the training loader's segments, never in
their sequence: a pass comes once an epoch, whenever the script runs it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from autotune.contract._config import NUM_WORKERS, PERSISTENT_WORKERS, LoaderConfig


def adapt_pass_path(directory: str | Path, j: int) -> Path:
    """The run's ``j``-th pass of a loader other than the training loader (a ``PassReport``)."""
    return Path(directory) / f"pass-{j}.json"


def adapt_others_path(directory: str | Path) -> Path:
    """The search's latest ``OthersOrder``, replaced whole at each word; read at each pass."""
    return Path(directory) / "others-order.json"


@dataclass(frozen=True)
class PassReport:
    """One pass of another loader, from its ``iter()`` to its end (or its last batch, when
    the script left it open), with the settings that loaded it."""

    loader: str  # "ValSet at fit.py:30": the dataset's class and where the loader was built
    iterable: bool  # an IterableDataset's: never switched in a live run
    batches: int
    seconds: float
    # Since this loader's previous pass began (its first: since the training began): its
    # epoch, of which the pass is a share.
    epoch_s: float | None
    num_workers: int
    persistent_workers: bool
    order: int  # the ``OthersOrder`` it ran under; 0: the script's own settings
    # The settings on trial failed (a worker crash, a hang): the pass went on with the
    # script's own from the first batch not delivered, and this says how they failed.
    abandoned: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> PassReport:
        raw = json.loads(text)
        epoch = raw.get("epoch_s")
        return cls(
            loader=str(raw.get("loader") or ""),
            iterable=bool(raw.get("iterable")),
            batches=int(raw.get("batches") or 0),
            seconds=float(raw.get("seconds") or 0.0),
            epoch_s=float(epoch) if isinstance(epoch, (int, float)) else None,
            num_workers=int(raw.get(NUM_WORKERS) or 0),
            persistent_workers=bool(raw.get(PERSISTENT_WORKERS)),
            order=int(raw.get("order") or 0),
            abandoned=str(raw.get("abandoned") or ""),
        )


@dataclass(frozen=True)
class OthersOrder:
    """Load the other map-style loaders with ``config`` from their next pass on (worker
    settings only); ``config`` None: with the script's own."""

    version: int
    config: LoaderConfig | None = None

    def to_json(self) -> str:
        config = None if self.config is None else self.config.to_dict()
        return json.dumps({"version": self.version, "config": config})

    @classmethod
    def from_json(cls, text: str) -> OthersOrder:
        raw = json.loads(text)
        config = raw.get("config")
        return cls(int(raw.get("version") or 0), LoaderConfig.from_dict(config) if config else None)
