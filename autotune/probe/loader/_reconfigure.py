"""A trial's settings written onto the loaders the patch changes: the candidate training
loader (the trial's own settings, the script's kept to give back) and, once it is chosen,
the other map-style loaders (the settings asked for them)."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from torch.utils.data import IterableDataset

from autotune.contract import LoaderConfig
from autotune.probe.loader._apply import apply_config, settings_of, write_settings
from autotune.probe.loader._marks import APPLIED_ATTR, NOT_APPLIED_ATTR, OTHERS_ATTR


class SettingsRefused(BaseException):
    """autotune could not apply the trial's settings to the script's loader.

    A ``BaseException`` so that the script's ``except Exception:`` does not take it for its
    own failure; the probe reports it as ``not_applied``, never as the script crashing."""


def reconfigure(loader: Any, config: LoaderConfig) -> None:
    """``config`` written onto a candidate training loader; what could not be applied safely
    is noted on it (``NOT_APPLIED_ATTR``)."""
    arguments = settings_of(loader)
    new = apply_config(arguments, config)
    # The script's own settings, to give back if this loader is not the one measured.
    loader.__dict__[APPLIED_ATTR] = arguments
    refused = ""
    if new != arguments:
        try:
            _, refused = write_settings(loader, new)
        except Exception as exc:
            raise SettingsRefused(
                f"autotune could not apply {config} to {type(loader).__name__}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
    size = config.batch_size
    if size is not None and arguments.get("batch_sampler") is not None:
        sampler = type(arguments["batch_sampler"]).__name__
        refused = (
            f"batch_size={size} not applied: {type(loader).__name__} takes its batches "
            f"from its own batch sampler ({sampler}); the script's batches were kept"
        )
    if refused:
        loader.__dict__[NOT_APPLIED_ATTR] = refused


def give_others(loader: Any, others: LoaderConfig, *, iterable: bool = False) -> None:
    """Another loader's first iteration after the choice: ``others`` written onto it where
    that cannot change what it yields or in which order. A map-style loader's order is its
    sampler's, whatever its workers; an IterableDataset's is not (each worker runs the whole
    iterable unless it splits its stream), so it is changed only with ``iterable``: in a
    probe's own process, or where a study saw the same batches a pass. A loader auditioned
    before the choice already had the trial's settings given back. Worker settings only: its
    batches stay the script's."""
    loader.__dict__[OTHERS_ATTR] = True
    dataset = getattr(loader, "dataset", None)
    if dataset is None or (isinstance(dataset, IterableDataset) and not iterable):
        return
    if APPLIED_ATTR in loader.__dict__:
        return
    arguments = settings_of(loader)
    new = apply_config(arguments, replace(others, batch_size=None, num_streams=None))
    if new != arguments:
        # A loader that refuses them keeps its own: the script's pass goes on as written.
        with contextlib.suppress(Exception):
            write_settings(loader, new)
