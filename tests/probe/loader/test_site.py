"""Which library built or iterated a loader, from the call stack at run time (in-process)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from autotune.contract import LoaderConfig, MeasuredLoader
from autotune.probe.loader._patch import LoaderPatch
from autotune.probe.loader._site import Evidence, framework_of, library_on_stack

DATA = TensorDataset(torch.arange(64.0))


def _in_module(module: str, source: str) -> Any:
    """A function whose frames belong to ``module``, as a library's code would: the walk
    reads each frame's module name (the real libraries are probed in tests/frameworks)."""
    scope: dict[str, Any] = {"__name__": module, "library_on_stack": library_on_stack}
    exec(compile(source, f"<{module}>", "exec"), scope)
    return scope


def _measured(build: Any) -> MeasuredLoader:
    patch = LoaderPatch(LoaderConfig(), lambda it, t0, delivered: it)
    patch.install()
    try:
        for _ in build():  # an epoch of 8 batches: the loader is chosen at its end
            pass
    finally:
        patch.uninstall()
    assert patch.measured_loader is not None
    return patch.measured_loader


def test_imports_are_not_evidence() -> None:
    # Lightning imported, a plain loop: the script's own DataLoader(...) is the place.
    pytest.importorskip("lightning.pytorch")
    seen = _measured(lambda: DataLoader(DATA, batch_size=8))
    assert (seen.framework, seen.built_by) == (None, None)


def test_the_library_that_built_the_loader_names_it_by_the_users_class() -> None:
    scope = _in_module(
        "skorch.net",
        "class NeuralNet:\n    def fit(self, build):\n        return build()\n",
    )

    class MyNet(scope["NeuralNet"]):  # type: ignore[misc]
        pass

    seen = _measured(lambda: MyNet().fit(lambda: DataLoader(DATA, batch_size=8)))
    assert (seen.framework, seen.built_by) == ("skorch", "MyNet.fit")


def test_the_outermost_library_names_the_place() -> None:
    # The Lightning Trainer calls into lightning.fabric's helpers: it is still the Trainer.
    inner = _in_module(
        "lightning.fabric.utilities.data", "def f():\n    return library_on_stack()\n"
    )
    outer = _in_module("lightning.pytorch.trainer.trainer", "def fit(f):\n    return f()\n")
    assert outer["fit"](inner["f"]) == ("lightning", "fit")
    assert inner["f"]() == ("fabric", "f")
    assert library_on_stack() is None  # pytest's frames are no library's


def test_built_beats_iterated_beats_the_class() -> None:
    built: Evidence = ("mmengine", "Runner.train")
    iterated: Evidence = ("fabric", "_FabricDataLoader.__iter__")
    loader = DataLoader(DATA)
    assert framework_of(loader, built, iterated) == built
    assert framework_of(loader, None, iterated) == iterated
    # The script's own loader given to MMEngine's Runner: its DataLoader(...) call is the place.
    assert framework_of(loader, None, ("mmengine", "Runner.train")) is None
    # ... and given to the Lightning Trainer's fit: the same (its hooks build with it on the stack).
    assert framework_of(loader, None, ("lightning", "Trainer.fit")) is None
    assert framework_of(loader, None, None) is None
    # Accelerate's DataLoaderShard, iterated by the script itself: its class says it.
    shard = type("DataLoaderShard", (DataLoader,), {"__module__": "accelerate.data_loader"})
    assert framework_of(shard(DATA), None, None) == ("accelerate", "DataLoaderShard")
