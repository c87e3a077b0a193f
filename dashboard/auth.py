"""The organizer's password: from env PAISAI_ADMIN_PASSWORD, compared in constant time; a
login is a session of `pipeline.operations.accounts` (a random token in an HttpOnly cookie, kept in the
database as a hash, ended by logout or expiry across restarts).

Failed attempts are limited per client: a browser session that fails MAX_FAILURES times in
a minute waits out the minute; an address with many failures (many sessions from one
machine) has each further attempt slowed by ADDRESS_DELAY seconds, and a name with many
(from anywhere) by ACCOUNT_DELAY. Every name — the first organizer's empty one too — then
locks for a while after five failures in a row (issue 49, `pipeline.officials.people`): a
guesser gets five tries a quarter of an hour, whatever addresses they use; the locked
organizer waits out the lock.
"""

from __future__ import annotations

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
ACCOUNT_FAILURES = 3  # failures of a name in the window, from anywhere, before each further
ACCOUNT_DELAY = 1.0  # attempt on it is slowed (five in a row lock it: pipeline.officials.people)


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


class Grants:
    """One-time, one-minute grants that turn into the session's HttpOnly cookie: the page
    (a script) holds only the grant, the server swaps it for the cookie (`/admin/session`,
    dashboard.hall), so no script ever sees the session's token."""

    SECONDS = 60

    def __init__(self):
        self.waiting: dict[str, tuple[str, float]] = {}
        self.lock = threading.Lock()

    def give(self, token: str) -> str:
        grant = secrets.token_urlsafe(18)
        now = time.monotonic()
        with self.lock:
            self.waiting = {g: v for g, v in self.waiting.items() if v[1] > now}
            self.waiting[grant] = (token, now + self.SECONDS)
        return grant

    def take(self, grant: str) -> str | None:
        with self.lock:
            found = self.waiting.pop(grant, None)
        return found[0] if found and found[1] > time.monotonic() else None


GRANTS = Grants()


def _run_script(script: str) -> None:
    st.html(f"<script>{script}</script>", unsafe_allow_javascript=True)


def _keep_login(token: str) -> None:
    grant = GRANTS.give(token)
    _run_script("fetch('/admin/session', {method: 'POST', credentials: 'same-origin', "
                f"body: '{grant}'}});")


def _database():
    from pipeline.base import db
    return db.db_path()


def logout(language: str) -> None:
    """A button that ends this login everywhere it was kept: the session is ended in the
    database (a restart does not bring it back) and the cookie is cleared."""
    if st.sidebar.button(t("logout", language), key="logout"):
        from pipeline.operations import accounts
        accounts.end_session(_database(), st.session_state.pop("admin_token", ""))
        st.session_state.pop("admin", None)
        _run_script("fetch('/admin/session', {method: 'DELETE', credentials: 'same-origin'});")
        st.rerun()


CHECK_SECONDS = 30  # a console's login is looked up again this often (a logout elsewhere)


def _still_valid() -> bool:
    from pipeline.operations import accounts
    checked = st.session_state.get("admin_checked", 0.0)
    if time.monotonic() - checked < CHECK_SECONDS:
        return True
    found = accounts.session_official(_database(), st.session_state.get("admin_token", ""))
    st.session_state["official"] = found
    st.session_state["admin_checked"] = time.monotonic()
    return found is not None


def current_official():
    """Who is signed in on this console (issue 43): an official with a role, or the first
    organizer (PAISAI_ADMIN_PASSWORD); None before a login."""
    return st.session_state.get("official") if st.session_state.get("admin") else None


def _officials_exist() -> bool:
    from pipeline.base import db
    try:
        with db.reading(_database()) as con:
            return bool(db.scalar(con, "select count(*) from officials where disabled_at is "
                                       "null"))
    except Exception:  # no database yet
        return False


def _sign_in(name: str, given: str, session: str, address: str,
             failures: Failures | None = None, sleep=time.sleep):
    """The official whose name and password these are (None: wrong; the first organizer
    with an empty name and PAISAI_ADMIN_PASSWORD). Every name — the first organizer's too —
    locks in the database after five failures (`people.sign_in`, LockedOut); before that,
    guesses are slowed per address and per name typed, and a session that failed too often
    waits out its minute."""
    from pipeline.officials import people

    failures = _failures() if failures is None else failures
    if address and failures.recent(f"address:{address}") >= ADDRESS_FAILURES:
        sleep(ADDRESS_DELAY)
    if failures.recent(f"account:{name or 'organizer'}") >= ACCOUNT_FAILURES:
        sleep(ACCOUNT_DELAY)
    found = people.sign_in(_database(), name, given)  # counts and locks in the database
    if found is None:
        failures.add(f"session:{session}")
        failures.add(f"account:{name or 'organizer'}")
        if address:
            failures.add(f"address:{address}")
    return found


def require_admin(language: str) -> bool:
    if not os.environ.get("PAISAI_ADMIN_PASSWORD") and not _officials_exist():
        st.warning(t("no_password", language))
        st.code("PAISAI_ADMIN_PASSWORD=你的密码 paisai dashboard", language="bash")
        return False
    from pipeline.officials import people
    from pipeline.operations import accounts
    if st.session_state.get("admin"):
        if st.session_state.pop("set_cookie", False):
            _keep_login(st.session_state["admin_token"])
        if _still_valid():
            return True
        st.session_state.pop("admin", None)
    try:
        kept = st.context.cookies.get(COOKIE, "")
    except Exception:  # outside a served page (tests of the page script)
        kept = ""
    found = accounts.session_official(_database(), kept) if kept else None
    if found is not None:
        st.session_state["admin"] = True
        st.session_state["official"] = found
        st.session_state["admin_token"] = kept
        st.session_state["admin_checked"] = time.monotonic()
        return True
    with st.form("login"):
        name = st.text_input(t("official_name", language)) if _officials_exist() else ""
        given = st.text_input(t("password", language), type="password")
        submitted = st.form_submit_button(t("login", language))
    if submitted:
        session, address = _client()
        official = None
        if locked_out(session, _failures()):
            st.error(t("too_many", language))
            return False
        try:
            official = _sign_in(" ".join(name.split()), given, session, address)
        except people.LockedOut as exc:
            st.error(str(exc))
            return False
        if official is None:
            st.error(t("wrong_password", language))
            return False
        st.session_state["admin"] = True
        st.session_state["official"] = official
        st.session_state["admin_token"] = accounts.open_official_session(
            _database(), official, session_hours())
        st.session_state["admin_checked"] = time.monotonic()
        st.session_state["set_cookie"] = True  # on the next run, which draws the page
        st.rerun()
    return False
