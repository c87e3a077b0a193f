"""The officials (issue 43) through the real CLI and a real DuckDB file: people and their
hashed passwords, the ladder at a referee's own tables, proposals the chief confirms (the
ranking counts them only then), leave, appeals in and out of time, the committee's majority
reversing a ruling, and the report opening as a spreadsheet. Expected values by hand from
docs/rules/general.md §12 and seed 001."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import RESULT_HEADER, entries, read_csv_output, write_csv

from pipeline.base import db
from pipeline.base.errors import UsageError


def _hall(database, folder):
    """The event through the real `main`, and its officials."""
    from pipeline.cli import main
    from pipeline.officials import people

    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "j", "--name", "金陵", "--ruleset",
                 "jinling-2023-pairs", *args]) == 0
    assert main(["ingest", "--event", "j", str(write_csv(folder / "e.csv", entries(8))),
                 *args]) == 0
    assert main(["pair", "--event", "j", *args]) == 0
    made = {}
    for name, role, tables in (("裁判甲", "referee", "1-2"), ("裁判乙", "referee", "3-4"),
                               ("裁判长", "chief", None), ("委员一", "committee", None),
                               ("委员二", "committee", None), ("委员三", "committee", None)):
        made[name] = people.add(database, name, role, tables, "pass-" + name)[0]
    return made


@pytest.fixture
def hall(prepared, db_file):
    """jinling-2023-pairs (seed 001: 2 warnings make a violation, 3 violations lose the
    round, 2 ruled losses suspend), 8 teams paired for round 1, and its officials: built
    once per test process (`prepared`), each test changing its own copy."""
    return dict(prepared(_hall, db_file))


def _table(db_file, table_no):
    with db.reading(db_file) as con:
        return db.rows(con, "select ew_team, ns_team from pairings where event_id = 'j' and "
                            "round = 1 and table_no = ?", [table_no])[0]


def _standing(cli, team):
    rows = read_csv_output(cli("standings", "--event", "j", "--format", "csv").out)
    return next(r for r in rows if r["team_no"] == team)


def test_passwords_are_stored_hashed_and_checked(cli, db_file, hall):
    from pipeline.officials import people

    with db.reading(db_file) as con:
        stored = db.rows(con, "select name, password_hash from officials")
    assert all(h.startswith("$argon2") and "pass-" not in h for _, h in stored)
    assert people.sign_in(db_file, "裁判甲", "pass-裁判甲").role == "referee"
    assert people.sign_in(db_file, "裁判甲", "wrong") is None
    for _ in range(people.FAILURES_TO_LOCK - 1):
        people.sign_in(db_file, "裁判甲", "wrong")
    with pytest.raises(people.LockedOut):  # locked, whatever the password
        people.sign_in(db_file, "裁判甲", "pass-裁判甲")
    listed = cli("officials", "list", "--format", "csv")
    assert listed.code == 0 and "裁判长" in listed.out and "argon2" not in listed.out
    added = cli("officials", "add", "报到一", "--role", "desk")
    assert added.code == 0 and "shown this once" in added.out
    assert cli("officials", "add", "报到二", "--role", "desk", "--tables", "1").code == 2
    assert cli("officials", "disable", "报到一").code == 0


def test_the_ladder_a_proposal_the_chief_an_appeal_the_committee(cli, db_file, hall):
    from pipeline.officials import appeals, records, rulings, votes

    ew, ns = _table(db_file, 1)
    # NS wins table 1: 过A against 5
    sheet = write_csv(db_file.parent / "r1.csv", [RESULT_HEADER, [1, 1, ew, ns, "5", "过A"]])
    assert cli("ingest", "--event", "j", sheet).code == 0
    referee, chief = hall["裁判甲"], hall["裁判长"]
    # a referee works only at their tables
    with pytest.raises(UsageError, match="不是你负责的桌"):
        records.record(db_file, "j", hall["裁判乙"], 1, ns, "warning")
    # two warnings make a violation; two more violations: the round is lost — proposed
    first = records.record(db_file, "j", referee, 1, ns, "warning")
    assert (first.warnings, first.violations, first.out) == (1, 0, False)
    second = records.record(db_file, "j", referee, 1, ns, "slow_play")
    assert (second.warnings, second.violations) == (2, 1)
    records.record(db_file, "j", referee, 1, ns, "violation")
    third = records.record(db_file, "j", referee, 1, ns, "violation")
    assert third.violations == 3 and third.out and third.proposed is not None
    # not counted until the chief confirms it: NS still won its table
    assert _standing(cli, ns)["match_points"] == "2"
    with pytest.raises(UsageError, match="只有裁判长"):
        rulings.decide(db_file, "j", referee, third.proposed, True)
    assert rulings.decide(db_file, "j", chief, third.proposed, True) == "confirmed"
    lost = _standing(cli, ns)
    assert lost["match_points"] == "0" and _standing(cli, ew)["match_points"] == "2"
    # the team's leader appeals within 10 minutes; a late one is refused with its time
    with db.reading(db_file) as con:
        decided = db.scalar(con, "select decided_at from official_rulings where ruling_id = ?",
                            [third.proposed])
    with pytest.raises(appeals.LateAppeal, match="已过截止时间"):
        appeals.appeal(db_file, "j", third.proposed, ns, "desk",
                       at=decided + dt.timedelta(minutes=11))
    appeal = appeals.appeal(db_file, "j", third.proposed, ns, "link", fee="800 元",
                            at=decided + dt.timedelta(minutes=9))
    with pytest.raises(UsageError, match="只有仲裁委员"):
        votes.vote(db_file, "j", chief, appeal, True)
    assert votes.vote(db_file, "j", hall["委员一"], appeal, True) == "open"
    with pytest.raises(UsageError, match="已投过票"):
        votes.vote(db_file, "j", hall["委员一"], appeal, False)
    assert votes.vote(db_file, "j", hall["委员二"], appeal, True) == "upheld"
    assert _standing(cli, ns)["match_points"] == "2"  # the ranking changes back
    log = cli("log", "--event", "j").out
    assert "ruling confirmed" in log and "由 by 裁判长（裁判长）" in log
    assert "appeal upheld" in log and "appeal refused late" in log


def test_levels_leave_and_suspension(cli, db_file, hall):
    from pipeline.officials import leave, records, rulings

    ew, ns = _table(db_file, 3)
    chief, referee = hall["裁判长"], hall["裁判乙"]
    # 降级: proposed by the referee, the chief chooses 对方升级 2 instead
    proposed = rulings.propose(db_file, "j", referee, 1, ew, "levels_down", 1, "出错牌")
    assert rulings.decide(db_file, "j", chief, proposed, True, kind="opponent_up",
                          amount=2, note="裁判长选择对方升级") == "confirmed"
    with db.reading(db_file) as con:
        assert db.rows(con, "select team_no, target, amount from penalties where "
                            "event_id = 'j'") == [(ns, "levels", -2)]
    # leave of 15 minutes (seed 001): 12 minutes late, no sanction; 16 minutes: forfeit
    leave.grant_leave(db_file, "j", chief, 1, ew)
    within = records.record(db_file, "j", referee, 1, ew, "late", minutes=12)
    assert within.proposed is None and "不处罚" in within.late
    beyond = records.record(db_file, "j", referee, 1, ew, "late", minutes=16)
    assert beyond.proposed is not None
    assert rulings.decide(db_file, "j", chief, beyond.proposed, True) == "confirmed"
    with db.reading(db_file) as con:
        assert db.scalar(con, "select forfeit from results where event_id = 'j' and round = 1 "
                              "and table_no = 3") == "ew"


def test_the_report_opens_as_a_spreadsheet(cli, db_file, hall, tmp_path):
    import openpyxl

    from pipeline.officials import records

    ew, _ = _table(db_file, 1)
    records.record(db_file, "j", hall["裁判甲"], 1, ew, "warning", note="大声喧哗")
    xlsx, page = tmp_path / "o.xlsx", tmp_path / "o.html"
    assert cli("officials", "report", "--event", "j", "--out", xlsx).code == 0
    book = openpyxl.load_workbook(xlsx)
    assert book.sheetnames == ["记录", "裁定", "请假", "申诉", "派生", "异议"]
    cells = [c.value for row in book["记录"].iter_rows() for c in row]
    assert "大声喧哗" in cells and "裁判甲" in cells and "警告 warning" in cells
    assert cli("officials", "report", "--event", "j", "--out", page).code == 0
    assert "大声喧哗" in page.read_text(encoding="utf-8")


# -- the officials' phones: /o and /a through the hall's routes ------------------------------

@pytest.fixture
def phones(hall, db_file, monkeypatch):
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dashboard.hall import cache, limits, officials, routes

    cache.forget_versions()
    monkeypatch.setattr(officials, "LIMITS", limits.Limits())
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "organizer-pass")

    def phone(name):
        client = TestClient(Starlette(routes=routes()), base_url="http://testserver")
        signed = client.post("/o/login", data={"name": name, "password": "pass-" + name})
        assert signed.status_code == 200 and 'data-testid="me"' in signed.text, signed.text
        return client

    return phone


def test_a_referee_s_phone_keeps_to_their_tables(phones, db_file, cli):
    referee = phones("裁判甲")
    home = referee.get("/o?event=j")
    assert home.headers["referrer-policy"] == "no-referrer"
    assert "no-store" in home.headers["cache-control"]
    listed = home.text.split('data-testid="tables"')[1].split("</table>")[0]
    assert ">1</a>" in listed and ">2</a>" in listed and ">3</a>" not in listed
    ew, ns = _table(db_file, 3)  # table 3 is 裁判乙's: refused, by page and by form
    assert referee.get("/o/table?event=j&round=1&table=3").status_code == 403
    tried = referee.post("/o/act", data={"action": "record", "event": "j", "round": "1",
                                         "table": "3", "team": ew, "kind": "warning"})
    assert "不是你负责的桌" in tried.text
    with db.reading(db_file) as con:
        assert not db.scalar(con, "select count(*) from official_records")
    ew, ns = _table(db_file, 1)
    done = referee.post("/o/act", data={"action": "record", "event": "j", "round": "1",
                                        "table": "1", "team": ew, "kind": "warning"})
    assert done.status_code == 200 and "警告 1 · 违例 0" in done.text
    # a session that is not signed in sees the sign-in form only
    from starlette.testclient import TestClient
    assert 'data-testid="login"' in TestClient(referee.app).get("/o").text
    wrong = TestClient(referee.app).post("/o/login", data={"name": "裁判甲", "password": "x"})
    assert "姓名或密码不对" in wrong.text


def test_the_chief_rules_and_the_team_appeals_by_its_link(phones, db_file, cli):
    from pipeline.officials import links

    ew, ns = _table(db_file, 2)
    referee, chief = phones("裁判甲"), phones("裁判长")
    proposed = referee.post("/o/act", data={"action": "propose", "event": "j", "round": "1",
                                            "table": "2", "team": ew, "kind": "levels_down",
                                            "amount": "1", "reason": "出错牌"})
    assert "→ 待裁定" in proposed.text
    queue = chief.get("/o?event=j")
    ruling = int(queue.text.split('data-testid="proposal-')[1].split('"')[0])
    assert "出错牌" in queue.text
    ruled = chief.post("/o/act", data={"action": "decide", "event": "j", "ruling": str(ruling),
                                       "decision": "confirm", "kind": "levels_down",
                                       "amount": "1"})
    assert f"#{ruling} · 已确认" in ruled.text and "confirmed" not in ruled.text
    row = links.listing(db_file, "j", "http://testserver").filter(
        links.pl.col("team_no") == ew).row(0, named=True)
    from starlette.testclient import TestClient
    client = TestClient(referee.app)  # the team leader's phone: no account, the team's link
    shown = client.get(row["appeal_url"])
    assert shown.status_code == 200 and f"#{ruling}" in shown.text
    wrong = client.post(row["appeal_url"], data={"ruling": str(ruling), "code": "x"})
    assert "验证码不对" in wrong.text
    filed = client.post(row["appeal_url"], data={"ruling": str(ruling),
                                                 "code": row["appeal_code"], "fee": "800 元"})
    assert "申诉已提交" in filed.text
    member = phones("委员一")
    assert 'data-testid="countdown">剩余 30 分钟答复' in member.get("/o?event=j").text


def _all_results(db_file, round_no):
    """Every table of the round: East-West to A, North-South at 5."""
    with db.reading(db_file) as con:
        tables = db.rows(con, "select table_no, ew_team, ns_team from pairings where "
                              "event_id = 'j' and round = ? and ns_team is not null",
                         [round_no])
    return [[round_no, t, ew, ns, "A", "5"] for t, ew, ns in tables]


def test_two_ruled_losses_propose_a_suspension_the_chief_decides(cli, db_file, hall):
    from pipeline.officials import rulings

    chief = hall["裁判长"]
    team = _table(db_file, 1)[0]
    for round_no in (1, 2):
        sheet = write_csv(db_file.parent / f"r{round_no}.csv",
                          [RESULT_HEADER, *_all_results(db_file, round_no)])
        assert cli("ingest", "--event", "j", sheet).code == 0
        ruling = rulings.propose(db_file, "j", chief, round_no, team, "ruled_loss", 0, "违例")
        assert rulings.decide(db_file, "j", chief, ruling, True) == "confirmed"
        if round_no == 1:
            assert cli("pair", "--event", "j").code == 0
    with db.reading(db_file) as con:
        waiting = rulings.queue(con, "j")
    # "兩次判負要判停賽": proposed by the ladder itself; the chief decides it
    assert [(p["team_no"], p["kind"], p["proposed_by"]) for p in waiting] == \
        [(team, "suspension", "规则 ladder")]
    assert rulings.decide(db_file, "j", chief, waiting[0]["ruling_id"], True) == "confirmed"
    assert cli("pair", "--event", "j").code == 0
    with db.reading(db_file) as con:
        paired = db.scalar(con, "select count(*) from pairings where event_id = 'j' and "
                                "round = 3 and ? in (ew_team, ns_team)", [team])
    assert paired == 0  # the suspended team is left out of the next pairing


def test_a_disputed_deal_calls_the_table_s_referee(phones, db_file, cli):
    """Issue 42's dispute reaches the officials: the table's referee rules on it at /o."""
    from pipeline.day import selfreport, tablestore

    row = selfreport.links(db_file, "j", 1, "http://testserver").row(0, named=True)
    with db.writing(db_file) as con:
        tablestore.enter(con, "j", 1, row["table"], row["ns_url"].split("sig=")[1], "ns",
                         row["ns_code"], 1, "ew", 2)
        tablestore.answer(con, "j", 1, row["table"], row["ew_url"].split("sig=")[1], "ew",
                          row["ew_code"], 1, False)
    referee = phones("裁判甲")
    assert "有异议" in referee.get("/o?event=j").text.split('data-testid="tables"')[1]
    page = referee.get(f"/o/table?event=j&round=1&table={row['table']}")
    assert "第 1 副有异议，请裁定" in page.text
    # what was recorded for the deal, and who said what (issue 51)
    assert "记录为：东西上游，对家二游（南北记录，东西有异议）" in page.text
    other = phones("裁判乙")  # not their table: refused
    refused = other.post("/o/act", data={"action": "deal", "event": "j", "round": "1",
                                         "table": str(row["table"]), "deal": "1", "keep": "1"})
    assert refused.status_code == 403
    kept = referee.post("/o/act", data={"action": "deal", "event": "j", "round": "1",
                                        "table": str(row["table"]), "deal": "1", "keep": "1"})
    assert "第 1 副按记录保留" in kept.text
    with db.reading(db_file) as con:
        assert tablestore.disputed(con, "j") == []
    log = cli("log", "--event", "j").out
    assert "kept as entered · 由 by 裁判甲（临场裁判）" in log and log.count("由 by") == 1
    report = db_file.parent / "o.html"  # the officials' report holds the dispute and its decision
    assert cli("officials", "report", "--event", "j", "--out", report).code == 0
    shown = report.read_text(encoding="utf-8")
    assert "异议 disputed" in shown and "kept as entered · 由 by 裁判甲（临场裁判）" in shown
    assert shown.count("由 by") == 1  # named once, never "by X · 由 by X"


def test_paisai_late_applies_the_leave_the_chief_granted(cli, db_file, hall):
    from pipeline.officials import leave

    ew, ns = _table(db_file, 2)
    leave.grant_leave(db_file, "j", hall["裁判长"], 1, ew)  # seed 001: 15 minutes
    within = cli("late", "--event", "j", "--round", "1", ew, "--minutes", "14")
    assert within.code == 0 and "不处罚" in within.out
    with db.reading(db_file) as con:
        assert not db.scalar(con, "select count(*) from results where event_id = 'j'")
    beyond = cli("late", "--event", "j", "--round", "1", ew, "--minutes", "16")
    assert beyond.code == 0 and "本轮弃权" in beyond.out
    with db.reading(db_file) as con:
        assert db.scalar(con, "select forfeit from results where event_id = 'j' and "
                              "table_no = 2") == "ew"


def test_the_officials_pages_stay_in_english(phones, db_file):
    from starlette.testclient import TestClient

    referee = phones("裁判甲")
    home = referee.get("/o?event=j&lang=en")
    assert "Round 1: my tables" in home.text and "lang=en" in home.text
    ew, _ = _table(db_file, 1)
    done = referee.post("/o/act?lang=en", data={"action": "record", "event": "j",
                                                "round": "1", "table": "1", "team": ew,
                                                "kind": "verbal"})
    assert "Recorded" in done.text and "Warnings 0 · violations 0" in done.text
    assert "Sign in" in TestClient(referee.app).get("/o?lang=en").text


def test_officials_links_lists_the_teams_in_natural_order(cli, tmp_path):
    """Issue 51 acceptance: `paisai officials links` listed A1, A10, A11, A2…; the desk
    hands the slips out as people count, A2 before A10."""
    assert cli("event", "create", "--id", "n", "--name", "十二队", "--ruleset",
               "jinling-2023-pairs").code == 0
    assert cli("ingest", "--event", "n", write_csv(tmp_path / "e.csv", entries(12))).code == 0
    listed = cli("officials", "links", "--event", "n", "--base-url", "http://hall:8501",
                 "--format", "csv")
    assert listed.code == 0
    assert [r["team_no"] for r in read_csv_output(listed.out)] == [
        "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10", "A11", "A12"]


def test_paisai_hashes_passwords_at_its_own_parameters_outside_the_tests():
    """The test process hashes lightly (conftest): a paisai process keeps argon2id at 64 MiB,
    3 passes, 4 lanes — what a guessed password costs an attacker."""
    import subprocess
    import sys

    made = subprocess.run(
        [sys.executable, "-c", "from pipeline.officials import people; "
                               "print(people.HASHER.hash('x'))"],
        capture_output=True, text=True, check=True).stdout
    assert made.startswith("$argon2id$v=19$m=65536,t=3,p=4$"), made
