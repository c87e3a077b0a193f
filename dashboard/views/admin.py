"""/admin: the organizer console (password from env PAISAI_ADMIN_PASSWORD)."""

import streamlit as st

from dashboard import console
from dashboard.auth import require_admin
from dashboard.common import lang, selected_event
from dashboard.i18n import t

language = lang()
st.title(t("admin", language))
if not require_admin(language):
    st.stop()
event_id = selected_event()
if event_id is not None:
    console.round_status(event_id, language)
    console.undo_last(event_id, language)
st.header(t("phase_before", language))
console.create_event(language)
if event_id is None:
    st.stop()
console.registration_desk(event_id, language)
st.header(t("phase_round", language))
console.clock(event_id, language)
console.upload(event_id, language)
console.enter_table(event_id, language)
console.self_report(event_id, language)
st.header(t("phase_between", language))
console.pair_next(event_id, language)
st.header(t("phase_after", language))
console.downloads(event_id, language)
