"""How a probe's script ended, in a status and the user's own terms (its exception, its exit)."""

from __future__ import annotations

from autotune._words import Caught, caught_elsewhere, clip, first_line, storable
from autotune.contract import STREAMS_CPU_WORK, TOO_FEW_SHARDS, Status

# What torch says when a script does CPU work on a batch that is already on the GPU.
_CPU_WORK_SIGNS = (
    "can't convert cuda",
    "cannot convert a cuda",
    "expected all tensors to be on the same device",
    "expected object of device type cpu",
    "expected a 'cpu' device type",
)

# What a library says when one of the DataLoader's workers got no shard (WebDataset's
# empty check), lower case.
_SHARD_SIGNS = ("fewer shards than workers", "more workers than shards")


def is_oom(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    name = type(exc).__name__
    text = str(exc).lower()
    return name == "OutOfMemoryError" or "out of memory" in text or "alloc_failed" in text


def is_cuda_oom(exc: BaseException) -> bool:
    text = f"{type(exc).__module__} {exc}".lower()
    return "cuda" in text or "cublas" in text or "cudnn" in text


def cpu_work_on_batch(exc: BaseException) -> bool:
    """The script treated a prefetched (GPU) batch as a CPU one."""
    if not isinstance(exc, (TypeError, RuntimeError, ValueError)):
        return False
    text = str(exc).lower()
    return any(sign in text for sign in _CPU_WORK_SIGNS)


def short(exc: BaseException, limit: int = 300) -> str:
    """``Type: first line of the message``, or the type alone when there is no message; at
    most ``limit`` characters, safe to store.

    An error torch re-raised from a DataLoader worker (or its pin-memory thread) is the
    worker's own: its type and message, and where it was raised, "ValueError: corrupt
    sample 3 (in DataLoader worker process 0)". torch's own line, "Caught ValueError in
    DataLoader worker process 0.", says where but not what.
    """
    caught = _caught(exc)
    if caught is not None:
        where = f" ({caught.where})"
        line = next((ln.strip() for ln in caught.message.splitlines() if ln.strip()), "")
        text = f"{caught.kind}: {line}" if line else caught.kind
        return storable(clip(text, max(1, limit - len(where))) + where)
    name, line = type(exc).__name__, first_line(exc, limit=limit)
    return storable(name if line == name else clip(f"{name}: {line}", limit))


def _caught(exc: BaseException) -> Caught | None:
    try:
        return caught_elsewhere(exc)
    except Exception:  # how the error is quoted must never replace the error
        return None


def from_exception(exc: BaseException, streams_applied: int) -> tuple[Status, str]:
    """The status and reason of a script that raised ``exc``."""
    if not is_oom(exc):
        if streams_applied and cpu_work_on_batch(exc):
            # Stream prefetch hands the script batches already on the GPU; a script that
            # computes on them with CPU code cannot use it. Say so rather than "crashed".
            return "crashed", (
                f"{STREAMS_CPU_WORK} (num_streams={streams_applied} puts them on the "
                f"GPU before the script sees them): {short(exc)}"
            )
        if any(sign in str(exc).lower() for sign in _SHARD_SIGNS):
            return "crashed", f"{TOO_FEW_SHARDS}: {short(exc)}"
        return "crashed", short(exc)
    if is_cuda_oom(exc):
        return "oom", f"CUDA out of memory on the GPU: {short(exc)}"
    return "oom", short(exc)


def from_exit(code: object) -> tuple[int, Status, str]:
    """The exit code, status and reason of a script that raised SystemExit(code).

    sys.exit("message") or a failing exit code means the script failed, whether or not it
    reached a DataLoader; its own words are the reason."""
    exit_code = code if isinstance(code, int) else (0 if code is None else 1)
    if exit_code == 0:
        return 0, "ok", ""
    return (
        exit_code,
        "crashed",
        (
            storable(str(code))
            if not isinstance(code, int)
            else f"the script exited with code {code}"
        ),
    )


def without_result(
    *, loaders_built: int, loaders_iterated: int, batches: int, windows: int, windows_done: int
) -> tuple[Status, str]:
    """Why a script that ended cleanly left no measurement."""
    if loaders_iterated == 0:
        return "no_dataloader", (
            "the script never iterated a torch DataLoader"
            if loaders_built == 0
            else "the script built a DataLoader but never iterated it"
        )
    return "ended_early", (
        f"the script ended after {batches} batches, before {windows} measurement windows "
        f"were complete ({windows_done} done); figures cover what there was"
    )
