"""Where a loader was built and where it is iterated: the script's own line or a framework's
code, training or a framework's evaluation."""

from __future__ import annotations

import sys
from typing import Any

# Packages whose code builds loaders for the user: a line in them is not "the user's line".
_FRAMEWORKS = ("torch", "lightning", "pytorch_lightning", "accelerate", "transformers")
# autotune's own frames between a loader's __init__ and the script's line.
_OWN_MODULES = ("autotune.probe.loader._patch", __name__)
# Where frameworks iterate loaders that are not the training loader.
_EVAL_MODULES = (
    "lightning.pytorch.loops.evaluation_loop",
    "lightning.pytorch.loops.prediction_loop",
    "pytorch_lightning.loops.evaluation_loop",
    "pytorch_lightning.loops.prediction_loop",
)
_EVAL_FUNCTIONS = {
    "transformers.trainer": frozenset({"evaluate", "evaluation_loop", "predict", "prediction_loop"})
}


def detect_framework(loader: Any = None) -> str | None:
    """The training framework the script uses: by the modules it imported for Lightning
    and the Trainer, by the measured loader's own class for Accelerate (other libraries
    import accelerate without the script using it: monai through transformers.utils)."""
    modules = sys.modules
    if "lightning.pytorch" in modules or "pytorch_lightning" in modules:
        return "lightning"
    if "transformers.trainer" in modules:
        return "transformers"
    module = type(loader).__module__ if loader is not None else ""
    if module.split(".", 1)[0] == "accelerate":
        return "accelerate"
    return None


def _module(frame: Any) -> str:
    return str(frame.f_globals.get("__name__") or "")


def _in_framework(module: str) -> bool:
    return module.split(".", 1)[0] in _FRAMEWORKS


def call_site(loader: Any) -> tuple[str, int] | None:
    """The line that built ``loader``; None when a framework's code built it."""
    frame: Any = sys._getframe(1)
    # Step out of this module and of DataLoader subclasses' __init__ chains to the script.
    while frame is not None and (
        frame.f_globals.get("__name__") in _OWN_MODULES
        or (frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is loader)
    ):
        frame = frame.f_back
    if frame is None or _in_framework(_module(frame)):
        return None
    return frame.f_code.co_filename, frame.f_lineno


def in_framework_eval() -> bool:
    """Is the current iteration inside a framework's evaluation or prediction code?"""
    if not any(name in sys.modules for name in ("lightning", "pytorch_lightning", "transformers")):
        return False
    frame: Any = sys._getframe(2)
    while frame is not None:
        module = _module(frame)
        if module in _EVAL_MODULES:
            return True
        names = _EVAL_FUNCTIONS.get(module)
        if names is not None and frame.f_code.co_name in names:
            return True
        frame = frame.f_back
    return False
