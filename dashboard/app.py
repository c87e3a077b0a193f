"""Entry point: only routes (st.navigation); each page is a short script in views/."""

from pathlib import Path

import streamlit as st

from dashboard.common import page_style, projector

st.set_page_config(page_title="牌赛 paisai", page_icon="🃏", layout="wide",
                   initial_sidebar_state="collapsed" if projector() else "auto")

HERE = Path(__file__).parent / "views"
live = st.Page(HERE / "live.py", title="实时排名 Live", url_path="live")
pages = [
    live,
    st.Page(HERE / "pairings.py", title="对阵 Pairings", url_path="pairings"),
]


def home() -> None:
    """The bare address opens /live, keeping the query parameters."""
    st.switch_page(live, query_params=dict(st.query_params))


root = st.Page(home, title="牌赛", url_path="home", default=True, visibility="hidden")
page = st.navigation([root, *pages], position="hidden" if projector() else "sidebar")
page_style()
page.run()
