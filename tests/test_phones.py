"""The phones' routes and the read-only API (issue 30, first part): the API answers with the
CLI's JSON columns, pages carry an ETag and safe headers, bad addresses are 4xx pages in the
page's language, and no route needs a Streamlit session."""

from __future__ import annotations

import json
import time

import pytest
from conftest import RESULT_HEADER, read_csv_output, write_csv
from starlette.applications import Starlette
from starlette.testclient import TestClient


@pytest.fixture
def client(cli, round_two_paired, tmp_path, db_file, monkeypatch):
    """event16 with round 1 played (the lower number wins 10–8) and round 2 paired, served
    by the phones' routes alone: no Streamlit runtime is started."""
    from dashboard.hall import cache, routes

    cache.forget_versions()  # another test's database may have held these event ids
    routes = routes
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    with TestClient(Starlette(routes=routes())) as test_client:
        yield test_client


def test_the_api_answers_with_the_cli_s_json(client, cli):
    standings = client.get("/api/v1/events/e/standings")
    assert standings.status_code == 200
    assert standings.json() == json.loads(cli("standings", "--event", "e", "--format",
                                              "json").out)
    after_one = client.get("/api/v1/events/e/standings?round=1").json()
    assert after_one == json.loads(cli("standings", "--event", "e", "--round", "1",
                                       "--format", "json").out)
    listed = client.get("/api/v1/events").json()
    assert listed == json.loads(cli("events", "--format", "json").out)
    pairings = client.get("/api/v1/events/e/pairings?round=2").json()
    assert [list(p) for p in pairings][0] == ["round", "table", "ew_team", "ns_team"]
    assert len(pairings) == 8 and {p["round"] for p in pairings} == {2}
    bad = client.get("/api/v1/events/e/standings?round=x")
    assert bad.status_code == 400 and "error" in bad.json()
    assert client.get("/api/v1/events/nope/standings").status_code == 404


def test_phone_pages_cache_and_say_it_safely(client):
    ranking = client.get("/m/e/")
    assert ranking.status_code == 200 and "第 1 轮后排名" in ranking.text
    assert ranking.headers["referrer-policy"] == "no-referrer"
    assert "default-src 'none'" in ranking.headers["content-security-policy"]
    assert "max-age" in ranking.headers["cache-control"]
    again = client.get("/m/e/", headers={"If-None-Match": ranking.headers["etag"]})
    assert again.status_code == 304  # rendered once: the same version, the same tag
    assert 'http-equiv="refresh"' in ranking.text  # it refreshes without JavaScript
    english = client.get("/m/e/?lang=en")
    assert "Ranking after round 1" in english.text and "Points" in english.text
    found = client.get("/m/e/pairings?q=A3")
    assert found.status_code == 200 and "A3" in found.text and "<form" in found.text
    team = client.get("/m/e/teams/A1")
    assert team.status_code == 200 and "号桌" in team.text and "名次" in team.text
    import re

    opponent = re.search(r"对手：(A\d+) (\S+?)<", team.text)  # its number and its name
    assert opponent and opponent.group(2) == f"队伍{opponent.group(1)[1:]}"
    english = client.get(team.url.path + "?lang=en").text  # an English page all English
    assert "Table" in english and "Rank" in english and "号桌" not in english
    assert f"Opponent: {opponent.group(1)} " in english
    missing = client.get("/m/e/teams/Z9")
    assert missing.status_code == 404 and "没有这个队" in missing.text
    assert client.get("/m/nope/?lang=en").status_code == 404
    assert "No such event" in client.get("/m/nope/?lang=en").text


def test_a_result_changes_the_page_s_version(client, cli, tmp_path):
    before = client.get("/m/e/").headers["etag"]
    rows = [RESULT_HEADER, [2, 1, "A1", "A5", "A", "2"]]  # round 2, table 1: A1–A5
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "r2.csv", rows)).code == 0
    # the pages show the snapshot they have while the next is made: the change shows within
    # seconds (the version is asked once a second, a refresh made in the background)
    deadline = time.monotonic() + 20
    while True:
        after = client.get("/m/e/", headers={"If-None-Match": before})
        if after.status_code == 200 or time.monotonic() > deadline:
            break
        assert after.status_code == 304
        time.sleep(0.2)
    assert after.status_code == 200 and after.headers["etag"] != before
    assert "第 2 轮后" in after.text
    shown = read_csv_output(cli("standings", "--event", "e", "--format", "csv").out)
    assert shown[0]["team_no"] in after.text


def test_no_phone_route_starts_a_streamlit_session(client):
    from streamlit import runtime

    for path in ("/m/e/", "/m/e/pairings", "/m/e/teams/A1", "/m/e/bracket",
                 "/api/v1/events", "/api/v1/events/e/standings"):
        assert client.get(path).status_code == 200
    assert not runtime.exists()  # nothing here made a Streamlit runtime, let alone a session


def test_a_table_reports_from_both_sides_through_a_plain_form(client, db_file):
    """GET shows the form of a side's signed link, POST stores through the self-report logic:
    the first side waits, the second side's same result stores the table."""
    from pipeline.day import selfreport
    links = selfreport.links(db_file, "e", 2, "http://testserver")
    row = links.row(0, named=True)
    assert row["ew_url"].startswith("http://testserver/r?")
    form = client.get(row["ew_url"])
    assert form.status_code == 200 and "<form method='post'" in form.text
    assert "no-store" in form.headers["cache-control"]
    assert form.headers["referrer-policy"] == "no-referrer"
    said = [client.post(row[f"{side}_url"], data={"ew_level": "K", "ns_level": "9",
                                                   "code": row[f"{side}_code"]}).text
            for side in ("ew", "ns")]
    assert "已提交，等待对方确认" in said[0] and "双方一致，成绩已保存" in said[1]
    forged = row["ew_url"].replace("table=1", "table=2")
    assert client.get(forged).status_code == 403
    assert "链接无效" in client.get(forged).text
    other = links.row(1, named=True)  # table 1 is decided now: another table's link
    too_long = client.post(other["ns_url"], content=b"ew_level=" + b"9" * 4000,
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert too_long.status_code == 413
    bad = client.post(other["ns_url"], data={"ew_level": "16", "ns_level": "9",
                                             "code": other["ns_code"]})
    assert bad.status_code == 400 and "有效的级数" in bad.text


def test_reports_are_rate_limited_per_link(client, db_file, monkeypatch):
    from dashboard.hall import limits, report
    from pipeline.day import selfreport
    monkeypatch.setattr(report, "LIMITS", limits.Limits())
    row = selfreport.links(db_file, "e", 2, "http://testserver").row(1, named=True)
    url = row["ew_url"]
    codes = [client.post(url, data={"ew_level": "K", "ns_level": "9",
                                    "code": row["ew_code"]}).status_code
             for _ in range(limits.PER_LINK + 1)]
    assert codes[:limits.PER_LINK] == [200] * limits.PER_LINK and codes[-1] == 429


def test_a_decided_table_s_link_shows_what_is_stored(client, db_file, cli):
    """Issue 39: reopening a side's link after the table was decided shows the stored
    result, never a blank form; sending again is refused as decided."""
    from pipeline.day import selfreport
    row = selfreport.links(db_file, "e", 2, "http://testserver").row(0, named=True)
    for side in ("ew", "ns"):
        client.post(row[f"{side}_url"], data={"ew_level": "K", "ns_level": "9",
                                               "code": row[f"{side}_code"]})
    again = client.get(row["ew_url"])
    assert again.status_code == 200 and "已裁定" in again.text and "K – 9" in again.text
    assert "<form" not in again.text
    resend = client.post(row["ns_url"], data={"ew_level": "A", "ns_level": "9",
                                              "code": row["ns_code"]})
    assert resend.status_code == 409 and "已裁定" in resend.text
    assert cli("results", "reopen", "--event", "e", "--round", "2", "--table", "1").code == 0
    assert "<form" in client.get(row["ew_url"]).text


def test_the_report_form_names_the_teams_and_repeats_what_was_sent(client, db_file, cli):
    """Issue 39: the form shows team names, the answer repeats the result sent, a closed
    link says why and what to do, and the pairings page (with its search box) never reloads
    itself under a player typing."""
    from pipeline.day import selfreport
    row = selfreport.links(db_file, "e", 2, "http://testserver").row(0, named=True)
    form = client.get(row["ew_url"]).text
    assert f"东西 {row['ew_team']} 队伍" in form and f"南北 {row['ns_team']} 队伍" in form
    sent = client.post(row["ew_url"], data={"ew_level": "K", "ns_level": "9",
                                            "code": row["ew_code"]})
    assert "你提交的成绩" in sent.text and "K" in sent.text and "9" in sent.text
    old = selfreport.links(db_file, "e", 1, "http://testserver").row(0, named=True)
    closed = client.get(old["ew_url"])  # round 1's link, round 2 paired since
    assert closed.status_code == 410
    assert "本轮已结束" in closed.text and "请把成绩交给裁判" in closed.text
    pairings = client.get("/m/e/pairings").text
    assert 'name="q"' in pairings and 'http-equiv="refresh"' not in pairings
    assert 'http-equiv="refresh"' in client.get("/m/e/").text  # the ranking follows by itself


def test_the_phones_style_sheet_is_served(client):
    """The pages' style sheet is no event: /m/style.css is answered, /m/e redirects."""
    sheet = client.get("/m/style.css")
    assert sheet.status_code == 200 and sheet.headers["content-type"].startswith("text/css")
    moved = client.get("/m/e", follow_redirects=False)
    assert moved.status_code == 308 and moved.headers["location"] == "/m/e/"


def _until(read, wanted: str, seconds: float = 30) -> str:
    """A page read again until it shows `wanted` (the pages follow a change within seconds:
    the version is asked once a second, the next snapshot made in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        text = read()
        if wanted in text or time.monotonic() > deadline:
            return text
        time.sleep(0.05)


def test_a_team_page_follows_a_table_deleted_and_stored_again(client, cli, tmp_path):
    """Issue 51: after a table was deleted and stored again, the Chinese team page kept the
    state from before for 80 s and more while the ranking and the English page showed the
    new one: a page made from the snapshot still shown while the next was made was kept by
    the event's new version. Read all along, every page shows the new result within
    seconds, in both languages."""
    def team(lang: str = "") -> str:
        return client.get(f"/m/e/teams/A5{lang}").text

    last = "<td class=\"\">{}</td></tr></tbody>"  # the levels A5 reached, its last game
    rows = [RESULT_HEADER, [2, 1, "A1", "A5", "10", "8"]]  # round 2 table 1: A1–A5 10–8
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "t1.csv", rows)).code == 0
    assert last.format("8") in _until(team, last.format("8"))
    assert last.format("8") in _until(lambda: team("?lang=en"), last.format("8"))
    assert cli("results", "delete", "--event", "e", "--round", "2", "--table", "1").code == 0
    rows = [RESULT_HEADER, [2, 1, "A1", "A5", "8", "J"]]  # stored again: A5 wins J–8
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "t1b.csv", rows)).code == 0
    # a phone reading the Chinese page all the while, as in the hall
    for _ in range(3):
        team()
    english = _until(lambda: team("?lang=en"), last.format("J"))
    assert last.format("J") in english  # A5 reached J now
    chinese = _until(team, last.format("J"), seconds=10)
    assert last.format("J") in chinese and last.format("8") not in chinese


def test_a_team_page_speaks_one_language(client):
    """Issue 51: the Chinese team page said "win/loss", "0.0" points and "below A4 on
    level_diff_score", the English one "排在 A4 之后：…". Round 1: every lower number won
    10–8, so the eight winners are equal on points (3) and level difference, and stand in
    team-number order: A5 third, below A3 and above A7; A6 lost (0 points)."""
    games = client.get("/m/e/teams/A6").text
    assert '<td class="">负</td><td class="n">0</td>' in games
    assert not any(w in games for w in ("loss", "win", ".0<", "below", "above"))
    chinese = client.get("/m/e/teams/A5").text
    assert '<td class="">胜</td><td class="n">3</td>' in chinese
    assert "排在 A3 之后：队号 A5 对 A3；排在 A7 之前：队号 A5 对 A7" in chinese
    assert not any(w in chinese for w in ("win", "loss", ".0<", "below", "above",
                                          "team_no"))
    english = client.get("/m/e/teams/A5?lang=en").text
    assert '<td class="">Win</td><td class="n">3</td>' in english
    assert "below A3 on team number: A5 to A3; above A7 on team number: A5 to A7" in english
    page = english.replace("队伍", "")  # the teams' names are as registered
    assert not any(w in page for w in ("排在", "之后", "之前", "胜", "负", "积分", "队号"))
    loser = client.get("/m/e/teams/A6?lang=en").text
    assert '<td class="">Loss</td><td class="n">0</td>' in loser


def test_the_hall_s_address_leaves_out_a_finished_event(client, cli, tmp_path, db_file):
    """Issue 51 acceptance: /m/ listed a finished event (its last planned round reported) as
    in play. A one-round event counts while its round is open, not once it is reported."""
    from pipeline.base import db

    rules = tmp_path / "one.toml"
    rules.write_text('name = "one"\nrounds = 1\n', encoding="utf-8")
    assert cli("event", "create", "--id", "f", "--name", "一轮赛", "--ruleset", rules).code == 0
    assert cli("ingest", "--event", "f", write_csv(tmp_path / "f.csv", [
        ["队号"], ["B1"], ["B2"], ["B3"], ["B4"]])).code == 0
    assert cli("pair", "--event", "f").code == 0
    listed = client.get("/m/", follow_redirects=False)
    assert listed.status_code == 200 and "/m/f/" in listed.text and "/m/e/" in listed.text
    with db.reading(db_file) as con:
        tables = db.rows(con, "select table_no, ew_team, ns_team from pairings where "
                              "event_id = 'f' order by 1")
    assert len(tables) == 2
    rows = [RESULT_HEADER] + [[1, *table, "10", "8"] for table in tables]
    assert cli("ingest", "--event", "f", write_csv(tmp_path / "f1.csv", rows[:2])).code == 0
    assert "/m/f/" in client.get("/m/", follow_redirects=False).text  # one table still open
    assert cli("ingest", "--event", "f", write_csv(tmp_path / "f1.csv", rows)).code == 0
    only = client.get("/m/", follow_redirects=False)  # f is over: e is the one in play
    assert only.status_code == 307 and only.headers["location"] == "/m/e/"
