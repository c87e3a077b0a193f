"""/clock: the round clock full screen, for a second projector; a small switch to the other
language below it (the sidebar is hidden here), none on a projector (`projector=1`)."""

import streamlit as st

from dashboard import clockview
from dashboard.common import (
    PROJECTOR_CSS,
    database,
    lang,
    projector,
    selected_event,
    switch_language,
)
from dashboard.i18n import t

language = lang()
st.html(PROJECTOR_CSS)
event_id = selected_event()
if event_id is None:
    st.info(t("no_event", language))
    switch_language()
    st.stop()
clockview.header(database(), event_id, size=220, language=language, with_name=True)
if not projector():
    switch_language()
