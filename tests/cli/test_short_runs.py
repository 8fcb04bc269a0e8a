"""A finite script whose fast configs finish it before a probe sized for long runs is done:
the real CLI, real probes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import SCRIPTS

# Alone (tests/turns.py): a speedup asserted through the whole search, whose like-with-like rule
# keeps the script as written when a neighbour's load comes and goes.
pytestmark = pytest.mark.alone


@pytest.mark.slow
def test_a_three_epoch_script_gets_the_fast_config_that_ended_it(db_url: str) -> None:
    # 3 epochs of 128 batches at ~34 ms a batch as written (13 s); a tenth of that with
    # workers, which ends the script inside the windows planned for a long run.
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "autotune.cli", "probe", str(SCRIPTS / "basic.py")),
            *("--storage", db_url, "--trials", "4", "--json"),
            *("--window", "1", "--windows", "5", "--min-windows", "5"),
            *("--", "--epochs", "3", "--size", "1024", "--latency", "0.004"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["verdict"] is None
    assert answer["recommended"]["config"]["num_workers"] > 0, proc.stderr
    assert answer["speedup"] > 2, proc.stderr
    # The probes learned the script's length: 3 x 128 batches.
    assert "ended after 384 batches" in proc.stderr
