"""A whole table kept on two phones at 360 px (issue 42): South enters every deal, East-West
confirms them and disputes one, the dispute is decided, the clock's time-up makes the deal
in play the last, the projector shows the table in play, and both sides' confirmation
stores the result as the ranking counts it (jinling-2023-pairs: A three times → 2)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.cli import main
from tests.ui.conftest import guide_shot, reload, sheet_phone, shot

pytestmark = pytest.mark.browser
WAIT = 30_000


def _enter(page, number: int, winner: str, finish: str) -> None:
    page.locator("select[name=winner]").select_option(winner)
    page.locator("select[name=finish]").select_option(finish)
    page.get_by_role("button", name=f"记录第 {number} 副").click()
    expect(page.locator("[data-testid=levels]")).to_contain_text(f"已记 {number} 副",
                                                                 timeout=WAIT)


def test_a_table_kept_deal_by_deal_on_two_phones(jinling_hall, browser, capsys):
    from pipeline.day import selfreport, tablestore

    row = selfreport.links(jinling_hall.database, "e", 1, jinling_hall.url).row(0, named=True)
    south = sheet_phone(browser, row["ns_url"].replace("/r?", "/t?"), row["ns_code"])
    # East-West (row's ew team) reaches A in four deals, its partner second each time
    for number in range(1, 5):
        _enter(south, number, "ew", "2")
    expect(south.locator("[data-testid=levels]")).to_contain_text("A", timeout=WAIT)
    _enter(south, 5, "ew", "4")  # at its A with its partner last: a failed attempt
    east = sheet_phone(browser, row["ew_url"].replace("/r?", "/t?"), row["ew_code"])
    east.locator("[data-testid=answer-5]").get_by_role("button", name="有异议").click()
    expect(east.locator("[data-testid=disputed]")).to_contain_text("第 5 副有异议",
                                                                   timeout=WAIT)
    reload(south)
    expect(south.locator("[data-testid=disputed]")).to_be_visible(timeout=WAIT)
    assert south.locator("[data-testid=enter]").count() == 0  # frozen until decided
    tablestore.decide(jinling_hall.database, "e", 1, 1, 5, keep=True)  # the referee: as entered
    # time is up while deal 6 is in play: it is the last (deals.after_time = finish_deal)
    assert main(["clock", "start", "--event", "e", "--db", str(jinling_hall.database)]) == 0
    assert main(["clock", "stop", "--event", "e", "--db", str(jinling_hall.database)]) == 0
    reload(south)
    _enter(south, 6, "ns", "2")  # NS wins at EW's A: EW's second failure, NS 2 → 5
    expect(south.locator("[data-testid=over]")).to_contain_text("时间到", timeout=WAIT)
    expect(south.locator("[data-testid=clock]")).to_contain_text("本轮已结束", timeout=WAIT)
    shot(south, "table-sheet-south")
    guide_shot(south, "table-sheet-south", full_page=True)
    reload(east)
    for number in (1, 2, 3, 4, 6):
        east.locator(f"[data-testid=answer-{number}]").get_by_role(
            "button", name=f"确认 {number}").click()
        expect(east.locator(f"[data-testid=answer-{number}]")).to_have_count(0, timeout=WAIT)
    shot(east, "table-sheet-east-west")
    projector = browser.new_page(viewport={"width": 1920, "height": 1080})
    projector.goto(f"{jinling_hall.url}/live?event=e&projector=1")
    expect(projector.locator("table[data-testid=in-play]")).to_contain_text("待双方确认",
                                                                           timeout=60_000)
    expect(projector.locator("[data-testid=in-play-total]")).to_contain_text(
        "1 桌逐副记分，已记 6 副", timeout=WAIT)
    # the ranking if the round ended now, said to be provisional: East-West (at A) first
    expect(projector.locator("[data-testid=progress]")).to_contain_text("临时排名",
                                                                        timeout=WAIT)
    expect(projector.locator("table[data-testid=provisional] tbody tr").first).to_contain_text(
        row["ew_team"], timeout=WAIT)
    shot(projector, "table-sheet-projector")
    east.get_by_role("button", name="确认本桌结果").click()
    expect(east.locator("[data-testid=message]")).to_contain_text("等待对方确认", timeout=WAIT)
    reload(south)
    south.get_by_role("button", name="确认本桌结果").click()
    expect(south.locator("[data-testid=message]")).to_contain_text("本桌成绩已保存",
                                                                   timeout=WAIT)
    with db.reading(jinling_hall.database) as con:
        assert db.rows(con, "select table_no, ew_level, ns_level, deals from results "
                            "where event_id = 'e'") == [(1, 14, 5, 6)]
    expect(projector.locator("table[data-testid=in-play] tbody tr")).to_have_count(
        0, timeout=60_000)
    projector.close()
