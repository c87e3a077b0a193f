"""/live: the ranking of the selected event, for the hall and the projector."""

import math
import time

import streamlit as st

from dashboard import charts
from dashboard.common import database, html_table, lang, projector, public_page_event, rotate_if_due
from dashboard.i18n import t
from pipeline import queries
from pipeline.scoring import STANDINGS_COLUMNS

PAGE_ROWS = 20
PAGE_SECONDS = 10

language = lang()
event_id = public_page_event(language, swiss=True)


@st.fragment(run_every=5)
def ranking() -> None:
    rotate_if_due("live")
    view = queries.live(database(), event_id)
    st.title(view.event_name)
    updated = view.updated_at.strftime("%H:%M:%S") if view.updated_at else "—"
    header = (f"**{t('after_round', language, n=view.round)}** · "
              f"{t('reported', language, x=view.reported, y=view.expected)} · "
              f"{t('updated', language, t=updated)}")
    table = view.standings.select(STANDINGS_COLUMNS)
    if projector() and table.height > PAGE_ROWS:
        pages = math.ceil(table.height / PAGE_ROWS)
        page = int(time.time() // PAGE_SECONDS) % pages
        table = table.slice(page * PAGE_ROWS, PAGE_ROWS)
        header += f" · {t('page_of', language, p=page + 1, n=pages)}"
    st.markdown(header)
    if view.round == 0:
        st.info(t("no_results", language))
    st.html(html_table(table, language, "ranking"))


ranking()
if not projector():
    why = queries.why_here(database(), event_id)
    if why:
        team = st.selectbox(t("why_here", language), list(why), index=None,
                            placeholder=t("choose_team", language))
        if team:
            st.info(f"{team}: {why[team] or '—'}")
    progression = queries.rank_progression(database(), event_id)
    if progression["round"].n_unique() > 1:
        st.plotly_chart(charts.rank_progression(progression, t("progression", language)),
                        width="stretch")
    diffs = queries.level_differences(database(), event_id)
    if diffs.height:
        st.plotly_chart(charts.level_differences(diffs, t("diff_dist", language)),
                        width="stretch")
    st.caption("投影模式 projector: ?projector=1 · 轮播 rotate: &rotate=1 · English: ?lang=en")
