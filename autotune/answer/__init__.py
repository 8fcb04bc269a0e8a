"""The study's answer, typed: what a search recommends and why, as every face shows it (the
terminal, JSON, the API, the dashboard), and the snippet it gives to paste."""

from autotune.answer._answer import (
    UNTUNED_SHARE,
    Answer,
    Baseline,
    Bottleneck,
    Counts,
    Diagnosis,
    Epoch,
    EpochPass,
    Failure,
    LivePass,
    OtherLoaders,
    PassTry,
    Recommended,
)

__all__ = [
    "UNTUNED_SHARE",
    "Answer",
    "Baseline",
    "Bottleneck",
    "Counts",
    "Diagnosis",
    "Epoch",
    "EpochPass",
    "Failure",
    "LivePass",
    "OtherLoaders",
    "PassTry",
    "Recommended",
]
