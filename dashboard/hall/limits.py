"""How often a link, an address and a side's wrong codes may report."""

from __future__ import annotations

import threading
from collections import OrderedDict

# -- a table reports its result from a side's signed link (a plain form, no JavaScript) --

MAX_BODY = 2048  # a report is two levels: anything longer is refused unread


PER_LINK = 10  # reports a minute from one link


PER_ADDRESS = 600  # reports a minute from one address: a hall of 300 phones behind one NAT,
# each side reporting twice (a correction), fits; one link is limited on its own (PER_LINK)


WRONG_CODES = 5  # wrong slip codes from one side's link …


CODE_WINDOW = 600  # … in ten minutes, then it waits (a 4-digit code is not guessed so)


KEYS_PER_KIND = 20_000  # counters kept of one kind of key (the part before the first ":")


class Limits:
    """Requests in the last `window` seconds, by key (a link, an address, a side's wrong
    codes, a sign-in). Each kind of key (`link:…`, `address:…`, `code:…`, `login:…`) is kept
    apart and bounded on its own, the oldest forgotten first: made-up keys of one kind never
    fill the memory and never wipe another kind's counters (issue 49: a flood of links once
    cleared every wrong-code and sign-in count)."""

    def __init__(self, per_kind: int = KEYS_PER_KIND):
        self.kinds: dict[str, OrderedDict[str, list[float]]] = {}
        self.lock = threading.Lock()
        self.per_kind = per_kind

    @property
    def times(self) -> dict[str, list[float]]:
        """Every key's times (a copy, for looking at)."""
        with self.lock:
            return {k: list(v) for kind in self.kinds.values() for k, v in kind.items()}

    def allow(self, key: str, limit: int, now: float, window: float = 60,
              count: bool = True) -> bool:
        """True while `key` has had fewer than `limit` in the window; counts this one
        (unless `count` is False: only asked)."""
        with self.lock:
            kind = self.kinds.setdefault(key.split(":", 1)[0], OrderedDict())
            kept = [t for t in kind.get(key, []) if now - t < window]
            if len(kept) >= limit:
                kind[key] = kept
                kind.move_to_end(key)
                return False
            if count:
                kept.append(now)
            if kept:
                kind[key] = kept
                kind.move_to_end(key)
                while len(kind) > self.per_kind:  # the oldest forgotten first
                    kind.popitem(last=False)
            else:
                kind.pop(key, None)
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


def wrong_code(limits: Limits, link: str, now: float) -> None:
    """A wrong code sent from `link` counted: after WRONG_CODES in CODE_WINDOW the link waits
    (`turned_away(..., coded=True)` says "too_many_codes") — the table's report (/r), its
    sheet (/t), a match's (/k) and a team's appeal link (/a) alike."""
    limits.allow(f"code:{link}", WRONG_CODES, now, CODE_WINDOW)


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
