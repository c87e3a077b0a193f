"""What the table's sheet (/t) and a Tractor match's (/k) do alike with a request (issue 49,
51): the link checked before anything is counted, the limits kept, a wrong code counted, the
action and its view in one transaction — and every form answered with a redirect (303) to the
sheet read by GET, the outcome carried by a short `flash` token, so a reload never sends a
form again. The side's code, once given, is kept in an HttpOnly, SameSite=Strict cookie of
that link alone (the page read by GET after the redirect acts with it). The open page
follows the table by itself: a small same-origin script asks the sheet's mark (`/t/mark`,
`/k/mark`) every few seconds and reloads the page when it changed and nothing is typed."""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from urllib.parse import parse_qs, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from dashboard.hall.limits import (
    LIMITS,
    PER_LINK,
    form_body,
    turned_away,
    wrong_code,
)
from dashboard.hall.respond import HALL_WAIT, HEADERS, database, page_lang
from pipeline.base import db
from pipeline.base.errors import BusyError, PaisaiError, UsageError

# the sheets' pages run one script of ours (follow.js) and ask their mark: nothing else
SHEET_HEADERS = {**HEADERS, "Content-Security-Policy": HEADERS["Content-Security-Policy"] +
                 "; script-src 'self'; connect-src 'self'", "Cache-Control": "no-store"}

CODE_HOURS = 12  # a side's code is kept on its phone for the day

FOLLOW_SECONDS = 3  # how often an open sheet asks whether the table changed


@dataclass(frozen=True)
class SheetDoor:
    """What a sheet's route needs: the link's parts from the query (`where`, raising
    ValueError for a malformed one), the link's check, the view of a link, the form's action,
    the page and the view's mark."""

    where: Callable[[], tuple]
    check_link: Callable[..., object]  # (con, *where): raises for a link that is not genuine
    view: Callable[..., dict]
    view_on: Callable[..., dict]  # the view on an open connection (raises for a bad link)
    check_code: Callable[..., None]  # (con, event, key, key, side, code): raises if wrong
    act: Callable[[dict, tuple, dict], tuple[str, dict]]  # every action but unlocking
    page: Callable[..., Response]
    mark: Callable[[dict], str]  # what the page shows, in a few characters
    prefix: str  # the route ("t" or "k"): the limits' key, the cookie's path


class Flashes:
    """What the page read after a form says (the outcome, the choices a refused form kept),
    by a short random token in the redirect's address: kept 10 minutes, the newest
    `size` only (a reload shows it again; nothing else can read it)."""

    def __init__(self, size: int = 5000, seconds: float = 600):
        self.kept: OrderedDict[str, tuple[float, str, str, dict]] = OrderedDict()
        self.lock = threading.Lock()
        self.size, self.seconds = size, seconds

    def put(self, link: str, message: str, typed: dict | None = None) -> str:
        token = secrets.token_urlsafe(9)
        with self.lock:
            self.kept[token] = (time.monotonic(), link, message, typed or {})
            while len(self.kept) > self.size:
                self.kept.popitem(last=False)
        return token

    def get(self, token: str, link: str) -> tuple[str, dict]:
        with self.lock:
            found = self.kept.get(token[:20])
        if found is None or found[1] != link or time.monotonic() - found[0] > self.seconds:
            return "", {}
        return found[2], found[3]


FLASHES = Flashes()


def link_key(door: SheetDoor, where: tuple) -> str:
    """The link's key (the sheet and the side; the signature is checked, not kept)."""
    return ":".join([door.prefix, *(str(p) for p in where[:-2]), where[-1]])


def cookie_name(link: str) -> str:
    return "sheet_" + hashlib.sha256(link.encode()).hexdigest()[:16]


def _cookie(request: Request, door: SheetDoor, link: str, code: str | None) -> str:
    """The Set-Cookie of the side's code (None: forget it)."""
    secure = "; Secure" if request.url.scheme == "https" else ""
    age = CODE_HOURS * 3600 if code else 0
    return (f"{cookie_name(link)}={code or ''}; Path=/{door.prefix}; Max-Age={age}; HttpOnly; "
            f"SameSite=Strict{secure}")


def here(request: Request) -> str:
    """The sheet's address as read by GET (its link, without a flash)."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != "flash"]
    return f"/{request.url.path.strip('/')}?{urlencode(kept)}"


def _look(door: SheetDoor, where: tuple, code: str) -> tuple[dict, str]:
    """The view of a link and the kept code when it is still the side's (else "")."""
    with db.reading(database(), HALL_WAIT) as con:
        view = door.view_on(con, *where)
        if code:
            event_id, first, second, _, side = where
            try:
                door.check_code(con, event_id, first, second, side, code)
            except PaisaiError:
                code = ""
        return view, code


def _checked(door: SheetDoor, where: tuple) -> None:
    with db.reading(database(), HALL_WAIT) as con:
        door.check_link(con, *where)


def _unlock(door: SheetDoor, where: tuple, code: str, w: dict) -> tuple[str, dict]:
    """A side gives its code: only read (the link checked first, then the code)."""
    with db.reading(database(), HALL_WAIT) as con:
        view = door.view_on(con, *where)
        event_id, first, second, _, side = where
        door.check_code(con, event_id, first, second, side, code)
        return w["unlocked"], view


def _simple(request: Request, text: str, status: int) -> Response:
    """A page that only says `text` (a refused link, a limit, a busy moment)."""
    from dashboard.hall.report import report_page

    return report_page(page_lang(request), text, status)


async def handle_sheet(request: Request, door: SheetDoor, words: dict) -> Response:
    """A sheet's GET and POST, the table's and the Tractor match's alike."""
    from pipeline.day import selfreport

    w = words[page_lang(request)]
    try:
        where = door.where()
    except ValueError:
        return _simple(request, w["bad_link"], 403)
    link = link_key(door, where)
    kept = request.cookies.get(cookie_name(link), "")[:8]
    if request.method != "POST":
        try:
            view, code = await run_in_threadpool(_look, door, where, kept)
        except BusyError:
            return _simple(request, w["busy"], 503)
        except (PaisaiError, ValueError):
            return _simple(request, w["bad_link"], 403)
        message, typed = FLASHES.get(request.query_params.get("flash", ""), link)
        answer = door.page(request, view, code, message, typed=typed)
        if kept and not code:  # a code no longer the side's is forgotten
            answer.headers["Set-Cookie"] = _cookie(request, door, link, None)
        return answer
    body = await form_body(request)
    if body is None:
        return _simple(request, w["too_long"], 413)
    try:  # a made-up link is refused before it is counted (it fills no limit)
        await run_in_threadpool(_checked, door, where)
    except BusyError:
        return _simple(request, w["busy"], 503)
    except (PaisaiError, ValueError):
        return _simple(request, w["bad_link"], 403)
    now = time.monotonic()
    address = request.client.host if request.client else ""
    # a deal a minute and its answers: three times a report link's allowance
    refused = turned_away(LIMITS, link, PER_LINK * 3, address, now, coded=True)
    if refused:
        return _simple(request, w[refused], 429)
    form = {k: v[0][:16] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
    code = form.get("code") or kept
    form["code"] = code
    remember: str | None = code
    try:
        call = (_unlock, door, where, code, w) if form.get("action") == "unlock" else \
            (door.act, form, where, w)
        message, _ = await run_in_threadpool(*call)
        typed: dict = {}
    except BusyError:
        return _simple(request, w["busy"], 503)
    except PaisaiError as exc:
        if isinstance(exc, selfreport.WrongCode):  # counted: guessing the code is slow
            wrong_code(LIMITS, link, now)
            remember = None
        message = str(exc)
        typed = {k: v for k, v in form.items() if k not in ("code", "seen", "action")}
    token = FLASHES.put(link, message, typed)
    answer = RedirectResponse(f"{here(request)}&flash={token}", status_code=303,
                              headers=SHEET_HEADERS)
    if remember or kept:
        answer.headers["Set-Cookie"] = _cookie(request, door, link, remember)
    return answer


def number(form: dict, name: str, said: str, low: int, high: int, default: int | None = None,
           lang: str = "") -> int:
    """A whole number from a form's field, within [low, high]; else refused saying which
    field, what was typed and why, in the page's language (`said`: the field as the page
    names it; `lang` "zh" or "en", or "" for both) — the sheets' and the officials' forms
    alike."""
    value = form.get(name, "").strip()
    if not value and default is not None:
        return default
    found = int(value) if re.fullmatch(r"-?[0-9]{1,9}", value) else None  # not "１２", "1_0"
    if found is None:
        zh, en = (f"{said}：收到的“{value}”不是整数",  # the value inside: one_language
                  f"{said} must be a whole number, not “{value}”")  # keeps it whole
    elif not low <= found <= high:
        zh, en = (f"{said}：应在 {low} 到 {high} 之间，收到 {found}",
                  f"{said} must be from {low} to {high}, not {found}")
    else:
        return found
    raise UsageError({"zh": zh, "en": en}.get(lang, f"{zh} {en}"))


MARKS: OrderedDict[tuple, str] = OrderedDict()
MARKS_LOCK = threading.Lock()


def _mark_of(door: SheetDoor, where: tuple, seen: str = "") -> str:
    """The sheet's mark as its page would show it now. Read again only when the event
    changed (its version, from memory) or ten seconds passed (a deal turning final, the
    clock), so that a hall of open sheets asking every few seconds costs little — and read
    again whenever it differs from the page's (`seen`): a version read a moment before the
    page was drawn never sends a page reloading for nothing (under a form being filled)."""
    from dashboard.hall import cache

    _, version = cache.current(where[0])
    key = (door.prefix, where, version, int(time.monotonic() // 10))
    with MARKS_LOCK:
        found = MARKS.get(key)
    if found is not None and found == seen:
        return found
    found = door.mark(door.view(*where))
    with MARKS_LOCK:
        MARKS[key] = found
        while len(MARKS) > 4096:
            MARKS.popitem(last=False)
    return found


async def mark_route(request: Request, door: SheetDoor) -> Response:
    """GET: the sheet's mark as plain text (403 for a link that is not genuine)."""
    try:
        where = door.where()
        found = await run_in_threadpool(_mark_of, door, where,
                                        request.query_params.get("seen", "")[:16])
    except BusyError:
        return Response("busy", status_code=503, headers=SHEET_HEADERS)
    except (PaisaiError, ValueError):
        return Response("", status_code=403, headers=SHEET_HEADERS)
    return Response(found, media_type="text/plain", headers=SHEET_HEADERS)


async def follow_script(request: Request) -> Response:
    """The sheets' one script (served from here: the pages allow no other)."""
    text = (resources.files("pipeline") / "templates" / "site" / "follow.js").read_text(
        encoding="utf-8")
    return Response(text, media_type="text/javascript",
                    headers={**SHEET_HEADERS, "Cache-Control": "public, max-age=300"})


def mark_of(*parts) -> str:
    """A short mark of what a page shows (`parts`, compared as text)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]
