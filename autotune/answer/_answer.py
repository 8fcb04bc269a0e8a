"""The study's answer, typed: what the tuner computes, the store keeps and serves, the CLI
renders and the API's schema declares.

It sits below all of them (standard library and the contract only) so that none needs another
to know its shape. ``to_dict`` is the JSON of ``--json``, of the mirror's ``summary`` column and
of the API's study detail: keys are never removed, and a key with no value yet is null.
``from_dict`` reads any answer an earlier release stored (a missing key is its default).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from autotune.contract import (
    DEFAULT_PREFETCH,
    NUM_WORKERS,
    PERSISTENT_WORKERS,
    PIN_MEMORY,
    PREFETCH_FACTOR,
    LoaderConfig,
    MeasuredLoader,
)

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
    config: dict[str, Any]
    samples_per_s: float | None
    # The median's 95% interval, widened where its windows were measured under interference.
    ci95: list[float] | None = None


@dataclass(frozen=True)
class Baseline:
    trial: int
    config: dict[str, Any] | None
    samples_per_s: float | None


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
    config: dict[str, Any] | None


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
class OtherLoaders:
    """The other map-style loaders of the epoch (evaluation, validation), tuned once the
    training loader's settings were chosen: each probe ran the recommendation with these
    loaders at one worker count, and timed their passes in the epoch it saw."""

    # Their settings (worker settings only), or None: none was faster than the script's.
    config: dict[str, Any] | None = None
    loaders: list[str] = field(default_factory=list)  # "Val at fit.py:30"
    # Seconds their passes take an epoch, beside the recommendation: as the script has them,
    # and with ``config``.
    as_written_s: float | None = None
    tuned_s: float | None = None
    tried: list[dict[str, Any]] = field(default_factory=list)  # each: a worker count, seconds
    reason: str | None = None  # why they were not tuned, or not changed
    # ``autotune run --adapt``: every pass the live run saw, in order (its loader, start,
    # seconds, worker settings and any abandoned switch), tuned on its own passes.
    passes: list[dict[str, Any]] = field(default_factory=list)
    # ``config`` is for IterableDataset loaders too: a probe saw each stream split across the
    # workers (the same batches a pass as written), so `autotune run --study` applies it there.
    iterable: bool = False

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None) -> OtherLoaders | None:
        built: OtherLoaders | None = _build(cls, raw)
        return built


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
        values["recommended"] = _build(Recommended, rec)
        values["baseline"] = _build(Baseline, base)
        values["trials"] = _build(Counts, values.get("trials")) or Counts()
        values["failures"] = [_build(Failure, f) for f in values.get("failures") or []]
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
        stream/device notes they need."""
        rec = self.recommended
        if rec is None:
            return "# no recommendation yet: no trial was measured in full"
        values = LoaderConfig.from_dict(rec.config).dataloader_values()
        ranks = self.nproc_per_node
        head = f"# autotune study {self.study}: {rec.samples_per_s or 0:.0f} samples/s"
        if ranks > 1:
            head += f" (the job's, {ranks} ranks)"
        if self.speedup:
            head += f", {self.speedup:.2f}x the script as written"
        lines = [head]
        if ranks > 1:
            lines.append(f"# per rank: each of the {ranks} ranks builds its loader with these")
        measured = self.measured_loader
        built_by = measured.built_by if measured else None
        name = measured.loader if measured else None
        if measured is not None and measured.iterable and measured.batch_size is None:
            # Batching off (the dataset yields whole batches, as WebDataset's .batched()
            # does): torch's default of 1 would batch the batches again.
            values = {"batch_size": None, **values}
        lines += _framework_lines(self.framework, values, built_by, self.others, name)
        if rec.config.get("num_streams"):
            lines.append(
                f"# copy batches to the GPU on {rec.config['num_streams']} CUDA streams: "
                "`autotune run` applies this for you"
            )
        base = (self.baseline.config if self.baseline else None) or {}
        if rec.config.get("device") == "cpu" and base.get("device") == "cuda":
            lines.append("# measured faster on the CPU: run with CUDA_VISIBLE_DEVICES=''")
        if rec.config.get("threads"):
            lines.append(
                f"# torch.set_num_threads({rec.config['threads']}) before training (or "
                f"OMP_NUM_THREADS={rec.config['threads']}): `autotune run` applies this for you"
            )
        lines += _other_lines(self.others, self.epoch, self.framework)
        return "\n".join(lines)


# Share of the epoch as written an untuned loader's pass must take for the snippet to name it.
UNTUNED_SHARE = 0.1


def _other_lines(
    others: OtherLoaders | None, epoch: Epoch | None, framework: str | None = None
) -> list[str]:
    """The evaluation loaders' own settings where they were tuned; else the other loaders
    whose passes take a real share of the epoch, named as untuned."""
    if framework == "fastai":
        if others is None or others.config is None:
            return _fastai_untuned(epoch, others)
        return []  # in the dataloaders() line itself: its dl_kwargs
    if others is None or others.config is None:
        return _untuned_passes(epoch, others)
    values = LoaderConfig.from_dict(others.config).dataloader_values()
    return [
        f"# and for {', '.join(others.loaders)}: {_took(others)} with:",
        f"eval_loader = DataLoader(eval_dataset, {_kwargs(values)})",
    ]


def _untuned_passes(epoch: Epoch | None, others: OtherLoaders | None = None) -> list[str]:
    """The other loaders whose passes take a real share of the epoch: these settings are the
    training loader's only, so the user is told where the rest of the epoch goes."""
    if epoch is None or not epoch.as_written_s:
        return []
    lines = []
    if others is not None and others.reason:
        lines.append(f"# the other loaders keep their settings: {others.reason}")
    for p in epoch.passes:
        share = p.seconds / epoch.as_written_s
        if share >= UNTUNED_SHARE:
            at = f" at {p.site}" if p.site else ""
            lines.append(
                f"# not tuned: the {p.dataset} loader{at} ({p.num_workers} workers) takes "
                f"{share:.0%} of each epoch as written"
            )
    return lines


def _fastai_untuned(epoch: Epoch | None, others: OtherLoaders | None) -> list[str]:
    """fastai's validation DataLoader takes the dataloaders() arguments too: its passes that
    take a real share of the epoch are named as not measured with them, not as left alone."""
    if epoch is None or not epoch.as_written_s:
        return []
    why = f": {others.reason}" if others is not None and others.reason else ""
    return [
        f"# its {p.dataset} pass ({p.num_workers} workers as written, "
        f"{p.seconds / epoch.as_written_s:.0%} of each epoch) was not measured with these{why}"
        for p in epoch.passes
        if p.seconds / epoch.as_written_s >= UNTUNED_SHARE
    ]


def _build(cls: Any, raw: dict[str, Any] | None) -> Any:
    if not raw:
        return None
    known = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in raw.items() if k in known})


# The Trainer's names for the DataLoader arguments it builds its loaders with.
_TRAINER_ARGS = {
    NUM_WORKERS: "dataloader_num_workers",
    PREFETCH_FACTOR: "dataloader_prefetch_factor",
    PERSISTENT_WORKERS: "dataloader_persistent_workers",
    PIN_MEMORY: "dataloader_pin_memory",
}
# fastai's name for the batch size; the other settings are the DataLoader's own names.
_FASTAI_ARGS = {"batch_size": "bs"}


def _kwargs(values: dict[str, Any], names: dict[str, str] | None = None, prefix: str = "") -> str:
    return ", ".join(f"{prefix}{(names or {}).get(k, k)}={v!r}" for k, v in values.items())


def _took(others: OtherLoaders) -> str:
    """The other loaders' passes as written and tuned, for the snippet's comment."""
    return (
        f"its passes took {others.as_written_s or 0:.2f} s an epoch as written, "
        f"{others.tuned_s or 0:.2f} s"
    )


def _framework_lines(
    framework: str | None,
    values: dict[str, Any],
    built_by: str | None = None,
    others: OtherLoaders | None = None,
    loader: str | None = None,
) -> list[str]:
    """The settings where the user edits them: the library's own arguments where a library
    builds the loader from them, else the DataLoader(...) call the script makes."""
    if framework == "transformers":
        args = _kwargs({k: v for k, v in values.items() if k in _TRAINER_ARGS}, _TRAINER_ARGS)
        lines = [f"args = TrainingArguments(..., {args})"]
        lines.append("# the Trainer builds its eval loader with these too")
        if "batch_size" in values:
            lines.append(f"# batch size: per_device_train_batch_size={values['batch_size']!r}")
        return lines
    if framework == "skorch":
        # The net's class (the user's own subclass included) is what the script constructs.
        net = (built_by or "").split(".", 1)[0] or "NeuralNet"
        return [
            "# skorch builds the training DataLoader from the net's iterator_train__* arguments:",
            f"net = {net}(..., {_kwargs(values, prefix='iterator_train__')})",
        ]
    if framework == "mmengine":
        return [
            "# MMEngine's Runner builds the DataLoader from the train_dataloader dict (in "
            "Runner(...) or the config); keep its dataset and sampler:",
            f"train_dataloader=dict(..., {_kwargs(values)})",
        ]
    if framework == "fastai":
        # fastai's DataLoader takes no prefetch_factor (NO_PREFETCH_FRAMEWORKS): it keeps 2.
        taken = {k: v for k, v in values.items() if k != PREFETCH_FACTOR}
        lines = ["# fastai builds its DataLoaders from the arguments of dataloaders():"]
        if others is not None and others.config is not None:
            # The validation DataLoader's arguments are these with the second entry of
            # dl_kwargs merged over them; fastai's DataLoader keeps prefetch at 2.
            own = LoaderConfig.from_dict(others.config).dataloader_values()
            valid = {k: v for k, v in own.items() if k != PREFETCH_FACTOR}
            lines += [
                f"dls = dblock.dataloaders(source, {_kwargs(taken, _FASTAI_ARGS)}, "
                f"dl_kwargs=[{{}}, {valid!r}])",
                f"# dl_kwargs' second entry is the validation DataLoader's own: "
                f"{_took(others)} with it",
            ]
        else:
            lines += [
                f"dls = dblock.dataloaders(source, {_kwargs(taken, _FASTAI_ARGS)})",
                "# fastai builds the validation DataLoader with these too",
            ]
        if values.get(PREFETCH_FACTOR) not in (None, DEFAULT_PREFETCH):
            lines.append(
                f"# measured with prefetch_factor={values['prefetch_factor']!r}, which no "
                "argument of fastai's DataLoader sets (it keeps 2)"
            )
        return lines
    call = f"DataLoader(dataset, {_kwargs(values)})"
    if framework is None and loader and loader.isidentifier():
        # The script's own loader class (WebDataset's WebLoader, torchdata's
        # StatefulDataLoader): a DataLoader that takes the same arguments.
        call = f"{loader}(dataset, {_kwargs(values)})"
    if framework == "lightning":
        return [
            "# in your LightningDataModule's (or LightningModule's) train_dataloader():",
            f"return {call}",
        ]
    if framework == "fabric":
        return ["# the DataLoader you pass to fabric.setup_dataloaders():", f"loader = {call}"]
    if framework == "accelerate":
        return ["# the DataLoader you pass to accelerator.prepare():", f"loader = {call}"]
    return [f"loader = {call}"]
