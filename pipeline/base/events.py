"""Events: creating one with its ruleset, and reading it back."""

from __future__ import annotations

import datetime as dt
import re
import secrets
from dataclasses import dataclass

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.errors import PaisaiError, UsageError
from pipeline.base.ruleset import Ruleset, parse_ruleset, resolve

EVENT_ID = re.compile(r"[a-z0-9-]+")


def valid_id(text: str) -> bool:
    """An event or meet id: lowercase letters, digits and `-`, the whole text (no newline).

    >>> valid_id("suzhou-2025"), valid_id("ev\\n"), valid_id("Ev")
    (True, False, False)
    """
    return EVENT_ID.fullmatch(text) is not None


@dataclass(frozen=True)
class Event:
    event_id: str
    name: str
    ruleset: Ruleset
    event_date: dt.date | None


def propose_id(con: duckdb.DuckDBPyConnection, name: str, date: dt.date | None = None) -> str:
    """An event id made from the name's Latin letters and digits, else from the date
    (`e-20261201`), unused so far (`-2`, `-3` … added).

    >>> import duckdb as d
    >>> c = d.connect(); c.execute("create table events (event_id varchar)") and None
    >>> propose_id(c, "Suzhou Open 2025"), propose_id(c, "苏州春茗会", dt.date(2026, 5, 3))
    ('suzhou-open-2025', 'e-20260503')
    """
    latin = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-")
    base = latin if len(latin) >= 3 else f"e-{(date or dt.date.today()):%Y%m%d}"
    taken = {e for e, in db.rows(con, "select event_id from events")}
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


MAX_NAME = 200  # characters of an event's name: a title on a projector, a card, a picture


def create(
    con: duckdb.DuckDBPyConnection, event_id: str, name: str, ruleset: str, date: str | None
) -> Event:
    if not valid_id(event_id):
        raise UsageError(f"赛事编号只能用小写字母、数字和 - event id must match [a-z0-9-]+: {event_id!r}")
    if not name.strip():
        raise UsageError("赛事名称不能为空 the event name is empty")
    if len(name.strip()) > MAX_NAME:
        raise UsageError(f"赛事名称最多 {MAX_NAME} 个字 the event name is longer than "
                         f"{MAX_NAME} characters ({len(name.strip())})")
    event_date = None
    if date:
        try:
            event_date = dt.date.fromisoformat(date)
        except ValueError:
            raise UsageError(f"日期格式应为 YYYY-MM-DD date must be YYYY-MM-DD: {date!r}") from None
    rules = resolve(ruleset)
    if db.scalar(con, "select count(*) from events where event_id = ?", [event_id]):
        raise UsageError(f"赛事已存在 event already exists: {event_id}")
    con.execute(
        "insert into events (event_id, name, ruleset_name, ruleset_toml, event_date) "
        "values (?, ?, ?, ?, ?)",
        [event_id, name.strip(), rules.name, rules.source, event_date],
    )
    # drawn once, kept: the lots that break ties no ranking key can break
    con.execute("insert into event_lots values (?, ?)", [event_id, secrets.randbelow(10**6)])
    return Event(event_id, name.strip(), rules, event_date)


def load(con: duckdb.DuckDBPyConnection, event_id: str) -> Event:
    found = db.rows(
        con,
        "select event_id, name, ruleset_name, ruleset_toml, event_date from events "
        "where event_id = ?",
        [event_id],
    )
    if not found:
        _missing(con, event_id)
    event_id, name, ruleset_name, toml_text, event_date = found[0]
    return Event(event_id, name, parse_ruleset(toml_text, ruleset_name), event_date)


def known(con: duckdb.DuckDBPyConnection, event_id: str) -> str:
    """`event_id` if the event exists, else the error `load` gives — for a command that
    needs no more of the event (`paisai rounds`: its ruleset is not parsed)."""
    if not db.rows(con, "select 1 from events where event_id = ?", [event_id]):
        _missing(con, event_id)
    return event_id


def _missing(con: duckdb.DuckDBPyConnection, event_id: str) -> None:
    known = [r[0] for r in db.rows(con, "select event_id from events order by event_id")]
    hint = f"; 已有 known: {', '.join(known)}" if known else ""
    raise PaisaiError(f"没有这个赛事 no such event: {event_id}{hint}")


def load_many(con: duckdb.DuckDBPyConnection, event_ids: list[str]) -> list[Event]:
    """The events of `event_ids` that exist, in one read, each ruleset text parsed once
    (an archive of a thousand events has a handful of rulesets)."""
    parsed: dict[tuple[str, str], Ruleset] = {}
    found = []
    for event_id, name, ruleset_name, toml_text, event_date in db.rows(
            con, "select event_id, name, ruleset_name, ruleset_toml, event_date from events "
                 "where event_id in (select unnest($ids)) order by event_id",
            {"ids": event_ids}):
        if (toml_text, ruleset_name) not in parsed:
            parsed[toml_text, ruleset_name] = parse_ruleset(toml_text, ruleset_name)
        found.append(Event(event_id, name, parsed[toml_text, ruleset_name], event_date))
    return found


def listing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return db.frame(
        con,
        """
        select e.event_id, e.name, e.ruleset_name as ruleset, e.event_date,
               (select count(*) from teams t where t.event_id = e.event_id) as teams,
               (select coalesce(max(round), 0) from results r where r.event_id = e.event_id)
                   as rounds
        from events e
        order by e.event_date desc nulls last, e.created_at desc
        """,
    )


def in_play(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(event_id, name) of every event not closed and not finished, the most recent first
    (the hall's phones choose among them at /m/). A Swiss event is finished once every table
    of its last planned round is reported (as the prizes read it, `awards.unfinished`)."""
    found = db.rows(con, "select event_id, name, ruleset_name, ruleset_toml from events "
                         "where closed_at is null order by event_date desc nulls last, "
                         "created_at desc")
    return [(event_id, name) for event_id, name, ruleset_name, toml_text in found
            if not _finished(con, event_id, parse_ruleset(toml_text, ruleset_name))]


def _finished(con: duckdb.DuckDBPyConnection, event_id: str, rules: Ruleset) -> bool:
    """Every table of the last planned round reported (a Swiss event with planned rounds)."""
    if not rules.is_swiss or not rules.rounds:
        return False
    return bool(db.scalar(con, """
        select count(*) > 0 and count(*) filter (where not exists (
            select 1 from results r where r.event_id = p.event_id and r.round = p.round
              and r.table_no = p.table_no)) = 0
        from pairings p where p.event_id = ? and p.round = ? and p.table_no is not null""",
                          [event_id, rules.rounds]))


def names(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every event's id and name in `listing`'s order, without its counts (what a picker
    shows, read on every page run)."""
    return db.frame(con, "select event_id, name from events order by event_date desc nulls "
                         "last, created_at desc")


def most_recent(con: duckdb.DuckDBPyConnection) -> str | None:
    return db.scalar(con, "select event_id from events order by event_date desc nulls last, "
                          "created_at desc limit 1")


def close(con: duckdb.DuckDBPyConnection, event_id: str, closed: bool = True) -> None:
    """Close an event (its table links stop working) or open it again."""
    load(con, event_id)
    con.execute("update events set closed_at = case when ? then current_timestamp end "
                "where event_id = ?", [closed, event_id])


def lot_seed(con: duckdb.DuckDBPyConnection, event_id: str) -> int | None:
    return db.scalar(con, "select seed from event_lots where event_id = ?", [event_id])
