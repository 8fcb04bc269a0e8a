"""Text from a script, served: the REST API gives it back whole as JSON, and the dashboard in
real headless Chromium shows it as text. No markup is read, no script runs, no element is
injected, and a 5,000-character line does not widen the page."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from autotune.api import create_app
from fastapi.testclient import TestClient

from tests.hostile import ARG, DATASET, LONG, MORE, REASON, SHOWN_AS_IS, Probed, probe_hostile

pytestmark = pytest.mark.slow  # one real probe for the module

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> Probed:
    done = probe_hostile(tmp_path_factory.mktemp("hostile"))
    assert done.code == 0, done.out + done.err
    return done


@pytest.fixture(scope="module")
def client(probed: Probed) -> Iterator[TestClient]:
    with TestClient(create_app(probed.url)) as c:
        yield c


def _path(probed: Probed, rest: str = "") -> str:
    return f"/api/v1/studies/{quote(probed.study, safe='')}{rest}"


def _failed(client: TestClient, probed: Probed) -> list[dict[str, Any]]:
    items = client.get(_path(probed, "/trials")).json()["items"]
    failed = [t for t in items if t["state"] == "fail"]
    assert failed, items
    return failed


def test_the_api_gives_the_text_back_whole(client: TestClient, probed: Probed) -> None:
    listed = client.get("/api/v1/studies").json()["items"]
    assert [s["name"] for s in listed] == [probed.study]
    study = client.get(_path(probed))
    assert study.status_code == 200
    assert study.headers["content-type"].startswith("application/json")
    detail = study.json()
    assert detail["args"] == ["--tag", ARG]
    assert detail["script"] == str(probed.script)
    assert detail["measured_loader"]["dataset"] == DATASET
    assert detail["failures"] and all(f["reason"] == REASON for f in detail["failures"])
    for trial in _failed(client, probed):
        assert trial["reason"] == REASON
        one = client.get(_path(probed, f"/trials/{trial['number']}")).json()
        tail = one["output_tail"]
        # The output keeps the 5,000-character line whole, and the lines after it as they
        # were printed; bytes that were not UTF-8 and NUL are U+FFFD.
        assert f"{LONG}\n{MORE}" in tail
        assert "bytes:\ufffd\ufffd nul:\ufffd" in tail
        assert "\x00" not in tail


def test_the_pages_escape_names_and_forbid_other_scripts(
    client: TestClient, probed: Probed
) -> None:
    page = client.get(f"/studies/{quote(probed.study, safe='')}")
    assert page.status_code == 200
    html = page.text
    assert "<i>x" not in html and "&lt;i&gt;x" in html  # the study's name, from the file name
    policy = page.headers["content-security-policy"]
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">autotune.studyPage(' in html
    assert "default-src 'self'" in policy and "object-src 'none'" in policy


# --- the dashboard in Chromium ------------------------------------------------------------

browser_only = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"{CHROMIUM} is missing: `apt-get install chromium chromium-driver` (.ci/run does)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(probed: Probed) -> Iterator[str]:
    port = _free_port()
    code = (
        "import uvicorn; from autotune.api import create_app; "
        f"uvicorn.run(create_app({probed.url!r}), host='127.0.0.1', port={port}, "
        "log_level='warning')"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/api/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the server did not start")
                time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class Tab:
    """A browser tab that records console errors, uncaught exceptions and every dialog an
    injected ``alert`` would open."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, url: str, ready: str = "body[data-ready]") -> None:
        self.page.goto(url)
        self.page.wait_for_selector(ready, timeout=15_000)

    def count(self, selector: str) -> int:
        return int(self.page.evaluate("s => document.querySelectorAll(s).length", selector))

    def sizes(self, selector: str) -> list[tuple[int, int]]:
        found = self.page.evaluate(
            "s => [...document.querySelectorAll(s)].map(e => [e.offsetWidth, e.offsetHeight])",
            selector,
        )
        assert found, selector
        return [(int(w), int(h)) for w, h in found]

    def fits(self, selector: str) -> bool:
        """The element is no wider than the card around it: nothing pushed past the page."""
        return bool(
            self.page.evaluate(
                "s => { const e = document.querySelector(s);"
                " return e.scrollWidth <= e.closest('.card').clientWidth + 1; }",
                selector,
            )
        )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        yield b
        b.close()


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    t = Tab(browser)
    yield t
    t.page.close()


def _as_text(tab: Tab) -> None:
    """Nothing the script wrote became an element, and nothing ran."""
    assert tab.count("main img, main script, main iframe, main [onerror]") == 0
    assert tab.count("#trials b, #trials i, #details b, #details i, #output b") == 0
    assert tab.dialogs == []
    assert tab.errors == []


@browser_only
@pytest.mark.browser
def test_the_dashboard_shows_the_text_as_text(server: str, probed: Probed, tab: Tab) -> None:
    tab.open(f"{server}/", ready="#studies tbody tr")
    row = tab.page.inner_text("#studies tbody tr")
    assert probed.study in row and ARG in row

    tab.open(f"{server}/studies/{quote(probed.study, safe='')}")
    assert tab.page.inner_text("#title") == probed.study
    assert ARG in tab.page.inner_text("#subtitle")
    # The command to copy quotes each word for a shell, as the CLI's does.
    assert tab.page.inner_text("#command").endswith(f" -- --tag '{ARG}'")
    assert f"--study '{probed.study}'" in tab.page.inner_text("#command")
    table = tab.page.inner_text("#trials")
    for piece in [*SHOWN_AS_IS, "\\x1b[31mred\\x1b[0m", "(in DataLoader worker process 0)"]:
        assert piece in table, piece
    # A failed trial's reason (4,700 L's of it unbroken) is cut to its start in the table,
    # whole on hover: its cell stays a few lines of a readable width.
    for width, height in tab.sizes("#trials td.text"):
        assert 150 < width <= 640 and height <= 200, (width, height)
    title = tab.page.get_attribute("#trials tr.fail td.text", "title") or ""
    assert "<script>alert(1)</script>" in title and "(in DataLoader worker process 0)" in title
    # Plotly's hover box for the failed trial: its text, as text.
    tab.page.evaluate(
        "() => { const gd = document.getElementById('chart-history');"
        " const failed = gd.data.findIndex(t => t.name === 'failed');"
        " Plotly.Fx.hover(gd, [{curveNumber: failed, pointNumber: 0}]); }"
    )
    hover = tab.page.text_content("#chart-history .hoverlayer")
    assert hover is not None and "<script>alert(1)</script>" in hover and "[bold]x[/]" in hover
    _as_text(tab)

    number = _failed_number(server, probed)
    tab.open(f"{server}/studies/{quote(probed.study, safe='')}/trials/{number}")
    details = tab.page.inner_text("#details")
    assert "<script>alert(1)</script>" in details and "\\x1b[31mred" in details
    output = tab.page.text_content("#output pre") or ""
    assert LONG in output and "second <b>line</b> \\x1b]0;title\\x07\\x1b[2J" in output
    assert tab.fits("#details") and tab.fits("#output pre")
    _as_text(tab)


def _failed_number(server: str, probed: Probed) -> int:
    items = httpx.get(f"{server}{_path(probed, '/trials')}").json()["items"]
    return int(next(t["number"] for t in items if t["state"] == "fail"))
