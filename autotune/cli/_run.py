"""``autotune run``: the whole training with the recommended settings, no code change."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from autotune.cli import _defaults as defaults
from autotune.cli._adapt import run_adapting
from autotune.cli._common import STORAGE_HELP, check_script, err, fail, literal, say, study
from autotune.contract import ProbeSettings
from autotune.runner import LiveRun, Target


def run(
    ctx: typer.Context,
    script: Path = typer.Argument(..., help="Your training script."),
    name: str | None = typer.Option(
        None,
        "--study",
        help="Study whose recommendation to apply (with --adapt: where the run's segments "
        "are recorded).",
    ),
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
    nproc_per_node: int | None = typer.Option(
        None,
        "--nproc-per-node",
        min=1,
        help="Ranks to start on this node, through torchrun (default: as the study measured).",
    ),
    adapt: bool = typer.Option(
        False,
        "--adapt",
        help="Tune the loader inside this run, on its real steps, same samples in the same "
        "order; no probe phase.",
    ),
    segments: int | None = typer.Option(
        None,
        "--segments",
        min=1,
        help=f"With --adapt: settings the run may try, its own included "
        f"(default: {defaults.SEGMENTS}).",
    ),
    max_workers: int | None = typer.Option(
        None, "--max-workers", min=0, help="With --adapt: upper bound of num_workers tried."
    ),
    warmup: float | None = typer.Option(
        None,
        "--warmup",
        min=0,
        help=f"With --adapt: least warm-up seconds of each segment (default: {defaults.WARMUP_S}).",
    ),
    window: float | None = typer.Option(
        None,
        "--window",
        min=0.05,
        help=f"With --adapt: seconds per measurement window (default: {defaults.WINDOW_S}).",
    ),
    max_host_mem: float | None = typer.Option(
        None,
        "--max-host-mem",
        min=0.1,
        help="With --adapt: GiB of host memory the run may use before a setting is switched "
        "back (default: half of RAM).",
    ),
) -> None:
    """Run SCRIPT to the end with the study's recommended DataLoader settings, or with
    --adapt, tuning them as it trains.

    Everything after -- is passed to the script untouched.
    """
    check_script(script)
    if adapt:
        code = run_adapting(
            script,
            list(ctx.args),
            name=name,
            storage_opt=storage_opt,
            nproc_per_node=nproc_per_node,
            segments=defaults.SEGMENTS if segments is None else segments,
            max_workers=max_workers,
            max_host_mem=max_host_mem,
            warmup_s=defaults.WARMUP_S if warmup is None else warmup,
            window_s=defaults.WINDOW_S if window is None else window,
        )
        raise typer.Exit(code)
    tuning = {
        "--segments": segments,
        "--max-workers": max_workers,
        "--warmup": warmup,
        "--window": window,
        "--max-host-mem": max_host_mem,
    }
    if given := [option for option, value in tuning.items() if value is not None]:
        fail(f"{', '.join(given)} only apply with --adapt; add --adapt or leave them out")
    if name is None:
        fail("pass --study NAME (a study `autotune probe` made), or --adapt to tune as it runs")
    from autotune.store import safe_url
    from autotune.tuner import summarize

    loaded, url = study(name, storage_opt)
    answer = summarize(loaded, safe_url(url))
    if answer.recommended is None:
        fail(f"study {name!r} has no recommendation yet; run `autotune probe` first")
    config = answer.recommended.config
    others = answer.others.config if answer.others is not None else None
    err.print(
        say("autotune: running ", literal(script), f" with {config.to_dict()}"), soft_wrap=True
    )
    _note_other_run(name, answer.script, answer.args, script, list(ctx.args))
    said = torch_warning_note(config.num_workers or 0, name)
    if said:
        err.print(literal(said), soft_wrap=True, highlight=False)
    if answer.randomness:
        err.print(say("autotune: ", literal(answer.randomness, limit=None)), soft_wrap=True)
    streams = answer.others is not None and answer.others.iterable
    if others is not None:
        kinds = "other loaders (streams included)" if streams else "other map-style loaders"
        err.print(
            f"autotune: its {kinds} with {others.to_dict()}",
            soft_wrap=True,
            highlight=False,
        )
    ranks = nproc_per_node or answer.nproc_per_node
    target = Target(str(script), tuple(ctx.args), nproc_per_node=ranks)
    # One lifecycle with --adapt and the probes: Ctrl-C is the training's, as without
    # autotune (it is never killed for it), and nothing it started outlives it.
    with LiveRun(
        target,
        ProbeSettings(),
        loader=config,
        mode="run",
        others=others,
        others_iterable=streams,
    ) as live:
        code = live.wait()
    raise typer.Exit(code)


def torch_warning_note(workers: int, name: str) -> str | None:
    """What to make of torch's warning that a loader has more workers than this process may
    use cores: said before the run where the answer asks for that many, since the warning
    ("might get DataLoader running slow or even freeze") reads as if the answer were unsafe,
    while the study measured it faster on these cores. None where torch stays silent."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if not cores or workers <= cores:
        return None
    return (
        f"autotune: torch warns below that {workers} workers exceed its suggested maximum "
        f"({cores}, the cores this process may use); study {name} measured them faster on "
        "these cores"
    )


def _note_other_run(
    name: str, measured: str | None, measured_args: list[str] | None, script: Path, args: list[str]
) -> None:
    """Say so where the run is not what the study measured: allowed (fewer epochs, another
    output folder), but the answer is for what ran."""
    same_script = measured is None or Path(measured).resolve() == script.resolve()
    if same_script and (measured_args is None or list(measured_args) == args):
        return

    def command(path: object, words: list[str]) -> str:
        return " ".join([str(path), *words])

    err.print(
        say(
            "autotune: note: study ",
            literal(name),
            " measured ",
            literal(command(measured or "?", list(measured_args or []))),
            "; this run is ",
            literal(command(script, args)),
            ". Its answer holds where they load and step alike; probe again if not.",
        ),
        soft_wrap=True,
    )
