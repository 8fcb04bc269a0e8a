"""The outside-CPU reading against real processes: a spinner beside the tree, and inside it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from autotune.probe.machine import _procfs
from autotune.probe.machine._outside_cpu import OutsideCpu, machine_busy_s, tree_cpu_s
from tests.conftest import FAST, probe

# Spins one core; says so once it spins, then after each 0.5 s of its own CPU time.
SPIN = """
import time
print("spinning", flush=True)
mark = time.process_time()
while True:
    if time.process_time() - mark >= 0.5:
        print("burned", flush=True)
        mark = time.process_time()
"""
# Runs SPIN as its child: the spinner is inside this process's tree.
PARENT = f"""
import subprocess, sys
subprocess.run([sys.executable, "-c", {SPIN!r}])
"""
# A child that burns 0.3 s of CPU and is reaped; then the parent idles.
REAPER = """
import subprocess, sys
code = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.3: pass"
subprocess.run([sys.executable, "-c", code], check=True)
print("reaped", flush=True)
sys.stdin.read()
"""
# Stands for a probe's tree that does nothing.
IDLE = "import sys\nprint('up', flush=True)\nsys.stdin.read()"


@contextmanager
def started(code: str) -> Iterator[subprocess.Popen[str]]:
    """A Python process (and whatever it starts) in its own group, ended with the test."""
    with subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as proc:  # closes the pipes and reaps it on the way out
        try:
            yield proc
        finally:
            os.killpg(proc.pid, signal.SIGKILL)


def wait_for(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdout is not None
    got = proc.stdout.readline().strip()
    assert got == line, got


def test_the_machines_busy_time_is_read() -> None:
    first = machine_busy_s()
    assert first is not None and first > 0


def test_outside_cores_rise_while_another_process_spins() -> None:
    with started(IDLE) as tree, started(SPIN) as spinner:
        wait_for(tree, "up")
        wait_for(spinner, "spinning")
        outside = OutsideCpu(tree.pid)
        assert outside() is None  # the first call only marks
        wait_for(spinner, "burned")  # the spinner used 0.5 s of CPU since (or a little more)
        cores = outside()
    # Everything the machine did went on outside the idle tree: the spinner's core at least
    # (shared with whatever else runs here, which only adds to it).
    assert cores is not None and cores >= 0.5, cores


def test_a_spinner_inside_the_tree_is_the_trees_own_cpu() -> None:
    with started(PARENT) as parent:
        wait_for(parent, "spinning")  # the child's line, through the inherited pipe
        before = tree_cpu_s(parent.pid)
        wait_for(parent, "burned")
        wait_for(parent, "burned")
        grew = tree_cpu_s(parent.pid) - before
    assert grew >= 0.5, grew  # a second of the grandchild's CPU, less a tick or two


def test_a_reaped_childs_cpu_stays_in_the_tree() -> None:
    with started(REAPER) as parent:
        wait_for(parent, "reaped")
        own = _procfs.cpu_and_rss(parent.pid)
        tree = tree_cpu_s(parent.pid)
    assert own is not None
    assert tree - own[0] >= 0.28, (tree, own)  # the child's 0.3 s, in ticks


def test_a_probe_reads_interference_for_each_of_its_windows() -> None:
    res = probe("basic.py", settings=FAST, mode="baseline")
    assert res.ok, res.reason + res.stderr_tail
    assert len(res.interference_cores) == len(res.windows) > 0
    assert all(c >= 0 for c in res.interference_cores)
    if res.ceiling_windows:
        assert len(res.ceiling_interference_cores) == len(res.ceiling_windows)
