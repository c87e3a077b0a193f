"""The organizer's password: from env PAISAI_ADMIN_PASSWORD, compared in constant time.

Failed attempts are limited per client, never for everyone: a browser session that fails
MAX_FAILURES times in a minute waits out the minute; an address with many failures (many
sessions from one machine) has each further attempt slowed by ADDRESS_DELAY seconds, but a
correct password is still accepted. So nobody who can reach /admin can lock the organizer
out by failing on purpose.
"""

from __future__ import annotations

import hmac
import os
import threading
import time
from dataclasses import dataclass, field

import streamlit as st

from dashboard.i18n import t

WINDOW_SECONDS = 60
MAX_FAILURES = 5  # per browser session in the window
ADDRESS_FAILURES = 20  # per address in the window, before attempts are slowed
ADDRESS_DELAY = 2.0


@dataclass
class Failures:
    """Failed attempts by client key (a session id or an address), in one window."""

    window: float = WINDOW_SECONDS
    times: dict[str, list[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def recent(self, key: str, now: float | None = None) -> int:
        now = time.monotonic() if now is None else now
        with self.lock:
            kept = [x for x in self.times.get(key, []) if now - x < self.window]
            if kept:
                self.times[key] = kept
            else:
                self.times.pop(key, None)
            return len(kept)

    def clear(self) -> None:
        with self.lock:
            self.times.clear()

    def add(self, key: str, now: float | None = None) -> None:
        with self.lock:
            self.times.setdefault(key, []).append(time.monotonic() if now is None else now)


@st.cache_resource
def _failures() -> Failures:
    return Failures()


def locked_out(session: str, failures: Failures) -> bool:
    """True when this session itself failed too often (others' failures never count)."""
    return failures.recent(f"session:{session}") >= MAX_FAILURES


def check_password(given: str, session: str, address: str, failures: Failures,
                   sleep=time.sleep) -> bool:
    password = os.environ.get("PAISAI_ADMIN_PASSWORD", "")
    if locked_out(session, failures):
        return False
    if address and failures.recent(f"address:{address}") >= ADDRESS_FAILURES:
        sleep(ADDRESS_DELAY)  # slowed, not refused: the organizer may share the address
    ok = bool(password) and hmac.compare_digest(given.encode(), password.encode())
    if not ok:
        failures.add(f"session:{session}")
        if address:
            failures.add(f"address:{address}")
    return ok


def _client() -> tuple[str, str]:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    session = context.session_id if context else ""
    try:
        address = st.context.ip_address or ""
    except Exception:  # no address outside a served page (tests of the page script)
        address = ""
    return session, address


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
        session, address = _client()
        if locked_out(session, _failures()):
            st.error(t("too_many", language))
        elif check_password(given, session, address, _failures()):
            st.session_state["admin"] = True
            st.rerun()
        else:
            st.error(t("wrong_password", language))
    return False
