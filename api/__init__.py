"""The HTTP service: recommended DataLoader settings and every measurement behind them."""

from .main import create_app

__all__ = ["create_app"]
