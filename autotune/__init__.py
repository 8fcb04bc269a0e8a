"""autotune: measures the DataLoader settings that keep your GPU fed."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "recommended"]


def __getattr__(name: str) -> Any:
    # Lazy: the probe imports this package inside the user's process, and must stay light.
    if name == "recommended":
        from autotune._recommended import recommended

        return recommended
    raise AttributeError(f"module 'autotune' has no attribute {name!r}")
