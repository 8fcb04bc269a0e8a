"""Shared test helpers: real probes of the scripts in tests/scripts, kept short."""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from autotune.contract import LoaderConfig, ProbeResult, ProbeSettings, TrialConfig
from autotune.runner import SubprocessRunner, Target
from tests.turns import turn

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).resolve().parent / "scripts"
EXAMPLES = ROOT / "examples"
FAST = ProbeSettings(
    warmup_batches=3, warmup_s=0.2, window_s=0.25, windows=3, sample_interval_s=0.05
)
MARK_ENV = "AUTOTUNE_TEST_MARK"


def as_foreground() -> None:
    """Popen's ``preexec_fn`` for a command a test sends Ctrl-C to: SIGINT's default, as a
    terminal gives a foreground job. A non-interactive shell starts its background jobs with
    SIGINT ignored (CI under `nohup ... &`), and a Python started so never raises
    KeyboardInterrupt: a test would then wait on a Ctrl-C that could never land."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def marked_processes(mark: str) -> list[psutil.Process]:
    """Live processes (a probe or its DataLoader workers) that inherited ``mark``."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(MARK_ENV) == mark and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    return found


def assert_no_orphans(mark: str, wait_s: float = 3.0) -> None:
    deadline = time.monotonic() + wait_s
    while (left := marked_processes(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes outlived their trial: {[p.pid for p in left]}"


def probe(
    script: str,
    *args: str,
    loader: LoaderConfig | None = None,
    settings: ProbeSettings = FAST,
    timeout_s: float = 60,
    mode: str = "measure",
    env: dict[str, str] | None = None,
) -> ProbeResult:
    """One real probe in a subprocess (``env``: variables it gets beside the runner's own);
    asserts no process of it survives."""
    mark = uuid.uuid4().hex
    path = script if Path(script).is_absolute() else str(SCRIPTS / script)
    target = Target(path, tuple(args), env={**(env or {}), MARK_ENV: mark})
    config = TrialConfig(loader=loader or LoaderConfig(), settings=settings, mode=mode)  # type: ignore[arg-type]
    result = SubprocessRunner().run(target, config, timeout_s=timeout_s)
    assert_no_orphans(mark)
    return result


def every_window(res: ProbeResult, settings: ProbeSettings = FAST) -> bool:
    """Whether ``res`` holds every window its probe planned: as many as ``settings`` ask, or,
    where it switched to whole epochs, as many as fit the span (``whole_epoch_windows``)."""
    if res.epoch_windows:
        return 2 <= len(res.windows) <= settings.windows
    return len(res.windows) == settings.windows


def _alone(item: pytest.Item | None) -> bool:
    return item is not None and item.get_closest_marker("alone") is not None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The alone tests first, in a row (``tests/turns.py``); the rest in their own order."""
    items.sort(key=lambda item: not _alone(item))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Side by side with other tests, unless marked ``alone`` (``tests/turns.py``): setup,
    call and teardown all inside the turn."""
    alone = _alone(item)
    with turn(alone, keep=alone and _alone(nextitem)):
        yield


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    return f"sqlite:///{tmp_path / 'autotune.db'}"


def only_study_name(url: str) -> str:
    """The name of the one study a storage holds (after a real probe into a fresh one)."""
    import optuna

    storage = optuna.storages.RDBStorage(url)
    try:
        (summary,) = optuna.get_all_study_summaries(storage)
    finally:
        storage.remove_session()
        storage.engine.dispose()
    return summary.study_name


def cpu_cgroup_root() -> Path | None:
    """Where a child cgroup with a CPU quota can be made (root, v1 cpu or v2), or None."""
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        head, _, tail = line.partition(" - ")
        fields, extra = head.split(), tail.split()
        if len(extra) >= 3 and extra[0] == "cgroup" and "cpu" in extra[2].split(","):
            return Path(fields[4])
        if (
            extra
            and extra[0] == "cgroup2"
            and "cpu"
            in (
                Path(fields[4], "cgroup.subtree_control").read_text()
                if Path(fields[4], "cgroup.subtree_control").exists()
                else ""
            )
        ):
            return Path(fields[4])
    return None


@pytest.fixture
def one_core_cgroup() -> Iterator[Path]:
    mount = cpu_cgroup_root()
    if mount is None or not os.access(mount, os.W_OK):
        pytest.skip("no writable cgroup with the cpu controller here (needs root)")
    group = mount / f"autotune-test-{os.getpid()}"
    group.mkdir()
    try:
        if (group / "cpu.max").exists():
            (group / "cpu.max").write_text("100000 100000\n")
        else:
            (group / "cpu.cfs_period_us").write_text("100000\n")
            (group / "cpu.cfs_quota_us").write_text("100000\n")
        yield group
    finally:
        group.rmdir()  # its only process has exited
