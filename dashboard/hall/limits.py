"""How often a link, an address and a side's wrong codes may report."""

from __future__ import annotations

import threading

# -- a table reports its result from a side's signed link (a plain form, no JavaScript) --

MAX_BODY = 2048  # a report is two levels: anything longer is refused unread


PER_LINK = 10  # reports a minute from one link


PER_ADDRESS = 600  # reports a minute from one address: a hall of 300 phones behind one NAT,
# each side reporting twice (a correction), fits; one link is limited on its own (PER_LINK)


WRONG_CODES = 5  # wrong slip codes from one side's link …


CODE_WINDOW = 600  # … in ten minutes, then it waits (a 4-digit code is not guessed so)


class Limits:
    """Requests in the last `window` seconds, by key (a link, an address)."""

    def __init__(self):
        self.times: dict[str, list[float]] = {}
        self.lock = threading.Lock()

    def allow(self, key: str, limit: int, now: float, window: float = 60,
              count: bool = True) -> bool:
        """True while `key` has had fewer than `limit` in the window; counts this one
        (unless `count` is False: only asked)."""
        with self.lock:
            if len(self.times) > 100_000:  # made-up keys never fill the memory
                self.times.clear()
            kept = [t for t in self.times.get(key, []) if now - t < window]
            if len(kept) >= limit:
                self.times[key] = kept
                return False
            self.times[key] = [*kept, now] if count else kept
            if not self.times[key]:
                del self.times[key]
            return True


LIMITS = Limits()


async def form_body(request) -> bytes | None:
    """A form's body as sent, or None when it is longer than MAX_BODY (the rest unread)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return body


def turned_away(limits: Limits, link: str, per_link: int, address: str, now: float,
                coded: bool) -> str | None:
    """Why a link's form is not taken now — "too_many" (the link or the address sent too
    much this minute; this one is counted) or "too_many_codes" (a side's link has had too
    many wrong codes lately) — else None. `limits` is the route's own (tests replace it)."""
    if not (limits.allow(f"link:{link}", per_link, now)
            and limits.allow(f"address:{address}", PER_ADDRESS, now)):
        return "too_many"
    if coded and not limits.allow(f"code:{link}", WRONG_CODES, now, CODE_WINDOW, count=False):
        return "too_many_codes"
    return None
