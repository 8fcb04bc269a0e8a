"""The result a real probe writes when the script ends before a single window."""

from __future__ import annotations

from dataclasses import replace

from tests.conftest import FAST, probe


def test_a_script_that_ends_inside_the_warm_up_leaves_the_rate_of_its_run() -> None:
    # 2 epochs of 40 batches at 2 ms a sample (batch 8: 16 ms a batch, about 1.3 s), under a
    # warm-up that cannot end in time: no window, and the script's length is known.
    settings = replace(FAST, warmup_s=60.0, max_warmup_s=120.0)
    res = probe("basic.py", "--epochs", "2", "--size", "320", "--latency", "0.002",
                settings=settings)  # fmt: skip
    assert res.status == "ended_early", res.reason + res.stderr_tail
    assert res.windows == [] and res.script_batches == 80
    # The run after the warm-up's batches: at most the loader's own 500 samples/s (the step is
    # all but free), and not a trickle.
    assert res.samples_per_s is not None and 100 < res.samples_per_s <= 500, res.samples_per_s


def test_loading_that_draws_from_torch_s_generator_is_carried_in_the_result() -> None:
    # Shuffled, 0 workers: the sampler's own draw each epoch is not loading and says nothing.
    args = ("--epochs", "20", "--size", "256", "--latency", "0")
    drawn = probe("draws.py", *args, "--draw", "torch")
    assert drawn.ok and drawn.measured_loader is not None, drawn.reason + drawn.stderr_tail
    assert drawn.measured_loader.global_draws == ["torch"]
    plain = probe("draws.py", *args, "--draw", "none")
    assert plain.ok and plain.measured_loader is not None, plain.reason + plain.stderr_tail
    assert plain.measured_loader.global_draws is None
    assert "global_draws" not in plain.measured_loader.to_dict()
