"""``autotune run``: the whole training with the recommended settings, no code change."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import typer

from autotune.cli._common import STORAGE_HELP, check_script, err, fail, study
from autotune.contract import CONFIG_ENV, LoaderConfig, TrialConfig
from autotune.tuner import summarize


def run(
    ctx: typer.Context,
    script: Path = typer.Argument(..., help="Your training script."),
    name: str = typer.Option(..., "--study", help="Study whose recommendation to apply."),
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
    nproc_per_node: int | None = typer.Option(
        None,
        "--nproc-per-node",
        min=1,
        help="Ranks to start on this node, through torchrun (default: as the study measured).",
    ),
) -> None:
    """Run SCRIPT to the end with the study's recommended DataLoader settings.

    Everything after -- is passed to the script untouched.
    """
    check_script(script)
    loaded, url = study(name, storage_opt)
    answer = summarize(loaded, url)
    if answer.recommended is None:
        fail(f"study {name!r} has no recommendation yet; run `autotune probe` first")
    config = LoaderConfig.from_dict(answer.recommended.config)
    err.print(
        f"autotune: running {script} with {config.to_dict()}", soft_wrap=True, highlight=False
    )
    env = dict(os.environ)
    if config.device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    with tempfile.TemporaryDirectory(prefix="autotune-run-") as tmp:
        path = Path(tmp) / "config.json"
        path.write_text(TrialConfig(loader=config, mode="run").to_json())
        env[CONFIG_ENV] = str(path)
        ranks = nproc_per_node or answer.nproc_per_node
        cmd = [sys.executable, "-m", "autotune.probe", str(script), *ctx.args]
        if ranks > 1:
            # torchrun starts the ranks; each runs the script under the probe in run mode.
            launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
            cmd = [*launcher, f"--nproc-per-node={ranks}", *cmd[1:]]
        try:
            code = subprocess.call(cmd, env=env)
        except KeyboardInterrupt:
            code = 130
    raise typer.Exit(code)
