"""Hardening, fourth pass (issue 37): the hall's server under a tester. One test (or a few)
per finding, each failing on the code before the fix."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import RESULT_HEADER, write_csv

from pipeline.base import db, oplog
from pipeline.base.errors import BusyError
from pipeline.day import selfreport

ROOT = Path(__file__).resolve().parent.parent


# 1. the console's sessions ---------------------------------------------------------------

def test_a_session_token_reveals_nothing_and_its_end_survives_a_restart(db_file, cli):
    from pipeline.operations import accounts
    assert cli("events").code == 0  # the database exists
    token = accounts.open_session(db_file, "s3cret", hours=12)
    other = accounts.open_session(db_file, "s3cret", hours=12)
    assert token != other and len(token) >= 40  # random, not made from the password
    assert "s3cret" not in token
    with db.reading(db_file) as con:
        kept = db.rows(con, "select * from console_sessions")
    assert all(token not in str(row) and "s3cret" not in str(row) for row in kept)
    assert accounts.session_account(db_file, token, "s3cret") == "organizer"
    assert accounts.session_account(db_file, token, "new-password") is None  # password changed
    accounts.end_session(db_file, token)
    accounts._password_tag.cache_clear()  # a restarted server remembers nothing in memory
    assert accounts.session_account(db_file, token, "s3cret") is None  # logged out, for good
    assert accounts.session_account(db_file, other, "s3cret") == "organizer"
    expired = accounts.open_session(db_file, "s3cret", hours=-1)
    assert accounts.session_account(db_file, expired, "s3cret") is None


def test_the_session_cookie_is_http_only_and_its_grant_is_spent_once():
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dashboard.auth import COOKIE, GRANTS
    from dashboard.hall import routes

    grant = GRANTS.give("the-token")
    with TestClient(Starlette(routes=routes())) as client:
        given = client.post("/admin/session", content=grant)
        assert given.status_code == 204
        cookie = given.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=the-token;")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert client.post("/admin/session", content=grant).status_code == 403  # spent
        assert client.post("/admin/session", content="made-up").status_code == 403
        assert client.post("/admin/session", content="x" * 100_000).status_code == 413
        cleared = client.delete("/admin/session").headers["set-cookie"]
        assert "Max-Age=0" in cleared and "HttpOnly" in cleared


def test_guesses_from_many_addresses_are_slowed_per_account(monkeypatch, tmp_path):
    from dashboard.auth import ACCOUNT_FAILURES, Failures, _sign_in
    from pipeline.officials import people

    monkeypatch.setenv("PAISAI_DB", str(tmp_path / "t.duckdb"))
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "right")
    failures, waited = Failures(), []
    for n in range(ACCOUNT_FAILURES):  # a new session and a new address every time
        _sign_in("", "wrong", f"s{n}", f"10.0.{n}.1", failures, waited.append)
    assert waited == []
    assert _sign_in("", "wrong", "s-late", "10.9.9.9", failures, waited.append) is None
    assert waited  # slowed although the session and the address are new
    assert ACCOUNT_FAILURES + 1 < people.FAILURES_TO_LOCK  # slowed before it locks


# 2. a side's code reaches only that side ---------------------------------------------------

def test_one_card_cannot_speak_for_both_sides(cli, event16, db_file):
    assert cli("pair", "--event", "e").code == 0
    row = selfreport.links(db_file, "e", 1, "http://hall").row(0, named=True)
    sig = {side: row[f"{side}_url"].rsplit("sig=", 1)[1] for side in ("ew", "ns")}
    assert row["ew_code"] != row["ns_code"] and re.fullmatch(r"\d{4}", row["ew_code"])
    assert row["ew_code"] not in row["ew_url"]  # printed beside the QR code, never in it
    # whoever scanned both QR codes, without the slips' codes, stores nothing
    for side in ("ew", "ns"):
        with pytest.raises(selfreport.WrongCode):
            selfreport.submit(db_file, "e", 1, 1, sig[side], "K", "9", side)
        with pytest.raises(selfreport.WrongCode):  # the other side's code does not fit
            selfreport.submit(db_file, "e", 1, 1, sig[side], "K", "9", side,
                              row["ns_code" if side == "ew" else "ew_code"])
    assert selfreport.pending(db_file, "e").is_empty()
    with db.reading(db_file) as con:
        assert db.scalar(con, "select count(*) from results") == 0


def test_self_reports_never_replace_a_result_from_a_sheet(cli, event16, db_file, tmp_path):
    """A table decided by its paper sheet (or the console, or a decision) stays decided: a
    side's report is refused as decided, naming the stored result, until the organizer
    reopens the table (issue 39); then both sides agreeing store the new result, and the
    table is decided again."""
    assert cli("pair", "--event", "e").code == 0
    sheet = write_csv(tmp_path / "r1.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"]])
    assert cli("ingest", "--event", "e", sheet).code == 0  # the table's paper sheet
    row = selfreport.links(db_file, "e", 1, "http://hall").row(0, named=True)

    def send(side: str, ew: str, ns: str) -> str:
        return selfreport.submit(db_file, "e", 1, 1, row[f"{side}_url"].rsplit("sig=", 1)[1],
                                 ew, ns, side, row[f"{side}_code"])

    for side in ("ew", "ns"):
        with pytest.raises(selfreport.Decided, match="已裁定.*10 – 8.*r1.csv"):
            send(side, "K", "9")
    with db.reading(db_file) as con:
        assert db.rows(con, "select ew_level, ns_level from results") == [(10, 8)]
    assert selfreport.pending(db_file, "e").is_empty()  # nothing offered to overturn it
    selfreport.reopen(db_file, "e", 1, 1)
    assert "table reopened" in "\n".join(oplog.read(db_file))
    assert [send("ew", "K", "9"), send("ns", "K", "9")] == ["waiting", "stored"]
    with db.reading(db_file) as con:
        assert db.rows(con, "select ew_level, ns_level from results") == [(13, 9)]
    with pytest.raises(selfreport.Decided):  # stored again: decided again
        send("ew", "A", "9")


def test_guessing_a_side_s_code_is_stopped(cli, event16, db_file, monkeypatch):
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dashboard.hall import cache, limits, report, routes

    assert cli("pair", "--event", "e").code == 0
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    monkeypatch.setattr(report, "LIMITS", limits.Limits())
    cache.forget_versions()
    row = selfreport.links(db_file, "e", 1, "http://testserver").row(0, named=True)
    with TestClient(Starlette(routes=routes())) as client:
        form = client.get(row["ew_url"]).text
        assert "name='code'" in form and "本方验证码" in form
        wrong = [f"{n:04d}" for n in range(10) if f"{n:04d}" != row["ew_code"]]
        answers = [client.post(row["ew_url"], data={"ew_level": "K", "ns_level": "9",
                                                    "code": code}) for code in wrong]
    codes = [a.status_code for a in answers]
    assert codes[:limits.WRONG_CODES] == [400] * limits.WRONG_CODES
    assert set(codes[limits.WRONG_CODES:]) == {429}  # the link waits ten minutes


# 3. busy is a state, not a lie ---------------------------------------------------------------

class Holder:
    """Another process holding the database file read-write (a restore, an import, a
    DuckDB shell), until stopped."""

    def __init__(self, database: Path):
        code = ("import duckdb, sys, time\n"
                "while True:\n"
                "    try:\n"
                f"        con = duckdb.connect({str(database)!r}); break\n"
                "    except Exception: time.sleep(0.02)\n"
                "print('held', flush=True); sys.stdin.readline()\n")
        self.process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "held"

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(30)


@pytest.fixture
def hall(cli, event_with_results, db_file, monkeypatch):
    """The phones' routes on a database with round 2 paired, in a fresh memory."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dashboard.hall import cache, routes

    assert cli("pair", "--event", "e").code == 0
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    monkeypatch.setenv("PAISAI_LOCK_TIMEOUT", "2")
    cache.forget_versions()
    with TestClient(Starlette(routes=routes())) as client:
        yield client
    cache.forget_versions()


def test_a_busy_database_answers_busy_never_no_such_event(hall, db_file):
    row = selfreport.links(db_file, "e", 2, "http://testserver").row(0, named=True)
    holder = Holder(db_file)
    try:
        answers = {path: hall.get(path) for path in (
            "/api/v1/events", "/api/v1/events/e/standings", "/m/e/", "/m/e/pairings")}
        answers["report"] = hall.get(row["ew_url"])
    finally:
        holder.stop()
    for path, answer in answers.items():
        assert answer.status_code == 503, path
        assert answer.headers["retry-after"] == str(BusyError.retry_after), path
        assert "no-store" in answer.headers["cache-control"], path
        text = answer.text
        assert str(db_file) not in text and "PID" not in text and "duckdb" not in text, path
        assert "Traceback" not in text, path
        assert "忙" in text, path
    assert answers["/api/v1/events/e/standings"].json()["error"].startswith("系统正忙")
    # once free, the same addresses answer
    assert hall.get("/m/e/").status_code == 200
    assert hall.get(row["ew_url"]).status_code == 200


def test_pages_made_before_the_database_was_taken_are_still_served(hall, db_file):
    first = hall.get("/m/e/")
    assert first.status_code == 200
    holder = Holder(db_file)
    try:
        again = hall.get("/m/e/")
    finally:
        holder.stop()
    assert again.status_code == 200 and again.text == first.text


def test_a_report_batch_waits_for_a_busy_database_once(cli, event16, db_file, monkeypatch):
    assert cli("pair", "--event", "e").code == 0
    links = selfreport.links(db_file, "e", 1, "http://hall")
    batch = [selfreport.Report("e", 1, r["table"], r["ew_url"].rsplit("sig=", 1)[1], "K", "9",
                               "ew", r["ew_code"]) for r in links.iter_rows(named=True)]
    opened = []
    real_open = db._open

    def counting(path, read_only, wait=None):
        opened.append(read_only)
        return real_open(path, read_only, wait)

    monkeypatch.setattr(db, "_open", counting)
    monkeypatch.setenv("PAISAI_LOCK_TIMEOUT", "0.5")
    holder = Holder(db_file)
    try:
        outcomes = selfreport.submit_many(db_file, batch)
    finally:
        holder.stop()
    assert len(batch) == 8 and all(isinstance(o, BusyError) for o in outcomes)
    assert opened == [False]  # one wait for the file, not one per report


def test_readers_of_a_busy_database_wait_side_by_side(db_file, cli, monkeypatch):
    """Six readers of a server's shared connection while another process holds the file:
    each gives up after its own second, together — not one after another (six seconds)."""
    assert cli("events").code == 0
    monkeypatch.setattr(db, "_SHARING", True)
    monkeypatch.setattr(db, "_SHARED", {})
    holder = Holder(db_file)
    failed: list[float] = []

    def read() -> None:
        started = time.monotonic()
        try:
            with db.reading(db_file, wait=1.0):
                pass
        except BusyError:
            failed.append(time.monotonic() - started)

    try:
        started = time.monotonic()
        threads = [threading.Thread(target=read) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        took = time.monotonic() - started
    finally:
        holder.stop()
    assert len(failed) == 6
    assert took < 4.5  # in series it would be six seconds at least


def test_the_hall_never_shows_a_traceback():
    from pipeline.operations.serve import streamlit_options

    assert streamlit_options()["client.showErrorDetails"] == "none"


# 4. proxies handled deliberately ------------------------------------------------------------

def test_forwarded_addresses_are_believed_only_from_configured_proxies():
    from dashboard.server import config
    from pipeline.operations.serve import dashboard_command

    assert "--forwarded-allow-ips" not in dashboard_command("0.0.0.0", 8501)
    alone = config(["--host", "0.0.0.0"])
    assert alone.proxy_headers is False  # a phone's own X-Forwarded-For is never believed
    behind = config(["--forwarded-allow-ips", "127.0.0.1"])
    assert behind.proxy_headers is True and behind.forwarded_allow_ips == "127.0.0.1"
    unit = (ROOT / "deploy" / "paisai-dashboard.service").read_text(encoding="utf-8")
    assert "--forwarded-allow-ips 127.0.0.1" in unit and "LimitNOFILE=" in unit
    nginx = (ROOT / "deploy" / "nginx-paisai.conf").read_text(encoding="utf-8")
    assert "proxy_add_x_forwarded_for" not in nginx  # the client's header is replaced
    assert nginx.count("proxy_set_header X-Forwarded-For $remote_addr;") >= 1
    assert "proxy_set_header X-Real-IP $remote_addr;" in nginx
    for setting in ("client_header_timeout", "keepalive_timeout", "limit_conn "):
        assert setting in nginx


def test_a_hall_behind_one_address_is_not_one_report_bucket():
    from dashboard.hall import limits

    limiter, now = limits.Limits(), 1000.0
    allowed = [limiter.allow("address:203.0.113.7", limits.PER_ADDRESS, now + n * 0.1)
               for n in range(300 * 2)]  # 300 phones behind one NAT, each side twice
    assert all(allowed)
    per_link = [limiter.allow("link:e:1:1:ew", limits.PER_LINK, now) for _ in range(11)]
    assert per_link == [True] * limits.PER_LINK + [False]


# 5 and 6. bounded caches, timeouts, headers, logs: a real server --------------------------

@pytest.fixture(scope="module")
def live_server(tmp_path_factory, demo_day):
    """`paisai dashboard` on the demo, its log kept."""
    from pipeline.operations.serve import free_port, wait_until_up

    folder = tmp_path_factory.mktemp("hall")
    database = folder / "demo.duckdb"
    demo_day(database, command=True)
    port = free_port()
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "paisai"), "dashboard", "--db", str(database),
         "--port", str(port)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "PAISAI_ADMIN_PASSWORD": "pw"})
    assert wait_until_up(port)
    yield f"http://127.0.0.1:{port}", port, database, folder / "server.log"
    process.terminate()
    process.wait(20)
    log.close()


def _get(url: str, method: str = "GET", data: bytes | None = None):
    import urllib.error
    import urllib.request

    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None  # show the redirect itself

    opener = urllib.request.build_opener(Keep)
    try:
        return opener.open(urllib.request.Request(url, data=data, method=method), timeout=30)
    except urllib.error.HTTPError as answer:
        return answer


def test_made_up_query_strings_are_the_same_page(live_server):
    url, *_ = live_server
    first = _get(f"{url}/m/demo/")
    pages = [_get(f"{url}/m/demo/?x={n}") for n in range(20)]
    tags = {p.headers["ETag"] for p in pages}
    assert tags == {first.headers["ETag"]}


def test_made_up_queries_do_not_grow_the_pages_kept(hall):
    """Twenty made-up query strings are one kept page (each was a new render and entry);
    searches are kept apart, never evicting the pages everyone reads."""
    from dashboard.hall import cache

    for n in range(20):
        assert hall.get(f"/m/e/?x={n}").status_code == 200
    assert len(cache.PAGES.values) == 1
    for n in range(20):
        hall.get(f"/m/e/pairings?q=B{n}&junk={n}")
    assert len(cache.PAGES.values) == 1 and len(cache.SEARCHES.values) == 20
    assert not cache.TEAM_SEARCHES.values


def test_a_team_number_search_is_one_page_per_team_kept_for_the_version(hall):
    """A phone in the hall types its own team number (issue 53): each spelling of one
    number is one page, kept apart from made-up searches, for every team at once (in the
    64 searches kept, a thousand teams evicted each other: every search a new render)."""
    import re

    from dashboard.hall import cache

    answers = [hall.get(f"/m/e/pairings?q={q}") for q in ("A5", "a5", "%20A5%20", "A5&x=1",
                                                           "Ａ５", "A%205")]  # a Chinese keyboard's
    assert {a.status_code for a in answers} == {200}
    assert len({a.headers["ETag"] for a in answers}) == 1
    assert len(cache.TEAM_SEARCHES.values) == 1 and not cache.SEARCHES.values
    body = re.search(r"<tbody>(.*)</tbody>", answers[0].text, re.S).group(1)
    rows = re.findall(r"<tr>.*?</tr>", body, re.S)
    assert len(rows) == 1 and re.search(r">A5<", rows[0])  # A5's own table, alone
    every = re.search(r"<tbody>(.*)</tbody>", hall.get("/m/e/pairings").text, re.S).group(1)
    assert rows[0] in every  # the same row as in the whole round's list
    assert 'name="q" value="A5"' in answers[1].text  # the box keeps what was looked for
    for n in range(1, 17):  # every team of the event: kept together
        assert hall.get(f"/m/e/pairings?q=A{n}").status_code == 200
    assert len(cache.TEAM_SEARCHES.values) == 16 and not cache.SEARCHES.values
    assert hall.get("/m/e/pairings?q=A5&lang=en").status_code == 200  # a page per language
    assert len(cache.TEAM_SEARCHES.values) == 17
    other = hall.get("/m/e/pairings?q=<b>队伍")
    assert 'name="q" value="&lt;b&gt;队伍"' in other.text  # as typed, escaped


def test_every_answer_carries_the_security_headers(live_server):
    url, port, *_ = live_server
    answers = {"redirect": _get(f"{url}/m/demo"), "405": _get(f"{url}/api/v1/events", "POST",
                                                               b"x"),
               "404": _get(f"{url}/m/no-such-event/"), "page": _get(f"{url}/m/demo/"),
               "projector": _get(f"{url}/live")}
    assert answers["redirect"].status == 308
    assert answers["redirect"].headers["Location"] == "/m/demo/"
    assert answers["405"].status == 405 and answers["404"].status == 404
    for name, answer in answers.items():
        assert answer.headers["X-Content-Type-Options"] == "nosniff", name
        assert answer.headers["Referrer-Policy"] == "no-referrer", name
    for name in ("redirect", "405", "404", "page"):
        assert "default-src 'none'" in answers[name].headers["Content-Security-Policy"], name
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
        raw.sendall(b"GET /a b\x01c HTTP/1.1\r\nHost: x\r\n\r\n")
        malformed = raw.recv(4096).decode("latin-1").lower()
    assert malformed.startswith("http/1.1 400") and "x-content-type-options: nosniff" in malformed


def test_a_connection_that_never_finishes_its_headers_is_closed(live_server):
    import socket

    from dashboard.guards import HEADER_SECONDS

    _, port, *_ = live_server
    with socket.create_connection(("127.0.0.1", port), timeout=HEADER_SECONDS + 20) as slow:
        slow.sendall(b"GET /m/demo/ HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        assert slow.recv(100) == b""  # closed by the server, not by this timeout


def test_no_signed_link_lands_in_the_server_log(live_server):
    url, _, database, log = live_server
    links = selfreport.links(database, "demo", 2, url)
    signed = links["ew_url"][0]
    assert _get(signed).status == 200
    _get(signed, "POST", b"ew_level=K&ns_level=9&code=0000")
    signature = signed.rsplit("sig=", 1)[1]
    time.sleep(0.5)  # the server's last lines reach the file (nothing here waits on them)
    assert signature not in log.read_text(encoding="utf-8")


# 7. the CLI -------------------------------------------------------------------------------

def test_a_merge_sheet_that_fails_logs_and_says_nothing(cli, tmp_path, db_file):
    for event, names in (("e1", ("王伟", "李强")), ("e2", ("王小伟", "吴二"))):
        assert cli("event", "create", "--id", event, "--name", event, "--ruleset",
                   "suzhou-2025").code == 0
        assert cli("ingest", "--event", event, write_csv(
            tmp_path / f"{event}.csv", [["队号", "队员1", "队员2"], ["A1", *names],
                                        ["A2", f"{event}甲", f"{event}乙"]])).code == 0
    listing = json.loads(cli("players", "--format", "json").out)
    by_name = {p["name"]: p["player_id"] for p in listing}
    sheet = write_csv(tmp_path / "m.csv", [["保留编号", "合并编号"],
                                           [by_name["王伟"], by_name["王小伟"]],
                                           [by_name["王伟"], "NO-SUCH-ID"]])
    before = oplog.read(db_file)
    done = cli("players", "merge", "--from", sheet)
    assert done.code == 2 and "NO-SUCH-ID" in done.err
    assert "已合并" not in done.out  # the first row was rolled back with the second
    assert oplog.read(db_file) == before
    assert json.loads(cli("players", "--format", "json").out) == listing


def test_a_long_title_is_shortened_in_a_few_measurements():
    from pipeline.publishing.export.picture import _shorten

    class Draw:
        calls = 0

        def textbbox(self, at, text, font):
            Draw.calls += 1
            return (0, 0, 10 * len(text), 10)

    shown = _shorten(Draw(), "赛" * 3000, None, 500)
    assert shown == "赛" * 49 + "…" and Draw.calls <= 16


def test_an_event_name_has_a_length_limit(cli):
    done = cli("event", "create", "--id", "long", "--name", "赛" * 201, "--ruleset",
               "suzhou-2025")
    assert done.code == 2 and "200" in done.err
    assert cli("event", "create", "--id", "ok", "--name", "赛" * 200, "--ruleset",
               "suzhou-2025").code == 0


@pytest.mark.parametrize("base", ["192.168.1.5:8501", "javascript:alert(1)",
                                  "data:text/html,x", "http://hall/?x=1", "http://hall/\r\nX",
                                  "ftp://hall", "http://", "http://a b/"])
def test_links_and_cards_take_only_absolute_http_addresses(cli, event16, base, tmp_path):
    assert cli("pair", "--event", "e").code == 0
    for args in (["links"], ["export", "cards", "--out", str(tmp_path / "c.pdf")]):
        done = cli(*args, "--event", "e", "--round", "1", "--base-url", base)
        assert done.code == 2 and "--base-url" in done.err, (args, base)
    assert not (tmp_path / "c.pdf").exists()
    assert cli("links", "--event", "e", "--round", "1", "--base-url",
               "https://hall.example:8443/paisai").code == 0
