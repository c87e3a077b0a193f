"""The officials' door on their phones (/o, issue 43): plain HTML, no JavaScript, 360 px.
Each signs in with their own name and password (the console's session, an HttpOnly
SameSite=Strict cookie) and sees their part: a referee their tables (the ladder's counts, a
record, a proposal), the chief arbiter the proposals to rule on and leave to grant, the
committee the open appeals with their countdown and votes, the desk the appeals it files.
Every form answers with a redirect (a reload never sends it again); a referee acting on a
table not theirs is refused. The team leader's appeal link is /a
(`dashboard.hall.appeals`)."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from dashboard.hall.limits import LIMITS, form_body
from dashboard.hall.officials_views import home, table
from dashboard.hall.officials_words import (  # noqa: F401
    WORDS,
    one_language,
    ruling_word,
    said_in,
)
from dashboard.hall.respond import HEADERS, database, page_lang
from pipeline.base import db
from pipeline.base.errors import BusyError, PaisaiError
from pipeline.publishing.templating import render

PER_OFFICIAL = 60  # actions a minute from one official
PER_ADDRESS_LOGINS = 20  # sign-ins a minute from one address (a hall's officials may share one)
PER_NAME_LOGINS = 10  # sign-ins a minute with one name, from anywhere


def _signed_in(request: Request):
    from dashboard.auth import COOKIE
    from pipeline.operations import accounts

    return accounts.session_official(database(), request.cookies.get(COOKIE, ""))


def page(request: Request, status: int = 200, **parts) -> Response:
    language = page_lang(request)
    w = WORDS[language]
    defaults = {"message": "", "login": False, "me": "", "event": "", "event_name": "",
                "screen": False, "tables": None, "table": None, "queue": None, "appeals": None,
                "desk": None, "round": 0, "kinds": [], "ruling_kinds": [], "all_teams": [],
                "leave_minutes": 15}
    # the bar leads back to the event's ranking (the page's, or the address's), else the list
    event = parts.get("event") or request.query_params.get("event", "")[:64]
    ranking = f"/m/{quote(event, safe='')}/" if event else "/m/"
    page = render("site/officials.html", title=parts.pop("title", w["title"]), up="", w=w,
                  lang_q="?lang=en" if language == "en" else "",
                  lang="en" if language == "en" else "zh-CN",
                  nav={"ranking": ranking, "pairings": "/o", "teams": "/o",
                       "style": "/m/style.css"},
                  words={"ranking": "", "pairings": "", "teams": ""}, refresh=None,
                  **(defaults | parts))
    return HTMLResponse(page, status_code=status, headers={**HEADERS, "Cache-Control": "no-store"})


async def officials_route(request: Request) -> Response:
    """GET /o: sign in, or the official's own page; GET /o/table: one of their tables."""
    w = WORDS[page_lang(request)]
    try:
        official = await run_in_threadpool(_signed_in, request)
        if official is None:
            return page(request, login=True, message=request.query_params.get("said", "")[:200])
        make = table if request.url.path == "/o/table" else home
        parts = await run_in_threadpool(make, request, official, w)
    except BusyError:
        return page(request, 503, message=w["busy"])
    except PermissionError as exc:
        return page(request, 403, message=said_in(str(exc), page_lang(request)),
                    me=official.label)
    except (PaisaiError, ValueError) as exc:
        return page(request, 400, message=said_in(str(exc), page_lang(request)))
    return page(request, message=request.query_params.get("said", "")[:200], **parts)


def _back(path: str, said: str, lang: str = "zh", **params) -> Response:
    """A redirect to `path` saying `said`, in the page's language (a reload never sends the
    form again)."""
    shown = {k: v for k, v in params.items() if v not in (None, "")} | {"said": said}
    query = urlencode(shown | ({"lang": "en"} if lang == "en" else {}))
    return RedirectResponse(f"{path}?{query}", status_code=303,
                            headers={**HEADERS, "Cache-Control": "no-store"})


async def read_form(request: Request) -> dict | None:
    body = await form_body(request)
    if body is None:
        return None
    return {k: v[0][:200] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}


def _host_port(scheme: str, netloc: str) -> tuple[str, int] | None:
    """A host and its port as a browser means it (the scheme's port when none is written)."""
    from urllib.parse import urlsplit

    try:
        found = urlsplit(f"{scheme}://{netloc}")
        return (found.hostname or "").lower(), found.port or (443 if scheme == "https" else 80)
    except ValueError:
        return None


def same_origin(request: Request) -> bool:
    """A form from this site (the cookie is SameSite=Strict too): the browser's
    Sec-Fetch-Site says so, or its Origin names the host AND port this request was sent to
    — the Host header, or behind the shipped nginx the X-Forwarded-Host it passes (with the
    port the browser used: `$http_host`); with no-referrer pages a browser may send "null"."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("origin")
    if origin in (None, "null"):
        return True
    scheme, _, netloc = origin.partition("://")
    if scheme not in ("http", "https") or not netloc:
        return False
    sent = _host_port(scheme, netloc)
    received = {_host_port(request.url.scheme, h.strip()) for h in (
        request.headers.get("x-forwarded-host", "").split(",")[0],
        request.headers.get("host", "")) if h.strip()}
    return sent is not None and sent in received


async def login_route(request: Request) -> Response:
    """POST /o/login: an official's sign-in (the empty name: the first organizer). Every
    name locks alike after five failures (`people.sign_in`), and guesses are slowed per
    address and per name typed, each address the client's own behind the shipped proxy
    (X-Forwarded-For believed from --forwarded-allow-ips only)."""
    from dashboard.auth import COOKIE, session_hours
    from pipeline.officials import people
    from pipeline.operations import accounts

    w = WORDS[page_lang(request)]
    form = await read_form(request)
    if form is None or not same_origin(request):
        return _back("/o", w["too_long" if form is None else "cross_site"], page_lang(request))
    address = request.client.host if request.client else ""
    name, password = " ".join(form.get("name", "").split()), form.get("password", "")
    import time
    now = time.monotonic()
    if not (LIMITS.allow(f"login:{address}", PER_ADDRESS_LOGINS, now)
            and LIMITS.allow(f"login-name:{name}", PER_NAME_LOGINS, now)):
        return _back("/o", w["too_many"], page_lang(request))

    try:
        official = await run_in_threadpool(people.sign_in, database(), name, password)
    except people.LockedOut as exc:
        await asyncio.sleep(1.0)
        return _back("/o", said_in(str(exc), page_lang(request)), page_lang(request))
    except BusyError:
        return _back("/o", w["busy"], page_lang(request))
    if official is None:
        await asyncio.sleep(1.0)  # a failure is slow: guessing is
        return _back("/o", w["bad_login"], page_lang(request))
    token = await run_in_threadpool(accounts.open_official_session, database(), official,
                                    session_hours())
    secure = "; Secure" if request.url.scheme == "https" else ""
    response = _back("/o", "", page_lang(request))
    response.headers["Set-Cookie"] = (f"{COOKIE}={token}; Path=/; Max-Age="
                                      f"{int(session_hours() * 3600)}; HttpOnly; "
                                      f"SameSite=Strict{secure}")
    return response


async def logout_route(request: Request) -> Response:
    from dashboard.auth import COOKIE
    from pipeline.operations import accounts

    await run_in_threadpool(accounts.end_session, database(), request.cookies.get(COOKIE, ""))
    response = _back("/o", "", page_lang(request))
    response.headers["Set-Cookie"] = f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
    return response


RANGES = {"round": (1, 999), "table": (1, 99_999), "amount": (0, 13), "minutes": (1, 120),
          "ruling": (1, 999_999), "deal": (1, 999), "record": (1, 999_999),
          "report": (1, 999_999), "appeal": (1, 999_999)}  # an official's form's numbers


def field(form: dict, name: str, w: dict) -> int:
    """A number of an official's form (0 when empty) within its range (`RANGES`), else
    refused naming the field and what was typed, in the page's language (`w`)."""
    from dashboard.hall.sheetdoor import number

    low, high = RANGES[name]
    return number(form, name, w["field_" + name], low, high, default=0,
                  lang="en" if w is WORDS["en"] else "zh")


def minutes_late(text: str) -> float | None:
    """Minutes late from the form: a finite number within the day (None when empty).

    >>> minutes_late("16"), minutes_late("2.5"), minutes_late("")
    (16.0, 2.5, None)
    """
    import re

    from pipeline.officials.records import MAX_LATE_MINUTES

    text = text.strip()
    if not text:
        return None
    if not re.fullmatch(r"[0-9]{1,4}(\.[0-9]{1,2})?", text) or float(text) > MAX_LATE_MINUTES:
        raise ValueError(f"迟到分钟数应为 0–{MAX_LATE_MINUTES} 之间的数字 minutes late: a "
                         f"number from 0 to {MAX_LATE_MINUTES}")
    return float(text)


def _act(official, form: dict, w: dict) -> tuple[str, str, dict]:
    """The form's action as the official; returns the page to go back to and what to say."""
    from pipeline.base.db import acting
    from pipeline.officials import appeals, leave, records, rulings, votes

    action, event_id = form.get("action", ""), form.get("event", "")[:64]
    round_no, table = field(form, "round", w), field(form, "table", w)
    back = ("/o/table", {"event": event_id, "round": round_no, "table": table}) if table \
        else ("/o", {"event": event_id})
    with acting(official.label):
        if action == "record":
            done = records.record(database(), event_id, official, round_no, form.get("team", ""),
                                  form.get("kind", ""), minutes_late(form.get("minutes", "")),
                                  form.get("note", ""))
            lang = "en" if w is WORDS["en"] else "zh"
            said = w["done"] + (f" · {said_in(done.late, lang)}" if done.late else "") + \
                (f" · #{done.proposed} → {w['queue']}" if done.proposed else "")
        elif action == "propose":
            ruling = rulings.propose(database(), event_id, official, round_no,
                                     form.get("team", ""), form.get("kind", ""),
                                     field(form, "amount", w), form.get("reason", ""))
            said = f"#{ruling} → {w['queue']}"
        elif action == "decide":
            status = rulings.decide(database(), event_id, official, field(form, "ruling", w),
                                    form.get("decision") == "confirm", form.get("kind") or None,
                                    field(form, "amount", w), form.get("note", ""))
            said = f"#{field(form, 'ruling', w)} · {w['status_' + status]}"
        elif action == "leave":
            grace = leave.grant_leave(database(), event_id, official, round_no,
                                        form.get("team", ""), field(form, "minutes", w) or None)
            said = f"{form.get('team', '')}: {w['on_leave'].format(m=grace)}"
        elif action == "deal":  # a disputed deal of one of the referee's tables (issue 42)
            from pipeline.day import tablestore

            if not official.works_at(table) or official.role not in (
                    "referee", "chief", "organizer"):
                raise PermissionError(w["not_yours"])
            deal, keep = field(form, "deal", w), form.get("keep") == "1"
            tablestore.decide(database(), event_id, round_no, table, deal, keep,
                              by=official.label)
            said = w["deal_kept" if keep else "deal_off"].format(n=deal)
        elif action == "withdraw":  # a record of one's own, entered by mistake
            records.withdraw(database(), event_id, official, field(form, "record", w))
            said = w["withdrawn"]
        elif action == "report":  # a both-sides report chosen where the sides disagree
            from pipeline.day import selfreport

            if not official.works_at(table) or official.role not in (
                    "referee", "chief", "organizer"):
                raise PermissionError(w["not_yours"])
            report_id = field(form, "report", w)
            with db.reading(database()) as con:
                found = db.scalar(con, "select count(*) from pending_reports where "
                                       "event_id = ? and round = ? and table_no = ? and "
                                       "report_id = ? and status = 'pending'",
                                  [event_id, round_no, table, report_id])
            if not found:
                raise ValueError("这条桌报已处理 this report was dealt with already")
            selfreport.decide(database(), event_id, report_id, True)
            said = w["report_kept"]
        elif action == "vote":
            status = votes.vote(database(), event_id, official, field(form, "appeal", w),
                                  form.get("vote") == "uphold")
            said = f"#{field(form, 'appeal', w)} · {w['status_' + status]}"
        elif action == "appeal":
            if official.role not in ("desk", "organizer"):
                raise PermissionError(w["not_your_role"])
            found = appeals.appeal(database(), event_id, field(form, "ruling", w),
                                   form.get("team", ""), "desk", official, form.get("fee", ""),
                                   form.get("statement", ""))
            said = f"#{found}: {w['filed']}"
        else:
            raise ValueError(action)
    return back[0], said, back[1]


async def act_route(request: Request) -> Response:
    import time

    w = WORDS[page_lang(request)]
    official = await run_in_threadpool(_signed_in, request)
    if official is None:
        return _back("/o", w["bad_login"], page_lang(request))
    form = await read_form(request)
    if form is None or not same_origin(request):  # nothing of it is read, nor shown
        return _back("/o", w["too_long" if form is None else "cross_site"], page_lang(request))
    if not LIMITS.allow(f"official:{official.official_id}", PER_OFFICIAL, time.monotonic()):
        return _back("/o", w["too_many"], page_lang(request), event=form.get("event", ""))
    try:
        path, said, params = await run_in_threadpool(_act, official, form, w)
    except BusyError:
        return _back("/o", w["busy"], page_lang(request), event=form.get("event", ""))
    except (PaisaiError, ValueError, PermissionError) as exc:
        back = {k: form.get(k, "").strip()[:9] for k in ("round", "table")}
        back = {k: v for k, v in back.items() if v.isascii() and v.isdigit()}  # as typed
        path = "/o/table" if len(back) == 2 else "/o"
        return _back(path, said_in(str(exc), page_lang(request)), page_lang(request),
                     event=form.get("event", "")[:64], **(back if len(back) == 2 else {}))
    return _back(path, said, page_lang(request), **params)
