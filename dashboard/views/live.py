"""/live: the ranking of the selected event, for the hall and the projector."""

import streamlit as st

from dashboard.common import database, html_table, lang, projector, selected_event
from dashboard.i18n import t
from pipeline import queries
from pipeline.scoring import STANDINGS_COLUMNS

language = lang()
event_id = selected_event()
if event_id is None:
    st.info(t("no_event", language))
    st.stop()


@st.fragment(run_every=5)
def ranking() -> None:
    view = queries.live(database(), event_id)
    st.title(view.event_name)
    updated = view.updated_at.strftime("%H:%M:%S") if view.updated_at else "—"
    st.markdown(
        f"**{t('after_round', language, n=view.round)}** · "
        f"{t('reported', language, x=view.reported, y=view.expected)} · "
        f"{t('updated', language, t=updated)}"
    )
    if view.round == 0:
        st.info(t("no_results", language))
    st.html(html_table(view.standings.select(STANDINGS_COLUMNS), language, "ranking"))


ranking()
if not projector():
    st.caption("投影模式 projector: ?projector=1 · English: ?lang=en")
