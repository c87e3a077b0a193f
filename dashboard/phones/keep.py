"""The phones' pages kept in memory by the event's version (`dashboard.phones`)."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass

REVALIDATE_SECONDS = 0.5  # an event's version is asked of the hall at most this often
PAGES_PER_EVENT = 16384  # a 1,000-team event: each team's page and search, two languages
EVENTS = 32  # events kept at once (the oldest asked forgotten first)

DROPPED = frozenset({"date", "server", "connection", "keep-alive", "transfer-encoding"})
NOT_ON_304 = frozenset({"content-type", "content-length", "content-encoding"})


@dataclass(frozen=True)
class Page:
    """An answer of the hall's as it was sent: its headers (without those of the connection)
    and its body as sent (compressed when it was)."""

    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    etag: bytes

    @classmethod
    def of(cls, headers, body: bytes) -> Page | None:
        """The page to keep from a 200 answer's headers, or None when it must not be kept
        (no ETag, or no-store: the events' list, a busy answer)."""
        kept = tuple(
            (k.lower(), v)
            for k, v in headers
            if k.lower().decode("latin-1") not in DROPPED | {"content-length"}
        )
        found = dict(kept)
        if b"etag" not in found or b"no-store" in found.get(b"cache-control", b""):
            return None
        return cls((*kept, (b"content-length", str(len(body)).encode())), body, found[b"etag"])

    def not_modified(self) -> list[tuple[bytes, bytes]]:
        """The headers of a 304 for this page (as the hall answers one: no body's)."""
        return [(k, v) for k, v in self.headers if k.decode() not in NOT_ON_304]


class Versions:
    """Each event's version as the hall last said it, asked again once it is older than
    REVALIDATE_SECONDS: pages are answered meanwhile with what is known; only an event's
    first page waits for the answer. One ask at a time per event."""

    def __init__(self, ask, seconds: float = REVALIDATE_SECONDS):
        self.ask = ask  # async (event) → version, None when the hall has none to give
        self.seconds = seconds
        self.known: OrderedDict[str, tuple[float, str | None]] = OrderedDict()
        self.asking: dict[str, asyncio.Task] = {}

    async def get(self, event: str) -> str | None:
        have = self.known.get(event)
        if have is not None and time.monotonic() - have[0] < self.seconds:
            return have[1]
        task = self.asking.get(event)
        if task is None:
            task = self.asking[event] = asyncio.ensure_future(self._ask(event))
        if have is not None:
            return have[1]
        return await asyncio.shield(task)

    async def _ask(self, event: str) -> str | None:
        try:
            found = await self.ask(event)
        except Exception:  # the hall is busy or restarting: pages go to it meanwhile
            found = None
        finally:
            self.asking.pop(event, None)
        self.known[event] = (time.monotonic(), found)
        self.known.move_to_end(event)
        while len(self.known) > EVENTS * 4:
            self.known.popitem(last=False)
        return found


class Kept:
    """Pages by event, version and what was asked (path, query, compressed or not). A new
    version of an event forgets the event's pages of the old one. Many phones asking for a
    page not kept yet wait for one fetch."""

    def __init__(self, per_event: int = PAGES_PER_EVENT, events: int = EVENTS):
        self.per_event = per_event
        self.events = events
        self.pages: OrderedDict[str, tuple[str, OrderedDict[tuple, Page]]] = OrderedDict()
        self.fetching: dict[tuple, asyncio.Future] = {}

    def _of(self, event: str, version: str) -> OrderedDict[tuple, Page]:
        have = self.pages.get(event)
        if have is None or have[0] != version:
            have = self.pages[event] = (version, OrderedDict())
        self.pages.move_to_end(event)
        while len(self.pages) > self.events:
            self.pages.popitem(last=False)
        return have[1]

    def get(self, event: str, version: str, asked: tuple) -> Page | None:
        pages = self._of(event, version)
        found = pages.get(asked)
        if found is not None:
            pages.move_to_end(asked)
        return found

    def put(self, event: str, version: str, asked: tuple, page: Page) -> None:
        have = self.pages.get(event)
        if have is not None and have[0] != version:
            return  # fetched for a version since replaced: the new one's pages stay
        pages = self._of(event, version)
        pages[asked] = page
        while len(pages) > self.per_event:
            pages.popitem(last=False)

    async def once(self, event: str, version: str, asked: tuple, fetch) -> Page | None:
        """The page kept, else fetched (`fetch()` → Page or None) by the first who asks while
        the others wait for it; None when the answer is not one to keep."""
        found = self.get(event, version, asked)
        if found is not None:
            return found
        key = (event, version, asked)
        waiting = self.fetching.get(key)
        if waiting is not None:
            return await asyncio.shield(waiting)
        future = self.fetching[key] = asyncio.get_running_loop().create_future()
        try:
            page = await fetch()
            if page is not None:
                self.put(event, version, asked, page)
            future.set_result(page)
            return page
        except BaseException:
            future.set_result(None)  # the waiters go to the hall themselves
            raise
        finally:
            self.fetching.pop(key, None)
