"""The organizer's password: from env PAISAI_ADMIN_PASSWORD, compared in constant time, with
failed attempts limited across all sessions (5 a minute)."""

from __future__ import annotations

import hmac
import os
import time

import streamlit as st

from dashboard.i18n import t

WINDOW_SECONDS = 60
MAX_FAILURES = 5


@st.cache_resource
def _failures() -> list[float]:
    return []


def _recent() -> list[float]:
    log = _failures()
    now = time.monotonic()
    log[:] = [x for x in log if now - x < WINDOW_SECONDS]
    return log


def check_password(given: str) -> bool:
    password = os.environ.get("PAISAI_ADMIN_PASSWORD", "")
    if len(_recent()) >= MAX_FAILURES:
        return False
    ok = bool(password) and hmac.compare_digest(given.encode(), password.encode())
    if not ok:
        _failures().append(time.monotonic())
    return ok


def require_admin(language: str) -> bool:
    if not os.environ.get("PAISAI_ADMIN_PASSWORD"):
        st.warning(t("no_password", language))
        st.code("PAISAI_ADMIN_PASSWORD=你的密码 paisai dashboard", language="bash")
        return False
    if st.session_state.get("admin"):
        return True
    with st.form("login"):
        given = st.text_input(t("password", language), type="password")
        submitted = st.form_submit_button(t("login", language))
    if submitted:
        if len(_recent()) >= MAX_FAILURES:
            st.error(t("too_many", language))
        elif check_password(given):
            st.session_state["admin"] = True
            st.rerun()
        else:
            st.error(t("wrong_password", language))
    return False
