"""A first-time organizer's day in a real browser at laptop size, without one page reload
(issue 29): a registration sheet made in Excel (title row, 选手一/选手二 headers), round 1
paired with units kept apart, table cards, a partly filled score sheet, a table typed in and
corrected, both sides reporting from phones and a disagreement decided, round 2 paired, the
prize list — then a reload that keeps the login."""

from __future__ import annotations

import pytest
import xlsxwriter
from conftest import RESULT_HEADER, write_csv
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.cli import main
from pipeline.day import selfreport
from tests.ui.conftest import Server, console, idle, open_phase, shot

pytestmark = pytest.mark.browser
PASSWORD = "day-牌赛"
UNITS = ["吴中税务局", "吴中税务局", "苏州邮政", "苏州邮政", "工业园区海关", "工业园区海关",
         "相城商会", "相城商会", "姑苏银行", "姑苏银行", "昆山物流", "昆山物流"]
WAIT = 60_000


def _registration(path):
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("报名")
    sheet.merge_range(0, 0, 0, 5, "2025 春茗会 报名表")
    sheet.write_row(1, 0, ["序号", "队号", "队伍名称", "选手一", "选手二", "所属单位"])
    for i, unit in enumerate(UNITS):
        sheet.write_row(2 + i, 0, [i + 1, f"A{i + 1}", f"{unit[:2]}{i + 1}队", f"赵{i + 1}",
                                   f"钱{i + 1}", unit])
    book.close()
    return path


def _upload(page, path, wait_for: str) -> None:
    page.set_input_files("input[type=file]", str(path))
    page.get_by_text(wait_for).first.wait_for(timeout=WAIT)


def _choose(page, label: str, option: str) -> None:
    """Pick `option` in a select box; opened again when a rerun closed it meanwhile (the
    field left before it commits its value and redraws the page)."""
    for attempt in range(3):
        idle(page)
        page.get_by_label(label).click()
        choice = page.get_by_role("option", name=option, exact=True)
        try:
            choice.wait_for(timeout=10_000)
            choice.click(timeout=10_000)
            return
        except Exception:
            if attempt == 2:
                raise


def _pairs(database, round_no: int) -> list[tuple]:
    with db.reading(database) as con:
        return db.rows(con, "select table_no, ew_team, ns_team from pairings where event_id = "
                            "'day' and round = ? and table_no is not null order by table_no",
                       [round_no])


def _phone_report(context, link: tuple[str, str], ew: str, ns: str, answer: str) -> None:
    url, code = link  # the side's slip: its QR code's address and its printed code
    phone = context.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(url)  # the side's plain form
    phone.locator("input[name=code]").fill(code)
    phone.locator("select[name=ew_level]").select_option(ew)
    phone.locator("select[name=ns_level]").select_option(ns)
    phone.get_by_role("button", name="提交").click()
    phone.get_by_text(answer).wait_for(timeout=WAIT)
    phone.close()


def test_the_organizers_day_without_a_reload(tmp_path, browser, capsys):
    database = tmp_path / "day.duckdb"
    assert main(["event", "create", "--id", "day", "--name", "春茗会", "--ruleset",
                 "suzhou-2025", "--db", str(database)]) == 0
    capsys.readouterr()
    # the server bound for the hall (every interface); this test asks it on loopback only
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD}, args=["--hall"])
    try:
        context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="zh-CN")
        page = context.new_page()
        console(page, server.url, "day", PASSWORD)
        # registration: every column read is shown as it will be stored; 序号 is not read
        _upload(page, _registration(tmp_path / "报名表.xlsx"), "前几行")
        expect(page.locator("table[data-testid=preview-rows]").first).to_contain_text(
            "队员1 ← 选手一", timeout=WAIT)
        expect(page.locator("body")).to_contain_text("未读取的列 columns not read: 序号")
        page.get_by_role("button", name="确认导入").click()
        expect(page.locator("body")).to_contain_text("已导入", timeout=WAIT)
        with db.reading(database) as con:
            assert db.rows(con, "select player1, player2 from teams where event_id = 'day' "
                                "and team_no = 'A3'") == [("赵3", "钱3")]
        # round 1 paired with units kept apart: previewed, then stored
        open_phase(page, "编排")
        page.get_by_role("button", name="先看编排").click()
        expect(page.get_by_role("button", name="确认编排")).to_be_visible(timeout=WAIT)
        idle(page)  # the preview drawn whole (no exception below its button)
        expect(page.get_by_test_id("stMarkdown").filter(has_text="第 1 轮 · 6 桌")).to_be_visible()
        page.get_by_role("button", name="确认编排").click()
        expect(page.locator("body")).to_contain_text("第 1 轮已编排", timeout=WAIT)
        unit = {f"A{i + 1}": u for i, u in enumerate(UNITS)}
        round1 = _pairs(database, 1)
        assert len(round1) == 6 and all(unit[ew] != unit[ns] for _, ew, ns in round1)
        # the hall's projector, on its own screen: round 1's pairings, then it follows alone
        wall = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
        projector = wall.new_page()
        projector.goto(f"{server.url}/pairings?event=day&projector=1")
        expect(projector.locator("body")).to_contain_text("第 1 轮对阵", timeout=WAIT)
        # table cards for the hall
        open_phase(page, "编排")
        page.get_by_role("button", name="生成第 1 轮桌牌").click()
        ready = page.get_by_role("button", name="桌牌 PDF（6 页）")
        try:
            ready.wait_for(timeout=WAIT)
        except Exception:
            shot(page, "day-cards-missing")
            raise
        with page.expect_download(timeout=WAIT) as got:
            ready.click()
        assert got.value.suggested_filename == "day-第1轮-桌牌.pdf"
        # a score sheet with tables 1 and 2 filled in: the others are skipped and named
        open_phase(page, "本轮")
        rows = [RESULT_HEADER] + [[1, t, ew, ns, "K" if t <= 2 else "", "9" if t <= 2 else ""]
                                  for t, ew, ns in round1]
        _upload(page, write_csv(tmp_path / "r1.csv", rows), "未填，已跳过")
        expect(page.locator("body")).to_contain_text("第 3、4、5、6 桌未填")
        page.get_by_role("button", name="确认导入").click()
        expect(page.locator("body")).to_contain_text("已导入: r1.csv", timeout=WAIT)
        # table 3 typed in: no reason asked for a first entry; the confirmation names it
        idle(page)
        page.get_by_label("桌号").fill("3")
        page.get_by_label("桌号").press("Enter")
        idle(page)
        t3 = round1[2]
        expect(page.locator("body")).to_contain_text(f"本桌：东西 {t3[1]} · 南北 {t3[2]}",
                                                     timeout=WAIT)
        _choose(page, f"东西级数 {t3[1]}", "10")
        _choose(page, f"南北级数 {t3[2]}", "8")
        page.get_by_role("button", name="保存").click()
        expect(page.locator("body")).to_contain_text(
            f"已保存第 1 轮第 3 桌：{t3[1]} 10 – {t3[2]} 8", timeout=WAIT)
        # corrected: a reason is asked for, and the confirmation says it was corrected
        _choose(page, f"东西级数 {t3[1]}", "J")
        _choose(page, f"南北级数 {t3[2]}", "8")
        page.get_by_role("button", name="保存").click()
        expect(page.locator("body")).to_contain_text("更正须写原因", timeout=WAIT)
        page.get_by_label("更正须写原因（记入审计）").fill("记分员抄错")
        _choose(page, f"东西级数 {t3[1]}", "J")
        _choose(page, f"南北级数 {t3[2]}", "8")
        page.get_by_role("button", name="保存").click()
        expect(page.locator("body")).to_contain_text(
            f"已更正第 1 轮第 3 桌：{t3[1]} J – {t3[2]} 8", timeout=WAIT)
        # the QR codes are images; the address is the LAN's, not loopback
        page.get_by_text("轮次 1: 6 × 2 QR").click()  # a toggle
        expect(page.locator("[data-testid=stImage] img").first).to_be_visible(timeout=WAIT)
        # the QR codes point at this machine's LAN address, where the hall's server listens
        # (every interface): no "phones cannot connect" (nothing here is sent to that address)
        from pipeline.operations.serve import lan_addresses

        base = page.get_by_label("看板地址").first.input_value()
        if lan_addresses():
            assert base.startswith(f"http://{lan_addresses()[0]}:"), base
        assert page.get_by_text("手机连不上").count() == 0
        # tables 4–6 from the players' phones; at table 6 the sides disagree
        links = selfreport.links(database, "day", 1, server.url)
        side = {(r["table"], s): (r[f"{s}_url"], r[f"{s}_code"])
                for r in links.iter_rows(named=True) for s in ("ew", "ns")}
        for table in (4, 5):
            _phone_report(context, side[(table, "ew")], "A", "7", "等待对方确认")
            _phone_report(context, side[(table, "ns")], "A", "7", "双方一致")
        _phone_report(context, side[(6, "ew")], "Q", "9", "等待对方确认")
        _phone_report(context, side[(6, "ns")], "Q", "10", "与对方所报不一致")
        # the banner at the top tells the organizer by itself: no click, no reload
        expect(page.locator("body")).to_contain_text("双方报的成绩不一致", timeout=WAIT)
        shot(page, "day-disagreement")
        page.get_by_role("button", name="接受").first.click()
        expect(page.locator("body")).to_contain_text("下一步：编排下一轮", timeout=WAIT)
        # round 2 paired; units apart still
        open_phase(page, "编排")
        page.get_by_role("button", name="先看编排").click()
        page.get_by_role("button", name="确认编排").click()
        expect(page.locator("body")).to_contain_text("第 2 轮已编排", timeout=WAIT)
        assert len(_pairs(database, 2)) == 6
        # the projector, never touched, shows round 2's tables
        expect(projector.locator("body")).to_contain_text("第 2 轮对阵", timeout=WAIT)
        expect(projector.locator("body")).to_contain_text(_pairs(database, 2)[0][1])
        wall.close()
        # the prize list waits for the last round, and says why
        open_phase(page, "赛后")
        expect(page.locator("body")).to_contain_text("比赛还没有结束", timeout=WAIT)
        expect(page.locator("table[data-testid=prizes]")).to_contain_text("冠军", timeout=WAIT)
        # a reload keeps the login
        page.reload()
        expect(page.get_by_text("下一步").first).to_be_visible(timeout=WAIT)
        assert page.get_by_label("密码").count() == 0
        shot(page, "day-after-reload")
        context.close()
    finally:
        server.stop()
