"""The loop that runs a search: opening the study, the tuner, joining processes that share it,
the live run's search, and what the loop is asked and reports."""

from autotune.tuner.loop import _live_search, _reopen
from autotune.tuner.loop._join import load_options, save_options, work
from autotune.tuner.loop._live_others import LiveOthers
from autotune.tuner.loop._live_search import Adapted, adapt
from autotune.tuner.loop._open import (
    Opened,
    StudyError,
    StudyKey,
    check_hardware,
    load_study,
    open_study,
    open_study_for_rerun,
)
from autotune.tuner.loop._options import Outcome, TunerOptions
from autotune.tuner.loop._reopen import stay_tuned
from autotune.tuner.loop._report import NullReporter, Reporter
from autotune.tuner.loop._tuner import Tuner

REOPENED = _reopen.ROLE
# The roles of a live run's segments (`autotune run --adapt`): a study with any is a run's.
LIVE_ROLES = frozenset({_live_search.ROLE, _reopen.ROLE})

__all__ = [
    "LIVE_ROLES",
    "REOPENED",
    "Adapted",
    "LiveOthers",
    "NullReporter",
    "Opened",
    "Outcome",
    "Reporter",
    "StudyError",
    "StudyKey",
    "Tuner",
    "TunerOptions",
    "adapt",
    "check_hardware",
    "load_options",
    "load_study",
    "open_study",
    "open_study_for_rerun",
    "save_options",
    "stay_tuned",
    "work",
]
