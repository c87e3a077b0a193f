"""The phones' process's ASGI app: an event's pages from memory (`keep`), everything else
passed to the hall's process unchanged (`dashboard.phones`)."""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx

from dashboard.phones.client import HallClient, HallError
from dashboard.phones.keep import Kept, Page, Versions

HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"transfer-encoding",
        b"upgrade",
        b"te",
        b"trailer",
        b"proxy-authorization",
        b"proxy-connection",
        b"x-forwarded-for",
        b"x-forwarded-proto",
        b"x-forwarded-host",
        b"x-paisai-phones",
    }
)
ANSWER_HOP = frozenset({b"connection", b"keep-alive", b"transfer-encoding", b"date", b"server"})
BUSY = (
    "<!doctype html><html lang='zh'><meta charset='utf-8'><meta name='viewport' "
    "content='width=device-width'><title>牌赛 paisai</title><p>系统正忙，请几秒后再刷新。"
    "Busy for a moment: refresh in a few seconds.</p></html>"
).encode()
STYLE = "/m/style.css"


def event_of(path: str) -> str | None:
    """The event whose page `path` is (`/m/{event}/…`), else None (anything else).

    >>> event_of("/m/e1/"), event_of("/m/e1/teams/A1"), event_of("/m/"), event_of("/m/e1")
    ('e1', 'e1', None, None)
    >>> event_of("/r"), event_of("/m/style.css")
    (None, None)
    """
    parts = path.split("/")
    if len(parts) < 4 or parts[1] != "m" or not parts[2] or len(parts[2]) > 64:
        return None
    return parts[2]


class Phones:
    """ASGI app of the phones' port, in front of the hall's process at `hall` (its loopback
    address, such as http://127.0.0.1:8501)."""

    def __init__(self, hall: str, client: httpx.AsyncClient | None = None):
        from urllib.parse import urlsplit

        self.hall = hall.rstrip("/")
        self.client = client  # httpx: what is passed on unchanged (forms, reports, the rest)
        self.asks: HallClient | None = None  # the pages and the versions
        self.address = (urlsplit(self.hall).hostname, urlsplit(self.hall).port or 80)
        self.kept = Kept()
        self.versions = Versions(self._version)
        self.style: Page | None = None

    def _client(self) -> httpx.AsyncClient:
        if self.client is None:
            self.client = httpx.AsyncClient(
                base_url=self.hall,
                follow_redirects=False,
                trust_env=False,
                timeout=httpx.Timeout(60.0, connect=5.0),
                limits=httpx.Limits(max_connections=200, max_keepalive_connections=50),
            )
            # nothing of httpx's own (its Accept-Encoding, User-Agent): the phone's alone
            self.client.headers.clear()
        return self.client

    def _asks(self) -> HallClient:
        if self.asks is None:
            self.asks = HallClient(*self.address)
        return self.asks

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":  # a websocket (Streamlit's): the hall's port has them
            await receive()
            await send({"type": "websocket.close", "code": 1008})
            return
        try:
            if scope["method"] == "GET":
                event = event_of(scope["path"])
                if event is not None and await self._kept(scope, send, event):
                    return
                if scope["path"] == STYLE and await self._style(scope, send):
                    return
            await self._forward(scope, receive, send)
        except (httpx.HTTPError, HallError):  # the hall is down or restarting
            await _send(
                send,
                503,
                [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"retry-after", b"2"),
                    (b"cache-control", b"no-store"),
                ],
                BUSY,
            )

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client is not None:
                    await self.client.aclose()
                if self.asks is not None:
                    self.asks.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _version(self, event: str) -> str | None:
        status, _headers, body = await self._asks().get(
            f"/api/v1/events/{quote(event, safe='')}/version".encode(),
            [(b"accept-encoding", b"identity")],
        )
        if status != 200:
            return None
        return json.loads(body).get("version")

    async def _kept(self, scope, send, event: str) -> bool:
        """Answer from memory (fetching the page once when it is not kept); False when the
        page is not one to keep (the hall answers the phone itself)."""
        version = await self.versions.get(event)
        if version is None:  # no such event, or none of its pages made yet
            return False
        shown, _, whole = version.partition("|")  # the snapshot shown; the event's version
        slot, version = event, shown  # the pages of the results: kept by the snapshot they
        # show (a report stored shows once the hall's next snapshot is made: so do they)
        if "/teams/" in scope["path"]:  # a team's page shows its table's own sheet too
            slot, version = event + "/teams", shown + "|" + whole.partition(".")[2]
        headers = _headers(scope)
        packed = b"gzip" in headers.get(b"accept-encoding", b"")
        asked = (
            scope["raw_path"] if scope.get("raw_path") else scope["path"].encode(),
            scope.get("query_string", b""),
            packed,
        )
        page = await self.kept.once(slot, version, asked, lambda: self._fetch(scope, packed))
        if page is None:
            return False
        await _answer(send, page, headers)
        return True

    async def _style(self, scope, send) -> bool:
        if self.style is None:
            self.style = await self._fetch(scope, False)
        if self.style is None:
            return False
        await _answer(send, self.style, _headers(scope))
        return True

    async def _fetch(self, scope, packed: bool) -> Page | None:
        path = scope.get("raw_path") or scope["path"].encode()
        query = scope.get("query_string", b"")
        status, headers, body = await self._asks().get(
            path + (b"?" + query if query else b""),
            [(b"accept-encoding", b"gzip" if packed else b"identity"), *_forwarded(scope)],
        )
        if status != 200:
            return None
        return Page.of(headers, body)

    async def _forward(self, scope, receive, send) -> None:
        """The request passed to the hall's process as it came; its answer back as it is."""
        path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        query = scope.get("query_string", b"").decode("latin-1")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in HOP]
        if not any(k.lower() == b"accept-encoding" for k, _ in headers):
            headers.append((b"accept-encoding", b"identity"))  # as the phone asked

        async def body():
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                yield message.get("body", b"")
                if not message.get("more_body", False):
                    return

        has_body = scope["method"] not in ("GET", "HEAD", "DELETE", "OPTIONS")
        request = self._client().build_request(
            scope["method"],
            path + (f"?{query}" if query else ""),
            headers=[*headers, *_forwarded(scope)],
            content=body() if has_body else None,
        )
        answer = await self._client().send(request, stream=True)
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": answer.status_code,
                    "headers": [
                        (k, v) for k, v in answer.headers.raw if k.lower() not in ANSWER_HOP
                    ],
                }
            )
            async for part in answer.aiter_raw():
                await send({"type": "http.response.body", "body": part, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await answer.aclose()


def _headers(scope) -> dict[bytes, bytes]:
    return {k.lower(): v for k, v in scope["headers"]}


def _forwarded(scope) -> list[tuple[bytes, bytes]]:
    """The phone's own address for the hall (it trusts it from loopback only), and the
    mark that the request came by the phones' port."""
    client = scope.get("client")
    found = [
        (b"x-paisai-phones", b"1"),
        (b"x-forwarded-proto", scope.get("scheme", "http").encode()),
    ]
    if client:
        found.append((b"x-forwarded-for", str(client[0]).encode()))
    return found


async def _answer(send, page: Page, headers: dict[bytes, bytes]) -> None:
    if headers.get(b"if-none-match") == page.etag:
        await _send(send, 304, page.not_modified(), b"")
        return
    await _send(send, 200, list(page.headers), page.body)


async def _send(send, status: int, headers: list, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
