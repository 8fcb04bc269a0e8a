"""The no-DataLoader watch: real backward passes and optimizer steps, in-process."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from autotune.probe.session._watch import STEPS, NoDataLoader, NoLoaderWatch


def _train(steps: int) -> None:
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        model(torch.ones(2, 4)).sum().backward()
        opt.step()


def test_training_without_a_loader_is_stopped_with_what_it_did() -> None:
    watch = NoLoaderWatch(lambda: 0, lambda: 1)
    watch.install()
    try:
        with pytest.raises(NoDataLoader) as caught:
            _train(STEPS * 2)
    finally:
        watch.uninstall()
    assert watch.backwards == STEPS  # stopped at the STEPS-th backward pass
    text = str(caught.value)
    assert "backward passes" in text and "(SGD)" in text
    assert "without iterating the 1 torch DataLoader(s) it built" in text
    _train(STEPS * 2)  # uninstalled: nothing counts, nothing raises
    assert watch.backwards == STEPS


def test_a_script_that_iterates_a_loader_is_left_alone() -> None:
    iterated = [0]
    watch = NoLoaderWatch(lambda: iterated[0], lambda: 0)
    watch.install()
    try:
        _train(2)
        iterated[0] = 1
        _train(STEPS * 2)
    finally:
        watch.uninstall()
    assert watch.backwards == 3  # off from the first step after the loader was iterated


def test_a_memmap_is_hinted_at_only_when_the_script_opened_one(tmp_path: Path) -> None:
    new = np.memmap.__dict__["__new__"]
    path = tmp_path / "tokens.bin"
    np.arange(64, dtype=np.uint16).tofile(path)
    watch = NoLoaderWatch(lambda: 0, lambda: 0)
    watch.install()
    try:
        assert "np.memmap" not in watch.reason(3, 1.0)  # numpy is loaded: not evidence
        data = np.memmap(path, dtype=np.uint16, mode="r")
        assert int(data[5:9].sum()) == 26  # a window is a view, not another memmap
        assert watch.memmaps == 1 and "opened 1 np.memmap(s)" in watch.reason(3, 1.0)
        np.load(_saved(tmp_path), mmap_mode="r")  # np.load's memmaps count too
        assert watch.memmaps == 2
        assert "opened 2 np.memmap(s)" in watch.reason(3, 1.0)
    finally:
        watch.uninstall()
    assert np.memmap.__dict__["__new__"] is new  # numpy as it was
    np.memmap(path, dtype=np.uint16, mode="r")
    assert watch.memmaps == 2


def _saved(tmp_path: Path) -> Path:
    path = tmp_path / "a.npy"
    np.save(path, np.zeros(4))
    return path
