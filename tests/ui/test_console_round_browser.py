"""A round in a real browser from pairing to every table reported (issue 22): the console's
missing list shrinks as results arrive, both sides confirm a table from their phones, a
disagreement is decided, an accepted report is undone and the table reported again."""

from __future__ import annotations

import re

import pytest
from conftest import entries, write_csv
from playwright.sync_api import expect

from pipeline.cli import main
from pipeline.day import selfreport
from tests.ui.conftest import Server, console, guide_shot, shot

pytestmark = pytest.mark.browser
PASSWORD = "round-牌赛"


def _login(page, url):
    """The console (logged in once per browser: a reload keeps the login)."""
    console(page, url, "r", PASSWORD)


TEAMS = {1: ("A1", "A2"), 2: ("A3", "A4"), 3: ("A5", "A6")}  # drawn by team number


def _report(context, table: int, link: tuple[str, str], ew: str, ns: str,
            answer: str) -> None:
    url, code = link  # the side's slip: its QR code's address and its printed code
    phone = context.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(url)  # the side's plain form (no Streamlit session)
    phone.wait_for_selector(f"text=第 1 轮 {table} 号桌报成绩", timeout=60_000)
    phone.get_by_label("本方验证码").fill(code)
    east, south = (f"{side} {team}" for side, team in zip(("东西", "南北"), TEAMS[table],
                                                          strict=True))
    phone.get_by_label(east).select_option(ew)
    phone.get_by_label(south).select_option(ns)
    phone.get_by_role("button", name="提交").click()
    phone.wait_for_selector(f"text={answer}", timeout=30_000)
    phone.close()


def test_a_round_from_pairing_to_every_table_reported(tmp_path, browser, capsys):
    database = tmp_path / "round.duckdb"
    db_args = ["--db", str(database)]
    assert main(["event", "create", "--id", "r", "--name", "六队赛", "--ruleset", "suzhou-2025",
                 *db_args]) == 0
    assert main(["ingest", "--event", "r", str(write_csv(tmp_path / "e.csv", entries(6))),
                 *db_args]) == 0
    assert main(["pair", "--event", "r", *db_args]) == 0  # A1–A2, A3–A4, A5–A6
    capsys.readouterr()
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD})
    try:
        links = selfreport.links(database, "r", 1, server.url)
        side = {(r["table"], s): (r[f"{s}_url"], r[f"{s}_code"])
                for r in links.iter_rows(named=True) for s in ("ew", "ns")}
        context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                      locale="zh-CN")
        admin = context.new_page()
        _login(admin, server.url)
        admin.wait_for_selector("text=未报：第 1、2、3 桌", timeout=60_000)
        # table 1: both sides send K–9 from their own phones
        _report(context, 1, side[(1, "ew")], "K", "9", "已提交，等待对方确认")
        _report(context, 1, side[(1, "ns")], "K", "9", "双方一致，成绩已保存")
        # table 2: they disagree; the organizer decides for North-South
        _report(context, 2, side[(2, "ew")], "10", "8", "已提交，等待对方确认")
        _report(context, 2, side[(2, "ns")], "10", "9", "与对方所报不一致")
        _login(admin, server.url)
        admin.wait_for_selector("text=未报：第 2、3 桌", timeout=60_000)
        admin.wait_for_selector("text=双方所报不一致", timeout=30_000)
        shot(admin, "console-disagreement")
        admin.get_by_text("双方所报不一致").first.scroll_into_view_if_needed()
        guide_shot(admin, "console-disagreement")
        admin.get_by_role("button", name="接受").nth(1).click()
        admin.wait_for_selector("text=未报：第 3 桌", timeout=60_000)
        # the decision taken back: table 2 is missing again
        admin.get_by_role("button", name=re.compile("撤销上一步")).click()
        expect(admin.locator("body")).to_contain_text("已撤销", timeout=60_000)
        _login(admin, server.url)
        admin.wait_for_selector("text=未报：第 2、3 桌", timeout=60_000)
        # tables 2 and 3 reported by both sides: the round is complete
        for table, (ew, ns) in ((2, ("10", "9")), (3, ("A", "J"))):
            _report(context, table, side[(table, "ew")], ew, ns, "已提交，等待对方确认")
            _report(context, table, side[(table, "ns")], ew, ns, "双方一致，成绩已保存")
        _login(admin, server.url)
        admin.wait_for_selector("text=下一步：编排下一轮", timeout=60_000)
        assert "未报：" not in admin.inner_text("body")
        shot(admin, "console-round-complete")
        context.close()
    finally:
        server.stop()
