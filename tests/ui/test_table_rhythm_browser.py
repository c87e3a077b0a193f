"""A table at its real rhythm on two 360-px phones (issues 49 and 51), against the real
server: South enters the deals, East-West confirms each while South already has the next one
half chosen — no deal ever entered twice, the sheets following the table by themselves (no
reload), a reload sending no form — a level game reported on the both-sides phone form
(seed 001's preset: 末副上游方 decides), and the address the hall prints (/m/) landing on
the event, not a blank page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.cli import main
from tests.ui.conftest import reload, sheet_phone, shot

pytestmark = pytest.mark.browser
WAIT = 30_000


def _row_state(page, number: int):
    return page.locator("[data-testid=deals] tbody tr").filter(
        has=page.locator(f"td:first-child:text-is('{number}')"))


def test_south_never_enters_a_deal_twice_and_the_sheets_follow_the_table(jinling_hall, browser):
    from pipeline.day import selfreport

    row = selfreport.links(jinling_hall.database, "e", 1, jinling_hall.url).row(0, named=True)
    south = sheet_phone(browser, row["ns_url"].replace("/r?", "/t?"), row["ns_code"])
    east = sheet_phone(browser, row["ew_url"].replace("/r?", "/t?"), row["ew_code"])
    plan = [("ew", "2"), ("ns", "3"), ("ew", "4"), ("ns", "2"), ("ew", "3")]
    for number, (winner, finish) in enumerate(plan, start=1):
        enter = south.locator("[data-testid=enter]")
        expect(enter).to_contain_text(f"第 {number} 副", timeout=WAIT)
        if number > 1:  # the deal half chosen while East-West answers the one before
            enter.locator("select[name=winner]").select_option(winner)
            # East-West's open sheet shows deal N-1 by itself (no reload) and confirms it
            answer = east.locator(f"[data-testid=answer-{number - 1}]")
            answer.get_by_role("button", name=f"确认 {number - 1}").click()
            expect(east.locator("[data-testid=message]")).to_contain_text("已记录",
                                                                          timeout=WAIT)
            # South's page knows the sheet changed, and keeps what is chosen
            expect(south.locator("[data-testid=changed]")).to_be_visible(timeout=WAIT)
            expect(enter.locator("select[name=winner]")).to_have_value(winner)
        else:
            enter.locator("select[name=winner]").select_option(winner)
        enter.locator("select[name=finish]").select_option(finish)
        enter.get_by_role("button", name=f"记录第 {number} 副").click()
        expect(south.locator("[data-testid=message]")).to_contain_text("已记录", timeout=WAIT)
        expect(south.locator("[data-testid=levels]")).to_contain_text(f"已记 {number} 副",
                                                                      timeout=WAIT)
    # the levels after each deal, by hand (seed 001: partner 2nd +3, 3rd +2, last +1):
    # EW 2→5; NS 2→4; EW 5→6; NS 4→7; EW 6→8
    for number, (ew, ns) in enumerate([(5, 2), (5, 4), (6, 4), (6, 7), (8, 7)], start=1):
        expect(_row_state(south, number).locator("td").nth(2)).to_have_text(str(ew))
        expect(_row_state(south, number).locator("td").nth(3)).to_have_text(str(ns))
    shot(south, "table-rhythm-south")
    # East-West's sheet shows deal 5 by itself; its confirmation reaches South's open page
    # by itself too (nothing typed there now): the state column turns 已确认
    east.locator("[data-testid=answer-5]").get_by_role("button", name="确认 5").click()
    expect(_row_state(south, 5)).to_contain_text("已确认", timeout=WAIT)
    shot(east, "table-rhythm-east-west")
    # a reload reads the page again: it sends no form, nothing is entered twice
    reload(south)
    expect(south.locator("[data-testid=levels]")).to_contain_text("已记 5 副", timeout=WAIT)
    with db.reading(jinling_hall.database) as con:
        assert db.rows(con, "select deal, winner_side, partner_finish, status from "
                            "table_sheet_deals where event_id = 'e' and table_no = 1 order "
                            "by deal") == [(n, w, int(f), "confirmed")
                                           for n, (w, f) in enumerate(plan, start=1)]


def test_a_level_game_is_reported_on_the_phone_form(jinling_hall, browser):
    from pipeline.day import selfreport

    row = selfreport.links(jinling_hall.database, "e", 1, jinling_hall.url).row(1, named=True)
    phones = {side: sheet_phone(browser, row[f"{side}_url"]) for side in ("ew", "ns")}
    east = phones["ew"]
    east.locator("input[name=code]").fill(row["ew_code"])
    east.locator("select[name=ew_level]").select_option("K")
    east.locator("select[name=ns_level]").select_option("K")
    east.get_by_role("button", name="提交").click()
    # refused saying which field and why, the form as it was filled
    expect(east.locator("[data-testid=note]")).to_contain_text("末副上游方", timeout=WAIT)
    expect(east.locator("select[name=ew_level]")).to_have_value("K")
    expect(east.locator("select[name=ns_level]")).to_have_value("K")
    shot(east, "level-game-refused")
    east.locator("input[name=code]").fill(row["ew_code"])
    east.locator("select[name=decider]").select_option("ns")
    east.get_by_role("button", name="提交").click()
    expect(east.locator("body")).to_contain_text("已提交，等待对方确认", timeout=WAIT)
    south = phones["ns"]
    south.locator("input[name=code]").fill(row["ns_code"])
    south.locator("select[name=ew_level]").select_option("K")
    south.locator("select[name=ns_level]").select_option("K")
    south.locator("select[name=decider]").select_option("ns")
    south.get_by_role("button", name="提交").click()
    expect(south.locator("body")).to_contain_text("双方一致，成绩已保存", timeout=WAIT)
    with db.reading(jinling_hall.database) as con:
        assert db.rows(con, "select ew_level, ns_level, last_deal_side from results where "
                            "event_id = 'e' and table_no = 2") == [(13, 13, "ns")]


def test_the_printed_hall_address_lands_on_the_event(jinling_hall, browser, capsys):
    phone = browser.new_page(viewport={"width": 360, "height": 780})
    for address in ("/m/", "/m"):
        phone.goto(jinling_hall.url + address)
        expect(phone.locator("h1")).to_contain_text("排名", timeout=WAIT)
        assert phone.url.endswith("/m/e/")
    # two events in play: the address lists both to choose from
    assert main(["event", "create", "--id", "f", "--name", "第二个赛事", "--ruleset",
                 "suzhou-2025", "--db", str(jinling_hall.database)]) == 0
    phone.goto(jinling_hall.url + "/m/")
    listed = phone.locator("[data-testid=events]")
    expect(listed).to_contain_text("第二个赛事", timeout=WAIT)
    expect(listed).to_contain_text("金陵双人赛", timeout=WAIT)
    listed.get_by_role("link", name="金陵双人赛").click()
    expect(phone.locator("h1")).to_contain_text("排名", timeout=WAIT)
    phone.close()
