"""/pairings: the current round's tables and seats, and "find my table"."""

import html

import polars as pl
import streamlit as st

from dashboard import versioned
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
from dashboard.i18n import t, table_numbers
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


READER_ROWS = 50  # a reader's page of a big round's tables (chosen)
PROJECTOR_ROWS = 20  # the projector's page, turned every PAGE_SECONDS: within 1080 pixels
PAGE_SECONDS = 10


def results_version(event: str) -> str:
    """The event's version as its results and pairings have it (not its tables' sheets)."""
    return queries.results_part(event_version(event))


@st.fragment(run_every=2)  # follows the event: a new round's tables show within seconds
def tables() -> None:
    results = results_version(event_id)
    round_no, pairs = versioned.pairings(str(database()), event_id, results)
    if round_no is None:
        st.info(t("no_pairing", language))
        return
    st.title(t('round_pairing', language, n=round_no))
    missing = versioned.missing_tables(str(database()), event_id, results, round_no)
    if missing:  # the question asked most in a hall (ranges past a dozen tables)
        st.markdown(f"**{t('missing_tables', language, tables=table_numbers(missing, language))}**")
    shown = versioned.pairings_table(str(database()), event_id, results, language,
                                     t("bye", language))
    start, count = 0, len(shown.rows)
    spans = versioned.pages(count, PROJECTOR_ROWS if projector() else READER_ROWS)
    if projector() and len(spans) > 1:  # the hall's screen turns its own pages (500 tables
        # were one 19,000-pixel page: tables past the 22nd never on screen)
        page = versioned.turned_page(len(spans), None, PAGE_SECONDS)
        start, count = spans[page]
        numbers = pairs["table"].cast(pl.String).fill_null("").to_list()
        said = (f"{t('table_range', language, a=numbers[start], b=numbers[start + count - 1])}"
                f" · {t('page_of', language, p=page + 1, n=len(spans))}")
        st.html(f"<div class='progress' data-testid='progress'>{html.escape(said)}</div>")
    elif len(spans) > 1:  # a reader's page, chosen above the tables
        numbers = pairs["table"].cast(pl.String).fill_null("").to_list()
        labels = [t("table_range", language, a=numbers[first], b=numbers[first + n - 1])
                  for first, n in spans]
        chosen = st.selectbox(t("table_page", language), range(len(spans)), key="tables-page",
                              format_func=labels.__getitem__, placeholder=t("choose", language))
        start, count = spans[chosen or 0]
    st.html(shown.page(start, count))


# the seat search is for a phone or a laptop, not for the projector
query = "" if projector() else st.text_input(t("find", language)).strip()
if query:
    _, found = versioned.pairings(str(database()), event_id, results_version(event_id))
    hits = queries.find_table(found, query) if found is not None and found.height else found
    if hits is None or hits.is_empty():
        st.warning(t("not_found", language))
    else:
        st.html(html_table(hits.select("table", "ew_team", "ew_name", "ns_team", "ns_name")
                           .with_columns(pl.col("ns_team").fill_null(t("bye", language))),
                           language, "found"))
tables()
