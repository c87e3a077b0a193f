"""A dashboard server on a free port and a headless Debian Chromium driven by Playwright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.operations.serve import (
    free_port,
    running_phones_port,
    wait_until_listening,
    wait_until_up,
)

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


class Server:
    def __init__(self, database: Path, env: dict | None = None, args: list[str] | None = None):
        self.database = database
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        exe = Path(sys.executable).parent / "paisai"
        ARTIFACTS.mkdir(exist_ok=True)
        # the server's own words, kept for a failing test's reading (tests/artifacts)
        self.log = ARTIFACTS / f"server-{self.port}.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(exe), "dashboard", "--db", str(database), "--port", str(self.port),
                 *(args or [])],
                env={**os.environ, **(env or {})}, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)  # its own process group
        if not wait_until_up(self.port):
            self.stop()
            raise RuntimeError("the dashboard did not start")
        # the phones' process's port (`dashboard.phones`), the hall's own when none runs
        self.phones_port = running_phones_port(database) or self.port
        self.phones_url = f"http://127.0.0.1:{self.phones_port}"
        if self.phones_port != self.port and not wait_until_listening(self.phones_port):
            self.stop()
            raise RuntimeError("the phones' process did not start")

    def stop(self) -> None:
        """`paisai dashboard` stops its server on SIGTERM; the whole group is ended after
        that all the same, so that nothing a test started is left running."""
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's Chromium is missing: `make test` installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="zh-CN")
    yield context.new_page()
    context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


GUIDE_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "guide" / "img"


def guide_image(save, name: str) -> None:
    """A picture for the organizer's guide, written by `save(path)`: always into
    tests/artifacts/guide; with PAISAI_GUIDE_SHOTS=1 (`make guide`) also into docs/guide/img,
    the copy the guide shows. tests/test_guide.py checks that every picture the guide shows is
    taken by some test."""
    folders = [ARTIFACTS / "guide"] + ([GUIDE_IMAGES] if os.environ.get("PAISAI_GUIDE_SHOTS")
                                       else [])
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        save(str(folder / f"{name}.png"))


def guide_shot(target, name: str, full_page: bool = False) -> None:
    """A guide picture of a page or of one element (a Playwright locator)."""
    extra = {"full_page": True} if full_page else {}
    guide_image(lambda path: target.screenshot(path=path, **extra), name)


def console(page, url: str, event: str, password: str, phase: str | None = None) -> None:
    """Open the console on `event`: log in when asked (a login survives a reload in the same
    browser), wait until it shows where the event stands, and open `phase` (its button's
    words) when given."""
    from playwright.sync_api import expect

    page.goto(f"{url}/admin?event={event}")
    field = page.get_by_label("密码")
    status = page.get_by_text("下一步")
    field.or_(status).first.wait_for(timeout=60_000)
    if field.is_visible():
        field.fill(password)
        page.get_by_role("button", name="登录").click()
    expect(status.first).to_be_visible(timeout=60_000)
    if phase:
        open_phase(page, phase)


def open_phase(page, phase: str) -> None:
    """Click one of the console's phases (赛前 / 编排 / 本轮 / 赛后) by its first words."""
    idle(page)
    page.locator("[data-testid=stButtonGroup] button", has_text=phase).click()
    idle(page)


def idle(page, timeout: float = 60_000) -> None:
    """Wait until the page's script has finished drawing (Streamlit marks its app element
    while a run is under way), so that the next click lands on what it is meant for."""
    page.wait_for_function(
        "() => { const app = document.querySelector('[data-testid=stApp]');"
        " return app && app.dataset.testScriptState !== 'running'; }", timeout=timeout)
    # a page that drew an exception box is a failure wherever the test looks next (a preview
    # crashed below its button while the test went on with the button)
    crashed = page.locator("[data-testid=stException]")
    assert crashed.count() == 0, crashed.first.inner_text()


def _jinling(database: Path, folder: Path) -> None:
    """jinling_hall's event, registered and paired through the real `main`."""
    from conftest import entries, write_csv

    from pipeline.cli import main

    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "金陵双人赛", "--ruleset",
                 "jinling-2023-pairs", *args]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(folder / "e.csv", entries(4))),
                 *args]) == 0
    assert main(["pair", "--event", "e", *args]) == 0


@pytest.fixture
def jinling_hall(tmp_path, prepared):
    """A pairs event of four teams (jinling-2023-pairs) paired for round 1, served: the
    file made once per test process (`prepared`), each test serving its own copy."""
    database = tmp_path / "t.duckdb"
    prepared(_jinling, database)
    server = Server(database)
    yield server
    server.stop()


def sheet_phone(browser, url: str, code: str | None = None, wait: float = 30_000):
    """A 360-px phone on a table's sheet (`/t`, `/k`), its side's code entered if given."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 360, "height": 780}, locale="zh-CN")
    page = context.new_page()
    page.goto(url)
    if code:
        page.locator("input[name=code]").fill(code)
        page.get_by_role("button", name="开始记分/确认").click()
        expect(page.locator("[data-testid=message]")).to_contain_text("验证码正确",
                                                                      timeout=wait)
    return page


def reload(page, tries: int = 3) -> None:
    """Reload a phone's page. The page may navigate by itself at the same moment — a sheet
    reads itself again when the table's mark changes (follow.js: the other side just
    answered), a plain page at its meta refresh —: Chromium then aborts one of the two
    navigations (net::ERR_ABORTED, "frame was detached"). The page is loaded all the same
    once the other one ends, so the reload waits for that load and is asked again."""
    from playwright.sync_api import Error

    for attempt in range(tries):
        try:
            page.reload()
            return
        except Error as exc:
            if attempt == tries - 1 or not any(
                    sign in str(exc) for sign in ("ERR_ABORTED", "frame was detached")):
                raise
            page.wait_for_load_state("load")
