"""Terminal rendering of a study's answer: settings side by side, failures, the snippet.

Every value that comes from a script (names, paths, reasons, class names) is shown through
``literal``: as it is, never read as markup.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from autotune._words import visible
from autotune.answer import Answer
from autotune.cli._common import literal, say
from autotune.contract import LOADER_KEYS, NUM_WORKERS


def _fmt(value: Any) -> Text:
    return Text("-") if value is None else literal(value)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def render_summary(console: Console, answer: Answer) -> None:
    summary = answer.to_dict()
    rec, base = summary.get("recommended"), summary.get("baseline")
    ranks = int(summary.get("nproc_per_node") or 1)
    title = say("study ", literal(summary["study"])) + (
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
    rec_rate = Text(_rate(rec and rec["samples_per_s"]))
    if ci:
        rec_rate.append(f" [{ci[0]:,.0f}-{ci[1]:,.0f}]")
    rate_label = "samples/s (job)" if ranks > 1 else "samples/s"
    table.add_row(rate_label, _rate(base and base["samples_per_s"]), rec_rate, end_section=True)
    console.print(table)
    lines: list[Text] = []
    loader = answer.measured_loader
    if loader:
        framework = say(" (", literal(loader.framework), ")") if loader.framework else ""
        lines.append(
            say(
                "measured loader: ",
                literal(loader.dataset),
                ", batch size ",
                _fmt(loader.batch_size),
                framework,
            )
        )
    if summary.get("speedup"):
        lines.append(
            say("speedup over the script as written: ", (f"{summary['speedup']:.2f}x", "bold"))
        )
    lines += _epoch_lines(summary.get("epoch"))
    lines += _others_lines(summary.get("others"))
    ceilings = []
    if summary.get("ceiling_samples_per_s"):
        ceilings.append(f"compute {summary['ceiling_samples_per_s']:,.0f}")
    if summary.get("transport_ceiling_samples_per_s"):
        ceilings.append(f"transport {summary['transport_ceiling_samples_per_s']:,.0f}")
    if ceilings:
        eff, binding = summary.get("efficiency"), summary.get("binding_ceiling")
        lines.append(
            say(
                f"ceilings (samples/s): {', '.join(ceilings)}",
                say(
                    "; the pick runs at ",
                    f"{eff:.0%}",
                    " of the ",
                    literal(binding),
                    " ceiling, the most with samples that cost nothing to load",
                )
                if eff and binding
                else "",
            )
        )
    # Verdicts, diagnoses and stop reasons quote the script's own errors and names.
    for which, why in (summary.get("ceiling_missing") or {}).items():
        lines.append(say("no ", literal(which), " ceiling: ", literal(why)))
    if summary.get("verdict"):
        lines.append(say("verdict: ", literal(summary["verdict"])))
    if summary.get("diagnosis"):
        lines.append(say("diagnosis: ", literal(summary["diagnosis"]["summary"])))
    interference = summary.get("interference")
    if interference and interference.get("disturbed_windows"):
        lines.append(say(("interference:", "yellow"), " ", literal(interference["summary"])))
        condition = interference.get("condition") or {}
        if condition.get("kind") in ("loaded", "changing"):
            # The condition the answer holds for: a quiet machine may give other figures.
            lines.append(say("measured ", literal(condition.get("text", ""))))
    if interference and interference.get("comparison"):
        lines.append(
            say(("no speedup stated:", "yellow"), " ", literal(interference["comparison"]))
        )
    if summary.get("choice"):
        lines.append(say("choice: ", literal(summary["choice"])))
    if summary.get("cores"):
        lines.append(say("cores: ", literal(summary["cores"])))
    if summary.get("started_from"):
        lines.append(
            say(
                "started from: study ",
                literal(summary["started_from"]),
                "'s answer, the first guess",
            )
        )
    if summary.get("stop_reason"):
        lines.append(say("stopped: ", literal(summary["stop_reason"])))
    counts = summary["trials"]
    lines.append(
        say(
            f"trials: {counts['complete']} complete, {counts['failed']} failed, "
            f"{counts['pruned']} pruned; {summary['probe_seconds']:.0f}s of probing"
        )
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
            failed.add_row(
                str(f["trial"]), literal(f["status"]), literal(settings), literal(f["reason"])
            )
        console.print(failed)
    # The snippet is code to paste: its lines stay lines, only controls are written out.
    console.print(Text(visible(answer.snippet(), lines=True)), soft_wrap=True)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def _others_lines(others: dict[str, Any] | None) -> list[Text]:
    """The evaluation loaders' own settings (their names are the script's: literal)."""
    if not others:
        return []
    names = literal(", ".join(others.get("loaders") or []))
    if others.get("config") is None:
        return [say("  other loaders (", names, "): as written; ", literal(others.get("reason")))]
    workers = others["config"].get(NUM_WORKERS)
    return [
        say(
            "  other loaders (",
            names,
            f"): {workers} workers, persistent; their passes "
            f"{_seconds(others.get('as_written_s'))} an epoch as written, "
            f"{_seconds(others.get('tuned_s'))} tuned",
        )
    ]


def _epoch_lines(epoch: dict[str, Any] | None) -> list[Text]:
    """The epoch on the wall clock: as written, with the recommendation, and where the time
    outside the training loader goes (loader and dataset names are the script's: literal)."""
    if not epoch:
        return []
    if epoch.get("as_written_s") is None:
        return [say("epoch: ", literal(epoch.get("reason") or "no epoch end seen"))]
    head = f"epoch (wall clock): {_seconds(epoch['as_written_s'])} as written"
    if epoch.get("recommended_s") is not None:
        how = "predicted" if epoch.get("recommended_predicted") else "measured"
        head += f", {_seconds(epoch['recommended_s'])} with the recommendation ({how})"
    share, rec_share = epoch.get("outside_share"), epoch.get("recommended_outside_share")
    if share is not None:
        head += f"; outside the training loader: {share:.0%} as written"
        if rec_share is not None:
            head += f", {rec_share:.0%} with the recommendation"
    lines = [say(head)]
    startup = f"  training loader start-up per epoch: {_seconds(epoch.get('startup_s'))} as written"
    if epoch.get("recommended_startup_s") is not None:
        startup += f", {_seconds(epoch['recommended_startup_s'])} recommended"
    lines.append(say(startup))
    for p in epoch.get("passes") or []:
        lines.append(
            say(
                "  other loader's pass: ",
                literal(p.get("dataset")),
                f" ({p.get('batches')} batches, {p.get('num_workers')} workers",
                say(", at ", literal(p["site"])) if p.get("site") else "",
                f"): {_seconds(p.get('seconds'))}",
            )
        )
    lines.append(
        say(
            f"  DataLoader builds: {_seconds(epoch.get('builds_s'))}; "
            f"the rest of the epoch: {_seconds(epoch.get('rest_s'))}"
        )
    )
    return lines
