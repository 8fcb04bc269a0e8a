"""The probe/tuner contract's own rules."""

from __future__ import annotations

import json

import pytest

from autotune.contract import (
    CEILING_GAP,
    Drift,
    GpuReading,
    LoaderFound,
    MeasuredLoader,
    ProbeResult,
    ProbeSettings,
    RankFigures,
)


@pytest.mark.parametrize(
    ("windows", "done"),
    [
        ([100.0], False),  # one window is never enough
        ([100.0, 103.0], True),  # two agree within 5%
        ([100.0, 110.0], False),  # two disagree: measure another
        ([100.0, 110.0, 120.0], False),
        ([100.0, 110.0, 120.0, 90.0], True),  # the cap
    ],
)
def test_a_probe_ends_once_its_windows_agree(windows: list[float], done: bool) -> None:
    assert ProbeSettings(windows=4, min_windows=2).enough(windows) is done


def test_without_min_windows_every_window_is_measured() -> None:
    settings = ProbeSettings(windows=3)
    assert not settings.enough([100.0, 100.0])
    assert settings.enough([100.0, 100.0, 100.0])


def test_a_probe_that_may_lead_measures_every_window() -> None:
    settings = ProbeSettings(windows=4, min_windows=2, settled_below=400.0)
    assert settings.enough([300.0, 302.0])  # clearly below the leader: two agreeing suffice
    assert not settings.enough([420.0, 413.0])  # may lead: two agree within 5 % by chance
    assert settings.enough([420.0, 413.0, 380.0, 375.0])  # the cap still holds
    assert settings.for_ceiling().settled_below is None  # a ceiling is not in the race


def test_a_ceiling_settles_at_the_precision_it_is_used_to() -> None:
    settings = ProbeSettings(windows=4, min_windows=2)
    assert not settings.enough([100.0, 108.0])
    assert settings.for_ceiling().enough([100.0, 108.0])  # within CEILING_GAP
    assert not settings.for_ceiling().enough([100.0, 115.0])
    assert settings.for_ceiling().settled_spread == CEILING_GAP
    # Beside the baseline, in its process: shorter windows and warm-up, the same precision.
    beside = settings.for_ceiling(beside=True)
    assert beside.window_s < settings.window_s and beside.warmup_s < settings.warmup_s
    assert beside.settled_spread == CEILING_GAP and beside.windows == settings.windows
    assert settings.for_ceiling().window_s == settings.window_s  # a ceiling probe's own


def test_a_result_stored_before_interference_was_read_loads_without_it() -> None:
    old = {"status": "ok", "windows": [10.0, 11.0], "samples_per_s": 10.5, "gone_key": 1}
    res = ProbeResult.from_dict(old)
    assert res.interference_cores == [] and res.ceiling_interference_cores == []
    assert ProbeResult.from_dict(res.to_dict()) == res


def test_transport_figures_are_keyed_by_worker_count_through_json() -> None:
    # JSON keys are strings; the contract reads them back as the counts they are.
    result = ProbeResult(transport_by_workers={0: 900.0, 8: 400.0})
    back = ProbeResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert back.transport_by_workers == {0: 900.0, 8: 400.0}
    assert ProbeResult.from_dict({"transport_by_workers": None}).transport_by_workers is None


def test_the_typed_parts_of_a_result_keep_their_stored_json() -> None:
    # As results were stored when these parts were dicts: loaded typed, written back the same.
    stored = {
        "status": "ok",
        "gpu": {"device_name": None, "num_streams": 0, "notes": ["no CUDA device"]},
        "measured_loader": {"loader": "DataLoader", "dataset": "D", "batch_size": 8},
        "ranks": [{"rank": 0, "status": "ok", "windows": [1.0]}, {"rank": 1, "extra": 1}],
    }
    res = ProbeResult.from_dict(stored)
    assert res.gpu == GpuReading(num_streams=0, notes=["no CUDA device"])
    assert res.measured_loader == MeasuredLoader("DataLoader", "D", 8)
    assert res.ranks == [RankFigures(0, windows=[1.0]), RankFigures(1)]
    again = json.loads(json.dumps(res.to_dict()))
    assert ProbeResult.from_dict(again) == res
    # Outside a live run's segments there is no switched_at, as before it was typed.
    assert set(again["measured_loader"]) == {
        "loader",
        "dataset",
        "batch_size",
        "framework",
        "built_by",
    }
    switched = MeasuredLoader("DataLoader", "D", 8, switched_at=[1, 3])
    assert switched.to_dict()["switched_at"] == [1, 3]


def test_what_a_live_run_says_of_its_loader_reads_back() -> None:
    found = LoaderFound(switchable=False, mid_epoch=False, why="not torch's __iter__")
    assert LoaderFound.from_json(found.to_json()) == found
    assert json.loads(found.to_json()) == {
        "switchable": False,
        "why": "not torch's __iter__",
        "mid_epoch": False,
    }


def test_a_drift_reads_back_without_the_rank_it_was_found_in() -> None:
    drift = Drift(0.02, 0.03, 0.001, 0.011, windows=3, rank=1)
    assert "rank" not in json.loads(drift.to_json())  # the search knows it from the folder
    assert Drift.from_json(drift.to_json()) == Drift(0.02, 0.03, 0.001, 0.011, windows=3)


def test_a_drift_of_the_load_reads_back_with_its_cores_and_an_older_one_without() -> None:
    calmed = Drift(0.001, 0.01, 0.001, 0.01, windows=3, cores_then=1.0, cores_now=0.05)
    assert Drift.from_json(calmed.to_json()) == calmed
    older = '{"wait_per_batch_s": 0.02, "step_s": 0.03, "reference_wait_per_batch_s": 0.001, '
    older += '"reference_step_s": 0.011, "windows": 3}'
    assert Drift.from_json(older).cores_then is None


def test_the_epoch_figures_round_trip_and_old_results_load_without_them() -> None:
    from autotune.contract import EpochFigures, LoaderPass, ProbeResult

    figures = EpochFigures(
        epoch_s=3.0,
        train_s=1.0,
        startup_s=0.5,
        passes=[LoaderPass("DataLoader", "Val", 8, 0, 1.2, 10, 0.01, "fit.py:3")],
        charged_startup_s=0.49,
        uncharged_windows=[10.0, 11.0],
    )
    again = ProbeResult.from_dict(ProbeResult(epoch=figures).to_dict())
    assert again.epoch == figures
    assert ProbeResult.from_dict({"status": "ok"}).epoch is None


def test_torchs_rules_on_loader_settings_are_the_ones_torch_keeps() -> None:
    # One home for torch's loader rules: what a script's arguments mean, and what
    # DataLoader.__init__ leaves on the loader for them; checked against torch itself.
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    from autotune.contract import DEFAULT_PREFETCH, TUNED_KEYS, LoaderConfig, worker_values

    data = TensorDataset(torch.zeros(8, 2))
    for arguments in (
        {"num_workers": 2},
        {"num_workers": 2, "prefetch_factor": 5, "persistent_workers": True},
        {"num_workers": 0, "pin_memory": True},
        {},
    ):
        built = DataLoader(data, batch_size=4, **arguments)
        expected = {key: getattr(built, key) for key in TUNED_KEYS}
        values = worker_values(arguments)
        assert {key: values[key] for key in TUNED_KEYS} == expected, arguments
        config = LoaderConfig.of_arguments({**arguments, "batch_size": 4})
        assert config.prefetch_factor == expected["prefetch_factor"]
        assert config.batch_size == 4 and config.num_streams == 0
        # What a snippet passes, under the rules, builds the same loader.
        again = DataLoader(data, **config.dataloader_values())
        assert {key: getattr(again, key) for key in TUNED_KEYS} == expected
    assert LoaderConfig.of_arguments({"num_workers": 3}).prefetch_factor == DEFAULT_PREFETCH
    sampler = torch.utils.data.BatchSampler(range(8), 4, False)
    assert LoaderConfig.of_arguments({"batch_sampler": sampler, "batch_size": 1}).batch_size is None
