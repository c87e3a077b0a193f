"""The console redraws itself (issue 51): a result stored from the command line and a
referee's proposal from the officials' phone show on an open console within seconds, no
click, and what the organizer was typing meanwhile is still there; the English console
speaks English."""

from __future__ import annotations

import re

import pytest
from conftest import entries, write_csv
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.cli import main
from pipeline.officials import people, rulings
from pipeline.ranking import rounds
from tests.ui.conftest import ARTIFACTS, Server, idle, shot

pytestmark = pytest.mark.browser
PASSWORD = "redraw-pw"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _group_b(database, folder):
    """The event, its pairing and its referee through the real `main`."""
    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "Group B", "--ruleset",
                 "jinling-2023-pairs-b", *args]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(folder / "e.csv", entries(20))),
                 *args]) == 0
    assert main(["pair", "--event", "e", *args]) == 0
    assert main(["officials", "add", "ref", "--role", "referee", "--password", "ref-pass-1",
                 *args]) == 0


@pytest.fixture
def hall(tmp_path, prepared):
    """Seed 001's 乙组 as the hall has it: 20 teams, round 1 paired (10 tables), a referee;
    the file made once per test process (`prepared`), each test serving its own copy."""
    database = tmp_path / "e.duckdb"
    prepared(_group_b, database)
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD})
    yield server
    server.stop()


def _console(browser, url: str):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="en-GB")
    page = context.new_page()
    page.goto(f"{url}/admin?event=e&lang=en")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("Next step").first).to_be_visible(timeout=60_000)
    idle(page)
    return context, page


def _phase(page, words: str) -> None:
    idle(page)
    page.locator("[data-testid=stButtonGroup] button", has_text=words).click()
    idle(page)


def test_the_console_follows_the_hall_and_keeps_what_is_typed(hall, browser, tmp_path):
    context, page = _console(browser, hall.url)
    try:
        _phase(page, "Before")
        status = page.locator("[data-testid=stMetric]").nth(1)
        expect(status).to_contain_text("0/10", timeout=30_000)
        search = page.get_by_label("Check-in: search")
        search.click()
        search.press_sequentially("A1", delay=40)  # typed, not yet sent (no Enter)
        with db.reading(hall.database) as con:
            first = rounds.pairings(con, "e", 1).row(0, named=True)
        sheet = write_csv(tmp_path / "r1.csv", [
            ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"],
            [1, first["table"], first["ew_team"], first["ns_team"], "A", "9"]])
        assert main(["ingest", "--event", "e", str(sheet), "--db", str(hall.database)]) == 0
        expect(status).to_contain_text("1/10", timeout=15_000)  # no click
        expect(search).to_have_value("A1")  # the organizer's typing is still there
        # a referee's proposal from their phone reaches the chief's queue on the console
        _phase(page, "Officials")
        expect(page.locator("body")).to_contain_text("No proposal waiting", timeout=30_000)
        referee = people.sign_in(hall.database, "ref", "ref-pass-1")
        with db.reading(hall.database) as con:
            second = rounds.pairings(con, "e", 1).row(1, named=True)
        rulings.propose(hall.database, "e", referee, 1, second["ew_team"], "ruled_loss",
                        reason="slow play")
        expect(page.locator("body")).to_contain_text("slow play", timeout=15_000)
        body = page.locator("section.main, [data-testid=stMain]").first.inner_text()
        shot(page, "console-redraw-en")
        mixed = [line for line in body.splitlines() if CJK.search(line)
                 and "Group B" not in line]
        assert not mixed, mixed  # the English console speaks English
    finally:
        context.close()
    assert "No runtime found" not in hall.log.read_text()  # a quiet start (issue 51)


def test_the_error_table_fits_a_laptop(hall, browser, tmp_path):
    """A refused sheet's errors at 1366 px: every column on screen, the messages wrapped."""
    from tests.ui.test_console_browser import _upload

    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(f"{hall.url}/admin?event=e")
        page.get_by_label("密码", exact=True).fill(PASSWORD)
        page.get_by_role("button", name="登录").click()
        expect(page.get_by_text("下一步").first).to_be_visible(timeout=60_000)
        _phase(page, "本轮")
        long_name = "第一轮成绩表（乙组，炼油运行部与机关各队，裁判长核对后交记分台）.csv"
        bad = write_csv(tmp_path / long_name, [
            ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"],
            [1, 1, "A1", "A2", "16", "9"], [1, 2, "A3", "A4", "K", "十七"]])
        _upload(page, bad, "table[data-testid=problems]")
        table = page.locator("table[data-testid=problems]")
        expect(table).to_contain_text("不是有效的级数", timeout=30_000)
        wrap = table.locator("xpath=..")
        fits = wrap.evaluate("w => w.scrollWidth <= w.clientWidth + 1")
        wrap.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "console-errors-1366.png"))
        assert fits, wrap.evaluate("w => [w.scrollWidth, w.clientWidth]")
    finally:
        context.close()
