"""``autotune probe``: tune an unmodified training script."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from autotune.cli import _defaults as defaults
from autotune.cli._common import (
    STORAGE_HELP,
    check_script,
    err,
    fail,
    host_budget,
    literal,
    out,
    print_json,
    say,
    seconds,
    storage,
)
from autotune.cli._progress import ProgressReporter
from autotune.cli._render import render_summary
from autotune.contract import ProbeSettings
from autotune.hardware import cuda_available, fingerprint, job_cores, outside_cores_now
from autotune.runner import SubprocessRunner, Target

if TYPE_CHECKING:
    import optuna

    from autotune.tuner import Reporter, Tuner, TunerOptions


def local_tuner(
    study: optuna.Study,
    target: Target,
    options: TunerOptions,
    url: str,
    reporter: Reporter,
    runner: SubprocessRunner | None = None,
) -> Tuner:
    """A tuner probing on this machine (with ``runner``, where one was started early),
    mirroring every trial into our tables.

    With several ranks on the node, each rank's loader shares the cores with the others':
    the tuner plans per rank, with the cores one rank has."""
    from autotune.store import safe_url, sync_study
    from autotune.tuner import Tuner, summarize

    return Tuner(
        study,
        target,
        runner or SubprocessRunner(),
        options,
        cpu_count=max(1, job_cores().usable // target.nproc_per_node),
        cuda=cuda_available(),
        reporter=reporter,
        after_trial=lambda s: sync_study(url, s, summarize(s, safe_url(url))),
    )


def probe(
    ctx: typer.Context,
    script: Path = typer.Argument(..., help="Your training script, run unmodified."),
    study_name: str | None = typer.Option(
        None,
        "--study",
        help="Study name, without '/' (default: from script, arguments and hardware).",
    ),
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
    trials: int = typer.Option(
        defaults.TRIALS, "--trials", min=1, help="Probes in the study, baseline included."
    ),
    budget: str = typer.Option(
        f"{defaults.TIMEOUT_S:.0f}s",
        "--budget",
        "--timeout",
        help="Time for the whole search, baseline included (90, 30s, 5m, 1h): no trial "
        "starts after it, and the answer says what it left unmeasured.",
    ),
    trial_timeout: float = typer.Option(
        defaults.TRIAL_TIMEOUT_S, "--trial-timeout", min=1, help="Seconds per probe."
    ),
    warmup: float = typer.Option(
        defaults.WARMUP_S,
        "--warmup",
        min=0,
        help="Least warm-up seconds; measuring starts at steady state.",
    ),
    max_warmup: float = typer.Option(
        defaults.MAX_WARMUP_S,
        "--max-warmup",
        min=0.1,
        help="Seconds a loader may ramp up before it is measured anyway (flagged not steady).",
    ),
    window: float = typer.Option(
        defaults.WINDOW_S, "--window", min=0.05, help="Seconds per measurement window."
    ),
    windows: int = typer.Option(
        defaults.WINDOWS, "--windows", min=2, help="Measurement windows per probe."
    ),
    min_windows: int = typer.Option(
        defaults.MIN_WINDOWS,
        "--min-windows",
        min=1,
        help="A probe stops after this many windows once they agree within 5% "
        "(set it to --windows to always measure them all).",
    ),
    max_workers: int | None = typer.Option(
        None, "--max-workers", min=0, help="Upper bound of num_workers searched."
    ),
    tune_batch_size: bool = typer.Option(
        False, "--tune-batch-size", help="Also search batch size (changes training)."
    ),
    patience: int = typer.Option(
        defaults.PATIENCE,
        "--patience",
        min=1,
        help="Stop after this many trials with no gain beyond noise.",
    ),
    max_host_mem: float | None = typer.Option(
        None,
        "--max-host-mem",
        min=0.1,
        help="GiB of host memory a trial's process tree may use (default: half of RAM).",
    ),
    max_gpu_mem: float | None = typer.Option(
        None, "--max-gpu-mem", min=0.1, help="GiB of GPU memory a trial may allocate."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object on stdout."),
    nproc_per_node: int = typer.Option(
        1,
        "--nproc-per-node",
        min=1,
        help="Ranks to start on this node, as torchrun does (RANK, WORLD_SIZE, MASTER_ADDR, ...); "
        "settings are per rank, throughput is the job's.",
    ),
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Continue the study even if the script changed since it was measured.",
    ),
    fresh: bool = typer.Option(
        False,
        "--fresh",
        help="Measure afresh in a new study beside the old one, even if nothing changed.",
    ),
    workers_only: bool = typer.Option(
        False,
        "--seed-only",
        "--workers-only",
        help="Measure the baseline and queue the seeds, then leave the search to "
        "`autotune join` processes (shared storage, e.g. PostgreSQL). --workers-only is its "
        "old name.",
    ),
) -> None:
    """Probe SCRIPT with different DataLoader settings and recommend the fastest safe ones.

    Everything after -- is passed to the script untouched.
    """
    from autotune.store import safe_url
    from autotune.tuner import (
        StudyError,
        StudyKey,
        TunerOptions,
        open_study_for_rerun,
        save_options,
        summarize,
    )

    check_script(script)
    budget_s = seconds(budget, "--budget")
    store, url = storage(storage_opt)
    target = Target(str(script), tuple(ctx.args), nproc_per_node=nproc_per_node)
    hardware = fingerprint()
    key = StudyKey.for_target(target, hardware)
    if resume and fresh:
        fail("--resume and --fresh contradict each other; pass one of them")
    if study_name is not None and "/" in study_name:
        # The API and the dashboard name a study in a URL path (/studies/NAME/...).
        fail(
            f"--study {study_name!r} contains '/', which the API and dashboard cannot address "
            "(/studies/NAME); choose a name without '/'"
        )
    try:
        opened = open_study_for_rerun(
            store,
            study_name or key.default_name(),
            key,
            rerun="resume" if resume else "fresh" if fresh else "auto",
            # The load on the machine now, so a study measured under another is not
            # continued as if nothing changed (half a second, beside minutes of probes).
            outside_now=outside_cores_now() if not (resume or fresh) else None,
        )
    except StudyError as exc:
        fail(str(exc))
    study, name = opened.study, opened.study.study_name
    # The probes' interpreter imports torch while this one sets up the search; after the
    # reading of the machine's load above, which it would add to.
    runner = SubprocessRunner()
    runner.prestart(target)
    if opened.note:
        err.print(say("autotune: ", literal(opened.note, limit=None)), soft_wrap=True)
    options = TunerOptions(
        trials=trials,
        timeout_s=budget_s,
        trial_timeout_s=trial_timeout,
        settings=ProbeSettings(
            warmup_s=warmup,
            max_warmup_s=max(max_warmup, warmup),
            window_s=window,
            windows=windows,
            # Each rank's probe checks its own process tree: the budget is shared out.
            max_host_mem_bytes=host_budget(max_host_mem) // nproc_per_node,
        ),
        tune_batch_size=tune_batch_size,
        max_workers=max_workers,
        patience=patience,
        min_windows=min(min_windows, windows),
        max_gpu_mem_bytes=int(max_gpu_mem * 2**30) if max_gpu_mem else None,
        search=not workers_only,
    )
    if workers_only:
        save_options(study, options)
    ranks = f", {nproc_per_node} ranks each" if nproc_per_node > 1 else ""
    err.print(
        say(
            "autotune: study ",
            (name, "bold"),
            " in ",
            literal(safe_url(url)),
            "; probing ",
            literal(script),
            f" ({trials} trials, one at a time{ranks})",
        ),
        soft_wrap=True,
    )
    with ProgressReporter(trials, budget_s) as reporter:
        outcome = local_tuner(study, target, options, url, reporter, runner).run()
    answer = summarize(study, safe_url(url))
    if as_json:
        print_json(answer.to_dict())
    else:
        render_summary(err if outcome.interrupted else out, answer)
        # A command to copy: whole however long, each word quoted as a shell needs it.
        command = ["autotune", "run", str(script), "--study", name]
        command += ["--storage", storage_opt] if storage_opt else []
        command += ["--nproc-per-node", str(nproc_per_node)] if nproc_per_node > 1 else []
        command += ["--", *ctx.args] if ctx.args else []
        err.print(
            say("apply without code changes: ", literal(shlex.join(command), limit=None)),
            soft_wrap=True,
        )
    if outcome.interrupted:
        raise typer.Exit(130)
    if outcome.for_workers:
        err.print(
            say(
                "join the search from each machine: ",
                literal(
                    shlex.join(["autotune", "join", "--study", name, "--storage", safe_url(url)]),
                    limit=None,
                ),
            ),
            soft_wrap=True,
        )
        return
    if answer.recommended is None:
        reason = answer.stop_reason or "no trial was measured in full"
        fail(f"no recommendation: {reason}", code=1)
