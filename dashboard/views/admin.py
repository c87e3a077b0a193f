"""/admin: the organizer console (password from env PAISAI_ADMIN_PASSWORD), arranged by the
day's phases as the organizer's guide tells them: before, pairing, the round, after. Only the
chosen phase is drawn, so the page keeps up with every click."""

import streamlit as st

from dashboard import console
from dashboard.auth import current_official, logout, require_admin
from dashboard.common import demo_banner, lang, selected_event
from dashboard.i18n import t
from pipeline.officials.people import FIRST_ORGANIZER

PHASES = ["before", "pairing", "round", "officials", "after"]
LABELS = {"before": "phase_before", "pairing": "phase_pairing", "round": "phase_round",
          "officials": "phase_officials", "after": "phase_after"}
# what each official's role opens on the console (issue 43); the others work on the phone
ROLE_PHASES = {"organizer": PHASES, "chief": ["officials"], "desk": ["before"]}

language = lang()
st.title(t("admin", language))
if not require_admin(language):
    st.stop()
logout(language)
official = current_official()
role = official.role if official else "organizer"
if official is not None and official.official_id:
    from pipeline.base import db

    db.ACTING.set(official.label)  # every change of this run names the official
    st.sidebar.caption(official.label)
if role not in ROLE_PHASES:
    st.info(t("officials_role_only", language, role=official.label))
    st.markdown("[/o](/o)" if role != "screen" else "[/live?projector=1](/live?projector=1)")
    st.stop()
allowed = ROLE_PHASES[role]
event_id = selected_event()
demo_banner(event_id, language)
# a run with a sheet in the file box goes before the phones' report batches (issue 53)
with console.organizer_first(event_id):
    console.flash()
    suggested = "before"
    version = None  # the event's state as this run reads it: asked once, shared by the sections
    if event_id is not None:
        version = console.console_version(event_id)
        # the status and the undo offer redraw themselves for the hall (a fragment)
        suggested = console.hall_status(event_id, language, version)
    if suggested not in allowed:
        suggested = allowed[0]
    if st.session_state.get("phase") not in allowed:  # a new session, or after an action
        st.session_state["phase"] = suggested
    phase = st.segmented_control(" ", allowed, format_func=lambda p: t(LABELS[p], language),
                                 key="phase", label_visibility="collapsed") or suggested
    # the phases with a file box are never redrawn as a whole for the hall (issue 53: a
    # whole redraw as a file was chosen lost the upload); the others follow it whole
    if event_id is not None and phase not in ("before", "round"):
        console.follow(event_id)
    if event_id is None and "before" not in allowed:
        st.info(t("no_event_yet", language))
    elif phase == "before" or event_id is None:
        console.create_event(language, expanded=event_id is None)
        if event_id is not None:
            console.upload(event_id, language, entries=True, version=version)
            console.registration_desk(event_id, language)
    elif phase == "pairing":
        console.pair_next(event_id, language)
        console.round_downloads(event_id, language)
    elif phase == "officials":
        from dashboard.console.officials import officials_panel

        officials_panel(event_id, language, official or FIRST_ORGANIZER)
    elif phase == "round":
        console.clock(event_id, language)
        console.enter_table(event_id, language)
        console.upload(event_id, language, entries=False, version=version)
        console.self_report(event_id, language, version)
    else:
        console.downloads(event_id, language)
