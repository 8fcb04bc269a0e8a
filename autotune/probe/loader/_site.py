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


# Library code that builds or drives loaders for the user, by module path, and the framework
# each means for the answer (the place the user edits). Found on the call stack at run time,
# never by what is imported: a script may import lightning and train with a plain loop, and
# monai imports accelerate through transformers.utils. Lightning's Trainer calls into
# lightning.fabric, so of several libraries on one stack the outermost (the one the script
# called) names the place.
_LIBRARIES = (
    ("lightning.pytorch", "lightning"),
    ("pytorch_lightning", "lightning"),
    ("lightning.fabric", "fabric"),
    ("lightning_fabric", "fabric"),
    ("transformers", "transformers"),
    ("accelerate", "accelerate"),
    ("skorch", "skorch"),
    ("mmengine", "mmengine"),
    ("fastai", "fastai"),
)

# Libraries whose answer names a loader the script built and gave them (Fabric's
# setup_dataloaders, Accelerate's prepare). Not the Lightning Trainer: a loader built by the
# script and given to ``trainer.fit(train_dataloaders=...)`` is edited at its own
# DataLoader(...) call (one built in a ``train_dataloader()`` hook has the Trainer on the
# stack when it is built, and is answered there).
_WRAPPERS = frozenset({"fabric", "transformers", "accelerate"})

# (framework, "Class.method" of the library code the script called), or None.
Evidence = tuple[str, str] | None


def _library(module: str) -> str | None:
    for prefix, framework in _LIBRARIES:
        if module == prefix or module.startswith(prefix + "."):
            return framework
    return None


def _owner(frame: Any) -> str:
    """``NeuralNetClassifier.fit``: the class of the frame's ``self`` (the user's own subclass
    where there is one, which is what they construct), else the function's qualified name."""
    code = frame.f_code
    this = frame.f_locals.get("self")
    if this is not None:
        return f"{type(this).__name__}.{code.co_name}"
    return str(getattr(code, "co_qualname", code.co_name))


def library_on_stack(depth: int = 1) -> Evidence:
    """The outermost library frame on the current call stack: who built or is iterating a
    loader (a stack walk, tens of frames: done once per loader built, once per choice)."""
    frame: Any = sys._getframe(depth)
    found: Any = None
    framework = ""
    while frame is not None:
        library = _library(_module(frame))
        if library is not None:
            found, framework = frame, library
        frame = frame.f_back
    return (framework, _owner(found)) if found is not None else None


def framework_of(loader: Any, built: Evidence, iterated: Evidence) -> Evidence:
    """Where the measured loader's settings are edited: the library that built it (skorch's
    get_iterator, MMEngine's Runner, the Trainers), else the one that iterated the loader the
    script built (Fabric's wrapper, Accelerate's), else its class's
    library (Accelerate's DataLoaderShard); None for a plain script."""
    if built is not None:
        return built
    # A loader the script built and handed to skorch, MMEngine's Runner or fastai's Learner is
    # edited at its own DataLoader(...) call: their forms are for loaders they build.
    if iterated is not None and iterated[0] in _WRAPPERS:
        return iterated
    cls = type(loader)
    library = _library(cls.__module__)
    return (library, cls.__name__) if library is not None else None


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
