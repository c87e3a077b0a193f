"""What every page shares: the database path, the selected event, language, projector mode."""

from __future__ import annotations

import html
from pathlib import Path

import polars as pl
import streamlit as st

from dashboard.i18n import column
from pipeline import db, queries

PROJECTOR_CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stHeader"], [data-testid="stToolbar"], [data-testid="stDecoration"],
[data-testid="stStatusWidget"], #MainMenu, footer { display: none !important; }
.block-container { padding-top: 1rem; max-width: 100% !important; }
table.paisai td, table.paisai th { font-size: 30px !important; padding: 6px 14px; }
h1 { font-size: 48px !important; }
</style>
"""

TABLE_CSS = """
<style>
table.paisai { border-collapse: collapse; width: 100%; }
table.paisai th { background: #1f3b63; color: #fff; text-align: center; }
table.paisai td, table.paisai th { border-bottom: 1px solid #ccd; padding: 4px 10px;
  font-size: 18px; }
table.paisai td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.paisai tr:nth-child(even) td { background: #f3f6fb; }
</style>
"""


def database() -> Path:
    return db.db_path()


def lang() -> str:
    return "en" if st.query_params.get("lang") == "en" else "zh"


def projector() -> bool:
    return st.query_params.get("projector") == "1"


def selected_event() -> str | None:
    """`?event=ID`, else the most recent event; a selector in the sidebar outside projector."""
    path = database()
    listing = queries.event_list(path)
    if listing.is_empty():
        return None
    ids = listing["event_id"].to_list()
    wanted = st.query_params.get("event")
    chosen = wanted if wanted in ids else ids[0]
    if not projector():
        names = dict(zip(ids, listing["name"].to_list(), strict=True))
        chosen = st.sidebar.selectbox("赛事 Event", ids, index=ids.index(chosen),
                                      format_func=lambda i: f"{names[i]} ({i})")
        st.query_params["event"] = chosen
    return chosen


def html_table(frame: pl.DataFrame, language: str, test_id: str) -> str:
    """A plain HTML table with every cell escaped (names with HTML stay text)."""
    head = "".join(f"<th>{html.escape(column(c, language))}</th>" for c in frame.columns)
    numeric = [dtype.is_numeric() for dtype in frame.dtypes]
    body = []
    for row in frame.iter_rows():
        cells = "".join(
            f'<td class="{"num" if n else ""}">{html.escape("" if v is None else str(v))}</td>'
            for v, n in zip(row, numeric, strict=True))
        body.append(f"<tr>{cells}</tr>")
    return (f'<table class="paisai" data-testid="{test_id}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def page_style() -> None:
    st.html(TABLE_CSS)
    if projector():
        st.html(PROJECTOR_CSS)
