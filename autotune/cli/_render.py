"""Terminal rendering of a study's answer: settings side by side, failures, the snippet."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from autotune.answer import Answer
from autotune.contract import LOADER_KEYS


def _fmt(value: Any) -> str:
    return "-" if value is None else str(value)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def render_summary(console: Console, answer: Answer) -> None:
    summary = answer.to_dict()
    rec, base = summary.get("recommended"), summary.get("baseline")
    ranks = int(summary.get("nproc_per_node") or 1)
    title = f"study {summary['study']}" + (
        f" (settings per rank, {ranks} ranks)" if ranks > 1 else ""
    )
    table = Table(title=title, title_justify="left")
    table.add_column("setting")
    table.add_column("as written", justify="right")
    table.add_column("recommended", justify="right", style="bold green")
    for key in LOADER_KEYS:
        table.add_row(
            key, _fmt(base and base["config"].get(key)), _fmt(rec and rec["config"].get(key))
        )
    ci = rec.get("ci95") if rec else None
    rec_rate = _rate(rec and rec["samples_per_s"])
    if ci:
        rec_rate += f" [{ci[0]:,.0f}-{ci[1]:,.0f}]"
    rate_label = "samples/s (job)" if ranks > 1 else "samples/s"
    table.add_row(rate_label, _rate(base and base["samples_per_s"]), rec_rate, end_section=True)
    console.print(table)
    lines = []
    loader = summary.get("measured_loader")
    if loader:
        framework = f" ({loader['framework']})" if loader.get("framework") else ""
        lines.append(
            f"measured loader: {loader.get('dataset')}, batch size "
            f"{_fmt(loader.get('batch_size'))}{framework}"
        )
    if summary.get("speedup"):
        lines.append(f"speedup over the script as written: [bold]{summary['speedup']:.2f}x[/]")
    ceilings = []
    if summary.get("ceiling_samples_per_s"):
        ceilings.append(f"compute {summary['ceiling_samples_per_s']:,.0f}")
    if summary.get("transport_ceiling_samples_per_s"):
        ceilings.append(f"transport {summary['transport_ceiling_samples_per_s']:,.0f}")
    if ceilings:
        eff, binding = summary.get("efficiency"), summary.get("binding_ceiling")
        lines.append(
            f"ceilings (samples/s): {', '.join(ceilings)}"
            + (f"; efficiency {eff:.0%} of the {binding} ceiling" if eff and binding else "")
        )
    for which, why in (summary.get("ceiling_missing") or {}).items():
        lines.append(f"no {which} ceiling: {why}")
    if summary.get("verdict"):
        lines.append(f"verdict: {summary['verdict']}")
    if summary.get("diagnosis"):
        lines.append(f"diagnosis: {summary['diagnosis']['summary']}")
    interference = summary.get("interference")
    if interference and interference.get("disturbed_windows"):
        lines.append(f"[yellow]interference:[/] {interference['summary']}")
    if summary.get("stop_reason"):
        lines.append(f"stopped: {summary['stop_reason']}")
    counts = summary["trials"]
    lines.append(
        f"trials: {counts['complete']} complete, {counts['failed']} failed, "
        f"{counts['pruned']} pruned; {summary['probe_seconds']:.0f}s of probing"
    )
    for line in lines:
        console.print(line, soft_wrap=True)
    if summary.get("failures"):
        failed = Table(title="failed trials", title_justify="left")
        failed.add_column("trial", justify="right")
        failed.add_column("status")
        failed.add_column("settings")
        failed.add_column("reason")
        for f in summary["failures"]:
            cfg = f.get("config") or {}
            settings = ", ".join(f"{k}={v}" for k, v in cfg.items() if v is not None)
            failed.add_row(str(f["trial"]), str(f["status"]), settings, str(f["reason"]))
        console.print(failed)
    console.print(answer.snippet(), soft_wrap=True, markup=False, highlight=False)
