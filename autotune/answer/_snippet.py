"""The snippet an answer gives to paste: its settings in the terms of the place the user
edits them (a framework's own arguments where it builds the loader, else the DataLoader(...)
call), and the notes the settings need (copy streams, the CPU, threads, the other loaders)."""

from __future__ import annotations

from typing import Any

from autotune.answer._answer import UNTUNED_SHARE, Answer, Epoch, OtherLoaders
from autotune.contract import (
    BATCH_SIZE,
    DEFAULT_PREFETCH,
    NUM_WORKERS,
    PERSISTENT_WORKERS,
    PIN_MEMORY,
    PREFETCH_FACTOR,
)


def snippet(answer: Answer) -> str:
    """The settings to paste, in the terms of the framework the script uses, and the
    stream/device notes they need."""
    rec = answer.recommended
    if rec is None:
        return "# no recommendation yet: no trial was measured in full"
    values = rec.config.dataloader_values()
    ranks = answer.nproc_per_node
    head = f"# autotune study {answer.study}: {rec.samples_per_s or 0:.0f} samples/s"
    if ranks > 1:
        head += f" (the job's, {ranks} ranks)"
    if answer.speedup:
        head += f", {answer.speedup:.2f}x the script as written"
    lines = [head]
    if ranks > 1:
        lines.append(f"# per rank: each of the {ranks} ranks builds its loader with these")
    measured = answer.measured_loader
    built_by = measured.built_by if measured else None
    name = measured.loader if measured else None
    if measured is not None and measured.iterable and measured.batch_size is None:
        # Batching off (the dataset yields whole batches, as WebDataset's .batched()
        # does): torch's default of 1 would batch the batches again.
        values = {BATCH_SIZE: None, **values}
    lines += _framework_lines(answer.framework, values, built_by, answer.others, name)
    workers = int(values.get(NUM_WORKERS) or 0)
    if measured is not None and measured.iterable and measured.batch_size and workers > 1:
        # torch batches each worker's share of the stream apart: the samples are the same,
        # the epoch's last batches are not.
        lines.append(
            f"# over an IterableDataset each of the {workers} workers batches its own share: an "
            f"epoch may end with up to {workers} partial batches (drop_last=True drops them)"
        )
    config = rec.config
    if config.num_streams:
        lines.append(
            f"# copy batches to the GPU on {config.num_streams} CUDA streams: "
            "`autotune run` applies this for you"
        )
    base = answer.baseline.config if answer.baseline else None
    if config.device == "cpu" and base is not None and base.device == "cuda":
        lines.append("# measured faster on the CPU: run with CUDA_VISIBLE_DEVICES=''")
    if config.threads:
        # Code, not a comment: the threads are part of what was measured, and workers
        # without them can lose most of the gain where both compete for the cores.
        lines.append(
            f"torch.set_num_threads({config.threads})  # before training, part of the pick (or "
            f"OMP_NUM_THREADS={config.threads}); `autotune run` applies it for you"
        )
    lines += _other_lines(answer.others, answer.epoch, answer.framework)
    return "\n".join(lines)


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
    values = others.config.dataloader_values()
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


# The Trainer's names for the DataLoader arguments it builds its loaders with.
_TRAINER_ARGS = {
    NUM_WORKERS: "dataloader_num_workers",
    PREFETCH_FACTOR: "dataloader_prefetch_factor",
    PERSISTENT_WORKERS: "dataloader_persistent_workers",
    PIN_MEMORY: "dataloader_pin_memory",
}
# fastai's name for the batch size; the other settings are the DataLoader's own names.
_FASTAI_ARGS = {BATCH_SIZE: "bs"}


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
        if BATCH_SIZE in values:
            lines.append(f"# batch size: per_device_train_batch_size={values[BATCH_SIZE]!r}")
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
        # fastai's DataLoader takes no prefetch_factor (NO_PREFETCH_FRAMEWORKS): it keeps
        # DEFAULT_PREFETCH.
        taken = {k: v for k, v in values.items() if k != PREFETCH_FACTOR}
        lines = ["# fastai builds its DataLoaders from the arguments of dataloaders():"]
        if others is not None and others.config is not None:
            # The validation DataLoader's arguments are these with the second entry of
            # dl_kwargs merged over them; fastai's DataLoader keeps prefetch at 2.
            own = others.config.dataloader_values()
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
                f"# measured with prefetch_factor={values[PREFETCH_FACTOR]!r}, which no "
                f"argument of fastai's DataLoader sets (it keeps {DEFAULT_PREFETCH})"
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
