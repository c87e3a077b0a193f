"""The console's sessions, kept in the database: a login gives the browser a random token
(`secrets.token_urlsafe`, in an HttpOnly cookie set by `dashboard.hall`), and the
database keeps only its SHA-256, the account, when it expires and when it was ended. Nothing
a browser holds is derived from the password, so a token seen on a shared computer or on the
wire gives away nothing but itself, and dies at logout or expiry — also across restarts.

A session remembers which password opened it only as a slow hash (scrypt, salted by the
session): changing `PAISAI_ADMIN_PASSWORD` ends every session opened before.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from functools import lru_cache
from pathlib import Path

from pipeline.base import db
from pipeline.base.errors import PaisaiError

ORGANIZER = "organizer"  # the account of PAISAI_ADMIN_PASSWORD


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@lru_cache(maxsize=256)
def _password_tag(password: str, salt: str) -> str:
    """scrypt (n=2**14, r=8: ~50 ms) of the password, salted by the session: made at login
    and once per check of a session in this process."""
    return hashlib.scrypt(password.encode(), salt=f"paisai-console:{salt}".encode(),
                          n=2**14, r=8, p=1, dklen=32).hex()


def open_session(database: Path, password: str, hours: float,
                 account: str = ORGANIZER) -> str:
    """A new session for `account`, valid `hours`; returns the token for the cookie."""
    token = secrets.token_urlsafe(32)
    digest = _digest(token)
    with db.writing(database) as con:
        con.execute("delete from console_sessions where expires_at < current_timestamp "
                    "- interval 7 day")  # a little housekeeping at each login
        con.execute("insert into console_sessions (token_hash, account, password_tag, "
                    "expires_at) values (?, ?, ?, current_timestamp + to_microseconds(?))",
                    [digest, account, _password_tag(password, digest),
                     int(hours * 3600 * 1_000_000)])
    return token


def session_account(database: Path, token: str, password: str) -> str | None:
    """The account of a live session (not expired, not ended, opened with this password),
    else None."""
    if not _plausible(token):
        return None
    digest = _digest(token)
    with db.reading(database) as con:
        found = _live(con, digest)
    if not found:
        return None
    account, tag = found
    return account if hmac.compare_digest(tag, _password_tag(password, digest)) else None


def _plausible(token: object) -> bool:
    return isinstance(token, str) and 0 < len(token) <= 100


def _live(con, digest: str) -> tuple[str, str] | None:
    """(account, password tag) of a session neither expired nor ended, else None."""
    found = db.rows(con, "select account, password_tag from console_sessions where "
                         "token_hash = ? and ended_at is null and expires_at > "
                         "current_timestamp", [digest])
    return found[0] if found else None


def end_session(database: Path, token: str) -> None:
    """Log out: the token opens nothing from now on, whatever restarts."""
    if not token:
        return
    with db.writing(database) as con:
        con.execute("update console_sessions set ended_at = current_timestamp where "
                    "token_hash = ? and ended_at is null", [_digest(token)])


def open_official_session(database: Path, official, hours: float) -> str:
    """A session for an official (issue 43): tied to their password's hash, so that a new
    password or disabling them ends it; the first organizer's to PAISAI_ADMIN_PASSWORD."""
    from pipeline.officials import people

    if official.official_id == 0:
        return open_session(database, os.environ.get("PAISAI_ADMIN_PASSWORD", ""), hours)
    with db.reading(database) as con:
        secret = people.password_hash(con, official.official_id)
    if secret is None:
        raise PaisaiError("账户已停用 the account is disabled")
    return open_session(database, secret, hours, account=f"official:{official.official_id}")


def session_official(database: Path, token: str):
    """Who a live session belongs to (an official, or the first organizer), else None."""
    from pipeline.officials import people

    if not _plausible(token):
        return None
    digest = _digest(token)
    with db.reading(database) as con:
        found = _live(con, digest)
        if not found:
            return None
        account, tag = found
        if account == ORGANIZER:
            secret, official = os.environ.get("PAISAI_ADMIN_PASSWORD", ""), \
                people.FIRST_ORGANIZER
        elif account.startswith("official:") and account[9:].isdigit():
            official = people.by_id(con, int(account[9:]))
            secret = people.password_hash(con, official.official_id) if official else None
        else:
            return None
    if not secret or official is None:
        return None
    return official if hmac.compare_digest(tag, _password_tag(secret, digest)) else None
