"""The command line: probe, run, studies, show, best."""

from autotune.cli._app import STACKS_ENV, app, main

__all__ = ["STACKS_ENV", "app", "main"]
