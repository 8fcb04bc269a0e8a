"""Streams split among workers by whole shards, probed through the real CLI with the real
libraries: the search never asks for more workers than the shards feed, and says why in the
library's terms; a count past them is never the script's failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune.contract import TOO_FEW_SHARDS
from tests.conftest import MARK_ENV, SCRIPTS, assert_no_orphans

# Alone (tests/turns.py): a speedup asserted through the whole search.
pytestmark = pytest.mark.alone

LIBRARIES = SCRIPTS / "libraries"
QUICK = ["--warmup", "0.2", "--window", "0.5", "--windows", "3", "--trial-timeout", "90"]


def _probe(script: str, tmp_path: Path, *args: str) -> tuple[dict[str, Any], str, str]:
    mark, url = uuid.uuid4().hex, f"sqlite:///{tmp_path / 'autotune.db'}"
    command = [
        sys.executable, "-m", "autotune.cli", "probe", str(LIBRARIES / script),
        "--trials", "6", "--json", "--storage", url, "--study", "s", *QUICK, "--", *args,
    ]  # fmt: skip
    env = {
        **os.environ,
        MARK_ENV: mark,
        "HF_DATASETS_CACHE": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "1",
    }
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert_no_orphans(mark)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), url, proc.stderr


def _counts_tried(url: str) -> list[int]:
    study = optuna.load_study(study_name="s", storage=url)
    return [int(t.params.get("num_workers", 0)) for t in study.trials if t.params]


@pytest.mark.slow
def test_a_hugging_face_stream_of_four_shards_gets_at_most_four_workers(tmp_path: Path) -> None:
    pytest.importorskip("datasets", reason="datasets is in the dev extra")
    summary, url, stderr = _probe("hf_streaming_train.py", tmp_path, "--shards", "4")
    assert summary["measured_loader"]["shards"] == 4, summary["measured_loader"]
    assert max(_counts_tried(url)) <= 4, stderr
    workers = summary["recommended"]["config"]["num_workers"]
    assert 1 <= workers <= 4, stderr
    assert summary["speedup"] >= 2, stderr  # 1.5 ms a text: four workers still gain
    text = summary["diagnosis"]["summary"]
    assert "This dataset has 4 shards (datasets' `num_shards`)" in text, text
    assert "to_iterable_dataset(num_shards=N)" in text, text


@pytest.mark.slow
def test_a_webdataset_of_eight_shards_gets_eight_workers_at_most_and_no_failure(
    tmp_path: Path,
) -> None:
    pytest.importorskip("webdataset", reason="webdataset is in the dev extra")
    summary, url, stderr = _probe("webdataset_train.py", tmp_path, "--shards", "8")
    assert max(_counts_tried(url)) <= 8, stderr
    assert summary["recommended"]["config"]["num_workers"] <= 8, stderr
    failures = summary["failures"]
    assert not [f for f in failures if f["status"] == "crashed"], failures
    assert not [f for f in failures if f["reason"].startswith(TOO_FEW_SHARDS)], failures
    assert "This WebDataset has 8 shards" in summary["diagnosis"]["summary"]
