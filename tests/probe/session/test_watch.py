"""The no-DataLoader watch: real backward passes and optimizer steps, in-process."""

from __future__ import annotations

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
