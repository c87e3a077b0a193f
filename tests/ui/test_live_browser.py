"""The dashboard in a real browser: the projector page shows what `paisai standings` says."""

from __future__ import annotations

import polars as pl
import pytest
from conftest import read_csv_output
from playwright.sync_api import expect

from pipeline.cli import main
from tests.ui.conftest import Server, shot

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory, demo_day):
    database = tmp_path_factory.mktemp("dash") / "demo.duckdb"
    demo_day(database)
    server = Server(database)
    yield server
    server.stop()


def _ranking_rows(page):
    page.wait_for_selector("table[data-testid=ranking] tbody tr", timeout=30_000)
    return page.eval_on_selector_all(
        "table[data-testid=ranking] tbody tr",
        "rows => rows.map(r => Array.from(r.cells).map(c => c.innerText.trim()))")


def test_live_shows_the_same_ranking_as_the_cli(demo_server, page, capsys):
    main(["standings", "--event", "demo", "--format", "csv", "--db", str(demo_server.database)])
    expected = [[r["rank"], r["team_no"], r["team_name"], r["played"], r["wins"], r["draws"],
                 r["losses"], r["match_points"], r["level_diff_score"], r["levels"],
                 r["net_levels"]] for r in read_csv_output(capsys.readouterr().out)]
    page.goto(f"{demo_server.url}/live?event=demo")
    # waits until every row reads as the CLI's (a page still loading is read again)
    expect(page.locator("table[data-testid=ranking] tbody tr")).to_have_text(
        [" ".join(row) for row in expected], use_inner_text=True, timeout=60_000)
    expect(page.locator("body")).to_contain_text("已报 8/8 桌", timeout=30_000)
    shot(page, "live")


def test_projector_mode_has_no_sidebar_and_large_rows(demo_server, page):
    page.goto(f"{demo_server.url}/live?event=demo&projector=1")
    _ranking_rows(page)
    assert page.locator("[data-testid=stSidebar]").count() == 0 or \
        not page.locator("[data-testid=stSidebar]").is_visible()
    size = page.locator("table[data-testid=ranking] td").first.evaluate(
        "c => parseFloat(getComputedStyle(c).fontSize)")
    assert size >= 28
    shot(page, "live-projector")


def test_pairings_page_finds_a_table(demo_server, page):
    page.goto(f"{demo_server.url}/pairings?event=demo")
    page.wait_for_selector("table[data-testid=pairings]", timeout=30_000)
    page.get_by_label("查找我的座位（队号、队名或姓名）").fill("A1")
    page.keyboard.press("Enter")
    expect(page.locator("table[data-testid=found]")).to_contain_text("A1", timeout=30_000)
    shot(page, "pairings")


def test_history_page_in_the_browser(demo_server, page, capsys):
    main(["ratings", "--format", "csv", "--db", str(demo_server.database)])
    rated = read_csv_output(capsys.readouterr().out)
    assert len(rated) > 32  # the demo day's events share some players, not all
    page.goto(f"{demo_server.url}/history")
    page.get_by_text("评分榜").click()
    expect(page.locator("table[data-testid=leaderboard] tbody tr")).to_have_count(
        min(len(rated), 100), timeout=30_000)
    shot(page, "history")


def _round_two_results(tmp_path, database, pairs) -> None:
    """The demo's round 2, every table A–9, stored from the command line."""
    sheet = tmp_path / "r2.csv"
    sheet.write_text("轮次,桌号,东西队号,南北队号,东西级数,南北级数\n" + "".join(
        f"2,{r['table']},{r['ew_team']},{r['ns_team']},A,9\n"
        for r in pairs.iter_rows(named=True) if r["ns_team"]), encoding="utf-8")
    assert main(["ingest", "--event", "demo", str(sheet), "--db", str(database)]) == 0


def test_projector_pairings_follow_a_new_round_without_a_reload(tmp_path, page, demo_day):
    """Issue 39: /pairings?projector=1 showed round 2's tables under round 3's header until
    reloaded. The demo's round 2 is paired; its results and round 3's pairing are stored
    from outside (the CLI): the projector shows round 3's tables by itself."""
    database = tmp_path / "demo.duckdb"
    demo_day(database)
    server = Server(database)
    try:
        page.goto(f"{server.url}/pairings?event=demo&projector=1")
        expect(page.locator("h1")).to_contain_text("第 2 轮对阵", timeout=60_000)
        from pipeline.base import db
        from pipeline.ranking import rounds
        with db.reading(database) as con:
            pairs = rounds.pairings(con, "demo", 2)
        _round_two_results(tmp_path, database, pairs)
        assert main(["pair", "--event", "demo", "--db", str(database)]) == 0
        with db.reading(database) as con:
            first = rounds.pairings(con, "demo", 3).row(0, named=True)
        expect(page.locator("h1")).to_contain_text("第 3 轮对阵", timeout=30_000)
        expect(page.locator("table[data-testid=pairings] tbody tr").first).to_contain_text(
            first["ew_team"], timeout=30_000)
    finally:
        server.stop()


def test_the_final_projector_shows_the_prizes_as_awarded(demo_server, browser):
    """Issue 39: the end of the day at 1920×1080 — a podium that matches the prize list (two
    季军, two cards), no emoji a projector's fonts may lack, every team on some page, the
    prize list a page of its own, legible sizes, and a QR code to the phones' pages."""
    from pipeline.base import db, events
    from pipeline.ranking import awards
    with db.reading(demo_server.database) as con:
        prizes = awards.award_list(con, events.load(con, "demo-2026-spring"))
    top = list(dict.fromkeys(prizes["award"].to_list()))[:3]
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(f"{demo_server.url}/live?event=demo-2026-spring&projector=1")
        cards = page.locator("[data-testid=podium] > div")
        expect(cards).to_have_count(prizes.filter(prizes["award"].is_in(top)).height,
                                    timeout=60_000)
        text = page.locator("[data-testid=podium]").inner_text()
        assert not any(ord(c) >= 0x1F000 for c in text)  # no emoji
        # located, not read once: the projector redraws (pages turn) and a locator waits
        name_size = page.locator("[data-testid=podium] > div > div:nth-child(2)").first \
            .evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        line_size = page.locator("[data-testid=progress]").first.evaluate(
            "e => parseFloat(getComputedStyle(e).fontSize)")
        assert name_size >= 32 and line_size >= 28
        bottom = page.wait_for_function(  # read when a page of the ranking is on (pages turn)
            "() => { const t = document.querySelector('table[data-testid=ranking]');"
            " return t && t.rows.length > 1 && t.getBoundingClientRect().bottom; }",
            timeout=45_000).json_value()
        assert bottom <= 1080  # the page's rows all on screen
        expect(page.locator("[data-testid=phones-qr] img")).to_be_visible()
        expect(page.locator("table[data-testid=prizes]")).to_contain_text(top[0],
                                                                           timeout=45_000)
        shot(page, "live-final-prizes")
    finally:
        context.close()


def test_the_projector_screens_follow_the_event_from_outside(tmp_path, browser, demo_day):
    """Issue 39: nothing stale, ever. The projector's ranking and the Tractor bracket, each
    on its own screen, are left alone while the event changes from the command line: the
    round's last results (the ranking says 第 2 轮后), the semi-finals played and the final
    drawn (the bracket shows it) — each screen shows it by itself, no reload."""
    import random

    from pipeline.base import db, events
    from pipeline.intake.ingest import ingest_file
    from pipeline.operations.demo import GAME_COLUMNS, TRACTOR_ID, _match
    from pipeline.operations.simulate import write_sheets
    from pipeline.ranking import rounds
    from pipeline.tractor import stages

    database = tmp_path / "demo.duckdb"
    demo_day(database)
    server = Server(database)
    wall = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    try:
        ranking = wall.new_page()
        ranking.goto(f"{server.url}/live?event=demo&projector=1")
        expect(ranking.locator("[data-testid=progress]")).to_contain_text(
            "第 1 轮后", timeout=60_000)  # round 2 paired, nothing reported yet
        bracket = wall.new_page()
        bracket.goto(f"{server.url}/bracket?event={TRACTOR_ID}&projector=1")
        expect(bracket.get_by_role("heading", name="半决赛", exact=True)).to_be_visible(
            timeout=60_000)
        assert bracket.get_by_role("heading", name="决赛", exact=True).count() == 0
        # round 2's results from the command line
        with db.reading(database) as con:
            pairs = rounds.pairings(con, "demo", 2)
        _round_two_results(tmp_path, database, pairs)
        expect(ranking.locator("[data-testid=progress]")).to_contain_text(
            "第 2 轮后", timeout=30_000)
        # the semi-finals played and the final drawn, outside the dashboard
        with db.reading(database) as con:
            event = events.load(con, TRACTOR_ID)
            shown = stages.view(con, event)
        strength = {t: 1.0 for s in shown["stages"] for m in s["matches"]
                    for t in (m["team_a"], m["team_b"]) if t}
        rows = [row for s in shown["stages"] for m in s["matches"]
                if m["winner"] is None and m["team_b"] is not None
                for row in _match(random.Random(5), s["name"], m, strength,
                                  event.ruleset.tractor["games_to_win"])]
        assert rows  # the semi-finals were waiting
        semis = tmp_path / "semis"
        write_sheets(pl.DataFrame(rows, schema=GAME_COLUMNS, orient="row"), "matches", semis)
        ingest_file(database, TRACTOR_ID, semis.with_suffix(".xlsx"))
        with db.writing(database) as con:
            final = stages.next_stage(con, events.load(con, TRACTOR_ID), seed=3)
        assert final == "决赛"
        expect(bracket.get_by_role("heading", name=final, exact=True)).to_be_visible(
            timeout=30_000)
    finally:
        wall.close()
        server.stop()
