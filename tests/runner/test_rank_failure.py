"""A multi-rank trial that fails names the rank that failed first, in its own words, and the
other ranks' errors as what they are: consequences ("Connection reset by peer")."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from autotune.contract import LoaderConfig, ProbeResult, TrialConfig
from autotune.runner import SubprocessRunner, Target, merge_rank_results
from autotune.runner._ranks import first_failing, peer_lost
from tests.conftest import FAST, MARK_ENV, SCRIPTS, assert_no_orphans
from tests.hostile import FAST as FAST_CLI
from tests.hostile import autotune, terminal_env

GLOO = (
    "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] "
    "Read error [127.0.0.1]:55960: Connection reset by peer"
)
OWN = "ValueError: bad sample 64 on rank 1 [a worker] (in DataLoader worker process 0)"


def _crashed(reason: str) -> ProbeResult:
    return ProbeResult(status="crashed", reason=reason)


def test_a_peer_lost_error_is_a_consequence_even_when_it_was_recorded_first() -> None:
    # Rank 1 destroyed its process group in a `finally` before its probe recorded its own
    # error, so rank 0's "Connection reset by peer" was written 22 ms earlier (as measured).
    ranks = [_crashed(GLOO), _crashed(OWN)]
    job = merge_rank_results(ranks, first_failed=0, failed_at=[10.000, 10.022])
    assert job.status == "crashed"
    assert job.reason == f"rank 1: {OWN} (failed first); rank 0: {GLOO} (a consequence)"
    assert job.ranks is not None and [r.reason for r in job.ranks] == [GLOO, OWN]


def test_between_errors_of_their_own_the_earlier_recorded_is_first() -> None:
    ranks = [_crashed("ValueError: a"), _crashed("KeyError: 'b'"), _crashed(GLOO)]
    assert first_failing(ranks, failed_at=[5.2, 5.1, 5.0], first_seen=0) == [1, 0, 2]
    job = merge_rank_results(ranks, first_failed=0, failed_at=[5.2, 5.1, 5.0])
    assert job.reason == (
        "rank 1: KeyError: 'b' (failed first); rank 0: ValueError: a (later); "
        f"rank 2: {GLOO} (a consequence)"
    )
    # With no times at all, the rank the runner saw fail first, then rank order.
    assert first_failing(ranks, first_seen=1) == [1, 0, 2]
    assert first_failing(ranks) == [0, 1, 2]


def test_ranks_stopped_from_outside_are_not_listed() -> None:
    stopped = ProbeResult(status="interrupted", reason="stopped: another rank failed")
    job = merge_rank_results([stopped, _crashed(OWN)], first_failed=1, failed_at=[None, 3.0])
    assert (job.status, job.reason) == ("crashed", f"rank 1: {OWN}")
    # A lone consequence says so: the rank that went first left no error of its own.
    alone = merge_rank_results([_crashed(GLOO), stopped], failed_at=[1.0, None])
    assert alone.reason == f"rank 0: {GLOO} (a consequence: another rank went away first)"


@pytest.mark.parametrize(
    ("reason", "lost"),
    [
        (GLOO, True),
        ("RuntimeError: [../pair.cc:589] Connection closed by peer [127.0.0.1]:3", True),
        ("BrokenPipeError: [Errno 32] Broken pipe", True),
        ("RuntimeError: NCCL communicator was aborted on rank 0", True),
        (OWN, False),
        ("CUDA out of memory", False),
    ],
)
def test_errors_that_say_a_peer_went_away(reason: str, lost: bool) -> None:
    assert peer_lost(reason) is lost


def _two_ranks(*args: str, workers: int = 1) -> ProbeResult:
    mark = uuid.uuid4().hex
    target = Target(str(SCRIPTS / "rank_fails.py"), args, env={MARK_ENV: mark}, nproc_per_node=2)
    config = TrialConfig(loader=LoaderConfig(num_workers=workers), settings=FAST)
    result = SubprocessRunner().run(target, config, timeout_s=60)
    assert_no_orphans(mark)
    return result


@pytest.mark.slow
def test_a_real_two_rank_probe_names_the_rank_whose_worker_failed() -> None:
    # The script destroys its process group in a `finally`: rank 0 loses its connection as
    # rank 1 unwinds, and often records that before rank 1 records its own error.
    res = _two_ranks("--fail-rank", "1", "--destroy")
    assert res.status == "crashed"
    assert res.reason.startswith(f"rank 1: {OWN}"), res.reason
    assert res.ranks is not None
    rank0 = res.ranks[0]
    if rank0.status == "interrupted":  # stopped by the runner before it failed
        assert res.reason == f"rank 1: {OWN}"
    else:
        assert peer_lost(rank0.reason), rank0
        assert res.reason == f"rank 1: {OWN} (failed first); rank 0: {rank0.reason} (a consequence)"


@pytest.mark.slow
def test_a_rank_whose_error_is_recorded_after_its_peers_echo_is_still_named(
    tmp_path: Path,
) -> None:
    # Rank 1 holds its error until rank 0, whose connection it closed, has recorded "Connection
    # closed by peer" and exited: seen alone, that echo would end the trial and kill rank 1
    # before it could say what went wrong (as CI once saw). The runner waits for the cause.
    # No workers: a worker forked after init_process_group would keep the connection open.
    args = ("--fail-rank", "1", "--destroy", "--outlive-peers", str(tmp_path))
    res = _two_ranks(*args, workers=0)
    assert res.status == "crashed"
    assert res.ranks is not None and res.ranks[0].status == "crashed", res.ranks
    echo = res.ranks[0].reason
    assert peer_lost(echo), res.ranks[0]
    own = "ValueError: bad sample 64 on rank 1 [the main process]"
    assert res.reason == f"rank 1: {own} (failed first); rank 0: {echo} (a consequence)"


@pytest.mark.slow
def test_the_cli_shows_a_failed_rank_as_it_is(tmp_path: Path) -> None:
    # A failed baseline: no recommendation (exit 1), and the reason, with its brackets and
    # whatever gloo said, shown literally on the terminal and kept in the JSON.
    url = f"sqlite:///{tmp_path / 'ranks.db'}"
    mark = uuid.uuid4().hex
    done = autotune(
        "probe", str(SCRIPTS / "rank_fails.py"), "--storage", url, "--nproc-per-node", "2",
        "--trials", "1", *FAST_CLI, "--", "--fail-rank", "1", "--destroy",
        env=terminal_env(**{MARK_ENV: mark}),
    )  # fmt: skip
    assert_no_orphans(mark)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text
    assert "Traceback" not in text and "MarkupError" not in text
    # "[the main process]" was a style tag to rich: it vanished from the line.
    own = "rank 1: ValueError: bad sample 64 on rank 1 [the main process]"
    assert f"crashed: {own}" in done.stderr
    assert f"error: no recommendation: the script as written failed (crashed): {own}" in text
    name = json.loads(autotune("studies", "--json", "--storage", url).stdout)[0]["study"]
    answer = json.loads(autotune("best", name, "--json", "--storage", url).stdout)
    (failure,) = answer["failures"]
    assert failure["reason"].startswith(own)
    if "(a consequence)" in failure["reason"]:
        assert "pair.cc:" in failure["reason"]
        # gloo's "[/__w/...pair.cc:NNN]" on the terminal: as it is.
        gloo_path = failure["reason"].split("RuntimeError: ", 1)[1].split("]", 1)[0] + "]"
        assert gloo_path in done.stderr


@pytest.mark.slow
def test_a_search_whose_trials_lose_a_rank_still_recommends(tmp_path: Path) -> None:
    # The held-out DDP case: trials whose workers fail on one rank (the other rank's gloo
    # connection is reset) are failures with their reasons, and the search goes on to an
    # answer; the script as written, whose ranks train, stays measured. Loading bounds the
    # step (--sample-ms), so a busy machine cannot put the script as written at the compute
    # ceiling and end the search before any trial with workers.
    url = f"sqlite:///{tmp_path / 'ranks.db'}"
    mark = uuid.uuid4().hex
    done = autotune(
        "probe", str(SCRIPTS / "rank_fails.py"), "--storage", url, "--nproc-per-node", "2",
        "--trials", "3", "--json", *FAST_CLI, "--", "--fail-rank", "1", "--only-in-workers",
        "--sample-ms", "1",
        env=terminal_env(**{MARK_ENV: mark}),
    )  # fmt: skip
    assert_no_orphans(mark)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "MarkupError" not in done.stderr
    answer = json.loads(done.stdout)
    assert answer["recommended"] is not None, answer
    assert answer["recommended"]["config"]["num_workers"] == 0, answer
    assert answer["failures"], answer
    for failure in answer["failures"]:
        assert failure["reason"].startswith("rank 1: ValueError: bad sample"), failure
        assert "(in DataLoader worker process" in failure["reason"], failure
