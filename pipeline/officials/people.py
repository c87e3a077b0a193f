"""The officials as people: added with a role (and a referee's tables), listed, disabled;
each signs in with their own password, kept only as an argon2 hash (argon2-cffi). Five
failures in a row lock the account for LOCK_MINUTES; `PAISAI_ADMIN_PASSWORD` stays the
first organizer of a fresh database (`ORGANIZER`)."""

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
    """An account locked after repeated failures."""


def sign_in(database: Path, name: str, password: str) -> Official | None:
    """The official when the name and password match (None otherwise, the failure counted);
    LockedOut while the account is locked — whatever the password."""
    name = " ".join((name or "").split())
    with db.writing(database) as con:
        found = db.rows(con, "select official_id, role, tables, password_hash, failed_logins, "
                             "locked_until from officials where name = ? and disabled_at is "
                             "null", [name])
        if not found:
            HASHER.hash(password or "x")  # the same time for a name that does not exist
            return None
        official_id, role, tables, stored, failed, locked = found[0]
        if locked is not None and locked > _now():
            raise LockedOut(f"连续输错 {FAILURES_TO_LOCK} 次，账户已锁定到 "
                            f"{local_time(locked)} the account is locked after "
                            f"{FAILURES_TO_LOCK} failures")
        try:
            HASHER.verify(stored, password or "")
        except (VerificationError, InvalidHashError):
            failed += 1
            lock = _now() + dt.timedelta(minutes=LOCK_MINUTES) \
                if failed >= FAILURES_TO_LOCK else None
            con.execute("update officials set failed_logins = ?, locked_until = ? where "
                        "official_id = ?", [0 if lock else failed, lock, official_id])
            return None
        con.execute("update officials set failed_logins = 0, locked_until = null where "
                    "official_id = ?", [official_id])
    return Official(official_id, name, role, tables)
