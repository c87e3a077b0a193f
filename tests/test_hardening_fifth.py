"""Hardening, fifth pass (issue 49) and the officials' story (issue 51): each finding's
reproduction through the real routes, the real CLI and a real DuckDB file. The appeal's
invariant (finding 1) has its own file: tests/test_appeal_invariant.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ENTRY_HEADER, RESULT_HEADER, write_csv

from pipeline.base import db

ROOT = Path(__file__).resolve().parent.parent
FORMULAS = ['=HYPERLINK("http://evil.example","点我")', "+1+1", "-2+3", "@SUM(A1)"]
MARKUP = "X</OPTION></SELECT></FORM><H1>假标题</H1>"


def _hall(database, folder):
    """The event through the real `main`, and its officials."""
    from pipeline.cli import main
    from pipeline.officials import people

    rows = [ENTRY_HEADER] + [[f"A{i}", f"队伍{i}", f"张{i}", f"李{i}", f"单位{i % 4}"]
                             for i in range(1, 7)]
    rows += [["A10", FORMULAS[0], "张十", "李十", "单位2"],
             [MARKUP, "标记队", "张x", "李x", "单位3"]]
    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "j", "--name", "金陵", "--ruleset",
                 "jinling-2023-pairs", *args]) == 0
    assert main(["ingest", "--event", "j", str(write_csv(folder / "e.csv", rows)), *args]) == 0
    assert main(["pair", "--event", "j", *args]) == 0
    return {name: people.add(database, name, role, tables, "pass-" + name)[0]
            for name, role, tables in (("裁判甲", "referee", "1-2"),
                                       ("裁判乙", "referee", "3-4"),
                                       ("裁判长", "chief", None), ("报到台", "desk", None),
                                       ("委员一", "committee", None),
                                       ("委员二", "committee", None),
                                       ("委员三", "committee", None))}


@pytest.fixture
def hall(prepared, db_file):
    """seed 001's preset, 8 teams (one named like a formula, one numbered like markup),
    round 1 paired, and its officials: built once per test process (`prepared`), each
    test changing its own copy."""
    return dict(prepared(_hall, db_file))


@pytest.fixture
def phones(hall, db_file, monkeypatch):
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dashboard.hall import cache, limits, officials, routes

    cache.forget_versions()
    monkeypatch.setattr(officials, "LIMITS", limits.Limits())
    monkeypatch.setattr(officials.asyncio, "sleep", _no_sleep)
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "organizer-pass")

    def phone(name, password=None):
        client = TestClient(Starlette(routes=routes()), base_url="http://testserver")
        if name is not None:
            signed = client.post("/o/login", data={"name": name,
                                                   "password": password or "pass-" + name})
            assert 'data-testid="me"' in signed.text, signed.text
        return client

    return phone


async def _no_sleep(_seconds):
    return None


def _table_of(db_file, team):
    with db.reading(db_file) as con:
        return db.rows(con, "select table_no, ew_team, ns_team from pairings where event_id = "
                            "'j' and round = 1 and ? in (ew_team, ns_team)", [team])[0]


def _said(page: str) -> str:
    found = re.search(r'data-testid="message">([^<]*)<', page)
    return found.group(1) if found else ""


# -- finding 1 on the phones: a second appeal refused with a clear message -----------------

def test_a_second_appeal_is_refused_on_a_and_at_the_desk(phones, db_file, hall):
    from starlette.testclient import TestClient

    from pipeline.officials import links, rulings

    table, ew, ns = _table_of(db_file, "A1")
    chief = hall["裁判长"]
    ruling = rulings.propose(db_file, "j", chief, 1, ew, "forfeit", 0, "迟到 16 分钟")
    rulings.decide(db_file, "j", chief, ruling, True)
    row = links.listing(db_file, "j", "http://testserver").filter(
        links.pl.col("team_no") == ew).row(0, named=True)
    leader = TestClient(phones(None).app)
    form = {"ruling": str(ruling), "code": row["appeal_code"], "statement": "并未迟到"}
    assert "申诉已提交" in leader.post(row["appeal_url"], data=form).text
    again = leader.post(row["appeal_url"], data=form)  # the form sent again
    assert "已有待仲裁的申诉" in again.text
    desk = phones("报到台").post("/o/act", data={"action": "appeal", "event": "j",
                                                "ruling": str(ruling), "team": ew})
    assert "已有待仲裁的申诉" in _said(desk.text)
    with db.reading(db_file) as con:
        assert db.scalar(con, "select count(*) from official_appeals") == 1
    # the leader's link tells where the appeal stands, then its outcome (issue 51)
    assert "待仲裁（支持 0 · 反对 0）" in leader.get(row["appeal_url"]).text
    for member in ("委员一", "委员二"):
        phones(member).post("/o/act", data={"action": "vote", "event": "j", "appeal": "1",
                                            "vote": "uphold"})
    shown = leader.get(row["appeal_url"]).text
    assert "申诉成立，裁定已撤销" in shown and "没有可申诉的裁定" not in shown


def test_the_log_credits_an_appeal_to_the_team_s_leader(db_file, hall, cli):
    from pipeline.officials import appeals, rulings

    _, ew, _ = _table_of(db_file, "A1")
    ruling = rulings.propose(db_file, "j", hall["裁判长"], 1, ew, "levels_down", 1, "")
    rulings.decide(db_file, "j", hall["裁判长"], ruling, True)
    appeals.appeal(db_file, "j", ruling, ew, "link")
    filed = [line for line in cli("log", "--event", "j").out.splitlines()
             if "appeal filed" in line]
    assert filed and f"由 by {ew} 队长 team leader (link)" in filed[0]
    assert "规则自动" not in filed[0] and "the ladder itself" not in filed[0]


# -- findings 2 and 5: every sign-in locks alike, with the same words -----------------------

def test_the_first_organizer_locks_like_every_official(phones, db_file):
    client = phones(None)
    for _ in range(5):
        wrong = client.post("/o/login", data={"name": "", "password": "guess"})
        assert _said(wrong.text) == "姓名或密码不对"
    right = client.post("/o/login", data={"name": "", "password": "organizer-pass"})
    assert "已锁定" in _said(right.text) and 'data-testid="me"' not in right.text


def test_a_locked_name_and_a_made_up_name_answer_alike(phones, db_file):
    client = phones(None)
    said = {}
    for name in ("裁判甲", "没有这个人"):
        for _ in range(5):
            client.post("/o/login", data={"name": name, "password": "guess"})
        said[name] = _said(client.post("/o/login", data={"name": name,
                                                         "password": "guess"}).text)
    assert "已锁定" in said["裁判甲"]
    assert re.sub(r"\d", "", said["裁判甲"]) == re.sub(r"\d", "", said["没有这个人"])


def test_the_console_s_first_organizer_locks_in_the_database(db_file, monkeypatch, cli):
    from dashboard import auth
    from pipeline.officials import people

    assert cli("event", "create", "--id", "j", "--name", "金陵", "--ruleset",
               "jinling-2023-pairs").code == 0
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "organizer-pass")
    failures, waited = auth.Failures(), []
    for n in range(5):  # five browser sessions from five addresses
        assert auth._sign_in("", "guess", f"s{n}", f"10.0.0.{n}", failures,
                             waited.append) is None
    with pytest.raises(people.LockedOut):
        auth._sign_in("", "organizer-pass", "s-new", "10.9.9.9", failures, waited.append)


def test_sign_ins_are_slowed_per_name_as_well_as_per_address(phones):
    from dashboard.hall import officials

    client = phones(None)
    answers = [_said(client.post("/o/login", data={"name": f"人{n % 2}", "password": "x"})
                     .text) for n in range(officials.PER_NAME_LOGINS * 2 + 2)]
    assert answers.count("操作太频繁，请稍后再试") >= 1


# -- finding 8: Origin compared with the host and port the browser used --------------------

def _request(headers: dict[str, str], scheme: str = "http"):
    from starlette.requests import Request

    return Request({"type": "http", "method": "POST", "scheme": scheme, "path": "/o/login",
                    "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
                    "query_string": b""})


def test_origin_is_compared_with_the_host_and_port_received():
    from dashboard.hall.officials import same_origin

    port = {"origin": "http://hall.local:8080"}
    assert same_origin(_request(port | {"host": "hall.local:8080"}))  # nginx: $http_host
    assert same_origin(_request(port | {"host": "hall.local",  # an older proxy's Host
                                        "x-forwarded-host": "hall.local:8080"}))
    assert not same_origin(_request(port | {"host": "hall.local"}))  # port lost: not ours
    assert not same_origin(_request({"origin": "http://evil.example:8080",
                                     "host": "hall.local:8080"}))
    assert same_origin(_request({"origin": "http://hall.local", "host": "hall.local:80"}))
    assert not same_origin(_request({"origin": "https://hall.local", "host": "hall.local"}))
    nginx = (ROOT / "deploy" / "nginx-paisai.conf").read_text(encoding="utf-8")
    assert "proxy_set_header Host $host;" not in nginx
    assert nginx.count("proxy_set_header Host $http_host;") == 2
    assert nginx.count("proxy_set_header X-Forwarded-Host $http_host;") == 2


def test_a_browser_without_sec_fetch_site_signs_in_on_its_own_port(phones):
    client = phones(None)
    signed = client.post("/o/login", data={"name": "裁判甲", "password": "pass-裁判甲"},
                         headers={"origin": "http://testserver:8080",
                                  "host": "testserver:8080"})
    assert 'data-testid="me"' in signed.text


# -- finding 4: every cell from people's text is text ---------------------------------------

def _cells(path: Path) -> list:
    import openpyxl

    book = openpyxl.load_workbook(path)
    return [c for sheet in book for row in sheet.iter_rows() for c in row]


def test_no_export_writes_a_formula(phones, db_file, hall, cli, tmp_path):
    from pipeline.officials import appeals, records, rulings

    table, ew, ns = _table_of(db_file, "A10")
    referee = hall["裁判甲"] if table <= 2 else hall["裁判乙"]
    for note in FORMULAS:
        records.record(db_file, "j", referee, 1, ew, "verbal", note=note)
    ruling = rulings.propose(db_file, "j", referee, 1, ew, "levels_down", 1, FORMULAS[1])
    rulings.decide(db_file, "j", hall["裁判长"], ruling, True, note=FORMULAS[3])
    appeals.appeal(db_file, "j", ruling, ew, "link", statement=FORMULAS[0], fee=FORMULAS[2])
    sheet = write_csv(tmp_path / "r.csv", [RESULT_HEADER, [1, table, ew, ns, "K", "5"]])
    assert cli("ingest", "--event", "j", sheet).code == 0
    written = {
        "report": ("officials", "report", "--event", "j", "--out"),
        "pairings": ("export", "pairings", "--event", "j", "--round", "1", "--out"),
        "scoresheet": ("export", "scoresheet", "--event", "j", "--round", "1", "--out"),
        "standings": ("export", "standings", "--event", "j", "--out"),
    }
    for name, args in written.items():
        path = tmp_path / f"{name}.xlsx"
        done = cli(*args, path)
        assert done.code == 0, (name, done.err)
        cells = _cells(path)
        assert not [c.value for c in cells if c.data_type == "f"], name
        texts = {c.value for c in cells if isinstance(c.value, str)}
        assert any(FORMULAS[0] in t for t in texts), name  # the team's name, as text
    report = {c.value for c in _cells(tmp_path / "report.xlsx")}
    assert set(FORMULAS) <= report
    # the report's minutes are numbers
    records.record(db_file, "j", referee, 1, ew, "late", minutes=12)
    assert cli("officials", "report", "--event", "j", "--out", tmp_path / "m.xlsx").code == 0
    assert 12 in {c.value for c in _cells(tmp_path / "m.xlsx")}
    assert "12.0" not in {c.value for c in _cells(tmp_path / "m.xlsx")}


# -- finding 6: another team's number never becomes markup ---------------------------------

def test_a_team_number_with_markup_stays_text_on_a(phones, db_file, hall):
    from starlette.testclient import TestClient

    from pipeline.officials import links, rulings

    table, ew, ns = _table_of(db_file, MARKUP)
    other = ns if ew == MARKUP else ew
    referee = hall["裁判甲"] if table <= 2 else hall["裁判乙"]
    ruling = rulings.propose(db_file, "j", referee, 1, MARKUP, "levels_down", 1, "")
    rulings.decide(db_file, "j", hall["裁判长"], ruling, True)
    row = links.listing(db_file, "j", "http://testserver").filter(
        links.pl.col("team_no") == other).row(0, named=True)
    page = TestClient(phones(None).app).get(row["appeal_url"]).text
    assert "<H1>" not in page and "</SELECT>" not in page
    assert "X&lt;/OPTION&gt;&lt;/SELECT&gt;&lt;/FORM&gt;&lt;H1&gt;" in page
    form = page.split('data-testid="appeal"')[1]
    assert 'name="code"' in form and "</form>" in form  # the form is whole
    chief = phones("裁判长").get("/o?event=j").text
    assert "<H1>" not in chief


# -- finding 7: minutes late finite and within the day --------------------------------------

@pytest.mark.parametrize("minutes", ["nan", "inf", "1e309", "-5", "１２", "99999"])
def test_minutes_late_must_be_a_finite_number_in_range(phones, db_file, minutes):
    referee = phones("裁判甲")
    with db.reading(db_file) as con:  # table 1: one of 裁判甲's
        table, ew = db.rows(con, "select table_no, ew_team from pairings where event_id = "
                                 "'j' and round = 1 and table_no = 1")[0]
    done = referee.post("/o/act", data={"action": "record", "event": "j", "round": "1",
                                        "table": str(table), "team": ew, "kind": "late",
                                        "minutes": minutes})
    assert _said(done.text) == "迟到分钟数应为 0–1440 之间的数字"  # one language a page
    english = referee.post("/o/act?lang=en", data={
        "action": "record", "event": "j", "round": "1", "table": str(table), "team": ew,
        "kind": "late", "minutes": minutes})
    assert _said(english.text) == "minutes late: a number from 0 to 1440"
    with db.reading(db_file) as con:
        assert not db.scalar(con, "select count(*) from official_records")


def test_the_ladder_itself_refuses_non_finite_minutes(db_file, hall):
    from pipeline.base.errors import UsageError
    from pipeline.officials import records

    table, ew, _ = _table_of(db_file, "A1")
    referee = hall["裁判甲"] if table <= 2 else hall["裁判乙"]
    for minutes in (float("nan"), float("inf"), -1.0, 1e309):
        with pytest.raises(UsageError, match="迟到分钟数"):
            records.record(db_file, "j", referee, 1, ew, "late", minutes=minutes)


# -- issue 51: the officials see the whole story --------------------------------------------

def test_a_referee_withdraws_their_own_record(phones, db_file, hall, cli):
    table, ew, _ = _table_of(db_file, "A1")
    mine = "裁判甲" if table <= 2 else "裁判乙"
    other = "裁判乙" if mine == "裁判甲" else "裁判甲"
    referee = phones(mine)
    base = {"event": "j", "round": "1", "table": str(table)}
    for _ in range(2):  # entered twice by mistake
        referee.post("/o/act", data=base | {"action": "record", "team": ew, "kind": "warning"})
    page = referee.get(f"/o/table?event=j&round=1&table={table}").text
    assert "警告 2 · 违例 1" in page  # two warnings make a violation
    assert 'data-testid="record-2"' in page
    undone = referee.post("/o/act", data=base | {"action": "withdraw", "record": "2"})
    assert _said(undone.text) == "记录已撤回" and "警告 1 · 违例 0" in undone.text
    again = referee.post("/o/act", data=base | {"action": "withdraw", "record": "2"})
    assert "已撤回" in _said(again.text)
    with db.reading(db_file) as con:
        kept = db.rows(con, "select record_id, withdrawn_at is not null from "
                            "official_records order by 1")
    assert kept == [(1, False), (2, True)]  # kept, marked
    refused = phones(other).post("/o/act", data=base | {"action": "withdraw", "record": "1"})
    assert "不是你负责的桌" in _said(refused.text) or refused.status_code == 403
    log = cli("log", "--event", "j").out
    assert "official record withdrawn" in log and f"由 by {mine}" in log


def test_a_disagreement_reaches_the_referee_and_the_chief(phones, db_file, hall, cli):
    from pipeline.day import selfreport

    table, ew, ns = _table_of(db_file, "A1")
    with db.writing(db_file) as con:
        secret = selfreport.ensure_secret(con, "j")
    reports = []
    for side, levels in (("ew", ("K", "5")), ("ns", ("Q", "5"))):
        reports.append(selfreport.Report(
            "j", 1, table, selfreport.sign(secret, "j", 1, table, side), levels[0], levels[1],
            side, selfreport.side_code(secret, "j", 1, table, side)))
    said = selfreport.submit_many(db_file, reports)
    assert said[-1] == "disagree", said
    mine = "裁判甲" if table <= 2 else "裁判乙"
    for who in (mine, "裁判长"):
        home = phones(who).get("/o?event=j").text
        listed = home.split('data-testid="tables"')[1].split("</table>")[0]
        row = listed.split(f">{table}</a>")[1].split("</tr>")[0]
        assert "双方所报不一致" in row and "未报" not in row
    referee = phones(mine)
    page = referee.get(f"/o/table?event=j&round=1&table={table}").text
    assert "东西：K – 5" in page and "南北：Q – 5" in page
    first = re.search(r'data-testid="report-ew".*?name="report" value="(\d+)"', page).group(1)
    done = referee.post("/o/act", data={"action": "report", "event": "j", "round": "1",
                                        "table": str(table), "report": first})
    assert _said(done.text) == "已按所选桌报保存本桌成绩"
    with db.reading(db_file) as con:
        assert db.rows(con, "select ew_level, ns_level from results where table_no = ?",
                       [table]) == [(13, 5)]
    report = db_file.parent / "o.html"  # the officials' report keeps the disagreement
    assert cli("officials", "report", "--event", "j", "--out", report).code == 0
    shown = report.read_text(encoding="utf-8")
    assert "桌报分歧 disagreement" in shown
    assert (f"第 1 轮 {table} 号桌：东西报 K – 5，南北报 Q – 5；按东西所报保存 kept the EW "
            f"report · 由 by {mine}") in shown


def test_the_committee_s_card_carries_the_ruling_s_context(phones, db_file, hall):
    from pipeline.officials import appeals, rulings

    table, ew, _ = _table_of(db_file, "A1")
    referee = hall["裁判甲"] if table <= 2 else hall["裁判乙"]
    ruling = rulings.propose(db_file, "j", referee, 1, ew, "levels_down", 2, "出错牌")
    rulings.decide(db_file, "j", hall["裁判长"], ruling, True, note="看过录像")
    appeals.appeal(db_file, "j", ruling, ew, "link", statement="没有出错")
    card = phones("委员一").get("/o?event=j").text.split('data-testid="appeal-1"')[1]
    context = card.split('data-testid="ruling-context">')[1].split("</p>")[0]
    assert f"第 1 轮 {table} 号桌" in context and "裁判长裁定" in context
    assert "出错牌" in context and "看过录像" in context
    assert "队伍" in card  # the team's name beside its number
    assert "confirmed" not in card and "upheld" not in card


def test_officials_pages_sort_teams_naturally_with_names(phones):
    page = phones("裁判长").get("/o?event=j").text
    leave = page.split('data-testid="leave"')[1].split("</select>")[0]
    order = re.findall(r'<option value="(A\d+)">', leave)
    assert order == ["A1", "A2", "A3", "A4", "A5", "A6", "A10"]
    assert ">A1 队伍1<" in leave


def test_officials_list_speaks_the_house_s_words(cli, hall):
    table = cli("officials", "list").out
    assert "姓名" in table and "角色" in table and "裁判长 chief arbiter" in table
    assert "official_id" not in table and "True" not in table
    csv = cli("officials", "list", "--format", "csv").out  # programs keep the code names
    assert csv.startswith("official_id,name,role,tables,active,created_at")


def test_every_xlsx_is_written_by_the_one_safe_writer():
    """Finding 4's guard: no module writes a spreadsheet with a library that turns text
    starting with = into a formula; the exports' own writer (inline strings) is the one."""
    writers = []
    for folder in ("pipeline", "dashboard"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if re.search(r"import xlsxwriter|\.write_excel\(|openpyxl\.Workbook\(", text):
                writers.append(path.relative_to(ROOT).as_posix())
    assert writers == []


def test_the_appeal_page_and_the_committee_card_in_english(phones, db_file, hall):
    from starlette.testclient import TestClient

    from pipeline.officials import appeals, links, rulings

    table, ew, _ = _table_of(db_file, "A1")
    ruling = rulings.propose(db_file, "j", hall["裁判长"], 1, ew, "levels_down", 1, "")
    rulings.decide(db_file, "j", hall["裁判长"], ruling, True)
    row = links.listing(db_file, "j", "http://testserver").filter(
        links.pl.col("team_no") == ew).row(0, named=True)
    page = TestClient(phones(None).app).get(row["appeal_url"] + "&lang=en").text
    form = page.split('data-testid="appeal"')[1]
    assert "levels down" in form and "File" in form and "提交申诉" not in form
    appeals.appeal(db_file, "j", ruling, ew, "desk", hall["报到台"])
    card = phones("委员一").get("/o?event=j&lang=en").text.split('data-testid="appeal-1"')[1]
    assert f"round 1, table {table} · ruled by 裁判长" in card and "降级" not in card


@pytest.mark.parametrize("minutes", ["nan", "inf", "1e309", "-1"])
def test_paisai_late_refuses_non_finite_minutes(cli, hall, minutes):
    done = cli("late", "--event", "j", "--round", "1", "A1", "--minutes", minutes)
    assert done.code == 2 and "迟到分钟数应为 0–1440 之间的数字" in done.err
    assert "未覆盖" not in done.out


def test_the_officials_landing_bar_leads_back_to_the_ranking(phones):
    """Issue 51 acceptance: /o (the address officials are given, no event in it) had only
    "裁判 | English" in its bar; it leads back to the ranking, signed in or not."""
    def ranking(text: str) -> str:
        found = re.search(r'<a href="([^"]*)" data-testid="nav-ranking">([^<]*)</a>', text)
        assert found, text.split("</nav>")[0]
        return found.group(1) + " " + found.group(2)

    assert ranking(phones(None).get("/o").text) == "/m/ 排名"  # the sign-in: the events
    assert ranking(phones(None).get("/o?event=j").text) == "/m/j/ 排名"  # or the address's
    referee = phones("裁判甲")
    assert ranking(referee.get("/o").text) == "/m/j/ 排名"
    assert ranking(referee.get("/o?lang=en").text) == "/m/j/?lang=en Ranking"
