"""The probe: runs inside the user's process and measures its DataLoader.

Imports only the standard library, torch, and optionally nvtx, psutil and pynvml; never the
tuner's packages, which would slow the script and change what is measured.
"""

from autotune.probe.loader import apply_config, script_config
from autotune.probe.measure import ProbeDone
from autotune.probe.session import main

__all__ = ["ProbeDone", "apply_config", "main", "script_config"]
