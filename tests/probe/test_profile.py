"""The probe's optional Chrome trace of a few steps after measurement."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from autotune.contract import ProbeSettings, TrialConfig
from autotune.runner import SubprocessRunner, Target
from tests.conftest import EXAMPLES, MARK_ENV, assert_no_orphans


def test_profile_path_writes_a_chrome_trace_after_measuring(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    mark = uuid.uuid4().hex
    target = Target(str(EXAMPLES / "tiny_model.py"), ("--epochs", "1000"), env={MARK_ENV: mark})
    config = TrialConfig(
        settings=ProbeSettings(warmup_s=0.2, window_s=0.3, windows=2),
        profile_path=str(trace),
        profile_steps=3,
    )
    res = SubprocessRunner().run(target, config, timeout_s=60)
    assert_no_orphans(mark)
    assert res.status == "ok", res.reason + res.stderr_tail
    assert len(res.windows) == 2
    assert res.profile_path == str(trace)
    events = json.loads(trace.read_text())["traceEvents"]
    names = {str(e.get("name", "")) for e in events}
    assert "aten::addmm" in names, sorted(names)[:40]  # the model's Linear layers ran
