"""The projector at 1920×1080 never hides a column or a row (issue 51): seed 001's 乙组 — 20
teams, 10 tables keeping their sheets — shows the tables in play and the provisional ranking
a page at a time, every rank on some page, the QR code beside the tables and never over
them; a result a confirmed ruling overturned is marked on the latest-result line; and the
round's clock stops on the final podium."""

from __future__ import annotations

import pytest
from conftest import entries, write_csv
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.cli import main
from pipeline.day import selfreport, tablestore
from pipeline.officials import people, rulings
from pipeline.ranking import rounds
from tests.ui.conftest import Server, shot

pytestmark = pytest.mark.browser
RESULTS = ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"]


def _event(tmp_path) -> tuple:
    """Round 1 stored (every EW team at A, every NS at 5), round 2 paired."""
    database = tmp_path / "e.duckdb"
    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "金陵双人赛乙组", "--ruleset",
                 "jinling-2023-pairs-b", *args]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(tmp_path / "e.csv", entries(20))),
                 *args]) == 0
    assert main(["pair", "--event", "e", *args]) == 0
    with db.reading(database) as con:
        first = rounds.pairings(con, "e", 1)
    rows = [RESULTS] + [[1, r["table"], r["ew_team"], r["ns_team"], "A", "5"]
                        for r in first.iter_rows(named=True)]
    assert main(["ingest", "--event", "e", str(write_csv(tmp_path / "r1.csv", rows)),
                 *args]) == 0
    return database, first


def _projector(browser, url: str):
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    page = context.new_page()
    page.goto(f"{url}/live?event=e&projector=1")
    return context, page


def _clear(page, table: str) -> None:
    """The QR code's box and the table's never overlap; the table's last row is on screen.
    Read in one step of the page's own script, waited for while the projector redraws (a
    table between two drawings has no box)."""
    boxes = page.wait_for_function(
        """table => {
            const box = e => { const r = e && e.getBoundingClientRect();
                               return r && r.width ? [r.x, r.y, r.width, r.height] : null; };
            const qr = box(document.querySelector('[data-testid=phones-qr]'));
            const t = box(document.querySelector(`table[data-testid=${table}]`));
            return qr && t ? {qr, t} : null; }""", arg=table, timeout=30_000).json_value()
    (qx, qy, _, _), (x, y, width, height) = boxes["qr"], boxes["t"]
    assert qx >= x + width or qy >= y + height, boxes
    assert y + height <= 1080, boxes


def test_the_tables_in_play_and_every_rank_a_page_at_a_time(tmp_path, browser, capsys):
    database, _ = _event(tmp_path)
    with db.writing(database) as con:  # round 1 stored an hour ago: its time never the deals'
        con.execute("update results set updated_at = updated_at - interval 1 hour "
                    "where event_id = 'e'")
    assert main(["pair", "--event", "e", "--db", str(database)]) == 0
    for row in selfreport.links(database, "e", 2, "http://x").iter_rows(named=True):
        with db.writing(database) as con:  # South enters a deal at every table
            tablestore.enter(con, "e", 2, row["table"], row["ns_url"].rsplit("sig=", 1)[1],
                             "ns", row["ns_code"], 1, "ew", 2)
    capsys.readouterr()
    server = Server(database)
    context, page = _projector(browser, server.url)
    try:
        expect(page.locator("[data-testid=in-play-total]")).to_contain_text("10 桌",
                                                                            timeout=60_000)
        expect(page.locator("table[data-testid=in-play] tbody tr")).to_have_count(10)
        with db.reading(database) as con:  # the teams by name too (entries(): A7 is 队伍7)
            table_1 = rounds.pairings(con, "e", 2).row(0, named=True)
        first_row = page.locator("table[data-testid=in-play] tbody tr").first
        for team in (table_1["ew_team"], table_1["ns_team"]):
            expect(first_row).to_contain_text(f"队伍{team[1:]}", timeout=30_000)
        expect(page.locator("table[data-testid=in-play] thead")).to_contain_text("东西队名")
        progress = page.locator("[data-testid=progress]")
        expect(progress).to_contain_text("页", timeout=30_000)
        seen: set[str] = set()
        ranks = page.locator("table[data-testid=provisional] tbody tr td:first-child")
        for _ in range(3):  # 20 ranks, 8 beside the 10 tables a page: three pages
            page.wait_for_function(
                "seen => { const c = [...document.querySelectorAll("
                "'table[data-testid=provisional] tbody tr td:first-child')];"
                " return c.length && c.some(x => !seen.includes(x.innerText.trim())); }",
                arg=sorted(seen), timeout=30_000)
            seen |= {r.strip() for r in ranks.all_inner_texts()}
            _clear(page, "provisional")
            _clear(page, "in-play")
        assert {str(n) for n in range(1, 21)} <= seen, sorted(seen)
        # the time of the last change: a deal of this round (not round 1's results)
        with db.reading(database) as con:
            stored = db.scalar(con, "select max(updated_at) from results where event_id = 'e'")
        expect(progress).not_to_contain_text(f"更新于 {stored:%H:%M:%S}")
        shot(page, "projector-in-play-pages")
    finally:
        context.close()
        server.stop()


def test_a_result_a_ruling_overturned_is_marked(tmp_path, browser, capsys):
    database, first = _event(tmp_path)
    args = ["--db", str(database)]
    for name, role in (("ref", "referee"), ("chief", "chief")):
        assert main(["officials", "add", name, "--role", role, "--password",
                     f"{name}-pass-1", *args]) == 0
    table = first.row(0, named=True)
    referee = people.sign_in(database, "ref", "ref-pass-1")
    chief = people.sign_in(database, "chief", "chief-pass-1")
    ruling = rulings.propose(database, "e", referee, 1, table["ew_team"], "ruled_loss",
                             reason="illegal card")
    rulings.decide(database, "e", chief, ruling, True)
    capsys.readouterr()
    server = Server(database)
    context, page = _projector(browser, server.url)
    try:
        feed = page.locator("[data-testid=feed]")
        expect(feed).to_contain_text(
            f"第 1 轮最新成绩：{table['table']} 号桌 {table['ew_team']} A – {table['ns_team']} 5 "
            f"[裁定改判：{table['ew_team']} 判负]", timeout=60_000)
        _clear(page, "ranking")
        shot(page, "projector-overturned")
    finally:
        context.close()
        server.stop()


def test_the_clock_stops_on_the_final_podium(tmp_path, browser, capsys, demo_day):
    from pipeline.base import events
    from pipeline.day import clockstore

    database = tmp_path / "demo.duckdb"
    demo_day(database)
    # the last round's clock was left running when its last table was stored
    assert main(["clock", "start", "--event", "demo-2026-spring", "--db", str(database)]) == 0
    with db.reading(database) as con:
        assert clockstore.status(con, events.load(con, "demo-2026-spring")).state == "running"
    capsys.readouterr()
    server = Server(database)
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(f"{server.url}/live?event=demo-2026-spring&projector=1")
        expect(page.locator("[data-testid=podium]")).to_be_visible(timeout=60_000)
        clock = page.locator("[data-testid=clock]")
        expect(clock).to_have_attribute("data-state", "over", timeout=30_000)
        expect(clock).to_contain_text("比赛结束")
        expect(clock).not_to_contain_text(":")  # no time counting on
    finally:
        context.close()
        server.stop()
