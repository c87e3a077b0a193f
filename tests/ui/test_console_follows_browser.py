"""The console follows what the hall stores (issue 39): a sheet from the command line and two
phones that disagree show on the open console by themselves — no click, no reload — within
seconds (the status, the tables not reported, the banner, the waiting reports), and the
disagreement is decided right under the banner that announces it."""

from __future__ import annotations

import polars as pl
import pytest
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.cli import main
from pipeline.day import selfreport
from pipeline.ranking import rounds
from tests.ui.conftest import Server, console

pytestmark = pytest.mark.browser
PASSWORD = "follow-pw"


def test_the_console_shows_the_hall_and_decides_under_its_banner(tmp_path, browser, demo_day):
    database = tmp_path / "demo.duckdb"
    demo_day(database)
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD})
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="zh-CN")
    page = context.new_page()
    try:
        console(page, server.url, "demo", PASSWORD, phase="本轮")
        with db.reading(database) as con:
            pairs = rounds.pairings(con, "demo", 2).filter(pl.col("ns_team").is_not_null())
        expected = pairs.height
        expect(page.locator("body")).to_contain_text(f"0/{expected}", timeout=60_000)
        first = pairs.row(0, named=True)
        sheet = tmp_path / "r2.csv"
        sheet.write_text("轮次,桌号,东西队号,南北队号,东西级数,南北级数\n"
                         f"2,{first['table']},{first['ew_team']},{first['ns_team']},A,9\n",
                         encoding="utf-8")
        missing = page.get_by_text("未报", exact=False).first
        expect(missing).to_contain_text(f"：{first['table']} 号桌", timeout=20_000)
        assert main(["ingest", "--event", "demo", str(sheet), "--db", str(database)]) == 0
        # nothing clicked: the console redraws itself when the event changes
        expect(page.locator("body")).to_contain_text(f"1/{expected}", timeout=30_000)
        expect(missing).not_to_contain_text(f"：{first['table']} 号桌", timeout=20_000)
        # two phones of table 2 disagree: the banner and the waiting reports appear
        links = selfreport.links(database, "demo", 2, server.url).row(1, named=True)
        for side, ns in (("ew", "9"), ("ns", "10")):
            selfreport.submit(database, "demo", 2, links["table"],
                              links[f"{side}_url"].rsplit("sig=", 1)[1], "A", ns, side,
                              links[f"{side}_code"])
        expect(page.locator("body")).to_contain_text("双方报的成绩不一致", timeout=30_000)
        expect(page.locator("body")).to_contain_text("待确认的桌报: 2", timeout=20_000)
        # the decision is taken right under the banner (not a page further down)
        banner = page.locator("[data-testid=stAlertContentError]").first
        accept = page.get_by_role("button", name="接受").first
        gap = accept.bounding_box()["y"] - banner.bounding_box()["y"]
        assert 0 < gap < 400, gap
        accept.click()
        expect(page.locator("body")).to_contain_text("待确认的桌报: 0", timeout=20_000)
    finally:
        context.close()
        server.stop()
