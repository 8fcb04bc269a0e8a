"""The probe's DataLoader workers keep their temporary files in one directory the runner
removes (``TrialConfig.workers_tmp``).

A worker that hands over a batch by file descriptor (torch's default on Linux) serves it from
a socket in multiprocessing's temporary directory, which each process makes on first use and
removes when it exits. The probe's process had none when its workers forked, so each made its
own; the runner ends a probe's tree at once when its result is final, and the workers it killed
left theirs behind: 74 directories in the temporary folder after a 3-trial search of
examples/io_bound.py. Set before the script runs, the directory is the one every worker forked
after it inherits. Workers of a "spawn" or "forkserver" context start from a fresh interpreter
and still make their own.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable

# The key multiprocessing.util.get_temp_dir reads and fills in the process's config (CPython
# 3.4 to 3.14): no public way names the directory before it is made.
_KEY = "tempdir"


def use_workers_tmp(path: str) -> Callable[[], None]:
    """Workers forked from now on keep their temporary files in ``path`` (nothing where
    ``path`` is empty); returns what puts the process's own setting back."""
    config = getattr(multiprocessing.current_process(), "_config", None)
    if not path or not isinstance(config, dict):
        return lambda: None
    missing = object()
    before = config.get(_KEY, missing)
    config[_KEY] = path

    def restore() -> None:
        if before is missing:
            config.pop(_KEY, None)
        else:
            config[_KEY] = before

    return restore
