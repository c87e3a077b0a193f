"""The officials as people: added with a role (and a referee's tables), listed, disabled;
each signs in with their own password, kept only as an argon2 hash (argon2-cffi). Five
failures in a row lock the name typed for LOCK_MINUTES — an official's, the first
organizer's (`PAISAI_ADMIN_PASSWORD`, the empty name: `ORGANIZER`) and a name nobody has
alike (issue 49: a lock tells nobody who is an official)."""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from pipeline.base import db
from pipeline.base.errors import UsageError
from pipeline.officials.ladder import local_time, parse_tables

ROLES = ("organizer", "chief", "referee", "committee", "desk", "screen")
ROLE_WORDS = {"organizer": "组织者 organizer", "chief": "裁判长 chief arbiter",
              "referee": "临场裁判 table referee", "committee": "仲裁委员 committee member",
              "desk": "报到台 desk", "screen": "大屏 screen"}
ORGANIZER = "organizer"  # the account of PAISAI_ADMIN_PASSWORD
FAILURES_TO_LOCK = 5
LOCK_MINUTES = 15
HASHER = PasswordHasher()


@dataclass(frozen=True)
class Official:
    """Who acts: an official of the officials table, or the first organizer (id 0)."""

    official_id: int
    name: str
    role: str
    tables: str | None = None

    def works_at(self, table_no: int) -> bool:
        """A referee only at their tables; every other role at every table."""
        allowed = parse_tables(self.tables) if self.role == "referee" else None
        return allowed is None or table_no in allowed

    @property
    def label(self) -> str:
        return f"{self.name}（{ROLE_WORDS[self.role].split()[0]}）"


FIRST_ORGANIZER = Official(0, "组织者 organizer", ORGANIZER)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def add(database: Path, name: str, role: str, tables: str | None = None,
        password: str | None = None) -> tuple[Official, str]:
    """A new official; returns them and their password (made here when none is given: shown
    once, never stored in clear)."""
    name = " ".join((name or "").split())
    if not name or len(name) > 40:
        raise UsageError("姓名不能为空，最多 40 字 a name of 1 to 40 characters")
    if role not in ROLES:
        raise UsageError(f"角色应为 {' / '.join(ROLES)} the role is one of {', '.join(ROLES)}")
    if tables and role != "referee":
        raise UsageError("只有临场裁判分配桌号 only a referee is given tables")
    try:
        parse_tables(tables)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    password = password or secrets.token_urlsafe(9)
    if len(password) < 8:
        raise UsageError("密码至少 8 位 a password of 8 characters or more")
    with db.writing(database) as con:
        if db.scalar(con, "select count(*) from officials where name = ?", [name]):
            raise UsageError(f"已有这位裁判 {name} already exists")
        official_id = db.scalar(con, "insert into officials (name, role, tables, password_hash) "
                                     "values (?, ?, ?, ?) returning official_id",
                                [name, role, tables or None, HASHER.hash(password)])
    return Official(official_id, name, role, tables or None), password


def listing(database: Path) -> pl.DataFrame:
    with db.reading(database) as con:
        return db.frame(con, "select official_id, name, role, coalesce(tables, '') as tables, "
                             "disabled_at is null as active, created_at::varchar as created_at "
                             "from officials order by official_id")


def disable(database: Path, name: str) -> None:
    """The official signs in no more; their sessions end (their records stay)."""
    with db.writing(database) as con:
        found = db.scalar(con, "select official_id from officials where name = ? and "
                               "disabled_at is null", [name])
        if found is None:
            raise UsageError(f"没有在任的 {name} no active official of that name")
        con.execute("update officials set disabled_at = current_timestamp where official_id = ?",
                    [found])
        con.execute("update console_sessions set ended_at = current_timestamp where account = ? "
                    "and ended_at is null", [f"official:{found}"])


def by_id(con: duckdb.DuckDBPyConnection, official_id: int) -> Official | None:
    """An active official, else None (id 0: the first organizer)."""
    if official_id == 0:
        return FIRST_ORGANIZER
    found = db.rows(con, "select official_id, name, role, tables from officials where "
                         "official_id = ? and disabled_at is null", [official_id])
    return Official(*found[0]) if found else None


def password_hash(con: duckdb.DuckDBPyConnection, official_id: int) -> str | None:
    return db.scalar(con, "select password_hash from officials where official_id = ? and "
                          "disabled_at is null", [official_id])


class LockedOut(UsageError):
    """An account locked after repeated failures (the same words for a name nobody has)."""


IDLE_DAYS = 1  # a name's failures are forgotten after a day without one


def _account(name: str) -> str:
    return "organizer" if not name else f"name:{name}"


def _locked(con: duckdb.DuckDBPyConnection, account: str) -> None:
    con.execute("delete from sign_in_locks where last_failed_at < ?",
                [_now() - dt.timedelta(days=IDLE_DAYS)])
    locked = db.scalar(con, "select locked_until from sign_in_locks where account = ?",
                       [account])
    if locked is not None and locked > _now():
        raise LockedOut(f"连续输错 {FAILURES_TO_LOCK} 次，已锁定到 {local_time(locked)} "
                        f"locked after {FAILURES_TO_LOCK} failures until {local_time(locked)}")


def _failed(con: duckdb.DuckDBPyConnection, account: str) -> None:
    failed = (db.scalar(con, "select failed from sign_in_locks where account = ?",
                        [account]) or 0) + 1
    lock = _now() + dt.timedelta(minutes=LOCK_MINUTES) if failed >= FAILURES_TO_LOCK else None
    con.execute("insert or replace into sign_in_locks (account, failed, locked_until, "
                "last_failed_at) values (?, ?, ?, ?)",
                [account, 0 if lock else failed, lock, _now()])


def sign_in(database: Path, name: str, password: str) -> Official | None:
    """The official when the name and password match — the empty name with
    `PAISAI_ADMIN_PASSWORD` is the first organizer — else None, the failure counted against
    the name typed. LockedOut while the name is locked, whatever the password: a real
    name, the first organizer's and a made-up one lock alike, with the same words."""
    import hmac
    import os

    name = " ".join((name or "").split())
    account = _account(name)
    with db.writing(database) as con:
        _locked(con, account)
        if not name:
            given = os.environ.get("PAISAI_ADMIN_PASSWORD", "")
            HASHER.hash(password or "x")  # every name takes the same time
            if given and hmac.compare_digest((password or "").encode(), given.encode()):
                con.execute("delete from sign_in_locks where account = ?", [account])
                return FIRST_ORGANIZER
            _failed(con, account)
            return None
        found = db.rows(con, "select official_id, role, tables, password_hash from officials "
                             "where name = ? and disabled_at is null", [name])
        if not found:
            HASHER.hash(password or "x")  # the same time for a name that does not exist
            _failed(con, account)
            return None
        official_id, role, tables, stored = found[0]
        try:
            HASHER.verify(stored, password or "")
        except (VerificationError, InvalidHashError):
            _failed(con, account)
            return None
        con.execute("delete from sign_in_locks where account = ?", [account])
    return Official(official_id, name, role, tables)
