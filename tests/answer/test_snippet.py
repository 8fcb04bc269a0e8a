"""The snippet to paste, in the terms of the place the user edits (autotune/answer/_snippet.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from autotune.answer import Answer, Epoch, EpochPass, OtherLoaders, Recommended
from autotune.contract import FRAMEWORKS, LoaderConfig, MeasuredLoader

CONFIG = LoaderConfig(
    num_workers=4,
    prefetch_factor=4,
    pin_memory=False,
    persistent_workers=True,
    batch_size=32,
    num_streams=0,
    device="cpu",
)


def _snippet(framework: str | None, built_by: str | None = None, **config: Any) -> str:
    loader = MeasuredLoader("DataLoader", "D", 32, framework=framework, built_by=built_by)
    answer = Answer(
        study="s",
        framework=framework,
        measured_loader=loader,
        recommended=Recommended(
            trial=1, config=dataclasses.replace(CONFIG, **config), samples_per_s=100.0
        ),
    )
    return answer.snippet()


def test_a_plain_script_gets_its_dataloader_call() -> None:
    assert _snippet(None).splitlines()[1:] == [
        "loader = DataLoader(dataset, batch_size=32, num_workers=4, prefetch_factor=4, "
        "persistent_workers=True, pin_memory=False)"
    ]


def test_a_plain_script_s_own_loader_class_is_the_call_it_gets() -> None:
    # WebDataset's WebLoader, torchdata's StatefulDataLoader: DataLoaders by other names.
    loader = MeasuredLoader("WebLoader", "WebDataset", None)
    answer = Answer(
        study="s",
        measured_loader=loader,
        recommended=Recommended(trial=1, config=CONFIG, samples_per_s=100.0),
    )
    assert answer.snippet().splitlines()[1].startswith("loader = WebLoader(dataset, batch_size=32")


def test_a_stream_of_whole_batches_keeps_batching_off_in_its_call() -> None:
    # WebDataset's .batched(32) into WebLoader(dataset, batch_size=None): torch's default
    # batch size of 1 would batch the batches again.
    unbatched = dataclasses.replace(CONFIG, batch_size=None)
    for iterable, kept in ((True, True), (False, False)):
        loader = MeasuredLoader("DataLoader", "WebDataset", None, iterable=iterable)
        answer = Answer(
            study="s",
            measured_loader=loader,
            recommended=Recommended(trial=1, config=unbatched, samples_per_s=100.0),
        )
        call = answer.snippet().splitlines()[1]
        assert call.startswith("loader = DataLoader(dataset, batch_size=None, ") is kept, call
        assert ("batch_size" in call) is kept  # a batch_sampler's loader: no size to write


def test_an_iterable_datasets_workers_are_said_to_end_the_epoch_with_partial_batches() -> None:
    # 94 batches as written, 96 with 4 workers: each worker batches its share apart.
    for iterable, said in ((True, True), (False, False)):
        loader = MeasuredLoader("DataLoader", "IterableDataset", 32, iterable=iterable)
        answer = Answer(
            study="s",
            measured_loader=loader,
            recommended=Recommended(trial=1, config=CONFIG, samples_per_s=100.0),
        )
        assert ("up to 4 partial batches" in answer.snippet()) is said


def test_skorch_gets_the_nets_iterator_train_arguments_on_the_nets_own_class() -> None:
    lines = _snippet("skorch", "MyNet.fit").splitlines()
    assert lines[2] == (
        "net = MyNet(..., iterator_train__batch_size=32, iterator_train__num_workers=4, "
        "iterator_train__prefetch_factor=4, iterator_train__persistent_workers=True, "
        "iterator_train__pin_memory=False)"
    )
    assert _snippet("skorch").splitlines()[2].startswith("net = NeuralNet(..., ")


def test_mmengine_gets_the_train_dataloader_dict() -> None:
    assert _snippet("mmengine", "Runner.train").splitlines()[2] == (
        "train_dataloader=dict(..., batch_size=32, num_workers=4, prefetch_factor=4, "
        "persistent_workers=True, pin_memory=False)"
    )


def test_fabric_gets_the_loader_it_is_given_not_a_lightning_hook() -> None:
    lines = _snippet("fabric", "_FabricDataLoader.__iter__").splitlines()
    assert lines[1] == "# the DataLoader you pass to fabric.setup_dataloaders():"
    assert lines[2].startswith("loader = DataLoader(dataset, batch_size=32, num_workers=4")
    assert "train_dataloader" not in "\n".join(lines)


def test_fastai_gets_dataloaders_arguments_in_its_own_names() -> None:
    lines = _snippet("fastai").splitlines()
    assert lines[2] == (
        "dls = dblock.dataloaders(source, bs=32, num_workers=4, persistent_workers=True, "
        "pin_memory=False)"
    )
    # No argument of fastai's sets the prefetch depth measured: said, not pasted.
    assert "prefetch_factor=4" in lines[-1] and "keeps 2" in lines[-1]
    assert "keeps 2" not in _snippet("fastai", prefetch_factor=2)


def test_fastai_s_validation_loader_gets_its_own_settings_through_dl_kwargs() -> None:
    # fastai's dataloaders() merges the second entry of dl_kwargs into the validation
    # DataLoader's arguments; the stand-in torch iterates (_FakeLoader) is never named.
    loader = MeasuredLoader("TfmdDL", "Datasets", 64, framework="fastai")
    answer = Answer(
        study="s",
        framework="fastai",
        measured_loader=loader,
        recommended=Recommended(trial=1, config=CONFIG, samples_per_s=100.0),
        others=OtherLoaders(
            config=LoaderConfig(num_workers=16, prefetch_factor=2, persistent_workers=True),
            loaders=["Datasets"],
            as_written_s=2.07,
            tuned_s=0.43,
        ),
    )
    lines = answer.snippet().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("dls = "))
    assert lines[at] == (
        "dls = dblock.dataloaders(source, bs=32, num_workers=4, persistent_workers=True, "
        "pin_memory=False, dl_kwargs=[{}, {'num_workers': 16, 'persistent_workers': True}])"
    )
    assert lines[at + 1] == (
        "# dl_kwargs' second entry is the validation DataLoader's own: its passes took 2.07 s "
        "an epoch as written, 0.43 s with it"
    )
    assert "eval_loader" not in answer.snippet() and "_FakeLoader" not in answer.snippet()


def test_fastai_s_validation_pass_not_measured_with_the_settings_is_not_called_left_alone() -> None:
    # dataloaders() gives the validation DataLoader the same arguments: it is not "kept".
    answer = Answer(
        study="s",
        framework="fastai",
        measured_loader=MeasuredLoader("TfmdDL", "Datasets", 32, framework="fastai"),
        recommended=Recommended(trial=1, config=CONFIG, samples_per_s=100.0),
        others=OtherLoaders(reason="no probe beside the recommendation saw an epoch whole"),
        epoch=Epoch(
            as_written_s=4.5,
            passes=[EpochPass("TfmdDL", "Datasets", 2, 0.97, 19)],
        ),
    )
    snippet = answer.snippet()
    assert "keep their settings" not in snippet and "not tuned" not in snippet
    assert snippet.splitlines()[-1] == (
        "# its Datasets pass (2 workers as written, 22% of each epoch) was not measured with "
        "these: no probe beside the recommendation saw an epoch whole"
    )


def test_the_trainers_and_accelerate_keep_their_forms() -> None:
    assert "TrainingArguments(..., dataloader_num_workers=4" in _snippet("transformers")
    assert "per_device_train_batch_size=32" in _snippet("transformers")
    assert "return DataLoader(dataset, " in _snippet("lightning")
    assert "accelerator.prepare()" in _snippet("accelerate")


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_every_framework_has_its_own_form(framework: str) -> None:
    # A value the probe can report but the answer renders as a plain script would be a
    # snippet in the wrong place (torch's names, not the library's).
    assert _snippet(framework) != _snippet(None)


def test_the_snippet_names_an_untuned_loader_that_takes_a_share_of_the_epoch() -> None:
    from autotune.answer import Epoch, EpochPass

    epoch = Epoch(
        as_written_s=3.0,
        passes=[
            EpochPass("DataLoader", "Val", 0, 2.0, 32, "fit.py:30"),
            EpochPass("DataLoader", "Peek", 0, 0.01, 1, None),  # too small to name
        ],
    )
    answer = Answer(
        study="s",
        recommended=Recommended(trial=1, config=CONFIG, samples_per_s=100.0),
        epoch=epoch,
    )
    assert answer.snippet().splitlines()[-1] == (
        "# not tuned: the Val loader at fit.py:30 (0 workers) takes 67% of each epoch as written"
    )


def test_torch_threads_are_a_line_of_their_own_never_a_dataloader_argument() -> None:
    lines = _snippet(None, threads=1).splitlines()
    assert "threads" not in lines[1]  # DataLoader has no such argument
    # A line of code, pasted with the loader's: the pick was measured with these threads.
    assert lines[2] == (
        "torch.set_num_threads(1)  # before training, part of the pick (or OMP_NUM_THREADS=1); "
        "`autotune run` applies it for you"
    )
    assert not any("set_num_threads" in line for line in _snippet(None).splitlines())
