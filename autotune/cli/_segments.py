"""How ``autotune show`` writes a live run's segments (``autotune run --adapt``): when each
started, each rank's rate, and where the search reopened, so the run reads over time."""

from __future__ import annotations

from datetime import datetime

from rich.table import Table
from rich.text import Text

from autotune.answer import OtherLoaders
from autotune.cli._common import literal
from autotune.contract import ProbeResult

# The first clause of a reopened segment's reason is the run's figures that reopened the
# search ("reopened: the data wait rose ..."); what follows "; " is the segment's own.
_OWN_REASON = "; "
MARK = "↻ "


def reopening(role: str, reason: str | None) -> str | None:
    """What reopened the search a segment belongs to; None outside a reopened search."""
    from autotune.tuner import REOPENED

    if role != REOPENED:
        return None
    return (reason or "").split(_OWN_REASON, 1)[0]


def role_cell(role: str, starts_reopening: bool) -> Text:
    """The role, literally; the first segment of each reopened search marked where it starts."""
    cell = literal(role)
    if starts_reopening:
        cell = Text(MARK, style="bold yellow") + cell
        cell.stylize("bold yellow")
    return cell


def started_cell(start: datetime | None, first: datetime | None) -> str:
    """Seconds since the run's first segment started."""
    if start is None or first is None:
        return "-"
    return f"+{(start - first).total_seconds():,.1f}s"


def rank_rates(result: ProbeResult | None) -> str:
    """Each rank's own samples/s, rank 0 first ("" for a single process): the job's rate is
    the slowest rank's times the ranks, so a lagging rank shows here."""
    rates = [r.samples_per_s for r in (result.ranks or [] if result is not None else [])]
    if len(rates) < 2:
        return ""
    return "ranks " + ", ".join(f"{r:,.0f}" if r is not None else "-" for r in rates)


def passes_table(others: OtherLoaders | None) -> Table | None:
    """The live run's passes of its other loaders (evaluation, validation), in order: each
    one's settings and seconds, and a setting that failed in one (the pass went on with the
    script's own). None when the run saw none."""
    if others is None or not others.passes:
        return None
    table = Table(title="other loaders' passes", title_justify="left")
    for col in ("loader", "ended", "workers", "seconds", "note"):
        table.add_column(col)
    for p in others.passes:
        persistent = ", persistent" if p.persistent_workers else ""
        note = p.abandoned or ("iterable: never changed" if p.iterable else "")
        table.add_row(
            literal(p.loader),
            f"+{p.at_s:,.1f}s",
            f"{p.num_workers}{persistent}",
            f"{p.seconds:.2f}",
            literal(note),
        )
    return table
