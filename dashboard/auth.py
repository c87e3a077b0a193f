"""The organizer's password: from env PAISAI_ADMIN_PASSWORD, compared in constant time.

Failed attempts are limited per client, never for everyone: a browser session that fails
MAX_FAILURES times in a minute waits out the minute; an address with many failures (many
sessions from one machine) has each further attempt slowed by ADDRESS_DELAY seconds, but a
correct password is still accepted. So nobody who can reach /admin can lock the organizer
out by failing on purpose.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
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


COOKIE = "paisai_admin"


def session_hours() -> float:
    """How long a login survives a refresh or a new tab (env PAISAI_ADMIN_SESSION_HOURS,
    default 12); logging out ends it at once."""
    return float(os.environ.get("PAISAI_ADMIN_SESSION_HOURS", "12"))


def _key(password: str) -> bytes:
    """Tokens are signed with the password: changing it ends every session."""
    return hashlib.sha256(f"paisai-admin-session:{password}".encode()).digest()


def issue_token(password: str, now: float | None = None) -> str:
    expires = int((time.time() if now is None else now) + session_hours() * 3600)
    nonce = secrets.token_hex(8)
    mac = hmac.new(_key(password), f"{expires}.{nonce}".encode(), "sha256").hexdigest()
    return f"{expires}.{nonce}.{mac}"


def token_ok(token: str, password: str, revoked: set[str], now: float | None = None) -> bool:
    """A token signed with this password, not expired, not logged out.

    >>> good = issue_token("pw")
    >>> token_ok(good, "pw", set()), token_ok(good, "other", set()), \\
    ...     token_ok(good, "pw", {good.split(".")[1]}), token_ok("1.x.y", "pw", set())
    (True, False, False, False)
    """
    try:
        expires, nonce, mac = token.split(".")
        alive = int(expires) > (time.time() if now is None else now)
    except ValueError:
        return False
    expected = hmac.new(_key(password), f"{expires}.{nonce}".encode(), "sha256").hexdigest()
    return alive and nonce not in revoked and hmac.compare_digest(mac, expected)


@st.cache_resource
def _revoked() -> set[str]:
    return set()


def _set_cookie(value: str, seconds: int) -> None:
    st.html(f"<script>document.cookie = '{COOKIE}={value}; path=/; max-age={seconds}; "
            "samesite=strict';</script>", unsafe_allow_javascript=True)


def logout(language: str) -> None:
    """A button that ends this login everywhere it was kept (this browser's cookie)."""
    if st.sidebar.button(t("logout", language), key="logout"):
        token = st.session_state.pop("admin_token", "")
        if token.count(".") == 2:
            _revoked().add(token.split(".")[1])
        st.session_state.pop("admin", None)
        _set_cookie("", 0)
        st.rerun()


def require_admin(language: str) -> bool:
    if not os.environ.get("PAISAI_ADMIN_PASSWORD"):
        st.warning(t("no_password", language))
        st.code("PAISAI_ADMIN_PASSWORD=你的密码 paisai dashboard", language="bash")
        return False
    if st.session_state.get("admin"):
        if st.session_state.pop("set_cookie", False):
            _set_cookie(st.session_state["admin_token"], int(session_hours() * 3600))
        return True
    try:
        kept = st.context.cookies.get(COOKIE, "")
    except Exception:  # outside a served page (tests of the page script)
        kept = ""
    if kept and token_ok(kept, os.environ["PAISAI_ADMIN_PASSWORD"], _revoked()):
        st.session_state["admin"] = True
        st.session_state["admin_token"] = kept
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
            st.session_state["admin_token"] = issue_token(os.environ["PAISAI_ADMIN_PASSWORD"])
            st.session_state["set_cookie"] = True  # on the next run, which draws the page
            st.rerun()
        else:
            st.error(t("wrong_password", language))
    return False
