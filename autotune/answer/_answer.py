"""The study's answer, typed: what the tuner computes, the store keeps and serves, the CLI
renders and the API's schema declares.

It sits below all of them (standard library and the contract only) so that none needs another
to know its shape. ``to_dict`` is the JSON of ``--json``, of the mirror's ``summary`` column and
of the API's study detail: keys are never removed, and a key with no value yet is null.
``from_dict`` reads any answer an earlier release stored (a missing key is its default).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal

from autotune.contract import LoaderConfig, MeasuredLoader

Bottleneck = Literal["model", "transport", "input-cpu", "input-latency", "startup", "unknown"]


@dataclass(frozen=True)
class Diagnosis:
    bottleneck: Bottleneck
    summary: str

    def to_dict(self) -> dict[str, str]:
        return {"bottleneck": self.bottleneck, "summary": self.summary}

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> Diagnosis | None:
        if not raw or not raw.get("bottleneck"):
            return None
        return cls(raw["bottleneck"], str(raw.get("summary") or ""))


@dataclass(frozen=True)
class Recommended:
    trial: int
    config: LoaderConfig
    samples_per_s: float | None
    # The median's 95% interval, widened where its windows were measured under interference.
    ci95: list[float] | None = None

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> Recommended | None:
        if not raw:
            return None
        ci = raw.get("ci95")
        return cls(
            int(raw["trial"]),
            LoaderConfig.from_dict(raw.get("config")),
            raw.get("samples_per_s"),
            list(ci) if ci else None,
        )


@dataclass(frozen=True)
class Baseline:
    trial: int
    config: LoaderConfig | None
    samples_per_s: float | None

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> Baseline | None:
        if not raw:
            return None
        return cls(int(raw["trial"]), _config(raw), raw.get("samples_per_s"))


@dataclass(frozen=True)
class Counts:
    complete: int = 0
    failed: int = 0
    pruned: int = 0


@dataclass(frozen=True)
class Failure:
    trial: int
    status: str | None
    reason: str | None
    config: LoaderConfig | None

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Failure:
        return cls(int(raw["trial"]), raw.get("status"), raw.get("reason"), _config(raw))


@dataclass(frozen=True)
class EpochPass:
    """A loader other than the training loader, iterated once in the epoch (evaluation)."""

    loader: str
    dataset: str
    num_workers: int
    seconds: float
    batches: int
    site: str | None = None  # file:line of its DataLoader(...) call


@dataclass(frozen=True)
class PassTry:
    """A worker count tried for the other loaders, and their passes' seconds an epoch with it
    (None: no pass seen, or the count failed)."""

    num_workers: int
    seconds: float | None = None


@dataclass(frozen=True)
class LivePass:
    """A pass of another loader that ``autotune run --adapt`` saw: its loader, when it ended
    (seconds since the run began), how long it took, and the worker settings it ran with;
    ``abandoned`` says how settings on trial failed in it (the pass went on with the
    script's own)."""

    loader: str
    at_s: float
    seconds: float
    batches: int = 0
    num_workers: int = 0
    persistent_workers: bool = False
    abandoned: str | None = None
    iterable: bool = False


@dataclass(frozen=True)
class OtherLoaders:
    """The other map-style loaders of the epoch (evaluation, validation), tuned once the
    training loader's settings were chosen: each probe ran the recommendation with these
    loaders at one worker count, and timed their passes in the epoch it saw."""

    # Their settings (worker settings only), or None: none was faster than the script's.
    config: LoaderConfig | None = None
    loaders: list[str] = field(default_factory=list)  # "Val at fit.py:30"
    # Seconds their passes take an epoch, beside the recommendation: as the script has them,
    # and with ``config``.
    as_written_s: float | None = None
    tuned_s: float | None = None
    tried: list[PassTry] = field(default_factory=list)
    reason: str | None = None  # why they were not tuned, or not changed
    # ``autotune run --adapt``: every pass the live run saw, in order (its loader, start,
    # seconds, worker settings and any abandoned switch), tuned on its own passes.
    passes: list[LivePass] = field(default_factory=list)
    # ``config`` is for IterableDataset loaders too: a probe saw each stream split across the
    # workers (the same batches a pass as written), so `autotune run --study` applies it there.
    iterable: bool = False

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> OtherLoaders | None:
        built: OtherLoaders | None = _build(cls, raw)
        if built is None or not raw:
            return built
        return replace(
            built,
            config=_config(raw),
            tried=[_build(PassTry, t) for t in raw.get("tried") or []],
            passes=[_build(LivePass, p) for p in raw.get("passes") or []],
        )


@dataclass(frozen=True)
class Epoch:
    """One epoch of the script on the wall clock (from the training loader's first batch to
    the next epoch's), as written and with the recommendation. ``reason`` says why a figure
    is missing: a probe too short to see an epoch end says so."""

    as_written_s: float | None = None
    recommended_s: float | None = None
    # True: the recommended epoch is the as-written one with the training loader's part at
    # the recommended rate (its own probe saw no epoch end); False: measured with it.
    recommended_predicted: bool = False
    # Of the epoch, the share outside the training loader (other passes, builds, the rest).
    outside_share: float | None = None
    recommended_outside_share: float | None = None
    # The training loader's workers' start-up, paid once per epoch (the restart seen).
    startup_s: float | None = None
    recommended_startup_s: float | None = None
    # The first batch after the training loader's workers start (the probe's time to first
    # batch): paid once per run where the workers persist, on top of the per-epoch figures.
    first_startup_s: float | None = None
    recommended_first_startup_s: float | None = None
    # Epochs the recommendation takes to win back the start-up it adds at the run's start (a
    # shorter run is slower with it); None where it adds little or gains nothing an epoch.
    payback_epochs: float | None = None
    passes: list[EpochPass] = field(default_factory=list)  # as written
    builds_s: float | None = None
    rest_s: float | None = None
    reason: str | None = None

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> Epoch | None:
        if not raw:
            return None
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k in known}
        values["passes"] = [_build(EpochPass, p) for p in values.get("passes") or []]
        return cls(**values)


@dataclass(frozen=True)
class Answer:
    study: str
    storage: str | None = None
    script: str | None = None
    args: list[str] | None = None
    hardware: dict[str, Any] | None = None
    # Ranks on the node: settings are per rank, samples/s are the job's (all ranks).
    nproc_per_node: int = 1
    # Which loader the figures are of (dataset type, batch size), so a user can check.
    measured_loader: MeasuredLoader | None = None
    framework: str | None = None
    recommended: Recommended | None = None
    baseline: Baseline | None = None
    speedup: float | None = None
    ceiling_samples_per_s: float | None = None
    # What the loader's machinery delivers with free samples, at the recommended workers.
    transport_ceiling_samples_per_s: float | None = None
    binding_ceiling: Literal["compute", "transport"] | None = None
    # Why a ceiling has no figure (its probe failed, the script ended, it was disproved).
    ceiling_missing: dict[str, str] = field(default_factory=dict)
    # Against the lower of the two ceilings: what any loader setting could reach.
    efficiency: float | None = None
    diagnosis: Diagnosis | None = None
    # How much other processes used the cores while measuring, and what it did to the
    # answer; null where no window was read (results from before it was measured).
    interference: dict[str, Any] | None = None
    # Set when the answer is a judgement rather than a search (a script too short to tune).
    verdict: str | None = None
    stop_reason: str | None = None
    # Why the recommendation is not the fastest config measured: a cheaper one reaches it
    # (the knee), or nothing was clearly faster than the script as written.
    choice: str | None = None
    # The cores the job had (its CPU set and quota), where fewer than the node's.
    cores: str | None = None
    # The stored study whose answer was the search's first guess (a warm start), if any.
    started_from: str | None = None
    trials: Counts = field(default_factory=Counts)
    probe_seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)
    # The epoch on the wall clock; null for studies measured before it was timed.
    epoch: Epoch | None = None
    # The evaluation and validation loaders' own settings; null where none was tuned.
    others: OtherLoaders | None = None
    # What the recommended workers change besides speed where loading draws from the global
    # random generators (the augmentations drawn); null where it does not, or nothing moves.
    randomness: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["diagnosis"] = self.diagnosis.to_dict() if self.diagnosis else None
        out["measured_loader"] = self.measured_loader.to_dict() if self.measured_loader else None
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Answer:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k in known}
        rec, base = values.get("recommended"), values.get("baseline")
        values["recommended"] = Recommended.from_dict(rec)
        values["baseline"] = Baseline.from_dict(base)
        values["trials"] = _build(Counts, values.get("trials")) or Counts()
        values["failures"] = [Failure.from_dict(f) for f in values.get("failures") or [] if f]
        values["diagnosis"] = Diagnosis.from_dict(values.get("diagnosis"))
        values["measured_loader"] = MeasuredLoader.from_dict(values.get("measured_loader"))
        values["epoch"] = Epoch.from_dict(values.get("epoch"))
        values["others"] = OtherLoaders.from_dict(values.get("others"))
        values["ceiling_missing"] = dict(values.get("ceiling_missing") or {})
        values["nproc_per_node"] = int(values.get("nproc_per_node") or 1)
        values["probe_seconds"] = float(values.get("probe_seconds") or 0.0)
        return cls(**values)

    def snippet(self) -> str:
        """The settings to paste, in the terms of the framework the script uses, and the
        stream/device notes they need (``_snippet.py``)."""
        from autotune.answer._snippet import snippet

        return snippet(self)


# Share of the epoch as written an untuned loader's pass must take for the snippet to name it.
UNTUNED_SHARE = 0.1


def _config(raw: dict[str, Any]) -> LoaderConfig | None:
    """A stored answer's ``config`` as the typed settings (None stays None)."""
    config = raw.get("config")
    return LoaderConfig.from_dict(config) if config is not None else None


def _build(cls: Any, raw: dict[str, Any] | None) -> Any:
    if not raw:
        return None
    known = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in raw.items() if k in known})
