"""The audience never reaches a Streamlit session by accident (issue 53).

Every Streamlit session runs its page's script in the server's one process: ten phones on
/live (the projector's address photographed, or shared in a WeChat group) made the console
wait 2–39 s. So, as ASGI middleware before Streamlit:

- a phone that opens a public page — `/`, `/live`, `/pairings`, `/bracket` — is sent to the
  plain page of the same view (`/m/{event}/`, `…/pairings`, `…/bracket`: rendered once per
  version, no session), on the phones' port when the phones' process runs (`dashboard.phones`). A phone is a browser whose User-Agent says so (Mobile, Android,
  iPhone, iPad, WeChat, HarmonyOS …) or a client with no browser's User-Agent at all (it
  runs no script: Streamlit would show it an empty page).
- A screen keeps Streamlit: `?projector=1` or `?screen=1` on the address (the console's
  "open the projector" link carries `projector=1`) marks a desktop browser with a cookie
  (`paisai_screen`), so that it stays a screen without the parameter — not a phone: the
  projector's link shared in a WeChat group gives the phones that open it the plain page. The
  console (`/admin`) is never redirected (an organizer may use a phone) and marks its
  browser the same way: a tablet or a TV box (a phone's User-Agent) becomes a screen once
  the console has been opened on it.
- Streamlit sessions of the audience are bounded: beyond `PAISAI_AUDIENCE_SESSIONS`
  (default 2) sessions of browsers that are neither the console (its session cookie) nor a
  marked screen, a public page answers with its plain page and another view with a short
  "busy" page; a session's websocket beyond the bound is refused (close 1013, try again
  later). The console and the screens are never counted nor refused. A page served to the
  audience holds a place for its session until its websocket opens (at most
  ADMIT_SECONDS): a crowd of browsers opening /live at once — phones asking for the
  desktop site send a desktop User-Agent — gets the plain page beyond the bound, not a
  Streamlit page whose session is then refused. (Issue 53: with 8 sessions of 1,000-team
  /live pages, each redrawn every 2 s, those phones' p95 was 3.3 s and the console waited.)

The cookies are only looked at, not verified: they decide who may open a Streamlit session
beyond the bound, nothing else (the console still asks for its password).
"""

from __future__ import annotations

import os
import re
import time
from collections import deque
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, RedirectResponse

SESSIONS = 2  # the audience's Streamlit sessions at once (PAISAI_AUDIENCE_SESSIONS)
ADMIT_SECONDS = 15.0  # a page served holds its session's place this long for its websocket
SCREEN_COOKIE = "paisai_screen"
CONSOLE_COOKIE = "paisai_admin"  # dashboard.auth.COOKIE (not imported: that imports Streamlit)
PLAIN = {"": "", "live": "", "home": "", "pairings": "pairings", "bracket": "bracket"}
STREAMLIT_VIEWS = {"history", "clock"}  # Streamlit only: refused beyond the bound
PHONE = re.compile(r"Mobi|Android|iPhone|iPad|iPod|MicroMessenger|HarmonyOS|Windows Phone|"
                   r"Opera Mini|BlackBerry|KaiOS", re.IGNORECASE)
BUSY = ("<!doctype html><html lang='zh'><meta charset='utf-8'><meta name='viewport' "
        "content='width=device-width'><title>牌赛 paisai</title><p>看板繁忙，请稍后再试。"
        "The dashboard is busy; please try again in a minute.</p><p><a href='/m/'>手机页 "
        "phone pages</a></p></html>")


def session_limit() -> int:
    return max(0, int(os.environ.get("PAISAI_AUDIENCE_SESSIONS", str(SESSIONS))))


def is_phone(user_agent: str) -> bool:
    """A phone, a tablet, or a client that is no browser (no `Mozilla/` in its agent).

    >>> is_phone("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Mobile Safari")
    True
    >>> is_phone("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/140.0 Safari")
    False
    >>> is_phone(""), is_phone("curl/8.5")
    (True, True)
    """
    return not user_agent.startswith("Mozilla/") or bool(PHONE.search(user_agent))


def _headers(scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    jar = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed cookie header counts as none
        return {}
    return {name: morsel.value for name, morsel in jar.items()}


def _default_event(bracket: bool) -> str | None:
    """The event a public page shows without `?event=`: the most recent (of the page's kind)."""
    from dashboard.hall.respond import database
    from pipeline.day import queries

    listing = queries.event_list(database())
    if listing.is_empty():
        return None
    ids = listing["event_id"].to_list()
    if bracket:
        formats = queries.event_formats(database())
        return next((e for e in ids if not formats[e]), ids[0])
    return ids[0]


async def plain_address(view: str, query: dict[str, list[str]]) -> str:
    """The plain page of a Streamlit view, with the event and the language kept."""
    wanted = (query.get("event") or [""])[0].split(",")[0].strip()
    event = wanted or await run_in_threadpool(_default_event, view == "bracket")
    if not event:
        return "/m/"
    tail = PLAIN[view]
    keep = {"lang": query["lang"][0]} if query.get("lang", [""])[0] == "en" else {}
    return (f"/m/{quote(event, safe='')}/{tail}"
            + (f"?{urlencode(keep)}" if keep else ""))


def on_phones_port(headers: dict[str, str], path: str) -> str:
    """`path` on the phones' port when the phones' process runs and the browser reached the
    hall's own port (`pipeline.operations.serve.phones_base`); else `path` as it is (a
    proxy's address, or the phones' port already).

    >>> on_phones_port({"host": "192.168.1.5:8501"}, "/m/e/")
    '/m/e/'
    """
    host = headers.get("host", "")
    if not host or headers.get("x-paisai-phones"):
        return path
    from pipeline.operations.phones import phones_base

    base = f"http://{host}"
    moved = phones_base(base)
    return path if moved == base else moved + path


class Audience:
    """ASGI middleware in front of the Streamlit app (see the module's docstring)."""

    def __init__(self, app, limit: int | None = None):
        self.app = app
        self.limit = limit
        self.open = 0  # the audience's websocket sessions open now
        self.admitted: deque[float] = deque()  # pages served whose websocket is to come

    def _held(self) -> int:
        """The places held by pages served whose session has not opened yet."""
        now = time.monotonic()
        while self.admitted and now - self.admitted[0] > ADMIT_SECONDS:
            self.admitted.popleft()
        return len(self.admitted)

    def _over(self) -> bool:
        limit = session_limit() if self.limit is None else self.limit
        return self.open + self._held() >= limit

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and scope["path"].endswith("/_stcore/stream"):
            await self._session(scope, receive, send)
            return
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        view = scope["path"].strip("/")
        if view == "admin":  # the console's browser: its session is never counted or refused
            await self.app(scope, receive, self._marking(send))
            return
        if view not in PLAIN and view not in STREAMLIT_VIEWS:
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        phone = is_phone(headers.get("user-agent", ""))
        # a phone is never made a screen by the address alone: a projector's link shared in
        # a WeChat group would make every phone that opens it an uncounted session for a year
        marked = not phone and (query.get("projector") == ["1"] or query.get("screen") == ["1"])
        cookies = _cookies(headers)
        screen = marked or cookies.get(SCREEN_COOKIE) == "1" or CONSOLE_COOKIE in cookies
        if not screen and view in PLAIN and (phone or self._over()):
            where = on_phones_port(headers, await plain_address(view, query))
            answer = RedirectResponse(where, status_code=303,
                                      headers={"Cache-Control": "no-store", "Vary": "*"})
            await answer(scope, receive, send)
            return
        if not screen and self._over():
            await HTMLResponse(BUSY, status_code=503, headers={
                "Cache-Control": "no-store", "Retry-After": "60"})(scope, receive, send)
            return
        if not screen:  # its session's place is held until its websocket opens
            self.admitted.append(time.monotonic())
        await self.app(scope, receive, self._marking(send) if marked else send)

    @staticmethod
    def _marking(send):
        """The answer marks the browser as a screen: it keeps Streamlit without the
        parameter, and its sessions are never counted or refused."""
        async def marking(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [
                    *message.get("headers", []),
                    (b"set-cookie", f"{SCREEN_COOKIE}=1; Path=/; Max-Age=31536000; "
                                    "HttpOnly; SameSite=Lax".encode())]}
            await send(message)

        return marking

    async def _session(self, scope, receive, send):
        cookies = _cookies(_headers(scope))
        if cookies.get(SCREEN_COOKIE) == "1" or CONSOLE_COOKIE in cookies:
            await self.app(scope, receive, send)
            return
        if self._held():  # the session of a page served: its place was held for it
            self.admitted.popleft()
        elif self._over():
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1013})
            return
        self.open += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.open -= 1
