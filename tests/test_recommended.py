"""autotune._recommended: the settings it returns are always ones torch's DataLoader takes,
and no storage failure stops training, however it is worded."""

from __future__ import annotations

from typing import Any

import pytest
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler

import autotune
import autotune.store
from autotune._recommended import RecommendationWarning, loader_kwargs

DATA = list(range(64))


def _seed(worker: int) -> None:
    del worker


CONFIGS: list[dict[str, Any]] = [
    {},
    {"num_workers": 0},
    {"num_workers": 0, "prefetch_factor": 4, "persistent_workers": True},
    {"num_workers": 2, "prefetch_factor": 4, "persistent_workers": True, "batch_size": 16},
    {"batch_size": 16, "pin_memory": False, "num_streams": 2, "device": "cuda"},
]
FALLBACKS: list[dict[str, Any]] = [
    {"batch_size": 8, "shuffle": True},
    # Everything a script with workers may pass that torch refuses once there are none.
    {
        "batch_size": 8,
        "num_workers": 2,
        "prefetch_factor": 3,
        "persistent_workers": True,
        "multiprocessing_context": "fork",
        "timeout": 30,
        "worker_init_fn": _seed,
    },
    # Worker-only keys with no num_workers at all: torch's default is 0 workers.
    {"batch_size": 8, "prefetch_factor": 3, "multiprocessing_context": "fork", "timeout": 5},
    {"batch_sampler": BatchSampler(SequentialSampler(DATA), batch_size=4, drop_last=False)},
    {"batch_size": None, "num_workers": 0},
]


@pytest.mark.parametrize("fallback", FALLBACKS, ids=range(len(FALLBACKS)))
@pytest.mark.parametrize("config", CONFIGS, ids=range(len(CONFIGS)))
def test_torch_takes_what_it_returns(config: dict[str, Any], fallback: dict[str, Any]) -> None:
    kwargs = loader_kwargs(config, fallback)
    loader = DataLoader(DATA, **kwargs)
    # A timeout with no workers only fails here, at the first batch.
    iterator = iter(loader)
    next(iterator)
    del iterator
    if "num_workers" in config:
        assert loader.num_workers == config["num_workers"]


def test_worker_only_keys_go_when_the_recommendation_has_no_workers() -> None:
    got = loader_kwargs({"num_workers": 0}, FALLBACKS[1])
    assert got == {
        "batch_size": 8,
        "num_workers": 0,
        "persistent_workers": False,
        "worker_init_fn": _seed,
    }


def test_the_scripts_batching_is_kept_when_torch_allows_no_other() -> None:
    sampler = FALLBACKS[3]["batch_sampler"]
    got = loader_kwargs({"batch_size": 64, "num_workers": 2}, {"batch_sampler": sampler})
    assert got == {"batch_sampler": sampler, "num_workers": 2}
    got = loader_kwargs({"batch_size": 64}, {"batch_size": None})
    assert got["batch_size"] is None


@pytest.mark.parametrize("message", ["", "\n", "  \n\t\n"])
def test_a_storage_error_with_no_message_falls_back(
    monkeypatch: pytest.MonkeyPatch, message: str
) -> None:
    def broken(url: str) -> object:
        raise RuntimeError(message)

    monkeypatch.setattr(autotune.store, "engine_for", broken)
    fallback = {"batch_size": 32, "num_workers": 2}
    with pytest.warns(RecommendationWarning, match=r"cannot be read \(RuntimeError\)"):
        got = autotune.recommended(
            "train.py", fallback=fallback, storage="sqlite:///x.db", host="0" * 12
        )
    assert got == fallback
