"""The officials' day on their phones at 360 px (issue 43), seed 001's preset: a referee
records a warning and slow play (two warnings: a violation), proposes the round lost, tries
another referee's table and is refused; the chief arbiter confirms the proposal and the
ranking follows; the team leader appeals by the team's link in time (a late appeal is
refused with its time); two of the three committee members uphold it on their phones and
the ranking changes back."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import RESULT_HEADER, entries, read_csv_output, write_csv
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.cli import main
from tests.ui.conftest import Server, guide_shot, reload, shot

pytestmark = pytest.mark.browser
WAIT = 30_000


def _hall(database, folder):
    """Eight teams paired, six officials, table 1 stored, through the real `main`: (ew, ns)
    of table 1."""
    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "j", "--name", "金陵双人赛", "--ruleset",
                 "jinling-2023-pairs", *args]) == 0
    assert main(["ingest", "--event", "j", str(write_csv(folder / "e.csv", entries(8))),
                 *args]) == 0
    assert main(["pair", "--event", "j", *args]) == 0
    for name, role, tables in (("裁判甲", "referee", "1-2"), ("裁判乙", "referee", "3-4"),
                               ("裁判长", "chief", None), ("委员一", "committee", None),
                               ("委员二", "committee", None), ("委员三", "committee", None)):
        extra = ["--tables", tables] if tables else []
        assert main(["officials", "add", name, "--role", role, "--password", f"pass-{name}",
                     *extra, *args]) == 0
    with db.reading(database) as con:
        ew, ns = db.rows(con, "select ew_team, ns_team from pairings where event_id = 'j' "
                              "and round = 1 and table_no = 1")[0]
    sheet = write_csv(folder / "r.csv", [RESULT_HEADER, [1, 1, ew, ns, "5", "过A"]])
    assert main(["ingest", "--event", "j", str(sheet), *args]) == 0
    return ew, ns


@pytest.fixture
def hall(tmp_path, prepared):
    """The hall served on a file of the test's own, its database made once per test
    process (`prepared`): each test changes its own copy."""
    database = tmp_path / "o.duckdb"
    ew, ns = prepared(_hall, database)
    server = Server(database)
    yield server, ew, ns
    server.stop()


def _phone(browser, url: str, name: str):
    context = browser.new_context(viewport={"width": 360, "height": 780}, locale="zh-CN")
    page = context.new_page()
    page.goto(f"{url}/o?event=j")
    page.locator("input[name=name]").fill(name)
    page.locator("input[name=password]").fill(f"pass-{name}")
    page.get_by_role("button", name="登录").click()
    expect(page.locator("[data-testid=me]")).to_contain_text(name, timeout=WAIT)
    return page


def _points(database, team: str, capsys) -> str:
    capsys.readouterr()
    assert main(["standings", "--event", "j", "--format", "csv", "--db", str(database)]) == 0
    rows = read_csv_output(capsys.readouterr().out)
    return next(r["match_points"] for r in rows if r["team_no"] == team)


def _record(page, team: str, kind: str, shown: str) -> None:
    form = page.locator("[data-testid=record]")
    form.locator("select[name=team]").select_option(team)
    form.locator("select[name=kind]").select_option(kind)
    form.get_by_role("button", name="记录").click()
    expect(page.locator(f"[data-testid=count-{team}]")).to_contain_text(shown, timeout=WAIT)


def test_the_officials_day_on_their_phones(hall, browser, capsys):
    from pipeline.officials import appeals, links

    server, ew, ns = hall
    assert _points(server.database, ns, capsys) == "2"
    referee = _phone(browser, server.url, "裁判甲")
    expect(referee.locator("[data-testid=tables]")).to_contain_text("已报", timeout=WAIT)
    referee.locator("[data-testid=tables] a", has_text="1").first.click()
    expect(referee.locator("[data-testid=table-title]")).to_contain_text("1 号桌", timeout=WAIT)
    _record(referee, ns, "warning", "警告 1 · 违例 0")
    _record(referee, ns, "slow_play", "警告 2 · 违例 1")  # two warnings: a violation
    propose = referee.locator("[data-testid=propose]")
    propose.locator("select[name=team]").select_option(ns)
    propose.locator("select[name=kind]").select_option("ruled_loss")
    propose.locator("input[name=reason]").fill("多次违例，提议判负")
    propose.get_by_role("button", name="提交裁判长").click()
    expect(referee.locator("[data-testid=message]")).to_contain_text("待裁定", timeout=WAIT)
    shot(referee, "officials-referee")
    guide_shot(referee, "officials-referee", full_page=True)
    # another referee's table: refused
    referee.goto(f"{server.url}/o/table?event=j&round=1&table=3")
    expect(referee.locator("[data-testid=message]")).to_contain_text("不是你负责的桌",
                                                                     timeout=WAIT)
    assert _points(server.database, ns, capsys) == "2"  # a proposal counts nothing yet
    chief = _phone(browser, server.url, "裁判长")
    proposal = chief.locator("[data-testid^=proposal-]").first
    expect(proposal).to_contain_text("多次违例", timeout=WAIT)
    shot(chief, "officials-chief")
    proposal.get_by_role("button", name="确认").click()
    expect(chief.locator("[data-testid=message]")).to_contain_text("已确认", timeout=WAIT)
    assert _points(server.database, ns, capsys) == "0"
    assert _points(server.database, ew, capsys) == "2"
    # a late appeal is refused with its time; the team leader's link in time is taken
    with db.reading(server.database) as con:
        ruling, decided = db.rows(con, "select ruling_id, decided_at from official_rulings "
                                       "where status = 'confirmed'")[0]
    with pytest.raises(appeals.LateAppeal, match="已过截止时间"):
        appeals.appeal(server.database, "j", ruling, ns, "desk",
                       at=decided + dt.timedelta(minutes=10, seconds=1))
    row = links.listing(server.database, "j", server.url).filter(
        links.pl.col("team_no") == ns).row(0, named=True)
    leader = browser.new_context(viewport={"width": 360, "height": 780},
                                 locale="zh-CN").new_page()
    leader.goto(row["appeal_url"])
    form = leader.locator("[data-testid=appeal]")
    form.locator("input[name=code]").fill(row["appeal_code"])
    form.locator("input[name=fee]").fill("800 元")
    form.locator("input[name=statement]").fill("慢打不应算作警告")
    form.get_by_role("button", name="提交申诉").click()
    expect(leader.locator("[data-testid=message]")).to_contain_text("申诉已提交", timeout=WAIT)
    shot(leader, "officials-appeal")
    for name in ("委员一", "委员二"):
        member = _phone(browser, server.url, name)
        appeal = member.locator("[data-testid^=appeal-]").first
        expect(appeal).to_contain_text("慢打不应算作警告", timeout=WAIT)
        expect(appeal.locator("[data-testid=countdown]")).to_contain_text("分钟答复",
                                                                          timeout=WAIT)
        if name == "委员一":
            shot(member, "officials-committee")
        appeal.get_by_role("button", name="支持申诉").click()
        expect(member.locator("[data-testid=message]")).to_contain_text(
            "待仲裁" if name == "委员一" else "申诉成立", timeout=WAIT)
    assert _points(server.database, ns, capsys) == "2"  # the ranking changes back
    leader.goto(row["appeal_url"])  # the leader's link tells the outcome (issue 51)
    expect(leader.locator("[data-testid^=outcome-]").first).to_contain_text("申诉成立，裁定已撤销",
                                                                       timeout=WAIT)


def _fits(page) -> None:
    """Nothing wider than a 360-px phone (no sideways scrolling)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_a_referee_withdraws_a_mistake_and_decides_a_disagreement(hall, browser):
    """Issue 51 at 360 px: a record entered twice taken back from the referee's phone; the
    two sides' reports that disagree listed on the referee's and the chief's pages (never
    as 未报) and decided from the referee's phone; a second appeal refused."""
    from pipeline.day import selfreport

    server, ew, ns = hall
    with db.writing(server.database) as con:
        secret = selfreport.ensure_secret(con, "j")
        t2 = db.rows(con, "select ew_team, ns_team from pairings where event_id = 'j' and "
                          "round = 1 and table_no = 2")[0]
    said = selfreport.submit_many(server.database, [selfreport.Report(
        "j", 1, 2, selfreport.sign(secret, "j", 1, 2, side), lv, "5", side,
        selfreport.side_code(secret, "j", 1, 2, side)) for side, lv in (("ew", "K"),
                                                                         ("ns", "Q"))])
    assert said[-1] == "disagree"
    chief = _phone(browser, server.url, "裁判长")
    row = chief.locator("[data-testid=tables] tr", has_text="双方所报不一致")
    expect(row).to_contain_text("双方所报不一致", timeout=WAIT)
    referee = _phone(browser, server.url, "裁判甲")
    expect(referee.locator("[data-testid=tables]")).to_contain_text("双方所报不一致",
                                                                     timeout=WAIT)
    referee.goto(f"{server.url}/o/table?event=j&round=1&table=2")
    for _ in range(2):  # the same warning entered twice by mistake
        form = referee.locator("[data-testid=record]")
        form.locator("select[name=team]").select_option(t2[0])
        form.locator("select[name=kind]").select_option("warning")
        form.get_by_role("button", name="记录").click()
        expect(referee.locator("[data-testid=message]")).to_contain_text("已记录",
                                                                         timeout=WAIT)
    expect(referee.locator(f"[data-testid=count-{t2[0]}]")).to_contain_text("警告 2 · 违例 1",
                                                                            timeout=WAIT)
    _fits(referee)
    shot(referee, "officials-withdraw")
    referee.locator("[data-testid=records] form").last.get_by_role(
        "button", name="撤回此记录（误记）").click()
    expect(referee.locator("[data-testid=message]")).to_contain_text("记录已撤回", timeout=WAIT)
    expect(referee.locator(f"[data-testid=count-{t2[0]}]")).to_contain_text("警告 1 · 违例 0",
                                                                            timeout=WAIT)
    expect(referee.locator("[data-testid=records]")).to_contain_text("已撤回", timeout=WAIT)
    reports = referee.locator("[data-testid=reports]")
    expect(reports).to_contain_text("东西：K – 5", timeout=WAIT)
    expect(reports).to_contain_text("南北：Q – 5", timeout=WAIT)
    _fits(referee)
    referee.locator("[data-testid=report-ns]").get_by_role("button", name="按此保存").click()
    expect(referee.locator("[data-testid=message]")).to_contain_text("已按所选桌报保存",
                                                                     timeout=WAIT)
    reload(chief)
    expect(chief.locator("[data-testid=tables]")).not_to_contain_text("双方所报不一致",
                                                                      timeout=WAIT)
    with db.reading(server.database) as con:
        assert db.rows(con, "select ew_level, ns_level from results where event_id = 'j' and "
                            "round = 1 and table_no = 2") == [(12, 5)]
