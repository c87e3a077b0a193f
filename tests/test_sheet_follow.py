"""The table's sheet (/t) as a table uses it (issues 49 and 51), through the hall's real
routes and a real DuckDB file: every form answered with a redirect, a reloaded or resent old
form never bringing back a deal the referee took off, a deal entered after the other side
answered an earlier one taken, the sheet's mark that the open page follows, a form's number
refused naming its field, and a made-up link counted nowhere."""

from __future__ import annotations

import re
import time

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from pipeline.base import db


@pytest.fixture
def table(cli, event16, db_file, monkeypatch):
    """event16 (suzhou-2025, South records) paired for round 1: table 1's side links and
    codes, served by the hall's routes alone; the sides each on their own phone."""
    from dashboard.hall import cache, limits, routes, sheetdoor
    from pipeline.day import selfreport

    cache.forget_versions()
    monkeypatch.setattr(sheetdoor, "LIMITS", limits.Limits())
    assert cli("pair", "--event", "e").code == 0
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    row = selfreport.links(db_file, "e", 1, "http://testserver").row(0, named=True)
    app = Starlette(routes=routes())
    with TestClient(app) as south, TestClient(app) as east_west:
        yield {"ns": (south, row["ns_url"].replace("/r?", "/t?"), row["ns_code"]),
               "ew": (east_west, row["ew_url"].replace("/r?", "/t?"), row["ew_code"])}


def _unlock(side) -> str:
    """The side gives its code; the page it reads afterwards (by GET)."""
    client, url, code = side
    return client.post(url, data={"action": "unlock", "code": code}).text


def _form(page: str, testid: str) -> dict:
    """A form's hidden fields as the page drew them (what a reload would send again)."""
    form = re.search(rf'data-testid="{testid}".*?</form>', page, re.S).group(0)
    return dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', form))


def _send(side, fields: dict, follow: bool = True):
    """A form sent as the page holds it: with the side's code (a hidden field of the form)."""
    client, url, code = side
    return client.post(url, data={"code": code, **fields}, follow_redirects=follow)


def _message(page: str) -> str:
    found = re.search(r'data-testid="message">(.*?)</p>', page)
    return found.group(1) if found else ""


def _changed(client, mark_url: str, *before: str) -> str:
    """The sheet's mark once it differs from `before`: the event's version is read again at
    most once a second (in the background), so a change shows within seconds."""
    deadline = time.monotonic() + 10
    while True:
        found = client.get(mark_url).text
        if found not in before or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _deals(db_file) -> list[tuple]:
    with db.reading(db_file) as con:
        return db.rows(con, "select deal, winner_side, partner_finish, status from "
                            "table_sheet_deals where event_id = 'e' order by deal")


def test_a_post_is_answered_with_a_redirect_and_the_code_kept_in_a_strict_cookie(table):
    south = table["ns"]
    client, url, code = south
    answer = client.post(url, data={"action": "unlock", "code": code}, follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"].startswith("/t?") and "&flash=" in answer.headers["location"]
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/t" in cookie
    assert code not in answer.headers["location"]  # the code never in an address
    page = client.get(answer.headers["location"])
    assert _message(page.text) == "验证码正确" and 'data-testid="enter"' in page.text
    # the page read again (a reload) sends nothing: still one form, no deal
    entered = _send(south, {**_form(page.text, "enter"), "winner": "ew", "finish": "2"},
                    follow=False)
    assert entered.status_code == 303
    reloaded = client.get(entered.headers["location"])
    assert _message(reloaded.text) == "已记录" and "记录第 2 副" in reloaded.text
    assert client.get(entered.headers["location"]).text.count("记录第 2 副") == 1
    # the other phone (no cookie) only sees the sheet
    other = TestClient(client.app)
    assert 'data-testid="enter"' not in other.get(url).text


def test_an_old_form_sent_again_never_brings_back_a_deal_the_referee_took_off(table, db_file):
    """Issue 49 finding 3: NS enters deal 2, EW disputes it, the referee takes it off; NS's
    old deal-2 form sent again (a reload re-sending it) is refused — before, the sheet's
    mark (deal numbers and states) read as before deal 2 and the removed deal came back."""
    from pipeline.day import tablestore

    south, east_west = table["ns"], table["ew"]
    page = _unlock(south)
    _send(south, {**_form(page, "enter"), "winner": "ew", "finish": "2"})
    _unlock(east_west)
    _send(east_west, {"action": "confirm", "number": "1"})
    page = _unlock(south)  # deal 2's form, drawn after deal 1 was confirmed
    deal_two = {**_form(page, "enter"), "winner": "ns", "finish": "4"}
    assert deal_two["number"] == "2"
    _send(south, deal_two)
    _send(east_west, {"action": "dispute", "number": "2"})
    tablestore.decide(db_file, "e", 1, 1, 2, keep=False, by="裁判 referee")
    assert _deals(db_file) == [(1, "ew", 2, "confirmed")]
    again = _send(south, deal_two)
    assert "记分表在这一副之前已有变化" in _message(again.text)
    assert _deals(db_file) == [(1, "ew", 2, "confirmed")]  # the removed deal stays removed
    # the refused form is shown again with what was typed, for the deal now due
    assert "记录第 2 副" in again.text
    assert '<option value="ns" selected>' in again.text
    assert '<option value="4" selected>' in again.text
    # entered anew from the fresh form, it is taken
    fresh = {**_form(again.text, "enter"), "winner": "ew", "finish": "3"}
    assert _message(_send(south, fresh).text) == "已记录"
    assert _deals(db_file) == [(1, "ew", 2, "confirmed"), (2, "ew", 3, "entered")]


def test_the_next_deal_is_taken_after_the_other_side_answers_an_earlier_one(table, db_file):
    """Issue 51 item 3: East-West confirms (or disputes and the referee keeps) deal 1 while
    South has deal 2 on the screen: deal 2 is taken — before, it was refused and retyped."""
    from pipeline.day import tablestore

    south, east_west = table["ns"], table["ew"]
    page = _unlock(south)
    on_screen = _send(south, {**_form(page, "enter"), "winner": "ew", "finish": "2"}).text
    # deal 2's form is on South's screen, drawn before East-West's answer to deal 1
    _unlock(east_west)
    assert _message(_send(east_west, {"action": "confirm", "number": "1"}).text) == "已记录"
    taken = _send(south, {**_form(on_screen, "enter"), "winner": "ns", "finish": "2"})
    assert _message(taken.text) == "已记录"
    # deal 2 disputed, the referee keeps it as entered: deal 3's older form is still taken
    on_screen = taken.text
    _send(east_west, {"action": "dispute", "number": "2"})
    tablestore.decide(db_file, "e", 1, 1, 2, keep=True, by="裁判 referee")
    taken = _send(south, {**_form(on_screen, "enter"), "winner": "ns", "finish": "3"})
    assert _message(taken.text) == "已记录"
    assert [d[0] for d in _deals(db_file)] == [1, 2, 3]
    # a second phone's stale form for deal 3 is refused, saying the deal is entered
    stale = _send(south, {**_form(on_screen, "enter"), "winner": "ew", "finish": "2"})
    assert "下一副应是第 4 副" in _message(stale.text)


def test_the_sheet_s_mark_changes_with_each_answer_and_the_page_follows_it(table, db_file):
    south, east_west = table["ns"], table["ew"]
    client, url, _ = east_west
    mark_url = url.replace("/t?", "/t/mark?")
    first = client.get(mark_url)
    assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
    page = client.get(url)
    assert f'data-mark="{first.text}"' in page.text  # the page knows the mark it shows
    assert '<script src="/t/follow.js" defer></script>' in page.text
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert client.get(mark_url).text == first.text  # nothing changed, the same mark
    page = _unlock(south)
    _send(south, {**_form(page, "enter"), "winner": "ew", "finish": "2"})
    entered = _changed(client, mark_url, first.text)
    assert entered != first.text
    _unlock(east_west)
    _send(east_west, {"action": "confirm", "number": "1"})
    assert _changed(client, mark_url, first.text, entered) not in (first.text, entered)
    assert client.get(url.replace("/t?", "/t/mark?").replace("sig=", "sig=0")).status_code \
        == 403
    script = client.get("/t/follow.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "data-mark-url" in script.text


@pytest.mark.parametrize(("field", "value", "said"), [
    ("number", "abc", "副号：收到的“abc”不是整数"), ("finish", "２x", "搭档名次：收到的“２x”不是整数"),
    ("number", "99999", "副号：应在 1 到 999 之间，收到 99999"),
    ("number", "1e309", "副号：收到的“1e309”不是整数"),
])
def test_a_form_s_number_is_refused_naming_its_field(table, db_file, field, value, said):
    """Issue 49 finding 8: a field that is not a number is refused saying which and why —
    before, "this link is not valid or has expired"."""
    south = table["ns"]
    page = _unlock(south)
    answer = _send(south, {**_form(page, "enter"), "winner": "ew", "finish": "2",
                           field: value})
    assert _message(answer.text) == said  # the value typed kept whole (issue 49 mends)
    assert "链接无效" not in answer.text and _deals(db_file) == []


def test_a_made_up_link_is_counted_nowhere(table):
    """Issue 49 finding 8: a made-up /t POST is refused before any limit counts it."""
    from dashboard.hall import sheetdoor

    client, url, code = table["ns"]
    for n in range(50):
        forged = url.replace("sig=", f"sig={n}")
        assert client.post(forged, data={"action": "unlock", "code": code}).status_code == 403
    assert sheetdoor.LIMITS.times == {}


def test_limits_filled_with_made_up_keys_keep_every_other_count():
    """Issue 49 finding 8: 100,000 keys once cleared every counter, wrong codes and sign-ins
    included. Each kind of key is bounded on its own, the oldest forgotten first."""
    from dashboard.hall import limits

    limiter, now = limits.Limits(per_kind=1000), 1000.0
    for _ in range(limits.WRONG_CODES):
        limiter.allow("code:t:e:1:1:ns", limits.WRONG_CODES, now, limits.CODE_WINDOW)
    limiter.allow("login:203.0.113.9", 1, now)
    for n in range(5000):  # a flood of links and addresses
        limiter.allow(f"link:t:e:1:{n}:ns", 30, now)
        limiter.allow(f"address:198.51.100.{n}", 600, now)
    assert not limiter.allow("code:t:e:1:1:ns", limits.WRONG_CODES, now + 1,
                             limits.CODE_WINDOW, count=False)
    assert not limiter.allow("login:203.0.113.9", 1, now + 1)
    kept = limiter.times
    assert sum(k.startswith("link:") for k in kept) == 1000  # bounded
    assert "link:t:e:1:4999:ns" in kept and "link:t:e:1:0:ns" not in kept  # oldest gone
