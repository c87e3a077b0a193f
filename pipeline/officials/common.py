"""What every official's step needs (issue 43): the time stored (UTC, naive), the team's
table and opponent in a round, a referee kept to their own tables, one ruling read whole,
and the log line naming who acted."""

from __future__ import annotations

import datetime as dt

from pipeline.base import db, oplog
from pipeline.base.errors import UsageError
from pipeline.officials.people import Official

LADDER = "规则自动 the ladder itself"  # who proposed what the ladder proposes


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def table_of(con, event_id: str, round_no: int, team_no: str) -> tuple[int, str | None]:
    """The team's table in the round and its opponent."""
    found = db.rows(con, "select table_no, ew_team, ns_team from pairings where event_id = ? "
                         "and round = ? and ? in (ew_team, ns_team) and table_no is not null "
                         "order by table_no limit 1", [event_id, round_no, team_no])
    if not found:
        raise UsageError(f"第 {round_no} 轮编排中没有 {team_no} the team is not paired in that "
                         "round")
    table, ew, ns = found[0]
    return table, ns if team_no == ew else ew


def require_table(official: Official, table_no: int) -> None:
    if not official.works_at(table_no):
        raise UsageError(f"{table_no} 号桌不是你负责的桌 table {table_no} is not one of yours")


def log(con, event_id: str, official: Official | None, action: str, detail: str,
        who: str | None = None) -> None:
    """A line of `paisai log` naming who acted: the official, else `who` (a team's link),
    else the ladder itself."""
    label = official.label if official else (who or LADDER)
    oplog.write_on(con, event_id, action, f"{detail} · 由 by {label}")


def ruling_row(con, event_id: str, ruling_id: int) -> dict:
    found = db.frame(con, "select * from official_rulings where event_id = $e and ruling_id = $r",
                     {"e": event_id, "r": ruling_id})
    if found.is_empty():
        raise UsageError(f"没有裁定 #{ruling_id} no such ruling")
    return found.row(0, named=True)
