"""autotune: measures the DataLoader settings that keep your GPU fed."""

__version__ = "0.1.0"

__all__ = ["__version__"]
