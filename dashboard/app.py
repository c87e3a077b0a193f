"""Entry point: only routes (st.navigation); each page is a short script in views/."""

from pathlib import Path

import streamlit as st

from dashboard.common import lang, page_style, projector, switch_language
from dashboard.i18n import t
from pipeline.base.errors import BusyError

st.set_page_config(page_title="牌赛 paisai", page_icon="🃏", layout="wide",
                   initial_sidebar_state="collapsed" if projector() else "auto")

VIEWS = Path(__file__).parent / "views"
_lang = lang()  # the menu in the page's language
live = st.Page(VIEWS / "live.py", title=t("nav_live", _lang), url_path="live")
pages = [
    live,
    *(st.Page(VIEWS / f"{name}.py", title=t(f"nav_{name}", _lang), url_path=name)
      for name in ("pairings", "bracket", "history", "clock", "admin")),
]


def home() -> None:
    """The bare address opens /live, keeping the query parameters."""
    st.switch_page(live, query_params=dict(st.query_params))


# a table's self-report is a plain form beside these pages (/r, dashboard.hall)
hidden = [st.Page(home, title="牌赛", url_path="home", default=True, visibility="hidden")]
page = st.navigation([*hidden, *pages], position="hidden" if projector() else "sidebar")
page_style()


if not projector() and page.url_path != "clock":  # /clock hides the sidebar: its own switch
    switch_language(st.sidebar)  # every page in one language, the other one a click away
try:
    page.run()
except BusyError:  # another process holds the file: a note, then the page tries again
    import time

    from dashboard.common import lang
    from dashboard.i18n import t

    st.info(t("busy", lang()))
    time.sleep(BusyError.retry_after)
    st.rerun()
except Exception as exc:  # a page that fails is a line in the operations log, then shown
    if not type(exc).__module__.startswith("streamlit"):  # not st.rerun / st.stop
        from dashboard.common import database
        from pipeline.base import oplog
        oplog.write(database(), st.query_params.get("event"), "crash",
                    f"dashboard {page.url_path}: {type(exc).__name__}: {exc}")
    raise
