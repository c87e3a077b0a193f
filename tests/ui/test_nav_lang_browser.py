"""Every page in one language with a switch to the other, and a bar on every plain phone page
that leads back to the ranking (issue 51): /m, /t, /r, /o, /a at 360 px — no empty link, no
page wider than the phone, the English table sheet included — and the Streamlit pages'
switch in the sidebar."""

from __future__ import annotations

import re

import pytest
from conftest import entries, write_csv
from playwright.sync_api import expect

from pipeline.cli import main
from pipeline.day import selfreport
from tests.ui.conftest import Server, shot

pytestmark = pytest.mark.browser
WAIT = 30_000


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nav")
    database = tmp / "e.duckdb"
    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "金陵双人赛乙组", "--ruleset",
                 "jinling-2023-pairs-b", *args]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(tmp / "e.csv", entries(20))),
                 *args]) == 0
    assert main(["pair", "--event", "e", *args]) == 0
    server = Server(database)
    yield server
    server.stop()


def _phone(browser, language: str = "zh-CN"):
    return browser.new_context(viewport={"width": 360, "height": 740}, locale=language)


def _bar(page, ranking: str) -> None:
    """The bar: every link has words, one leads to the event's ranking, one to the other
    language; the page fits the phone."""
    links = page.locator("nav[data-testid=nav] a")
    expect(links.first).to_be_visible(timeout=WAIT)
    words = [w.strip() for w in links.all_inner_texts()]
    assert all(words), words  # never an empty link
    expect(page.locator("[data-testid=nav-ranking]")).to_have_attribute(
        "href", re.compile(re.escape(ranking)))
    expect(page.locator("[data-testid=nav-lang]")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_every_plain_page_has_the_bar_and_the_switch(hall, browser):
    row = selfreport.links(hall.database, "e", 1, hall.url).row(0, named=True)
    context = _phone(browser)
    page = context.new_page()
    try:
        pages = {"m": f"{hall.url}/m/e/", "r": row["ew_url"],
                 "t": row["ns_url"].replace("/r?", "/t?"), "o": f"{hall.url}/o?event=e",
                 "a": f"{hall.url}/a?event=e"}
        for name, url in pages.items():
            page.goto(url)
            _bar(page, "/m/e/")
            shot(page, f"phone-bar-{name}")
        # the switch: the same page in English, and back
        page.goto(pages["m"])
        page.locator("[data-testid=nav-lang]").click()
        expect(page.locator("h1")).to_contain_text("Ranking after", timeout=WAIT)
        expect(page.locator("[data-testid=nav-ranking]")).to_have_text("Ranking")
        page.locator("[data-testid=nav-lang]").click()
        expect(page.locator("h1")).to_contain_text("排名", timeout=WAIT)
    finally:
        context.close()


def test_the_english_table_sheet_fits_360_pixels(hall, browser):
    from pipeline.base import db
    from pipeline.day import tablestore

    row = selfreport.links(hall.database, "e", 1, hall.url).row(1, named=True)
    with db.writing(hall.database) as con:  # a few deals waiting for East-West's answer
        for number in (1, 2, 3):
            tablestore.enter(con, "e", 1, row["table"], row["ns_url"].rsplit("sig=", 1)[1],
                             "ns", row["ns_code"], number, "ew", 2)
    context = _phone(browser, "en-GB")
    page = context.new_page()
    try:
        page.goto(row["ns_url"].replace("/r?", "/t?") + "&lang=en")
        page.locator("input[name=code]").fill(row["ns_code"])
        page.locator("[data-testid=unlock] button").click()
        expect(page.locator("[data-testid=deals] tbody tr")).to_have_count(3, timeout=WAIT)
        _bar(page, "/m/e/?lang=en")
        shot(page, "phone-tablesheet-en")
    finally:
        context.close()


def test_the_streamlit_pages_switch_language(hall, browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(f"{hall.url}/pairings?event=e")
        expect(page.locator("[data-testid=stSidebarNav]")).to_contain_text("实时排名",
                                                                            timeout=60_000)
        page.get_by_role("button", name="English").click()
        expect(page.locator("[data-testid=stSidebarNav]")).to_contain_text("Live ranking",
                                                                            timeout=WAIT)
        assert "lang=en" in page.url and "event=e" in page.url
        page.get_by_role("button", name="中文").click()
        expect(page.locator("[data-testid=stSidebarNav]")).to_contain_text("实时排名",
                                                                            timeout=WAIT)
    finally:
        context.close()
