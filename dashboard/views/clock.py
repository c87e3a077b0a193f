"""/clock: the round clock full screen, for a second projector."""

import streamlit as st

from dashboard import clockview
from dashboard.common import PROJECTOR_CSS, database, lang, selected_event
from dashboard.i18n import t

language = lang()
st.html(PROJECTOR_CSS)
event_id = selected_event()
if event_id is None:
    st.info(t("no_event", language))
    st.stop()
clockview.header(database(), event_id, size=220, language=language, with_name=True)
