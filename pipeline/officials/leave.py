"""Leave the chief arbiter grants before a round (issue 43, seed 001 十三 第3条)."""

from __future__ import annotations

from pathlib import Path

from pipeline.base import db, events
from pipeline.base.errors import UsageError
from pipeline.officials.common import log, now, table_of
from pipeline.officials.people import Official
from pipeline.officials.rulings import DECIDES


def grant_leave(database: Path, event_id: str, official: Official, round_no: int,
                team_no: str, minutes: float | None = None, reason: str = "") -> float:
    """Leave the chief grants before a round (seed 001 十三 第3条): lateness within its
    grace is not sanctioned; beyond it the round is forfeited all the same."""
    if official.role not in DECIDES:
        raise UsageError("请假由裁判长批准 leave is granted by the chief arbiter")
    with db.writing(database) as con:
        event = events.load(con, event_id)
        table_of(con, event_id, round_no, team_no)
        grace = event.ruleset.officials["leave_minutes"] if minutes is None else minutes
        if not 0 < grace <= 120:
            raise UsageError("请假时间应在 1–120 分钟 leave of 1 to 120 minutes")
        con.execute("insert or replace into official_leaves (event_id, round, team_no, minutes, "
                    "reason, granted_by, granted_at) values (?, ?, ?, ?, ?, ?, ?)",
                    [event_id, round_no, team_no, grace, reason[:200], official.official_id,
                     now()])
        log(con, event_id, official, "leave granted",
             f"round {round_no} {team_no}: {grace:g} min" + (f" ({reason})" if reason else ""))
    return grace


