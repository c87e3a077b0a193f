"""/pairings: the current round's tables and seats, and "find my table"."""

import polars as pl
import streamlit as st

from dashboard.common import (
    database,
    event_version,
    html_table,
    lang,
    phones_qr,
    projector,
    public_page_event,
    rotate_if_due,
)
from dashboard.i18n import t
from pipeline.day import queries

language = lang()
event_id = public_page_event(language, swiss=True)
rotate_if_due("pairings")


@st.fragment(run_every=5)
def rotation() -> None:
    """A projector rotating (&rotate=1) moves on from this page too, on time."""
    rotate_if_due("pairings")


rotation()
if projector():
    phones_qr(event_id, language)


@st.cache_data(max_entries=16, show_spinner=False)
def _current(path: str, event: str, version: str):
    """The current round's pairings as of one version of the event."""
    from pathlib import Path

    return queries.current_pairings(Path(path), event)


def results_version(event: str) -> str:
    """The event's version as its results and pairings have it (not its tables' sheets)."""
    return queries.results_part(event_version(event))


@st.fragment(run_every=2)  # follows the event: a new round's tables show within seconds
def tables() -> None:
    round_no, pairs = _current(str(database()), event_id, results_version(event_id))
    if round_no is None:
        st.info(t("no_pairing", language))
        return
    st.title(t('round_pairing', language, n=round_no))
    missing = queries.missing_tables(database(), event_id, round_no)
    if missing:  # the question asked most in a hall
        comma = "、" if language == "zh" else ", "
        st.markdown(f"**{t('missing_tables', language, tables=comma.join(missing))}**")
    shown = pairs.select("table", "ew_team", "ew_name", "ns_team", "ns_name").with_columns(
        pl.col("ns_team").fill_null(t("bye", language)))
    st.html(html_table(shown, language, "pairings"))


# the seat search is for a phone or a laptop, not for the projector
query = "" if projector() else st.text_input(t("find", language)).strip()
if query:
    _, found = _current(str(database()), event_id, results_version(event_id))
    hits = queries.find_table(found, query) if found is not None and found.height else found
    if hits is None or hits.is_empty():
        st.warning(t("not_found", language))
    else:
        st.html(html_table(hits.select("table", "ew_team", "ew_name", "ns_team", "ns_name")
                           .with_columns(pl.col("ns_team").fill_null(t("bye", language))),
                           language, "found"))
tables()
