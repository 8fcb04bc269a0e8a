"""One probe from start to end: its phases, the result it writes, the progress file, a script
with no loader noticed, the script's failure in its own terms, and the live run's segments."""

from autotune.probe.session._session import main

__all__ = [
    "main",
]
