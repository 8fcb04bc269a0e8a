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
from autotune.answer import Answer, Epoch, OtherLoaders
from autotune.cli._common import literal, say
from autotune.contract import LOADER_KEYS, NO_PREFETCH_FRAMEWORKS, PREFETCH_FACTOR


def _fmt(value: Any) -> Text:
    return Text("-") if value is None else literal(value)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def render_summary(console: Console, answer: Answer) -> None:
    rec, base = answer.recommended, answer.baseline
    ranks = answer.nproc_per_node
    title = say("study ", literal(answer.study)) + (
        f" (settings per rank, {ranks} ranks)" if ranks > 1 else ""
    )
    table = Table(title=title, title_justify="left")
    table.add_column("setting")
    table.add_column("as written", justify="right")
    table.add_column("recommended", justify="right", style="bold green")
    written = base.config if base is not None else None
    picked = rec.config if rec is not None else None
    loader = answer.measured_loader
    # A library whose loader takes no prefetch_factor (fastai keeps torch's 2): no such row.
    fixed = {PREFETCH_FACTOR} if loader and loader.framework in NO_PREFETCH_FRAMEWORKS else set()
    for key in LOADER_KEYS:
        if key in fixed:
            continue
        table.add_row(
            key,
            _fmt(getattr(written, key) if written is not None else None),
            _fmt(getattr(picked, key) if picked is not None else None),
        )
    rec_rate = Text(_rate(rec.samples_per_s if rec is not None else None))
    if rec is not None and rec.ci95:
        rec_rate.append(f" [{rec.ci95[0]:,.0f}-{rec.ci95[1]:,.0f}]")
    rate_label = "samples/s (job)" if ranks > 1 else "samples/s"
    base_rate = base.samples_per_s if base is not None else None
    table.add_row(rate_label, _rate(base_rate), rec_rate, end_section=True)
    console.print(table)
    lines: list[Text] = []
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
    if answer.speedup:
        whole = _epoch_speedup(answer.epoch)
        lines.append(
            say(
                "speedup over the script as written: ",
                (f"{answer.speedup:.2f}x", "bold"),
                say(" in samples/s; ", (whole, "bold"), " for a whole epoch") if whole else "",
            )
        )
    lines += _epoch_lines(answer.epoch)
    lines += _others_lines(answer.others)
    ceilings = []
    if answer.ceiling_samples_per_s:
        ceilings.append(f"compute {answer.ceiling_samples_per_s:,.0f}")
    if answer.transport_ceiling_samples_per_s:
        ceilings.append(f"transport {answer.transport_ceiling_samples_per_s:,.0f}")
    if ceilings:
        eff, binding = answer.efficiency, answer.binding_ceiling
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
    for which, why in answer.ceiling_missing.items():
        lines.append(say("no ", literal(which), " ceiling: ", literal(why)))
    if answer.verdict:
        lines.append(say("verdict: ", literal(answer.verdict)))
    if answer.diagnosis:
        lines.append(say("diagnosis: ", literal(answer.diagnosis.summary)))
    lines += _interference_lines(answer.interference)
    if answer.choice:
        # Our own sentences, one per reason (a few hundred characters each): shown whole.
        lines.append(say("choice: ", literal(answer.choice, limit=None)))
    if answer.randomness:
        lines.append(say("randomness: ", literal(answer.randomness, limit=None)))
    if answer.cores:
        lines.append(say("cores: ", literal(answer.cores)))
    if answer.started_from:
        lines.append(
            say(
                "started from: study ",
                literal(answer.started_from),
                "'s answer, the first guess",
            )
        )
    if answer.stop_reason:
        lines.append(say("stopped: ", literal(answer.stop_reason)))
    counts = answer.trials
    lines.append(
        say(
            f"trials: {counts.complete} complete, {counts.failed} failed, "
            f"{counts.pruned} pruned; {answer.probe_seconds:.0f}s of probing"
        )
    )
    for line in lines:
        console.print(line, soft_wrap=True)
    if answer.failures:
        failed = Table(title="failed trials", title_justify="left")
        failed.add_column("trial", justify="right")
        failed.add_column("status")
        failed.add_column("settings")
        failed.add_column("reason")
        for f in answer.failures:
            settings = ", ".join(
                f"{key}={value}"
                for key in LOADER_KEYS
                if f.config is not None and (value := getattr(f.config, key)) is not None
            )
            failed.add_row(str(f.trial), literal(f.status), literal(settings), literal(f.reason))
        console.print(failed)
    # The snippet is code to paste: its lines stay lines, only controls are written out.
    console.print(Text(visible(answer.snippet(), lines=True)), soft_wrap=True)


def _interference_lines(interference: dict[str, Any] | None) -> list[Text]:
    """What another process's load did to the windows, and the condition the answer holds
    for (the evidence's own JSON: ``tuner/evidence/_windows.describe``)."""
    if not interference:
        return []
    lines: list[Text] = []
    if interference.get("disturbed_windows"):
        lines.append(say(("interference:", "yellow"), " ", literal(interference["summary"])))
        condition = interference.get("condition") or {}
        if condition.get("kind") in ("loaded", "changing"):
            # The condition the answer holds for: a quiet machine may give other figures.
            lines.append(say("measured ", literal(condition.get("text", ""))))
    if interference.get("comparison"):
        lines.append(
            say(("no speedup stated:", "yellow"), " ", literal(interference["comparison"]))
        )
    return lines


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def _others_lines(others: OtherLoaders | None) -> list[Text]:
    """The evaluation loaders' own settings (their names are the script's: literal)."""
    if not others:
        return []
    names = literal(", ".join(others.loaders))
    if others.config is None:
        return [say("  other loaders (", names, "): as written; ", literal(others.reason))]
    workers = others.config.num_workers
    return [
        say(
            "  other loaders (",
            names,
            f"): {workers} workers, persistent; their passes "
            f"{_seconds(others.as_written_s)} an epoch as written, "
            f"{_seconds(others.tuned_s)} tuned",
        )
    ]


def _epoch_speedup(epoch: Epoch | None) -> str | None:
    """A whole epoch as written over one with the recommendation, on the wall clock: what
    the user's clock shows, which the loader's samples/s over- or understates (validation
    passes and per-epoch start-ups are in the one, not the other)."""
    if not epoch or not epoch.as_written_s or not epoch.recommended_s:
        return None
    how = " (predicted)" if epoch.recommended_predicted else ""
    return f"{epoch.as_written_s / epoch.recommended_s:.2f}x{how}"


def _epoch_lines(epoch: Epoch | None) -> list[Text]:
    """The epoch on the wall clock: as written, with the recommendation, and where the time
    outside the training loader goes (loader and dataset names are the script's: literal)."""
    if not epoch:
        return []
    if epoch.as_written_s is None:
        return [say("epoch: ", literal(epoch.reason or "no epoch end seen"))]
    head = f"epoch (wall clock): {_seconds(epoch.as_written_s)} as written"
    if epoch.recommended_s is not None:
        how = "predicted" if epoch.recommended_predicted else "measured"
        head += f", {_seconds(epoch.recommended_s)} with the recommendation ({how})"
    share, rec_share = epoch.outside_share, epoch.recommended_outside_share
    if share is not None:
        head += f"; outside the training loader: {share:.0%} as written"
        if rec_share is not None:
            head += f", {rec_share:.0%} with the recommendation"
    lines = [say(head)]
    startup = f"  training loader start-up per epoch: {_seconds(epoch.startup_s)} as written"
    if epoch.recommended_startup_s is not None:
        startup += f", {_seconds(epoch.recommended_startup_s)} recommended"
    lines.append(say(startup))
    if (payback := epoch.payback_epochs) is not None:
        lines.append(
            say(
                f"  the run's first start-up: {_seconds(epoch.first_startup_s)} as written, "
                f"{_seconds(epoch.recommended_first_startup_s)} recommended: the "
                f"recommendation wins it back after {payback:.1f} epochs; a shorter run is "
                "slower with it"
            )
        )
    for p in epoch.passes:
        lines.append(
            say(
                "  other loader's pass: ",
                literal(p.dataset),
                f" ({p.batches} batches, {p.num_workers} workers",
                say(", at ", literal(p.site)) if p.site else "",
                f"): {_seconds(p.seconds)}",
            )
        )
    lines.append(
        say(
            f"  DataLoader builds: {_seconds(epoch.builds_s)}; "
            f"the rest of the epoch: {_seconds(epoch.rest_s)}"
        )
    )
    return lines
