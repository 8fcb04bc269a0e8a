"""The zygote's preload: what it refuses to fork from (``autotune/probe/_zygote.py``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autotune.probe._zygote import _imports, _preload


@pytest.fixture
def on_path(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("starts_a_thread", "quiet_library"):
            sys.modules.pop(name, None)


def test_a_library_that_starts_a_python_thread_taints_the_zygote(on_path: Path) -> None:
    (on_path / "starts_a_thread.py").write_text(
        "import threading\nSTOP = threading.Event()\n"
        "threading.Thread(target=STOP.wait, daemon=True).start()\n"
    )
    try:
        assert _preload(["starts_a_thread"]) == "a preloaded library started a Python thread"
    finally:
        sys.modules["starts_a_thread"].STOP.set()


def test_a_quiet_library_is_imported_and_a_missing_one_skipped(on_path: Path) -> None:
    (on_path / "quiet_library.py").write_text("print('at import')\nVALUE = 1\n")
    # Not the process's thread count: a test worker's own threads come and go meanwhile.
    assert _preload(["no_such_module_here", "quiet_library"]) is None
    assert sys.modules["quiet_library"].VALUE == 1


def test_only_modules_from_site_packages_count_as_the_script_s_libraries(on_path: Path) -> None:
    before = set(sys.modules) - {"yaml", "quiet_library"}
    (on_path / "quiet_library.py").write_text("VALUE = 1\n")
    import quiet_library  # noqa: F401
    import yaml  # noqa: F401

    names = _imports(before)
    assert "yaml" in names and "quiet_library" not in names
