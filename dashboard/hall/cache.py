"""What the phones read, made once per change of the event: each event's version (read
at most once a second, in the background), its snapshot, the rendered pages."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import partial

import polars as pl

from dashboard.hall.respond import HALL_WAIT, database
from pipeline.base import db, events
from pipeline.base.errors import PaisaiError
from pipeline.day import queries
from pipeline.publishing.publish import results_by_team
from pipeline.ranking import rounds, scoring
from pipeline.ranking.explain import why_here


class NotMade(Exception):
    """What a page is made of is not in memory: asked not to wait, nothing is made."""


class Once:
    """Values made once per key and kept (the most recent `size` keys): a hall of phones
    asking for the same page is one render, and every later ask a dictionary look-up. When
    many ask for a key not made yet — the moment a round is stored — one makes it and the
    others wait for it, instead of all making it at once."""

    def __init__(self, size: int = 512):
        self.values: OrderedDict[tuple, object] = OrderedDict()
        self.making: dict[tuple, threading.Event] = {}
        self.lock = threading.Lock()
        self.size = size

    def get(self, key: tuple, make):
        while True:
            with self.lock:
                if key in self.values:
                    self.values.move_to_end(key)
                    return self.values[key]
                waiting = self.making.get(key)
                if waiting is None:
                    self.making[key] = threading.Event()
                    break
            waiting.wait(30)  # the maker failed or finished: look again
        try:
            value = make()
            with self.lock:
                self.values[key] = value
                while len(self.values) > self.size:
                    self.values.popitem(last=False)
            return value
        finally:
            with self.lock:
                self.making.pop(key).set()

    def peek(self, key: tuple):
        """The value made for `key`, or None when it is not made (nothing is made here)."""
        with self.lock:
            if key in self.values:
                self.values.move_to_end(key)
                return self.values[key]
        return None

    def clear(self) -> None:
        with self.lock:
            self.values.clear()


PAGES = Once()  # (page, event, version, language, query, team) → (body, etag)


FIRST = Once(16)  # (event, version) → an event's first snapshot, made while its asker waits


VERSION_SECONDS = 1.0  # how long a page's version is trusted before the database is asked


FIRST_ASK = Once(256)  # (event, second) → (event, version) the first time: its askers wait


def _ask(event_id: str):
    """(event, version), or (None, None) when there is no such event."""
    with db.reading(database(), HALL_WAIT) as con:
        try:
            event = events.load(con, event_id)
        except PaisaiError:
            return None, None
        return event, queries.event_version(con, event_id)


class Versions:
    """Each event's version as last read, asked again in the background once it is older
    than VERSION_SECONDS: a page never waits for the database (a write under way, a hall's
    reports), only an event's first page does."""

    def __init__(self):
        self.known: dict[str, tuple[float, object, str | None]] = {}
        self.asking: set[str] = set()
        self.lock = threading.Lock()

    def get(self, event_id: str, wait: bool = True):
        """(event, version); None when `wait` is false and the event was never read."""
        import time

        now = time.monotonic()
        with self.lock:
            have = self.known.get(event_id)
            stale = have is None or now - have[0] >= VERSION_SECONDS
            if have is not None and stale and event_id not in self.asking:
                self.asking.add(event_id)
                threading.Thread(target=self._ask_again, args=(event_id,), daemon=True).start()
        if have is not None:
            return have[1:]
        if not wait:
            return None
        found = FIRST_ASK.get((event_id, int(now)), partial(_ask, event_id))
        with self.lock:
            if len(self.known) > 1000:
                self.known.clear()
            self.known.setdefault(event_id, (now, *found))
        return found

    def _ask_again(self, event_id: str) -> None:
        import time

        try:
            found = _ask(event_id)
            with self.lock:
                self.known[event_id] = (time.monotonic(), *found)
        except Exception:  # the database is busy or gone: the next page asks again
            pass
        finally:
            with self.lock:
                self.asking.discard(event_id)

    def clear(self) -> None:
        with self.lock:
            self.known.clear()


VERSIONS = Versions()


def current(event_id: str, wait: bool = True):
    """(event, version) from memory, read again at most once a second in the background:
    a hall of phones is answered without waiting for the database, and a change shows
    within seconds (PaisaiError when there is no such event; NotMade when `wait` is false
    and the event was never read)."""
    found = VERSIONS.get(event_id, wait)
    if found is None:
        raise NotMade(event_id)
    event, value = found
    if event is None:
        raise PaisaiError(f"no event {event_id}")
    return event, value


def forget_versions() -> None:
    """Ask the database again on the next page (a test's fresh database)."""
    for memo in (VERSIONS, FIRST_ASK, FIRST, PAGES, SEARCHES, TEAM_SEARCHES, PLAYING, SEATED):
        memo.clear()
    SNAPSHOTS.clear()


@dataclass(frozen=True)
class Snapshot:
    """What the phones' pages of one version of an event show, read from the database once:
    a thousand team pages after a round are a thousand renders of this, not a thousand
    rankings."""

    version: str
    after: int
    ranking: pl.DataFrame
    latest: int | None
    pairs: pl.DataFrame | None
    why: dict  # language ("zh", "en") → team → why it sits where it does
    places: dict  # team → its row of the ranking
    seats: dict  # team → its table this round: {table, side, opponent}
    results: dict  # language → team → its games as table rows
    in_play: dict = field(default_factory=dict)  # table → its own sheet (live pages only)


def _snapshot(event, current_version: str) -> Snapshot:
    with db.reading(database(), HALL_WAIT) as con:
        after = scoring.latest_round(con, event.event_id)
        ranking = scoring.standings(con, event, after)
        played = scoring.team_rounds(con, event, after)
        latest = rounds.latest_paired_round(con, event.event_id)
        pairs = rounds.pairings(con, event.event_id, latest) if latest else None
    seats = {}
    for r in pairs.iter_rows(named=True) if pairs is not None else ():
        ew = " ".join(str(v) for v in (r["ew_team"], r.get("ew_name")) if v)
        ns = " ".join(str(v) for v in (r["ns_team"], r.get("ns_name")) if v)
        seats[r["ew_team"]] = {"table": r["table"], "side": "东西 EW", "opponent": ns}
        if r["ns_team"] is not None:
            seats[r["ns_team"]] = {"table": r["table"], "side": "南北 NS", "opponent": ew}
    return Snapshot(current_version, after, ranking, latest, pairs,
                    {lang: why_here(ranking, scoring.published_keys(event, after), lang)
                     for lang in ("zh", "en")},
                    {r["team_no"]: r for r in ranking.iter_rows(named=True)}, seats,
                    {lang: results_by_team(played, lang) for lang in ("zh", "en")})


class Snapshots:
    """Each event's latest snapshot. When the event changes, the pages go on showing the
    snapshot they have while one thread makes the next (at most one at a time per event, at
    least REFRESH_GAP apart): a hall reporting a hundred tables a minute costs one ranking
    at a time, never one per report or per phone. Only an event's first snapshot is waited
    for."""

    # seconds between the end of one refresh and the start of the next: every new snapshot
    # has each phone's page rendered again (a thousand teams: ~1 s of the server's time)
    REFRESH_GAP = 4.0
    # (0: every change is waited for — a test)
    # seconds between noticing a change and making its snapshot: the projector (which asks
    # every second) reads the change first, never behind the phones' ranking, team rounds
    # and pairings — its reads took twice as long beside a snapshot (issue 53; a phone
    # refreshes every 20 s, a second and a half later is nothing to it)
    PROJECTOR_FIRST = 1.5

    def __init__(self):
        self.latest: dict[str, Snapshot] = {}
        self.refreshing: set[str] = set()
        self.lock = threading.Lock()

    def get(self, event, version: str, wait: bool = True) -> Snapshot:
        """The snapshot of the event's results (`version`'s results part: a deal entered on
        a table's own sheet makes no new ranking; `in_play` reads the tables apart). NotMade
        when `wait` is false and the snapshot would have to be made now."""
        current_version = queries.results_part(version)
        event_id = event.event_id
        with self.lock:
            have = self.latest.get(event_id)
            if have is not None and have.version != current_version \
                    and event_id not in self.refreshing and self.REFRESH_GAP > 0:
                self.refreshing.add(event_id)
                threading.Thread(target=self._refresh, args=(event, current_version),
                                 daemon=True).start()
        if have is not None and self.REFRESH_GAP > 0:
            return have
        if not wait:
            raise NotMade(event_id)
        made = FIRST.get((event_id, current_version),
                         partial(_snapshot, event, current_version))
        with self.lock:
            if event_id not in self.latest or self.REFRESH_GAP <= 0:
                if len(self.latest) > 64:
                    self.latest.clear()
                self.latest[event_id] = made
            return self.latest[event_id]

    def _refresh(self, event, current_version: str) -> None:
        import time

        try:
            time.sleep(self.PROJECTOR_FIRST)
            made = _snapshot(event, current_version)
            with self.lock:
                self.latest[event.event_id] = made
        except Exception:  # the pages keep the snapshot they have; the next ask tries again
            pass
        finally:
            time.sleep(self.REFRESH_GAP)
            with self.lock:
                self.refreshing.discard(event.event_id)

    def clear(self) -> None:
        with self.lock:
            self.latest.clear()


SNAPSHOTS = Snapshots()


PLAYING = Once(16)  # (event, version) → table → how it stands on its own sheet


def in_play(event, version: str) -> dict:
    """The tables keeping their own sheet as of the event's `version` (its sheets' part
    included): one light read per change, shared by every phone."""
    def read() -> dict:
        return {r["table"]: r for r in queries.tables_in_play(database(), event.event_id)}

    return PLAYING.get((event.event_id, version), read)


SEARCHES = Once(64)  # pages of one search (?q=): kept apart, so that made-up searches
# never push the pages everyone reads out of PAGES


TEAM_SEARCHES = Once(8192)  # a search for one of the event's team numbers (what a phone
# in the hall types: its own number): one page per team, language and snapshot — bounded by
# the event's teams, so kept for the whole version (in SEARCHES, a thousand teams looking
# for their table evicted each other and every search was a new render)


SEATED_COLUMNS = ("table", "ew_team", "ew_name", "ns_team", "ns_name")  # a pairings row


@dataclass(frozen=True)
class Seated:
    """The pairings of a snapshot as the phones' pairings page shows them, made once for
    every phone: each table's row as HTML, and where each searched value stands exactly."""

    html: list[str]  # the pairings' rows, in order, each a `<tr>` escaped cell by cell
    by_team: dict[str, list[int]]  # a team number, name or player, upper-cased → its rows


SEATED = Once(16)  # (event, snapshot, the word for a bye) → Seated


def seated(event, seen: Snapshot, bye: str) -> Seated:
    """The snapshot's pairings rows and their exact search (`queries.exact_rows`, the one
    `queries.find_table` searches): a hall of phones looking for their own table is a
    look-up each, not a frame filtered per page."""

    def make() -> Seated:
        from pipeline.publishing.templating import row_html

        pairs = seen.pairs
        table = pairs.select(*SEATED_COLUMNS).with_columns(pl.col("ns_team").fill_null(bye))
        html = table.select(row_html(table.schema)).to_series().to_list()
        return Seated(html, queries.exact_rows(pairs))

    return SEATED.get((event.event_id, seen.version, bye), make)
