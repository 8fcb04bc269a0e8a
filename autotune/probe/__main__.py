import os
import sys

from autotune.contract import RUNNER_PID_ENV


def _die_with_runner() -> None:
    # The runner starts each probe as a session leader; should the runner be SIGKILLed, the
    # kernel ends this process at once. Only this one: the signal is cleared by fork, so the
    # DataLoader workers never have it, and those the runner's watcher ends
    # (autotune/runner/_lifecycle.py). A live run is not a session leader: it outlives the
    # runner, as the user's training must.
    if os.getsid(0) != os.getpid() or not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    # The runner died before prctl took effect: this process has a new parent. Not "the
    # parent is PID 1": in a container the runner itself is PID 1 (`autotune join` as the
    # container's command), and every probe would kill itself as it starts.
    runner = os.environ.get(RUNNER_PID_ENV, "")
    if runner.isdigit() and os.getppid() != int(runner):
        os._exit(137)


_die_with_runner()

from autotune.probe import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
