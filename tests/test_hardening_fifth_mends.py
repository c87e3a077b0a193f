"""The acceptance check of issue 49 on a real server found seven smaller things still
broken; each is reproduced here through the hall's real routes (or the real CLI) and a real
DuckDB file, in the order the tester gave them."""

from __future__ import annotations

import json
import os
import re

import pytest
from conftest import sheet_outcome as _outcome
from conftest import sheet_post as _post
from starlette.testclient import TestClient
from test_hardening_fifth import MARKUP, _said, _table_of, hall, phones  # noqa: F401
from test_tractorsheet import match  # noqa: F401

from pipeline.base import db


@pytest.fixture
def leader(phones, monkeypatch):  # noqa: F811
    """A team leader's phone (no official's session), /a's limits fresh."""
    from dashboard.hall import appeals, limits

    monkeypatch.setattr(appeals, "LIMITS", limits.Limits())
    return TestClient(phones(None).app)


def _ruled(db_file, hall, team: str, kind: str = "levels_down") -> int:  # noqa: F811
    from pipeline.officials import rulings

    ruling = rulings.propose(db_file, "j", hall["裁判长"], 1, team, kind, 1, "")
    rulings.decide(db_file, "j", hall["裁判长"], ruling, True)
    return ruling


def _appeal_row(cli, team: str) -> dict:
    """The team's row as `paisai officials links` prints it."""
    run = cli("officials", "links", "--event", "j", "--base-url", "http://testserver",
              "--format", "json")
    assert run.code == 0, run.err
    return next(r for r in json.loads(run.out) if r["team_no"] == team)


def _appeals(db_file) -> int:
    with db.reading(db_file) as con:
        return db.scalar(con, "select count(*) from official_appeals")


# -- 1: a team number longer than 16 characters has a working appeal link ------------------

def test_a_long_team_number_s_printed_appeal_link_works(cli, db_file, hall, leader):  # noqa: F811
    assert len(MARKUP) > 16  # registered as is: registration has no length limit
    ruling = _ruled(db_file, hall, MARKUP)
    row = _appeal_row(cli, MARKUP)
    shown = leader.get(row["appeal_url"])
    assert shown.status_code == 200 and 'data-testid="appeal"' in shown.text
    filed = leader.post(row["appeal_url"], data={"ruling": str(ruling),
                                                 "code": row["appeal_code"]})
    assert filed.status_code == 200 and "申诉已提交" in _said(filed.text)
    assert _appeals(db_file) == 1


# -- 2: /a's code locks after five wrong ones, as /t and /r do ------------------------------

def test_wrong_codes_on_an_appeal_link_make_it_wait(cli, db_file, hall, leader):  # noqa: F811
    from dashboard.hall import limits

    _, ew, _ = _table_of(db_file, "A1")
    ruling = _ruled(db_file, hall, ew)
    row = _appeal_row(cli, ew)
    wrong = str((int(row["appeal_code"]) + 1) % 10000).zfill(4)
    for _ in range(limits.WRONG_CODES):
        said = _said(leader.post(row["appeal_url"], data={"ruling": str(ruling),
                                                          "code": wrong}).text)
        assert said == "验证码不对"
    right = leader.post(row["appeal_url"], data={"ruling": str(ruling),
                                                 "code": row["appeal_code"]})
    assert _said(right.text) == "验证码错误太多次，请 10 分钟后再试"
    assert _appeals(db_file) == 0


def test_one_helper_counts_every_wrong_code():
    """/r, /t, /k and /a count a wrong code through `limits.wrong_code` only."""
    from pathlib import Path

    hall_dir = Path(__file__).resolve().parent.parent / "dashboard" / "hall"
    counting = sorted(p.name for p in hall_dir.glob("*.py")
                      if 'f"code:{link}"' in p.read_text(encoding="utf-8"))
    assert counting == ["limits.py"]
    users = sorted(p.name for p in hall_dir.glob("*.py")
                   if "wrong_code(LIMITS" in p.read_text(encoding="utf-8"))
    assert users == ["appeals.py", "report.py", "sheetdoor.py"]


# -- 3 and 4: every refused form on /o and /a a redirect, saying the right thing ------------

CROSS = {"sec-fetch-site": "cross-site"}


def test_refused_forms_on_o_are_redirects_with_the_right_words(phones, db_file, hall):  # noqa: F811
    _, ew, _ = _table_of(db_file, "A1")
    ruling = _ruled(db_file, hall, ew)
    member = phones("委员一")
    filing = {"action": "appeal", "event": "j", "ruling": str(ruling), "team": ew}
    answer = member.post("/o/act", data=filing, follow_redirects=False)
    assert answer.status_code == 303
    assert _said(member.get(answer.headers["location"]).text) == "你的职责不包括这项操作"
    with db.reading(db_file) as con:  # table 3 is 裁判乙's, not 裁判甲's
        ew3 = db.scalar(con, "select ew_team from pairings where event_id = 'j' and round = 1 "
                             "and table_no = 3")
    referee = phones("裁判甲")
    for form in ({"action": "deal", "event": "j", "round": "1", "table": "3", "deal": "1",
                  "keep": "1"},
                 {"action": "report", "event": "j", "round": "1", "table": "3",
                  "report": "1"}):
        answer = referee.post("/o/act", data=form, follow_redirects=False)
        assert answer.status_code == 303, answer.text
        assert _said(referee.get(answer.headers["location"]).text) == "不是你负责的桌"
    assert ew3  # the table exists: refused for whose it is
    answer = referee.post("/o/act", data={"action": "record", "event": "j", "round": "1",
                                          "table": "1", "team": ew, "kind": "warning"},
                          headers=CROSS, follow_redirects=False)
    assert answer.status_code == 303
    said = _said(referee.get(answer.headers["location"]).text)
    assert said == "表单不是从本站页面提交的，没有记录"
    english = referee.post("/o/act?lang=en", data={"action": "record", "event": "j"},
                           headers=CROSS)
    assert _said(english.text) == "This form was not sent from this site: nothing was recorded"
    with db.reading(db_file) as con:
        assert not db.scalar(con, "select count(*) from official_records")


def test_a_cross_site_sign_in_is_not_called_a_wrong_password(phones):  # noqa: F811
    client = phones(None)
    answer = client.post("/o/login", data={"name": "裁判甲", "password": "pass-裁判甲"},
                         headers=CROSS, follow_redirects=False)
    assert answer.status_code == 303 and "set-cookie" not in answer.headers
    said = _said(client.get(answer.headers["location"]).text)
    assert said == "表单不是从本站页面提交的，没有记录"


def test_a_cross_site_appeal_is_a_redirect_with_the_right_words(cli, db_file, hall,  # noqa: F811
                                                                 leader):
    _, ew, _ = _table_of(db_file, "A1")
    ruling = _ruled(db_file, hall, ew)
    row = _appeal_row(cli, ew)
    answer = leader.post(row["appeal_url"], data={"ruling": str(ruling),
                                                  "code": row["appeal_code"]},
                         headers=CROSS, follow_redirects=False)
    assert answer.status_code == 303
    said = _said(leader.get(answer.headers["location"]).text)
    assert said == "表单不是从本站页面提交的，没有记录"
    assert _appeals(db_file) == 0


def test_deciding_a_reversed_ruling_says_so_in_words(phones, db_file, hall):  # noqa: F811
    from pipeline.officials import appeals

    _, ew, _ = _table_of(db_file, "A1")
    ruling = _ruled(db_file, hall, ew)
    appeals.appeal(db_file, "j", ruling, ew, "desk", hall["报到台"])
    for member in ("委员一", "委员二"):
        phones(member).post("/o/act", data={"action": "vote", "event": "j", "appeal": "1",
                                            "vote": "uphold"})
    chief = phones("裁判长")
    form = {"action": "decide", "event": "j", "ruling": str(ruling), "decision": "confirm"}
    assert _said(chief.post("/o/act", data=form).text) == \
        f"裁定 #{ruling} 已是“申诉成立已撤销”，不能再裁定"
    assert _said(chief.post("/o/act?lang=en", data=form).text) == \
        f"ruling #{ruling} is reversed on appeal already: it cannot be ruled again"


# -- 5: every number on /o checked, naming its field, in the page's language --------------

@pytest.mark.parametrize(("name", "value", "zh", "en"), [
    ("round", "abc", "轮次：收到的“abc”不是整数", "Round must be a whole number, not “abc”"),
    ("round", "1e309", "轮次：收到的“1e309”不是整数",
     "Round must be a whole number, not “1e309”"),
    ("round", "-1", "轮次：应在 1 到 999 之间，收到 -1", "Round must be from 1 to 999, not -1"),
    ("table", "abc", "桌号：收到的“abc”不是整数", "Table must be a whole number, not “abc”"),
])
def test_a_record_s_numbers_are_refused_naming_their_field(phones, db_file, name, value,  # noqa: F811
                                                            zh, en):
    _, ew, _ = _table_of(db_file, "A1")
    form = {"action": "record", "event": "j", "round": "1", "table": "1", "team": ew,
            "kind": "warning", name: value}
    referee = phones("裁判甲")
    answer = referee.post("/o/act", data=form, follow_redirects=False)
    assert answer.status_code == 303 and "table=abc" not in answer.headers["location"]
    assert _said(referee.get(answer.headers["location"]).text) == zh
    assert _said(referee.post("/o/act?lang=en", data=form).text) == en
    with db.reading(db_file) as con:
        assert not db.scalar(con, "select count(*) from official_records")


@pytest.mark.parametrize(("value", "zh"), [("abc", "宽限分钟：收到的“abc”不是整数"),
                                           ("1e309", "宽限分钟：收到的“1e309”不是整数"),
                                           ("-1", "宽限分钟：应在 1 到 120 之间，收到 -1")])
def test_leave_minutes_are_refused_naming_their_field(phones, db_file, value, zh):  # noqa: F811
    _, ew, _ = _table_of(db_file, "A1")
    chief = phones("裁判长")
    said = _said(chief.post("/o/act", data={"action": "leave", "event": "j", "round": "1",
                                            "team": ew, "minutes": value}).text)
    assert said == zh
    with db.reading(db_file) as con:
        assert not db.scalar(con, "select count(*) from official_leaves")


# -- 6: the sheets' messages in the page's language, /k's in 盘 -----------------------------

@pytest.fixture
def sheet(cli, event16, db_file, monkeypatch):
    """event16 paired for round 1: table 1's South link (the recorder) and its code."""
    from starlette.applications import Starlette

    from dashboard.hall import cache, limits, routes, sheetdoor
    from pipeline.day import selfreport

    cache.forget_versions()
    monkeypatch.setattr(sheetdoor, "LIMITS", limits.Limits())
    assert cli("pair", "--event", "e").code == 0
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    row = selfreport.links(db_file, "e", 1, "http://testserver").row(0, named=True)
    with TestClient(Starlette(routes=routes())) as client:
        yield client, row["ns_url"].replace("/r?", "/t?"), row["ns_code"]


@pytest.mark.parametrize(("lang", "said"), [
    ("", "副号：收到的“abc”不是整数"),
    ("&lang=en", "Deal number must be a whole number, not “abc”")])
def test_a_sheet_s_number_message_speaks_the_page_s_language(sheet, lang, said):
    client, url, code = sheet
    client.post(url + lang, data={"action": "unlock", "code": code})
    answer = client.post(url + lang, data={"action": "enter", "code": code, "number": "abc",
                                           "winner": "ns", "finish": "2"})
    found = re.search(r'data-testid="message">(.*?)</p>', answer.text).group(1)
    assert found == said


def test_the_match_sheet_says_pan_when_it_changed(match, db_file):  # noqa: F811
    """/k's "sheet changed" refusals use Tractor's word for a deal (盘), never 副."""
    from pipeline.day import tractorstore

    client, sides, row = match
    entered = _post(client, sides["a"], action="enter", number="1", declarer="a",
                    points="20")
    assert _outcome(entered) == "已记录"
    _post(client, sides["b"], action="unlock")
    answer_form = re.search(r'data-testid="answer-1".*?</form>',
                            client.get(sides["b"][0]).text, re.S).group(0)
    old = dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', answer_form))
    _post(client, sides["b"], action="dispute", number="1")
    tractorstore.decide(db_file, "tr", row["stage"], row["match"], 1, keep=False)
    assert _outcome(_post(client, sides["a"], action="enter", number="1", declarer="a",
                          points="40")) == "已记录"
    stale = _outcome(client.post(sides["b"][0], data={**old, "action": "confirm"}))
    assert stale.startswith("这一盘已被撤下并重新记录") and "副" not in stale


# -- 7: `paisai links` says when the running dashboard listens on loopback only ------------

@pytest.mark.parametrize(("host", "warned"), [("127.0.0.1", True), ("0.0.0.0", False)])
def test_links_warn_of_a_dashboard_on_loopback_only(cli, event16, db_file, monkeypatch,
                                                    host, warned):
    from pipeline.operations import serve

    monkeypatch.setattr(serve, "lan_addresses", lambda: ["192.0.2.7"])
    assert cli("pair", "--event", "e").code == 0
    serve.hall_file(db_file).write_text(json.dumps({"pid": os.getpid(), "host": host,
                                                    "port": 8611}), encoding="utf-8")
    run = cli("links", "--event", "e", "--round", "1", "--format", "json")
    assert run.code == 0 and ":8611/r?" in json.loads(run.out)[0]["ew_url"]
    assert ("只监听 127.0.0.1" in run.err and "paisai dashboard --hall" in run.err) is warned
    assert ("links point to the running dashboard" in run.err) is not warned
