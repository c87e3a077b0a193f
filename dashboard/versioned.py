"""What /live and /pairings draw, made once per version of the event and shared by every
session (issue 53).

Every Streamlit session runs its page's script in the server's one process, and every
refresh runs it again: a desktop browser on /live at 1,000 teams unpickled the ranking and
two plotly figures from `st.cache_data` and wrote 1,000 rows of HTML on every run, and
every change of the event ranked it again after every round for the bump chart. Here each
is made once per version of what it shows and kept as it is (`st.cache_resource`: no copy
per session — what it returns is never changed), the tables as rows of HTML already
escaped (a page of them is a join), the rankings after earlier rounds kept across versions
while nothing they read changes.

Every value is keyed by the event's version as the page read it on this run: a stored
result shows on the next run, never a run later.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import streamlit as st

from dashboard.common import TableParts
from pipeline.day import queries
from pipeline.ranking.scoring import STANDINGS_COLUMNS

PAIRING_COLUMNS = ("table", "ew_team", "ew_name", "ns_team", "ns_name")


@st.cache_resource(max_entries=16, show_spinner=False)
def live(path: str, event: str, results: str) -> queries.LiveView:
    """The ranking as of one version of the event's results (the tables in play apart: they
    change far more often)."""
    return queries.live(Path(path), event, in_play=False)


@st.cache_resource(max_entries=16, show_spinner=False)
def in_play(path: str, event: str, version: str) -> list[dict]:
    """The tables in play as of one version of the event's sheets (one light read)."""
    return queries.tables_in_play(Path(path), event)


@st.cache_resource(max_entries=16, show_spinner=False)
def ranking_table(
    path: str, event: str, results: str, language: str, test_id: str, essential: tuple[str, ...]
) -> TableParts:
    """The ranking's rows as HTML, once per version and language: a page is a join."""
    standings = live(path, event, results).standings.select(STANDINGS_COLUMNS)
    return TableParts.of(standings, language, test_id, list(essential))


@st.cache_resource(max_entries=16, show_spinner=False)
def pairings(path: str, event: str, results: str) -> tuple[int | None, pl.DataFrame]:
    """The current round's pairings as of one version of the event."""
    return queries.current_pairings(Path(path), event)


@st.cache_resource(max_entries=16, show_spinner=False)
def pairings_table(
    path: str, event: str, results: str, language: str, bye: str
) -> TableParts | None:
    """The current round's tables as HTML rows (a bye's opponent says `bye`), once per
    version and language; None before any pairing."""
    round_no, pairs = pairings(path, event, results)
    if round_no is None:
        return None
    shown = pairs.select(PAIRING_COLUMNS).with_columns(pl.col("ns_team").fill_null(bye))
    return TableParts.of(shown, language, "pairings")


@st.cache_resource(max_entries=16, show_spinner=False)
def missing_tables(path: str, event: str, results: str, round_no: int) -> tuple[str, ...]:
    """The round's tables without a result, as of one version of the event's results."""
    return tuple(queries.missing_tables(Path(path), event, round_no))


@st.cache_resource(max_entries=16, show_spinner=False)
def why(path: str, event: str, results: str, language: str) -> dict[str, str]:
    """Why each team sits where it does, from the ranking of the same version (`live`)."""
    return queries.why_here(Path(path), event, language, live(path, event, results).standings)


@st.cache_resource(show_spinner=False)
def _rankings_by_round() -> dict:
    """The rankings after each round, kept by what each read (queries.rank_progression)."""
    return {}


@st.cache_resource(max_entries=4, show_spinner=False)
def progression(path: str, event: str, results: str) -> pl.DataFrame:
    """The ranking after every round, once per version: a round whose ranking reads nothing
    new is not ranked again."""
    return queries.rank_progression(Path(path), event, _rankings_by_round())


@st.cache_resource(max_entries=16, show_spinner=False)
def progression_chart(path: str, event: str, results: str, title: str, team: str | None):
    """The bump chart (None with one round), per version and team chosen."""
    from dashboard import charts

    frame = progression(path, event, results)
    if frame["round"].n_unique() <= 1:
        return None
    return charts.rank_progression(frame, title, team)


@st.cache_resource(max_entries=16, show_spinner=False)
def diffs_chart(path: str, event: str, results: str, title: str, count_label: str):
    """The level differences' histogram (None before any table is played), per version."""
    from dashboard import charts

    diffs = queries.level_differences(Path(path), event)
    return charts.level_differences(diffs, title, count_label) if diffs.height else None


_WARMED: dict[tuple, None] = {}  # the keys made ahead (the most recent WARM_KEPT)
_WARM_LOCK = threading.Lock()
WARM_KEPT = 64
READERS_SECONDS = 600.0  # a reader's part is made ahead while a reader came this recently
_readers = {"seen": float("-inf")}


def reader_seen() -> None:
    """A reader (not the projector) ran /live now."""
    _readers["seen"] = time.monotonic()


def warm(key: tuple, make: Callable[[], object]) -> None:
    """`make()` once per `key`, in a thread of its own, while readers come (a reader ran
    /live within READERS_SECONDS): the projector, which redraws within a second of every
    change, or a reader's ranking (every 2 s) has a reader's part of /live made before a
    reader's run asks (0.25 s of CPU at 1,000 teams after a round is stored) — that run then
    finds it made (a run that asks while it is being made waits for it: one key, one make).
    Without readers nothing is made ahead: the projector's first view and the console have
    the CPU."""
    if time.monotonic() - _readers["seen"] > READERS_SECONDS:
        return
    with _WARM_LOCK:
        if key in _WARMED:
            return
        _WARMED[key] = None
        while len(_WARMED) > WARM_KEPT:
            del _WARMED[next(iter(_WARMED))]

    def run() -> None:
        try:
            make()
        except Exception:  # a reader's own run makes it again, and says what went wrong
            logging.getLogger(__name__).warning("could not make %s ahead", key, exc_info=True)

    threading.Thread(target=run, name="paisai-warm", daemon=True).start()


def pages(total: int, rows: int) -> list[tuple[int, int]]:
    """The (first row, rows) of each page of `total` rows, `rows` a page.

    >>> pages(45, 20), pages(0, 20)
    ([(0, 20), (20, 20), (40, 5)], [(0, 0)])
    """
    if total <= 0:
        return [(0, 0)]
    return [(start, min(rows, total - start)) for start in range(0, total, rows)]


def turned_page(pages: int, changed, seconds: float = 10, now: float | None = None) -> int:
    """The page a projector shows now: a page every `seconds` from the event's last
    change, so that a round complete (or corrected) opens on its leaders — turned by the
    clock alone, a 1,000-team ranking (50 pages, 8 minutes around) showed the round complete
    on whatever page it had reached.

    >>> import datetime as dt
    >>> at = dt.datetime(2026, 12, 5, 16, 0, 0)
    >>> [turned_page(50, at, 10, at.timestamp() + s) for s in (0, 9, 10, 25, 500)]
    [0, 0, 1, 2, 0]
    """
    import time

    now = time.time() if now is None else now
    since = now - changed.timestamp() if changed is not None else now
    return int(max(0.0, since) // seconds) % pages
