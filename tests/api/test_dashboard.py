"""The dashboard driven in headless Chromium against a database filled by a real probe run."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import optuna
import pytest

from autotune import state
from autotune.answer import Epoch, LivePass, OtherLoaders
from autotune.contract import GpuReading, LoaderConfig
from autotune.store import sync_study
from autotune.tuner import summarize
from tests.conftest import only_study_name
from tests.store.factory import LIVE_SEGMENT_S, close_storages, live_study

VAL = "<b>Val</b> at fit.py:30"  # a dataset class's name is the script's, whatever it holds

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not Path(CHROMIUM).exists():
    pytest.skip(
        f"{CHROMIUM} is missing: `apt-get install chromium chromium-driver` (.ci/run does)",
        allow_module_level=True,
    )
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")


def _autotune(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("autotune") or str(Path(sys.executable).with_name("autotune"))
    return subprocess.run(
        [exe, *args], capture_output=True, text=True, timeout=600, check=True, cwd=ROOT
    )


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(storage URL, study name) after a real, short probe of an example script."""
    url = f"sqlite:///{tmp_path_factory.mktemp('dash') / 'autotune.db'}"
    _autotune(
        "probe", "examples/model_bound.py", "--trials", "2", "--window", "0.2",
        "--windows", "2", "--warmup", "0.1", "--storage", url, "--json",
    )  # fmt: skip
    return url, only_study_name(url)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(probed: tuple[str, str]) -> Iterator[str]:
    url, _ = probed
    port = _free_port()
    code = (
        "import uvicorn; from autotune.api import create_app; "
        f"uvicorn.run(create_app({url!r}), host='127.0.0.1', port={port}, log_level='warning')"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{base}/api/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            pytest.fail("the server did not start in 10 s")
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Page:
    """A browser tab that records console errors and uncaught exceptions."""

    def __init__(self, browser: Any) -> None:
        self.tab = browser.new_page(viewport={"width": 1280, "height": 900})
        self.errors: list[str] = []
        self.tab.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.tab.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))

    def open(self, url: str, ready: str = "body[data-ready]") -> Any:
        response = self.tab.goto(url)
        if ready:
            self.tab.wait_for_selector(ready, timeout=15_000)
        return response

    def points(self, chart: str) -> dict[str, int]:
        """Points per trace of a Plotly chart, by trace name."""
        return dict(
            self.tab.evaluate(
                "id => document.getElementById(id).data.map(t => [t.name, (t.x || t.y).length])",
                chart,
            )
        )


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    p = Page(browser)
    yield p
    p.tab.close()


def _api(base: str, path: str) -> Any:
    response = httpx.get(f"{base}/api/v1{path}", params={"limit": 500})
    response.raise_for_status()
    return response.json()


def test_studies_page_lists_the_probed_study(server: str, probed: tuple[str, str], page: Page):
    _, name = probed
    page.open(f"{server}/", ready="#studies tbody tr")
    rows = page.tab.locator("#studies tbody tr")
    assert rows.count() == 1
    text = rows.first.inner_text()
    assert name in text
    assert "examples/model_bound.py" in text
    assert "finished" in text
    page.tab.fill("#search", "no-such-thing")
    assert rows.first.is_hidden()
    page.tab.fill("#search", "model_bound")
    assert rows.first.is_visible()
    assert page.errors == []


def test_study_page_charts_card_and_table(server: str, probed: tuple[str, str], page: Page):
    url, name = probed
    page.open(f"{server}/studies/{name}")
    trials = _api(server, f"/studies/{name}/trials")["items"]
    study = _api(server, f"/studies/{name}")
    complete = [t for t in trials if t["state"] == "complete"]
    history = page.points("chart-history")
    assert history["measured"] == len(complete)
    assert history["best so far"] == len(complete)
    assert history["pruned"] == sum(t["state"] == "pruned" for t in trials)
    assert history["failed"] == sum(t["state"] == "fail" for t in trials)
    timed = [t for t in trials if t["wait_per_batch_s"] is not None]
    assert page.points("chart-time") == {"data wait": len(timed), "rest of the step": len(timed)}
    measured = [t for t in trials if t["samples_per_s"] is not None and t["config"]]
    assert sum(page.points("chart-settings").values()) == len(measured) > 0
    shapes = page.tab.evaluate("document.getElementById('chart-history').layout.shapes.length")
    assert shapes == (study["baseline_samples_per_s"] is not None) + (
        study["ceiling_samples_per_s"] is not None
    )
    assert page.tab.locator("#trials tbody tr").count() == len(trials)
    assert page.tab.is_hidden("#segments")  # a probe's study is no live run

    best = json.loads(_autotune("best", name, "--json", "--storage", url).stdout)
    shown = {
        el.get_attribute("data-param"): el.inner_text()
        for el in page.tab.locator("#rec-settings [data-param]").all()
    }
    assert shown == {k: _shown(v) for k, v in best["recommended"]["config"].items()}
    assert "loader = DataLoader(dataset" in page.tab.inner_text("#snippet")
    assert page.tab.inner_text("#command").startswith("autotune run ")
    assert f"--study {name}" in page.tab.inner_text("#command")
    assert best["stop_reason"] in page.tab.inner_text("#stop-reason")
    assert best["diagnosis"]["summary"] in page.tab.inner_text("#diagnosis")
    if best["efficiency"] is not None:  # stated against the binding ceiling, named
        assert f"of the {best['binding_ceiling']} ceiling" in page.tab.inner_text("#efficiency")
    # The epoch on the wall clock: its figure as written, or why the probe saw none.
    epoch = best["epoch"]
    assert epoch is not None
    if epoch["as_written_s"] is None:
        assert epoch["reason"] in page.tab.inner_text("#epoch")
    else:
        assert f"{epoch['as_written_s']:.2f} s as written" in page.tab.inner_text("#epoch")
    said = "the recommendation wins it back after"
    assert (said in page.tab.inner_text("#epoch")) is (epoch.get("payback_epochs") is not None)

    # Sorting by samples/s puts the fastest trial first.
    page.tab.click("#trials th:has-text('samples/s')")
    page.tab.click("#trials th:has-text('samples/s')")
    fastest = max(complete, key=lambda t: t["samples_per_s"])["number"]
    assert page.tab.locator("#trials tbody tr").first.get_attribute("data-number") == str(fastest)
    assert page.errors == []


def test_trial_page_shows_windows(server: str, probed: tuple[str, str], page: Page):
    _, name = probed
    page.open(f"{server}/studies/{name}")
    page.tab.click("#trials tbody tr[data-number='0'] a")
    page.tab.wait_for_selector("body[data-ready]")
    assert page.tab.url.endswith(f"/studies/{name}/trials/0")
    windows = _api(server, f"/studies/{name}/trials/0")["windows"]
    assert sum(page.points("chart-windows").values()) == len(windows) > 0
    assert "baseline" in page.tab.inner_text("#details")
    # The memory figure is named and defined where it is shown.
    assert "host memory MB (PSS)" in page.tab.inner_text("#details")
    assert "count once" in page.tab.inner_text("#memory-definition")
    assert page.errors == []


def _shown(value: Any) -> str:
    """How the card writes a setting."""
    if value is None:
        return "–"
    return value if isinstance(value, str) else json.dumps(value)


def _copy_study(url: str, source: str, target: str) -> optuna.Study:
    optuna.copy_study(from_study_name=source, from_storage=url, to_storage=url,
                      to_study_name=target)  # fmt: skip
    return optuna.load_study(study_name=target, storage=url)


def test_running_study_gains_a_trial_without_reload(
    server: str, probed: tuple[str, str], page: Page
):
    url, name = probed
    live = _copy_study(url, name, "live")
    done = [t for t in live.get_trials() if t.state == optuna.trial.TrialState.COMPLETE]
    state.save_stop(live, "", None)  # the copy had finished; this one goes on (no reason)
    live.ask()  # a trial in flight: the study is running
    sync_study(url, live, summarize(live, url))
    page.open(f"{server}/studies/live")
    before = int(page.tab.get_attribute("body", "data-trials") or 0)
    assert page.tab.is_visible("#live")
    page.tab.evaluate("window.notReloaded = true")

    live.add_trial(done[-1])
    sync_study(url, live, summarize(live, url))
    page.tab.wait_for_function(f"Number(document.body.dataset.trials) > {before}", timeout=10_000)
    assert page.tab.evaluate("window.notReloaded") is True
    assert page.tab.locator("#trials tbody tr").count() == before + 1
    assert page.errors == []


def test_study_with_only_failures_and_empty_study(server: str, probed: tuple[str, str], page: Page):
    url, name = probed
    source = optuna.load_study(study_name=name, storage=url)
    failed = optuna.create_study(storage=url, study_name="all-failed", direction="maximize")
    identity = state.load(source).identity
    state.identify(
        failed,
        state.Identity(script=identity.script, args=identity.args, hardware=identity.hardware),
    )
    crashed = state.TrialRecord(role="baseline", status="crashed", reason="ImportError: no torch")
    failed.add_trial(state.new_trial(crashed, optuna.trial.TrialState.FAIL, None, {}, {}, {}))
    sync_study(url, failed, summarize(failed, url))
    page.open(f"{server}/studies/all-failed")
    assert "No recommendation yet" in page.tab.inner_text("#no-rec")
    assert "ImportError: no torch" in page.tab.inner_text("#failures")
    assert page.points("chart-history")["failed"] == 1
    assert page.errors == []

    empty = optuna.create_study(storage=url, study_name="empty", direction="maximize")
    sync_study(url, empty, summarize(empty, url))
    page.open(f"{server}/studies/empty")
    assert "no trials yet" in page.tab.inner_text("#no-rec")
    assert page.tab.is_visible("#trials-empty")
    assert page.errors == []


def test_unknown_study_gets_a_clear_page(server: str, page: Page):
    response = page.open(f"{server}/studies/nope", ready="#missing")
    assert response.status == 404
    assert "no study named 'nope'" in page.tab.inner_text("#missing")
    # The only console line is the browser's note of the 404 itself; no script failed.
    assert all("404" in e for e in page.errors)
    response = page.open(f"{server}/studies/nope/trials/3", ready="#missing")
    assert response.status == 404


def test_plotly_is_served_from_the_installed_package(server: str):
    response = httpx.get(f"{server}/static/plotly.min.js")
    assert response.status_code == 200
    assert "plotly.js" in response.text[:200]
    assert httpx.get(f"{server}/static/../main.py").status_code == 404


def test_trial_page_draws_gpu_utilisation_and_memory_over_time(
    server: str, probed: tuple[str, str], page: Page
):
    url, name = probed
    study = _copy_study(url, name, "on-a-gpu")
    done = next(t for t in study.get_trials() if t.state == optuna.trial.TrialState.COMPLETE)
    record = state.record_of(done)
    assert record.result is not None
    # What the probe's NVML sampler records on a GPU (this machine has none).
    gpu = GpuReading(
        device_name="NVIDIA H100 80GB HBM3",
        util_series=[50 + i % 40 for i in range(40)],
        mem_series=[2**30 + i * 2**20 for i in range(40)],
        util_samples=40,
    )
    result = replace(record.result, gpu=gpu)
    study.add_trial(
        state.new_trial(
            replace(record, role="search", result=result),
            optuna.trial.TrialState.COMPLETE,
            done.value,
            done.params,
            done.distributions,
            done.intermediate_values,
        )
    )
    sync_study(url, study, summarize(study, url))
    number = study.get_trials()[-1].number
    page.open(f"{server}/studies/on-a-gpu/trials/{number}")
    assert page.tab.is_visible("#gpu")
    assert page.points("chart-gpu") == {"utilisation %": 40, "memory GB": 40}
    assert "NVIDIA H100" in page.tab.inner_text("#gpu-table")
    assert page.errors == []


# Markup to Plotly, to HTML and to rich: each must come out as these very characters.
WHY = 'reopened: the data wait rose from 1.2 to 11.4 ms a batch <b>x</b> [red] &amp; "q"'


def test_a_live_run_s_segments_are_drawn_over_time_with_the_reopening_marked(
    server: str, probed: tuple[str, str], page: Page
):
    url, _ = probed
    study = live_study(url, "live-run", why=WHY)
    # Its validation loader, tuned on its own passes: one failed in a pass.
    passes = [
        LivePass(VAL, at_s=10.0 * i, seconds=s, num_workers=n, persistent_workers=n > 0)
        for i, (n, s) in enumerate(((0, 0.9), (2, 0.5), (4, 0.3)))
    ]
    passes[2] = replace(passes[2], abandoned="RuntimeError: <i>no handle</i>")
    state.save_others(
        study,
        OtherLoaders(
            config=LoaderConfig(num_workers=2),
            loaders=[VAL],
            as_written_s=0.9,
            tuned_s=0.5,
            passes=passes,
        ),
    )
    sync_study(url, study, summarize(study, url))
    close_storages()
    page.open(f"{server}/studies/live-run")
    assert page.tab.is_visible("#segments")
    assert page.points("chart-segments") == {"samples/s": 5, "failed": 0}
    drawn = page.tab.evaluate(
        "() => { const gd = document.getElementById('chart-segments');"
        " return {x: gd.data[0].x, y: gd.data[0].y, text: gd.data[0].text,"
        " shapes: gd.layout.shapes.map(s => s.x0)}; }"
    )
    # Each segment where it started, at the job's rate, labelled with its settings.
    assert drawn["x"] == [k * LIVE_SEGMENT_S for k in range(5)]
    items = _api(server, "/studies/live-run/trials")["items"]
    assert drawn["y"] == [t["samples_per_s"] for t in items]
    assert drawn["text"][0] == "workers=0"
    assert drawn["text"][2] == "workers=4 prefetch=2"
    # One reopening (its two segments are one search), marked where it started.
    assert drawn["shapes"] == [3 * LIVE_SEGMENT_S]
    marked = page.tab.locator("#chart-segments .annotation-text").all_text_contents()
    assert marked == [WHY]  # the run's own figures, as text
    # The hover of a segment of two ranks: each rank's rate (rank 1 lags).
    page.tab.evaluate(
        "() => Plotly.Fx.hover(document.getElementById('chart-segments'),"
        " [{curveNumber: 0, pointNumber: 3}])"
    )
    hover = page.tab.text_content("#chart-segments .hoverlayer") or ""
    assert "rank 0: 500 samples/s" in hover and "rank 1: 450 samples/s" in hover
    assert WHY in hover
    # The other loader's passes in order, its name and failure shown as the script wrote them.
    shown = page.tab.locator("#other-passes li").all_text_contents()
    assert shown == [
        f"{VAL}: 0 workers, 0.90 s",
        f"{VAL}: 2 workers, persistent, 0.50 s",
        f"{VAL}: 4 workers, persistent, 0.30 s; failed, went on as written: "
        "RuntimeError: <i>no handle</i>",
    ]
    assert page.tab.locator("#other-passes i").count() == 0  # text, never markup
    assert f"Other loaders ({VAL}): 2 workers" in page.tab.inner_text("#epoch-others")
    assert page.errors == []


def test_a_recommendation_that_starts_slower_says_when_it_pays_back(
    server: str, probed: tuple[str, str], page: Page
):
    url, name = probed
    study = _copy_study(url, name, "starts-slower")
    epoch = Epoch(
        as_written_s=4.0,
        recommended_s=2.5,
        startup_s=0.1,
        first_startup_s=0.1,
        recommended_first_startup_s=6.1,
        payback_epochs=4.0,
    )
    sync_study(url, study, replace(summarize(study, url), epoch=epoch))
    assert _api(server, "/studies/starts-slower")["epoch"]["payback_epochs"] == 4.0
    page.open(f"{server}/studies/starts-slower")
    assert (
        "The run's first start-up: 0.10 s as written, 6.10 s recommended: the recommendation "
        "wins it back after 4.0 epochs; a shorter run is slower with it."
    ) in page.tab.inner_text("#epoch")
    assert page.errors == []
