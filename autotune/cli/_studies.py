"""``autotune studies``, ``show`` and ``best``: read what was measured."""

from __future__ import annotations

import sys
from enum import Enum

import typer
from rich.table import Table

from autotune._words import visible
from autotune.cli import _segments as segments
from autotune.cli._common import (
    STORAGE_HELP,
    STUDY_ARGUMENT,
    STUDY_OPTION,
    literal,
    out,
    print_json,
    say,
    storage,
    study,
    study_name,
)
from autotune.cli._progress import describe_config
from autotune.cli._render import render_summary


class Format(str, Enum):
    table = "table"
    json = "json"
    python = "python"


def studies(
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the studies in the storage."""
    import optuna

    from autotune.store import safe_url
    from autotune.tuner import summarize

    store, url = storage(storage_opt, create=False)
    rows = []
    for s in optuna.get_all_study_summaries(store, include_best_trial=False):
        loaded = optuna.load_study(study_name=s.study_name, storage=store)
        rows.append(summarize(loaded, safe_url(url)).to_dict())
    if as_json:
        print_json(
            [
                {k: r[k] for k in ("study", "script", "speedup", "trials", "recommended")}
                for r in rows
            ]
        )
        return
    table = Table()
    for col in ("study", "script", "trials", "best samples/s", "speedup"):
        table.add_column(col)
    for r in rows:
        rec = r["recommended"]
        table.add_row(
            literal(r["study"]),
            literal(r["script"]),
            str(sum(r["trials"].values())),
            f"{rec['samples_per_s']:,.0f}" if rec and rec["samples_per_s"] else "-",
            f"{r['speedup']:.2f}x" if r["speedup"] else "-",
        )
    out.print(table if rows else say("no studies in ", literal(safe_url(url))))


def show(
    name: str | None = STUDY_ARGUMENT,
    study_opt: str | None = STUDY_OPTION,
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
) -> None:
    """Every trial of a study, with failure reasons; a live run's segments over time, each
    reopened search marked."""
    from autotune import state
    from autotune.tuner import LIVE_ROLES

    name = study_name(name, study_opt)
    loaded, _url = study(name, storage_opt)
    trials = loaded.get_trials(deepcopy=False)
    records = [state.record_of(t) for t in trials]
    live = any(r.role in LIVE_ROLES for r in records)
    starts = [t.datetime_start for t in trials if t.datetime_start is not None]
    first = min(starts) if starts else None
    table = Table(title=say("study ", literal(name)), title_justify="left")
    columns = ("#", "role", "state", "settings", "samples/s", "wait", "reason")
    for col in columns[:3] + (("started",) if live else ()) + columns[3:]:
        table.add_column(col)
    previous: str | None = None
    for t, record in zip(trials, records, strict=True):
        wait = record.data_wait_fraction
        same = record.duplicate_of
        why = segments.reopening(record.role, record.reason)
        starts_reopening = why is not None and why != previous
        previous = why
        if starts_reopening:
            table.add_section()  # a reopened search stands apart from what ran before it
        figure = state.rate_of(t)
        rate = f"{figure:,.0f}" if figure is not None else "-"
        per_rank = segments.rank_rates(record.result)
        table.add_row(
            str(t.number),
            segments.role_cell(record.role, starts_reopening) if record.measured else "",
            t.state.name.lower(),
            *((segments.started_cell(t.datetime_start, first),) if live else ()),
            literal(describe_config(record.config)),
            f"{rate} ({per_rank})" if per_rank else rate,
            f"{wait:.0%}" if wait is not None else "-",
            literal(record.reason or (f"same settings as #{same}" if same is not None else "")),
        )
    out.print(table)
    others = state.load(loaded).others
    passes = segments.passes_table(others)
    if passes is not None:
        out.print(passes)


def best(
    name: str | None = STUDY_ARGUMENT,
    study_opt: str | None = STUDY_OPTION,
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    fmt: Format = typer.Option(Format.table, "--format", help="table, json or python."),
) -> None:
    """The recommended settings of a study."""
    from autotune.store import safe_url
    from autotune.tuner import summarize

    loaded, url = study(study_name(name, study_opt), storage_opt)
    answer = summarize(loaded, safe_url(url))
    if as_json or fmt == Format.json:
        print_json(answer.to_dict())
    elif fmt == Format.python:
        # Code to paste or redirect: lines kept, and nothing a terminal would act on.
        sys.stdout.write(visible(answer.snippet(), lines=True) + "\n")
    else:
        render_summary(out, answer)
