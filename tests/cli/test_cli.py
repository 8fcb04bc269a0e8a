"""The command line as a user runs it: bad input, the JSON contract, run, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import optuna
import pytest
from typer.testing import CliRunner

from autotune.cli import STACKS_ENV, app
from autotune.cli._run import torch_warning_note
from tests.conftest import MARK_ENV, SCRIPTS, as_foreground, assert_no_orphans

GATE_ENV = "AUTOTUNE_TEST_GATE"  # read by tests/scripts/blocks_after_first.py

FAST = ["--warmup", "0.2", "--window", "0.25", "--windows", "3", "--trial-timeout", "60"]
cli = CliRunner()
CONFIG_KEYS = {
    "num_workers",
    "prefetch_factor",
    "pin_memory",
    "persistent_workers",
    "batch_size",
    "num_streams",
    "device",
    "threads",
}


def _one_line_error(result, needle: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code != 0
    text = result.output
    assert needle in text, text
    assert "Traceback" not in text


def test_missing_script(db_url: str) -> None:
    _one_line_error(cli.invoke(app, ["probe", "nope.py", "--storage", db_url]), "does not exist")


def test_script_with_a_syntax_error(tmp_path: Path, db_url: str) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n    pass\n")
    _one_line_error(
        cli.invoke(app, ["probe", str(bad), "--storage", db_url]), "syntax error at line 1"
    )


def test_unknown_study(db_url: str) -> None:
    assert cli.invoke(app, ["db", "upgrade", "--storage", db_url]).exit_code == 0
    _one_line_error(
        cli.invoke(app, ["best", "ghost", "--storage", db_url]), "no study named 'ghost'"
    )


@pytest.mark.parametrize("command", ["best", "show"])
def test_a_study_is_named_as_an_argument_or_as_probe_names_it(db_url: str, command: str) -> None:
    assert cli.invoke(app, ["db", "upgrade", "--storage", db_url]).exit_code == 0
    _one_line_error(
        cli.invoke(app, [command, "--study", "ghost", "--storage", db_url]),
        "no study named 'ghost'",
    )
    _one_line_error(cli.invoke(app, [command, "--storage", db_url]), "name a study")
    both = cli.invoke(app, [command, "a", "--study", "b", "--storage", db_url])
    _one_line_error(both, "two study names")


def test_torch_s_warning_of_more_workers_than_cores_is_answered_where_it_will_show() -> None:
    # torch warns past the cores this process may use (its rule, os.sched_getaffinity).
    cores = len(os.sched_getaffinity(0))
    assert torch_warning_note(cores, "s") is None
    said = torch_warning_note(cores + 1, "s")
    assert said is not None
    assert f"{cores + 1} workers exceed its suggested maximum ({cores}" in said
    assert "study s measured them faster" in said


def test_a_study_name_the_api_cannot_address_is_refused(db_url: str) -> None:
    result = cli.invoke(app, ["probe", str(SCRIPTS / "tiny.py"), "--storage", db_url,
                              "--study", "team/run-1"])  # fmt: skip
    _one_line_error(result, "contains '/'")
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("not a url", "is not a database URL"),
        ("sqlite:////no/such/dir/x.db", "does not exist"),
        ("postgresql+psycopg://nobody@127.0.0.1:1/none", "cannot open storage"),
    ],
)
def test_storage_that_cannot_be_opened(url: str, needle: str) -> None:
    _one_line_error(cli.invoke(app, ["studies", "--storage", url]), needle)


def test_script_that_never_builds_a_dataloader(db_url: str) -> None:
    result = cli.invoke(
        app, ["probe", str(SCRIPTS / "no_loader.py"), "--storage", db_url, "--trials", "3", *FAST]
    )
    _one_line_error(result, "never iterated a torch DataLoader")


@pytest.mark.parametrize(
    ("script", "memmap"), [("memmap_trainer.py", True), ("tensor_trainer.py", False)]
)
def test_a_trainer_without_a_dataloader_is_told_in_seconds(
    db_url: str, script: str, memmap: bool
) -> None:
    # It would train for hours: the trial timeout (120 s) must not be what ends it.
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "autotune.cli", "probe", str(SCRIPTS / script)),
            *("--storage", db_url, "--trials", "3"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "no DataLoader to tune" in proc.stderr, proc.stderr
    # A memmap is hinted at only where the script opened one (numpy is loaded in both).
    assert ("opened 1 np.memmap(s)" in proc.stderr) is memmap, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def _autotune(
    *args: str, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autotune.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def test_json_contract_best_show_and_run(db_url: str, tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    proc = _autotune(
        "probe",
        str(SCRIPTS / "basic.py"),
        "--storage",
        db_url,
        "--trials",
        "3",
        "--json",
        "--study",
        "basic",
        *FAST,
        "--",
        "--latency",
        "0.003",
        env={MARK_ENV: mark},
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # stdout holds exactly one JSON object
    for key in (
        "study",
        "storage",
        "recommended",
        "baseline",
        "speedup",
        "trials",
        "probe_seconds",
        "ceiling_samples_per_s",
        "efficiency",
        "diagnosis",
        "stop_reason",
    ):
        assert key in data
    assert set(data["recommended"]["config"]) == CONFIG_KEYS
    assert set(data["baseline"]["config"]) == CONFIG_KEYS
    assert data["baseline"]["config"]["num_workers"] == 0
    assert data["recommended"]["samples_per_s"] > 0
    assert len(data["recommended"]["ci95"]) == 2
    assert set(data["trials"]) == {"complete", "failed", "pruned"}
    assert data["probe_seconds"] > 0
    assert "trial" in proc.stderr  # progress went to stderr
    assert_no_orphans(mark)

    best = _autotune("best", "basic", "--storage", db_url, "--json")
    assert json.loads(best.stdout)["recommended"] == data["recommended"]
    snippet = _autotune("best", "basic", "--storage", db_url, "--format", "python").stdout
    assert f"num_workers={data['recommended']['config']['num_workers']}" in snippet
    shown = _autotune("show", "basic", "--storage", db_url).stdout
    assert "baseline" in shown
    listed = _autotune("studies", "--storage", db_url).stdout
    assert "basic" in listed

    report = tmp_path / "seen.json"
    ran = _autotune(
        "run",
        str(SCRIPTS / "callbacks.py"),
        "--study",
        "basic",
        "--storage",
        db_url,
        "--",
        "--epochs",
        "2",
        "--report",
        str(report),
    )
    assert ran.returncode == 0, ran.stderr
    # Another script and other arguments than the study measured: allowed, and said.
    note = " ".join(ran.stderr.split())
    assert "study basic measured " in note and "basic.py --latency 0.003;" in note, note
    assert "callbacks.py --epochs 2 --report" in note, note
    seen = json.loads(report.read_text())
    assert seen["train_workers"] == data["recommended"]["config"]["num_workers"]
    assert seen["eval_workers"] == 0


def test_ctrl_c_stops_cleanly_and_keeps_finished_trials(db_url: str, tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    gate = tmp_path / "gate"
    gate.mkdir()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "autotune.cli",
            "probe",
            str(SCRIPTS / "blocks_after_first.py"),
            "--storage",
            db_url,
            "--study",
            "intr",
            "--trials",
            "20",
            "--patience",
            "20",
            "--warmup",
            "0.2",
            "--window",
            "0.5",
            "--windows",
            "4",
            "--trial-timeout",
            "600",  # the blocked probe outlives the test: only the Ctrl-C ends it
            "--",
            "--latency",
            "0.003",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, MARK_ENV: mark, GATE_ENV: str(gate), STACKS_ENV: "1"},
        preexec_fn=as_foreground,
    )
    # Every probe after the first blocks until it is killed. Once one says it is blocked, the
    # search cannot end on its own, whatever its stop rules say, before the signal lands.
    deadline = time.monotonic() + 120
    while not (gate / "blocked").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not (gate / "blocked").exists():
        proc.kill()
        _out, err = proc.communicate(timeout=60)
        pytest.fail(f"no probe after the first started (exit {proc.returncode}):\n{err}")
    storage = optuna.storages.RDBStorage(db_url)
    finished = {
        t.number: (t.state, t.value)
        for t in optuna.load_study(study_name="intr", storage=storage).trials
        if t.state.is_finished()
    }
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        # Where it waits, for the report; then nothing of it outlives the test.
        proc.send_signal(signal.SIGUSR1)
        try:
            proc.communicate(timeout=5)  # the stacks land on stderr at once; it runs on
        except subprocess.TimeoutExpired:
            proc.kill()
        _out, err = proc.communicate(timeout=60)
        pytest.fail(f"still running 60 s after Ctrl-C; its threads' stacks:\n{err}")
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "as written" in err  # the best so far is printed
    study = optuna.load_study(study_name="intr", storage=storage)
    assert study.trials[0].state == optuna.trial.TrialState.COMPLETE
    assert {n: (study.trials[n].state, study.trials[n].value) for n in finished} == finished
    assert all(t.state != optuna.trial.TrialState.RUNNING for t in study.trials)
    assert_no_orphans(mark)


def test_stacks_on_usr1_when_asked_and_the_run_goes_on(tmp_path: Path) -> None:
    """With STACKS_ENV set, SIGUSR1 to autotune prints where each of its threads waits, and
    neither autotune nor the training it runs stops for it."""
    script = tmp_path / "waits.py"
    script.write_text("import sys\nprint('ready', flush=True)\nsys.stdin.read()\nprint('done')\n")
    url = f"sqlite:///{tmp_path / 'a.db'}"
    with subprocess.Popen(
        [sys.executable, "-m", "autotune.cli", "run", str(script), "--adapt", "--storage", url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, STACKS_ENV: "1"},
    ) as proc:
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "ready\n"  # the training waits on its stdin
            proc.send_signal(signal.SIGUSR1)
            out, err = proc.communicate("", timeout=120)
        finally:
            proc.kill()
    assert proc.returncode == 0 and out == "done\n", err
    # Each thread's stack, autotune's own frames among them. Not a given frame of the main
    # thread: faulthandler prints a stack's newest 100 frames, and a signal that lands in a
    # deep import (torch's) shows only the import.
    assert "Current thread" in err and "most recent call first" in err, err
    assert "/autotune/" in err, err


def test_the_cli_starts_without_optuna_or_the_store() -> None:
    """`autotune run --adapt` launches the training before it imports Optuna and the store
    (0.6 s on a 2-core box, a share of every adapted run): importing the CLI pulls in none."""
    heavy = ("optuna", "sqlalchemy", "alembic", "torch", "fastapi", "autotune.store")
    code = (
        "import sys, autotune.cli; "
        f"print(sorted(m for m in sys.modules if m.startswith({heavy!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_database_password_is_never_printed() -> None:
    """A worker's or a CI job's log is read by many: the storage URL is shown without its
    password, in the progress lines and in every JSON answer."""
    import sqlalchemy

    from tests.store.factory import pg_database

    with pg_database() as plain:
        # The server trusts local connections: any password opens it, and none may show.
        url = sqlalchemy.make_url(plain).set(password="s3cret-pw").render_as_string(False)
        cli = [sys.executable, "-m", "autotune.cli"]
        probe = [*cli, "probe", str(SCRIPTS / "basic.py"), "--storage", url, "--study", "pw"]
        fast = ["--trials", "1", "--warmup", "0.2", "--window", "0.3", "--json"]
        seen = []
        for cmd in (
            [*probe, *fast, "--", "--epochs", "40"],
            [*cli, "best", "pw", "--storage", url, "--json"],
            [*cli, "studies", "--storage", url, "--json"],
            [*cli, "show", "pw", "--storage", url],
        ):
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, proc.stderr[-2000:]
            seen.append(proc.stdout + proc.stderr)
        assert "postgresql+psycopg://" in seen[0]  # the storage is named, without the secret
        assert not [out for out in seen if "s3cret-pw" in out]


def test_joining_a_shared_search_is_join_and_the_old_name_still_works() -> None:
    # "worker" is the DataLoader's word for its processes: the command that joins a search
    # is `join`, and `worker` stays, saying what it is.
    listed = cli.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and "join" in listed.output
    old = cli.invoke(app, ["worker", "--help"], env={"COLUMNS": "200"})
    assert old.exit_code == 0 and "old name of `autotune join`" in old.output
    probe_help = cli.invoke(app, ["probe", "--help"], env={"COLUMNS": "200"})
    assert "--seed-only" in probe_help.output and "--workers-only" in probe_help.output


@pytest.mark.slow
def test_an_answer_that_moves_random_augmentations_into_workers_says_so(
    tmp_path: Path,
) -> None:
    # A flip drawn from torch's generator in __getitem__, 4 ms a sample and a 2 ms step:
    # workers win, and the flips they draw are no longer the script's.
    mark, url = uuid.uuid4().hex, f"sqlite:///{tmp_path / 'a.db'}"
    command = [
        sys.executable, "-m", "autotune.cli", "probe", str(SCRIPTS / "draws.py"), "--storage",
        url, "--trials", "2", "--json", "--max-workers", "4", *FAST,
        "--", "--latency", "0.004", "--size", "256",
    ]  # fmt: skip
    proc = subprocess.run(
        command, capture_output=True, text=True, timeout=300, env={**os.environ, MARK_ENV: mark}
    )
    assert_no_orphans(mark)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    workers = data["recommended"]["config"]["num_workers"]
    if not workers:
        # The script as written kept (a load that moved between probes): nothing moves.
        assert data["randomness"] is None, data
        return
    assert f"with {workers} workers" in data["randomness"], data["randomness"]
    assert "torch's generator" in data["randomness"] and "dropout" in data["randomness"]
    shown = subprocess.run(
        [sys.executable, "-m", "autotune.cli", "best", data["study"], "--storage", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert "randomness: loading a batch draws from torch's generator" in " ".join(
        shown.stdout.split()
    ), shown.stdout
