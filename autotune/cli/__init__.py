"""The command line: probe, run, studies, show, best."""

from autotune.cli._app import app, main

__all__ = ["app", "main"]
