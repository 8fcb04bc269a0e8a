"""The answer in the user's own terms: real probes through the CLI of scripts whose loader a
library builds (skorch, MMEngine) or wraps (Lightning Fabric), and the snippet that names
the place the user edits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from autotune.contract import LoaderConfig
from tests.conftest import MARK_ENV, SCRIPTS, assert_no_orphans, probe

FRAMEWORKS = SCRIPTS / "frameworks"
FAST = ["--warmup", "0.2", "--window", "0.25", "--windows", "3", "--trial-timeout", "90"]


def _autotune(*args: str, mark: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autotune.cli", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, MARK_ENV: mark},
    )


def _answer(script: str, tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    """The JSON answer of a two-trial study of ``script ARGS`` (the script as written and
    one setting of the search) and its Python snippet."""
    mark, url = uuid.uuid4().hex, f"sqlite:///{tmp_path / 'a.db'}"
    probed = _autotune(
        "probe", str(FRAMEWORKS / script), "--storage", url, "--trials", "2", "--json",
        "--study", "s", "--max-workers", "2", *FAST, "--", *args, mark=mark,
    )  # fmt: skip
    assert probed.returncode == 0, probed.stderr
    assert_no_orphans(mark)
    data: dict[str, Any] = json.loads(probed.stdout)
    # Measured as written and with a setting of the search, and nothing of autotune's failed.
    # A setting measured slower is pruned after its first windows: measured all the same (2
    # workers beside Lightning's own threads on 2 cores can be slower than none).
    assert data["baseline"]["samples_per_s"] > 0, probed.stderr
    measured = data["trials"]["complete"] + data["trials"]["pruned"]
    assert measured >= 2 and not data["failures"], probed.stderr
    snippet = _autotune("best", "s", "--storage", url, "--format", "python", mark=mark)
    assert snippet.returncode == 0, snippet.stderr
    return data, snippet.stdout


@pytest.mark.slow
def test_skorch_is_answered_in_iterator_train_arguments(tmp_path: Path) -> None:
    pytest.importorskip("skorch")
    data, snippet = _answer("skorch_train.py", tmp_path)
    assert data["framework"] == "skorch"
    assert data["measured_loader"]["built_by"] == "NeuralNetClassifier.fit"
    assert "net = NeuralNetClassifier(..., iterator_train__batch_size=8" in snippet
    assert "iterator_train__num_workers=" in snippet
    assert "DataLoader(" not in snippet  # the script has no DataLoader call to edit


@pytest.mark.slow
def test_mmengine_is_answered_in_the_train_dataloader_dict(tmp_path: Path) -> None:
    pytest.importorskip("mmengine")
    data, snippet = _answer("mmengine_train.py", tmp_path)
    assert data["framework"] == "mmengine"
    assert data["measured_loader"]["built_by"] == "Runner.train"
    assert "train_dataloader=dict(..., batch_size=8, num_workers=" in snippet
    assert "DataLoader(" not in snippet


@pytest.mark.slow
def test_fabric_is_answered_at_the_loader_given_to_setup_dataloaders(tmp_path: Path) -> None:
    # The script imports lightning (the Trainer too): only what iterated the loader tells.
    pytest.importorskip("lightning")
    data, snippet = _answer("fabric_train.py", tmp_path)
    assert data["framework"] == "fabric"
    assert data["measured_loader"]["built_by"] == "_FabricDataLoader.__iter__"
    assert "fabric.setup_dataloaders()" in snippet
    assert "loader = DataLoader(dataset, batch_size=8, num_workers=" in snippet
    assert "train_dataloader()" not in snippet


@pytest.mark.slow
@pytest.mark.parametrize(
    ("script", "module", "dataset"),
    [("skorch_train.py", "skorch", "SlowLabels"), ("mmengine_train.py", "mmengine", "SlowDict")],
)
def test_a_loader_the_library_builds_gets_the_trials_settings(
    script: str, module: str, dataset: str
) -> None:
    pytest.importorskip(module)
    res = probe(
        str(FRAMEWORKS / script), loader=LoaderConfig(num_workers=1, batch_size=16), timeout_s=90
    )
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.measured_loader is not None
    assert res.measured_loader.framework == module
    assert res.measured_loader.dataset == dataset
    assert res.script_config.num_workers == 0 and res.script_config.batch_size == 8
    assert res.applied_config.num_workers == 1
    assert res.batch_size == 16


@pytest.mark.slow
def test_a_loader_the_script_gives_the_lightning_trainer_is_answered_at_its_own_call(
    tmp_path: Path,
) -> None:
    # trainer.fit(model, train_dataloaders=loader, val_dataloaders=val): no hook to edit. Its
    # validation pass (Lightning's own loop) is about a third of each short epoch.
    pytest.importorskip("lightning")
    sizes = ("--train-size", "256", "--val-size", "128")
    data, snippet = _answer("lightning_train.py", tmp_path, "--given-loader", *sizes)
    assert data["framework"] is None
    assert "loader = DataLoader(" in snippet and "batch_size=8" in snippet
    assert "train_dataloader()" not in snippet
    # Lightning's validation loader is found in its evaluation loop and gets its own workers,
    # within --max-workers, its passes faster; the snippet names it at its own line.
    others = data["others"]
    assert others is not None and others["config"] is not None, data
    assert others["config"]["num_workers"] == 2 and others["tuned_s"] < others["as_written_s"]
    (named,) = others["loaders"]
    assert named.startswith("SlowVal at ") and "lightning_train.py:" in named, others
    assert "# and for SlowVal at " in snippet, snippet
