"""A whole Tractor match kept on two phones at 360 px (issue 42): side A records every deal
(seed 000's preset: 4 decks, 160 to take over, from 3, best of three, two trump cards add
two levels, the match clock started from the sheet), side B confirms them and disputes one,
the dispute is decided (taken off and entered again), a deal is ruled lost, the bracket's
projector page shows the match in play, and both sides' confirmation stores the games."""

from __future__ import annotations

import json

import pytest
from conftest import write_csv
from playwright.sync_api import expect

from pipeline.cli import main
from tests.ui.conftest import Server, guide_shot, reload, sheet_phone, shot

pytestmark = pytest.mark.browser
WAIT = 30_000


@pytest.fixture
def hall(tmp_path, capsys):
    database = tmp_path / "k.duckdb"
    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "tr", "--name", "恒全杯拖拉机", "--ruleset",
                 "hengquan-2025-tractor", *args]) == 0
    rows = [["队号", "队名", "队员1", "队员2"]] + [[f"T{i}", f"拖{i}队", f"甲{i}", f"乙{i}"]
                                              for i in range(1, 5)]
    assert main(["ingest", "--event", "tr", str(write_csv(tmp_path / "e.csv", rows)),
                 *args]) == 0
    assert main(["bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
                 "--seed", "1", *args]) == 0
    capsys.readouterr()
    server = Server(database)
    yield server
    server.stop()


def _enter(page, number: int, points: int, declarer: str | None = None, trump: str = "1",
           bottom: int = 0, multiplier: int = 1) -> None:
    form = page.locator("[data-testid=enter]")
    if declarer:
        form.locator("select[name=declarer]").select_option(declarer)
    form.locator("input[name=points]").fill(str(points))
    form.locator("input[name=bottom]").fill(str(bottom))
    form.locator("input[name=multiplier]").fill(str(multiplier))
    form.locator("select[name=trump]").select_option(trump)
    form.get_by_role("button", name=f"记录第 {number} 盘").click()
    expect(page.locator("[data-testid=levels]")).to_contain_text(f"已记 {number} 盘",
                                                                 timeout=WAIT)


def test_a_tractor_match_kept_deal_by_deal_on_two_phones(hall, browser, capsys):
    from pipeline.day import tractorstore

    row = tractorstore.links(hall.database, "tr", hall.url).row(0, named=True)
    recorder = sheet_phone(browser, row["a_url"], row["a_code"])
    recorder.get_by_role("button", name="开始本场计时").click()
    expect(recorder.locator("[data-testid=clock]")).to_contain_text("本场剩余 90 分钟",
                                                                    timeout=WAIT)
    # game 1 by hand: A declares, 30 (20 in play + the bottom's 5 × 2): A 3 → 7; A, 170: B
    # takes over; B, 0 with two trump cards: B +7 → 10; B, 45: +3 → K
    _enter(recorder, 1, 20, declarer="a", bottom=5, multiplier=2)
    _enter(recorder, 2, 170)
    _enter(recorder, 3, 0, trump="2")
    _enter(recorder, 4, 80)  # a slip: 80 (+3 as well), disputed below
    checker = sheet_phone(browser, row["b_url"], row["b_code"])
    for number in (1, 2, 3):
        checker.locator(f"[data-testid=answer-{number}]").get_by_role(
            "button", name=f"确认 {number}").click()
        expect(checker.locator(f"[data-testid=answer-{number}]")).to_have_count(0,
                                                                              timeout=WAIT)
    checker.locator("[data-testid=answer-4]").get_by_role("button", name="有异议").click()
    expect(checker.locator("[data-testid=disputed]")).to_contain_text("第 4 盘有异议",
                                                                      timeout=WAIT)
    reload(recorder)
    expect(recorder.locator("[data-testid=disputed]")).to_be_visible(timeout=WAIT)
    assert recorder.locator("[data-testid=enter]").count() == 0  # frozen until decided
    # the projector's bracket page shows the match in play, the dispute marked
    projector = browser.new_page(viewport={"width": 1920, "height": 1080})
    projector.goto(f"{hall.url}/bracket?event=tr&projector=1")
    expect(projector.locator("table[data-testid=matches-in-play]")).to_contain_text(
        "有异议", timeout=60_000)
    shot(projector, "match-sheet-projector")
    tractorstore.decide(hall.database, "tr", row["stage"], row["match"], 4, keep=False)
    # the recorder's open sheet follows by itself (no reload): deal 4 gone, due again; a
    # reload reads the page again and sends no form (every form answered with a redirect)
    expect(recorder.locator("[data-testid=enter]")).to_contain_text("记录第 4 盘",
                                                                    timeout=WAIT)
    reload(recorder)
    expect(recorder.locator("[data-testid=levels]")).to_contain_text("已记 3 盘", timeout=WAIT)
    _enter(recorder, 4, 45)  # entered again: B +3 → K
    _enter(recorder, 5, 100)  # B +2: K → 过A, game 1 to B
    expect(recorder.locator("[data-testid=levels]")).to_contain_text("局分 0–1", timeout=WAIT)
    # game 2: A declares; A's card found wrong after its trick — A loses the deal, B up 3
    ruled = recorder.locator("[data-testid=ruled]")
    ruled.locator("summary").click()
    ruled.locator("select[name=declarer]").select_option("a")
    ruled.locator("select[name=lost_by]").select_option("a")
    ruled.locator("input[name=ruled_levels]").fill("3")
    ruled.get_by_role("button", name="记录判负").click()
    expect(recorder.locator("[data-testid=levels]")).to_contain_text("已记 6 盘", timeout=WAIT)
    _enter(recorder, 7, 0)  # B holds: 6 → J
    _enter(recorder, 8, 0)  # B: J → 过A, the match to B 2–0
    expect(recorder.locator("[data-testid=over]")).to_contain_text("本场已结束", timeout=WAIT)
    shot(recorder, "match-sheet-recorder")
    guide_shot(recorder, "match-sheet-recorder", full_page=True)
    reload(checker)
    for number in (4, 5, 6, 7, 8):
        checker.locator(f"[data-testid=answer-{number}]").get_by_role(
            "button", name=f"确认 {number}").click()
        expect(checker.locator(f"[data-testid=answer-{number}]")).to_have_count(0,
                                                                              timeout=WAIT)
    checker.get_by_role("button", name="确认本场结果").click()
    expect(checker.locator("[data-testid=message]")).to_contain_text("等待对方确认", timeout=WAIT)
    shot(checker, "match-sheet-checker")
    reload(recorder)
    recorder.get_by_role("button", name="确认本场结果").click()
    expect(recorder.locator("[data-testid=message]")).to_contain_text("本场成绩已保存",
                                                                      timeout=WAIT)
    expect(projector.locator("table[data-testid=matches-in-play]")).to_have_count(
        0, timeout=60_000)
    projector.close()
    capsys.readouterr()
    assert main(["bracket", "--event", "tr", "--format", "json", "--db",
                 str(hall.database)]) == 0
    view = json.loads(capsys.readouterr().out)
    stored = next(m for s in view["stages"] for m in s["matches"] if m["match"] == row["match"])
    assert stored["games"] == [[7, 15], [3, 15]] and stored["winner"] == row["team_b"]
