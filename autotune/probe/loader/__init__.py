"""The script's loaders: found as the script builds and iterates them, the measured one
chosen, settings applied or switched in place, batches copied ahead on side streams."""

from autotune.probe.loader._apply import apply_config, original, script_config
from autotune.probe.loader._audition import Delivery
from autotune.probe.loader._classes import map_style
from autotune.probe.loader._global_draws import GlobalDraws
from autotune.probe.loader._iterators import (
    EndedIterator,
    ReplayIterator,
    TimedIterator,
    epoch_length,
)
from autotune.probe.loader._marks import site_of
from autotune.probe.loader._passes import PassIterator, timed_pass
from autotune.probe.loader._patch import LoaderPatch
from autotune.probe.loader._reconfigure import SettingsRefused
from autotune.probe.loader._shards import IdleWatch, shards_of
from autotune.probe.loader._standin import ForeignLoader
from autotune.probe.loader._streams import CopyStats, StreamPrefetcher, make_streams
from autotune.probe.loader._switch import (
    Settings,
    SwitchableLoader,
    normalized,
)
from autotune.probe.loader._waiting import waiting_reader

__all__ = [
    "CopyStats",
    "Delivery",
    "EndedIterator",
    "ForeignLoader",
    "GlobalDraws",
    "IdleWatch",
    "LoaderPatch",
    "PassIterator",
    "ReplayIterator",
    "Settings",
    "SettingsRefused",
    "StreamPrefetcher",
    "SwitchableLoader",
    "TimedIterator",
    "apply_config",
    "epoch_length",
    "make_streams",
    "map_style",
    "normalized",
    "original",
    "script_config",
    "shards_of",
    "site_of",
    "timed_pass",
    "waiting_reader",
]
