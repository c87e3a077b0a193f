"""/admin: the organizer console (password from env PAISAI_ADMIN_PASSWORD), arranged by the
day's phases as the organizer's guide tells them: before, pairing, the round, after. Only the
chosen phase is drawn, so the page keeps up with every click."""

import streamlit as st

from dashboard import console
from dashboard.auth import logout, require_admin
from dashboard.common import demo_banner, lang, selected_event
from dashboard.i18n import t

PHASES = ["before", "pairing", "round", "after"]
LABELS = {"before": "phase_before", "pairing": "phase_pairing", "round": "phase_round",
          "after": "phase_after"}

language = lang()
st.title(t("admin", language))
if not require_admin(language):
    st.stop()
logout(language)
event_id = selected_event()
demo_banner(event_id, language)
console.flash()
suggested = "before"
if event_id is not None:
    suggested = console.round_status(event_id, language)
    console.undo_last(event_id, language)
if st.session_state.get("phase") not in PHASES:  # a new session, or after an action
    st.session_state["phase"] = suggested
phase = st.segmented_control(" ", PHASES, format_func=lambda p: t(LABELS[p], language),
                             key="phase", label_visibility="collapsed") or suggested
if event_id is not None and phase != "round":  # the round's clock follows the hall itself
    console.follow(event_id)
if phase == "before" or event_id is None:
    console.create_event(language, expanded=event_id is None)
    if event_id is not None:
        console.upload(event_id, language, entries=True)
        console.registration_desk(event_id, language)
elif phase == "pairing":
    console.pair_next(event_id, language)
    console.round_downloads(event_id, language)
elif phase == "round":
    console.clock(event_id, language)
    console.enter_table(event_id, language)
    console.upload(event_id, language, entries=False)
    console.self_report(event_id, language)
else:
    console.downloads(event_id, language)
