"""Where the event stands, on top of every phase: the round, the tables reported, the
next step, the disagreements with their buttons — a part of the page that redraws itself
when the hall changes the event (a phone, the command line); and the timer that redraws the
whole console for the hall on the phases without a file box."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from dashboard.clockview import own_run
from dashboard.common import database
from dashboard.console.shared import (
    console_version,
    deal_disputes,
    disagreeing_tables,
    pending_rows,
    site_status,
    status_data,
    undo_last,
    uploader_key,
)
from dashboard.i18n import colon, listed, t, table_numbers
from pipeline.base import db

NEXT_STEP = {"register": "next_register", "pair": "next_pair", "enter": "next_enter",
             "pair_next": "next_pair_next", "done": "next_done"}


# the console's phase that holds each next step
PHASE_OF_STEP = {"register": "before", "pair": "pairing", "enter": "round",
                 "pair_next": "pairing", "done": "after"}


FOLLOW_SECONDS = 3  # the hall's changes (phones, the command line) show within this
HALL_REDRAW_SECONDS = 10  # while the hall keeps changing the event (a hall of phones
# reporting: a batch every second or so), the console is redrawn for it at most this often:
# a whole redraw beside 1,000 phones took 1–2 s to make and as long for the browser to draw,
# and a file chosen meanwhile waited for both (issue 53: upload → preview)


@st.fragment(run_every=FOLLOW_SECONDS)
def hall_status(event_id: str, language: str, version: str) -> str:
    """The round's status (`round_status`) and the undo offer (`undo_last`), a part of the
    page that redraws itself every few seconds, from the cache until the hall changed the
    event (`hall_version`): the rest of the page — the file box above all — is never drawn
    again for the hall (issue 53: a whole redraw as a file was chosen lost the upload, and
    cost the browser 0.7–2 s beside 1,000 phones). Returns the phase of the next step (the
    page's own run uses it). `version`: the console's version as the page's run read it."""
    version = hall_version(event_id, "status", version)
    suggested = round_status(event_id, language, version)
    undo_last(event_id, language, version)
    return suggested


def hall_version(event_id: str, part: str, version: str) -> str:
    """The event's version a part of the console that follows the hall draws (`part`: its
    name). In the page's run, the version the run read (`version`); in the part's own runs
    (its timer, a click in it), the event's version now (one small query) when the hall
    changed the event — while the hall keeps changing it, at most every HALL_REDRAW_SECONDS
    (`hall_redraw_due`) — else the one it drew last (drawn again from the cache)."""
    state = st.session_state
    key = f"hall-version-{part}"
    if not own_run():
        state[key] = version
        state["seen_version"] = version  # what the page shows (see `follow`)
        return version
    shown = state.get(key, version)
    now = time.monotonic()
    if not hall_redraw_due(state.get(f"{key}-at"), now):
        return shown
    current = console_version(event_id)
    if current != shown:
        state[key] = current
        state[f"{key}-at"] = now
    return current


@st.fragment(run_every=FOLLOW_SECONDS)
def follow(event_id: str) -> None:
    """Draw nothing; every few seconds ask whether the hall changed the event
    (`redraw_if_changed`) and redraw the whole console if so: on the phases without a file
    box (pairing, officials, after), whose sections read the event themselves. The phases
    with one (before, the round) are never redrawn as a whole by the hall: their status and
    waiting reports redraw themselves (`hall_status`, `play.pending_reports`)."""
    redraw_if_changed(event_id)


def redraw_if_changed(event_id: str) -> None:
    """Ask the event's version (one small query) and redraw the console only when something
    outside it changed the event: a phone's report, a sheet or a pairing from the command
    line, another organizer's console. The console's own actions redraw it already, so they
    are never redrawn twice; and the organizer at work — a pairing previewed, a late arrival
    waiting — is never interrupted: the page catches up as soon as the work is stored or put
    away. Only from a timer's own run: a page run restarted from here would lose the click
    it is answering. While the hall keeps changing the event, at most every
    HALL_REDRAW_SECONDS (`hall_redraw_due`)."""
    if _at_work() or not own_run():
        return
    now = time.monotonic()
    if not hall_redraw_due(st.session_state.get("hall_redrawn_at"), now):
        return
    version = console_version(event_id)
    seen = st.session_state.setdefault("seen_version", version)
    if version != seen:
        st.session_state["seen_version"] = version
        st.session_state["hall_redrawn_at"] = now
        st.rerun(scope="app")


def hall_redraw_due(last: float | None, now: float) -> bool:
    """The console may be redrawn for the hall now: never yet, or HALL_REDRAW_SECONDS since
    the last time (`last`, `now`: time.monotonic()). A change after a quiet spell shows at
    the next tick; one right after another waits its turn."""
    return last is None or now - last >= HALL_REDRAW_SECONDS


def _at_work() -> bool:
    state = st.session_state
    return _file_chosen() or "pairing_preview" in state or "late" in state


def _file_chosen() -> bool:
    return any(st.session_state.get(uploader_key(kind)) for kind in ("entries", "round"))


@contextmanager
def organizer_first(event_id: str | None) -> Iterator[None]:
    """A page run with a sheet in the console's file box (chosen, previewed, waiting for
    confirmation) goes before the phones: their report batches wait from the run's start to
    its end, and one under way gives way (`db.first`, 5 s at most: never starved). Beside a
    hall of phones the batches came every half second, and the run that makes the file's
    preview read and tried it between them (issue 53: upload → preview ≤ 1.5 s)."""
    if event_id is None or not _file_chosen():
        yield
        return
    with db.first(database()):
        yield


def _missing(missing: list[tuple], language: str, spell_out: int = 12) -> None:
    """The round's tables not reported yet, with who sits at each — in one line while they
    are few; past `spell_out` (a large event's first minutes: 500 tables) their numbers as
    ranges and how many, who sits where one click away."""
    numbers = table_numbers((m[0] for m in missing), language, spell_out)
    tables = listed((f"{t('table_at', language, n=table)} {ew}–{ns or t('bye', language)}"
                     for table, ew, ns in missing), language, strong=True)
    said = t("missing_tables", language, tables=numbers)
    if len(missing) <= spell_out:
        st.warning(f"{said}{colon(language)}{tables}")
        return
    st.warning(f"{said}{t('missing_count', language, n=len(missing))}")
    with st.expander(t("missing_who", language, n=len(missing))):
        st.markdown(tables)


def round_status(event_id: str, language: str, version: str | None = None) -> str:
    """The console opens on the current round: where it stands and what comes next, and
    what waits for the organizer (disagreeing self-reports, a suspension) in a banner.
    Returns the phase of the console that holds the next step. `version`: the console's
    version as this run read it (`console_version`; asked here when not given)."""
    version = console_version(event_id) if version is None else version
    status, waiting = status_data(str(database()), event_id, version)
    disagreeing = disagreeing_tables(waiting)
    if disagreeing:
        st.error(t("disagreements", language, n=len(disagreeing)) + colon(language) +
                 listed((f"{t('table', language)} {n}" for n in disagreeing), language))
        pending_rows(event_id, language, waiting, only_disagreeing=True, where="banner")
    deal_disputes(event_id, language, version)
    site_status(event_id, language)
    cols = st.columns(4)
    cols[0].metric(t("round", language), status.round or "—")
    cols[1].metric(t("reported_short", language), f"{status.reported}/{status.expected}")
    cols[2].metric(t("pending_reports", language), status.pending_reports)
    cols[3].metric(t("rounds_planned", language), status.rounds_planned or "—")
    if status.missing:
        _missing(status.missing, language)
    if status.suspended:
        st.warning(status.suspended)
    st.info(f"{t('next_step', language)}{colon(language)}{t(NEXT_STEP[status.next_step], language)}")
    return PHASE_OF_STEP[status.next_step]
