"""ProcessGroup with real processes: tiny Python members that each fork a child, write
progress lines as a probe does, then exit or hang."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import psutil
import pytest

from autotune.contract import TrialConfig
from autotune.runner._group import Ending, ProcessGroup
from tests.conftest import MARK_ENV, ROOT, assert_no_orphans, marked_processes
from tests.runner.test_lifecycle import GONE_S, wait_for, wait_gone

# A member: forks a child that ignores SIGTERM (a DataLoader worker that outlives its
# parent), writes its windows (and its done line), then exits or hangs. "deaf": SIGTERM
# is noted in a file beside its config and otherwise ignored. "detach": it also starts a
# process in a session of its own, out of the member's process group. "after": it writes its
# result ("result", "reason") only once that file exists.
MEMBER = r"""
import json, os, signal, subprocess, sys, time
spec = json.loads(os.environ["MEMBER_SPEC"])
config_path = os.environ["AUTOTUNE_PROBE_CONFIG"]
config = json.loads(open(config_path).read())
if spec.get("deaf"):
    noted = os.path.join(os.path.dirname(config_path), "sigterm")
    signal.signal(signal.SIGTERM, lambda *_: open(noted, "w").close())
subprocess.Popen([sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
if spec.get("detach"):
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
        start_new_session=True)
while spec.get("after") and not os.path.exists(spec["after"]):
    time.sleep(0.01)
if "result" in spec:
    result = {"status": spec["result"], "reason": spec.get("reason", "")}
    open(config["result_path"], "w").write(json.dumps(result))
with open(config["progress_path"], "a") as fh:
    for i, rate in enumerate(spec.get("windows", [])):
        fh.write(json.dumps({"window": i, "samples_per_s": rate}) + "\n")
    if "done" in spec:
        fh.write(json.dumps({"done": True, "exit_code": spec["done"]}) + "\n")
if "exit" in spec:
    sys.exit(spec["exit"])
time.sleep(600)
"""


# A runner: one member that detaches a process, then hangs; "running" is touched at its
# first window, once every process of its tree has started.
RUNNER = r"""
import json, os, sys
from pathlib import Path
from autotune.contract import TrialConfig
from autotune.runner._group import ProcessGroup
member, tmp = sys.argv[1], Path(sys.argv[2])
group = ProcessGroup([sys.executable, "-c", member], poll_s=0.02)
spec = {"windows": [1.0], "detach": True}
group.add(tmp / "m0", TrialConfig(), {**os.environ, "MEMBER_SPEC": json.dumps(spec)})
group.run(600, lambda i, v: bool((tmp / "running").touch()))
"""


def watchers() -> list[psutil.Process]:
    """The lifecycle watchers this test process started and has not reaped."""
    found = []
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if any(arg.endswith("_lifecycle.py") for arg in child.cmdline()):
                found.append(child)
    return found


def _group(tmp_path: Path, mark: str, *specs: dict[str, Any]) -> ProcessGroup:
    group = ProcessGroup([sys.executable, "-c", MEMBER], poll_s=0.02)
    for i, spec in enumerate(specs):
        env = {**os.environ, MARK_ENV: mark, "MEMBER_SPEC": json.dumps(spec)}
        group.add(tmp_path / f"m{i}", TrialConfig(), env)
    return group


def test_windows_are_summed_and_pruning_kills_every_group(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    # Member 1 ignores SIGTERM: it is killed once the grace is over.
    group = _group(
        tmp_path, mark, {"windows": [1.0, 2.0, 3.0]}, {"windows": [10.0, 20.0], "deaf": True}
    )
    seen: list[tuple[int, float]] = []
    alive: list[int] = []

    def on_window(index: int, value: float) -> bool:
        seen.append((index, value))
        alive.append(len(marked_processes(mark)))
        return index == 1

    ending = group.run(60, on_window)
    assert ending == Ending(pruned=True, wall_s=ending.wall_s)
    # Window 2 only member 0 closed: never the group's.
    assert seen == [(0, 11.0), (1, 22.0)]
    assert alive[0] == 4  # two members and their children were running when pruned
    assert [m.proc.returncode for m in group.members] == [-signal.SIGTERM, -signal.SIGKILL]
    assert (group.members[1].directory / "sigterm").exists()
    assert_no_orphans(mark)
    assert not watchers()


def test_a_hanging_member_times_out_and_every_group_is_killed(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    # Member 0 exits at once, its child left behind in its group; member 1 hangs.
    group = _group(tmp_path, mark, {"windows": [1.0], "exit": 0}, {"windows": [2.0]})
    seen: list[tuple[int, float]] = []
    ending = group.run(5, lambda i, v: bool(seen.append((i, v))))
    assert ending.timed_out and not ending.pruned and ending.failed is None
    assert seen == [(0, 3.0)]
    assert group.members[1].proc.returncode == -signal.SIGTERM
    assert_no_orphans(mark)


@pytest.mark.parametrize("failure", [{"exit": 3}, {"result": "crashed"}])
def test_fail_fast_ends_the_group_when_one_member_fails(
    tmp_path: Path, failure: dict[str, Any]
) -> None:
    mark = uuid.uuid4().hex
    group = _group(tmp_path, mark, {}, failure)
    ending = group.run(60, fail_fast=True)
    assert ending.failed == 1 and not ending.timed_out
    assert group.members[0].proc.returncode == -signal.SIGTERM
    assert_no_orphans(mark)


ECHO = {"result": "crashed", "reason": "RuntimeError: [pair.cc:553] Connection closed by peer"}


def _echo(reason: str) -> bool:
    return "closed by peer" in reason


def test_an_echoed_failure_waits_for_the_member_that_caused_it(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    # Member 1 records its own error only after member 0 recorded the echo of it: killed at
    # the echo, it could never say what went wrong.
    cause = {"result": "crashed", "reason": "ValueError: bad sample", "exit": 1}
    cause["after"] = str(tmp_path / "m0" / "result.json")
    group = _group(tmp_path, mark, ECHO, cause)
    ending = group.run(120, fail_fast=True, exit_grace_s=60, echo=_echo)
    assert ending.failed == 0 and not ending.timed_out
    own = json.loads(group.members[1].result_path.read_text())
    assert own["reason"] == "ValueError: bad sample"
    assert_no_orphans(mark)


def test_an_echo_whose_cause_never_comes_ends_the_group_after_the_grace(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    group = _group(tmp_path, mark, ECHO, {})  # member 1 runs on, recording nothing
    ending = group.run(60, fail_fast=True, exit_grace_s=0.5, echo=_echo)
    assert ending.failed == 0 and not ending.timed_out and ending.wall_s >= 0.5
    assert group.members[1].proc.returncode == -signal.SIGTERM
    assert not group.members[1].result_path.exists()
    assert_no_orphans(mark)


def test_a_member_that_reported_done_is_killed_at_once_with_its_own_exit_code(
    tmp_path: Path,
) -> None:
    mark = uuid.uuid4().hex
    # Done, then stuck in its interpreter's exit, deaf to SIGTERM: no grace is waited.
    group = _group(tmp_path, mark, {"windows": [5.0], "done": 0, "deaf": True})
    seen: list[tuple[int, float]] = []
    ending = group.run(60, lambda i, v: bool(seen.append((i, v))))
    assert ending == Ending(wall_s=ending.wall_s)
    (member,) = group.members
    assert not (member.directory / "sigterm").exists()
    assert seen == [(0, 5.0)] and member.progress.windows == [5.0]
    assert member.proc.returncode == -signal.SIGKILL and member.exit_code == 0
    assert_no_orphans(mark)


def test_every_result_written_ends_the_group_after_the_exit_grace(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    group = _group(tmp_path, mark, {"result": "ok"}, {"result": "ok"})
    ending = group.run(60, fail_fast=True, exit_grace_s=0.1)
    assert ending == Ending(wall_s=ending.wall_s)
    assert all(m.proc.returncode == -signal.SIGTERM for m in group.members)
    assert_no_orphans(mark)


def test_a_process_that_left_the_group_is_ended_with_it_and_no_watcher_stays(
    tmp_path: Path,
) -> None:
    mark = uuid.uuid4().hex
    group = _group(tmp_path, mark, {"windows": [1.0], "done": 0, "detach": True})
    ending = group.run(60)
    assert not ending.timed_out
    assert_no_orphans(mark, wait_s=1.0)
    assert not watchers()


def test_sigkill_of_the_runner_ends_every_process_of_its_probe(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    env = {**os.environ, MARK_ENV: mark}
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER, MEMBER, str(tmp_path)], env=env, cwd=ROOT
    )
    try:
        wait_for("the member's first window", (tmp_path / "running").exists, 60)
        tree = psutil.Process(runner.pid).children(recursive=True)
        # the watcher, the member, its child in its group and the one that left it
        assert len(tree) == 4, [p.cmdline() for p in tree]
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        left = wait_gone(tree, GONE_S)
        assert not left, [p.cmdline() for p in left]
        assert_no_orphans(mark, wait_s=1.0)
    finally:
        runner.kill()
        runner.wait()
        for proc in marked_processes(mark):
            with contextlib.suppress(psutil.Error):
                proc.kill()
