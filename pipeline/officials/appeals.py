"""Appeals against a confirmed ruling (issue 43, issue 49): filed by a team leader at the desk
or by the team's link, within the preset's minutes (a late one kept as refused, with the
time it came). One open appeal per ruling: a second is refused while the first waits, and
a ruling reversed once is appealed no more (the check and the filing are one transaction,
and writers take turns on the file)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pipeline.base import db, events
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.day import clockstore
from pipeline.officials.common import log, now, ruling_row, table_of
from pipeline.officials.ladder import local_time
from pipeline.officials.people import Official


class LateAppeal(UsageError):
    """An appeal after the preset's deadline (kept, refused, with the time it came)."""


def appeal_deadline(con, event: Event, ruling: dict,
                    at: dt.datetime | None = None) -> dt.datetime | None:
    """`officials.appeal_minutes` after the ruling, or after the game when it ended later
    (seed 001 十五: "比赛结束后10分钟内"); None while the round's clock still runs at `at`
    (an appeal is in time until the game is over)."""
    at = at or now()
    clock = clockstore.load(con, event, ruling["round"])
    up = clock.time_up_at(at.replace(tzinfo=dt.UTC).timestamp())
    if clock.started_at is not None and up is None:
        return None
    ended = dt.datetime.fromtimestamp(up, dt.UTC).replace(tzinfo=None) if up else None
    start = max(ruling["decided_at"], ended) if ended else ruling["decided_at"]
    return start + dt.timedelta(minutes=event.ruleset.officials["appeal_minutes"])


def appeal(database: Path, event_id: str, ruling_id: int, team_no: str, via: str,
           filed_by: Official | None = None, fee: str = "", statement: str = "",
           at: dt.datetime | None = None) -> int:
    """A team leader's appeal against a confirmed ruling, at the desk or by the team's link,
    within the preset's minutes (a late one is kept as refused, and said so with its
    time). The fee is noted, not processed."""
    at = at or now()
    with db.writing(database) as con:
        event = events.load(con, event_id)
        ruling = ruling_row(con, event_id, ruling_id)
        if ruling["status"] == "reversed":
            raise UsageError(f"裁定 #{ruling_id} 已因申诉撤销，不能再申诉 the ruling was "
                             "reversed on appeal already")
        if ruling["status"] != "confirmed":
            raise UsageError(f"#{ruling_id} 不是已生效的裁定 is not a confirmed ruling")
        _, opponent = table_of(con, event_id, ruling["round"], ruling["team_no"]) \
            if ruling["table_no"] is not None else (None, None)
        if team_no not in (ruling["team_no"], opponent):
            raise UsageError(f"{team_no} 与该裁定无关 the team is not concerned by the ruling")
        waiting = db.scalar(con, "select min(appeal_id) from official_appeals where "
                                 "event_id = ? and ruling_id = ? and status = 'open'",
                            [event_id, ruling_id])
        if waiting is not None:
            raise UsageError(f"裁定 #{ruling_id} 已有待仲裁的申诉 #{waiting}，不能重复申诉 the "
                             f"ruling has an open appeal already (#{waiting})")
        deadline = appeal_deadline(con, event, ruling, at)
        late = deadline is not None and at > deadline
        appeal_id = db.scalar(con, "insert into official_appeals (event_id, ruling_id, team_no, "
                                   "filed_at, filed_via, filed_by, fee, statement, status) "
                                   "values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning appeal_id",
                              [event_id, ruling_id, team_no, at, via,
                               filed_by.official_id if filed_by else None, fee[:40],
                               statement[:500], "refused_late" if late else "open"])
        log(con, event_id, filed_by, "appeal refused late" if late else "appeal filed",
            f"#{appeal_id} against ruling #{ruling_id} by {team_no} at "
            f"{local_time(at, True)} (deadline "
            f"{local_time(deadline, True) if deadline else 'after the game'})",
            who=f"{team_no} 队长 team leader ({via})")
    if late:
        came, until = local_time(at, True), local_time(deadline, True)
        raise LateAppeal(f"申诉于 {came} 提交，已过截止时间 {until}（裁定或比赛结束后 "
                         f"{event.ruleset.officials['appeal_minutes']:g} 分钟），不予受理 the "
                         f"appeal came at {came}, after the deadline {until}")
    return appeal_id


def open_appeals(con, event: Event) -> list[dict]:
    """The appeals waiting for the committee, with their answer deadline (seed 001: 30
    minutes) and the votes so far."""
    rows = db.frame(con, "select a.appeal_id, a.ruling_id, a.team_no, a.filed_at, a.fee, "
                         "a.statement, r.kind, r.team_no as ruled_team, r.round, r.table_no, "
                         "r.amount, r.reason, r.decision_note, coalesce(d.name, case when "
                         "r.decided_by = 0 then '组织者 organizer' else '' end) as ruled_by, "
                         "(select count(*) filter (where uphold) from official_votes v where "
                         "v.appeal_id = a.appeal_id) as uphold, (select count(*) filter "
                         "(where not uphold) from official_votes v where v.appeal_id = "
                         "a.appeal_id) as dismiss from official_appeals a join "
                         "official_rulings r using (ruling_id) left join officials d on "
                         "d.official_id = r.decided_by where a.event_id = $e and "
                         "a.status = 'open' order by a.appeal_id",
                    {"e": event.event_id}).to_dicts()
    minutes = event.ruleset.officials["answer_minutes"]
    for row in rows:
        row["answer_by"] = row["filed_at"] + dt.timedelta(minutes=minutes)
    return rows


def confirmed_for_appeal(con, event_id: str, team_no: str | None = None) -> list[dict]:
    """The confirmed rulings a team may appeal (all of them without a team): none with an
    appeal waiting for the committee. Each with the ruled team's name."""
    return db.frame(con, "select r.ruling_id, r.round, r.table_no, r.team_no, "
                         "coalesce(t.team_name, '') as team_name, r.kind, r.amount, r.reason, "
                         "r.decided_at from official_rulings r left join teams t on "
                         "t.event_id = r.event_id and t.team_no = r.team_no where r.event_id = "
                         "$e and r.status = 'confirmed' and ($t is null or r.team_no = $t or "
                         "r.table_no in (select table_no from pairings p where p.event_id = $e "
                         "and p.round = r.round and $t in (p.ew_team, p.ns_team))) and not "
                         "exists (select 1 from official_appeals a where a.ruling_id = "
                         "r.ruling_id and a.status = 'open') order by r.ruling_id",
                    {"e": event_id, "t": team_no}).to_dicts()


def of_team(con, event_id: str, team_no: str) -> list[dict]:
    """The team's appeals, newest first, with the ruling they were against and where each
    stands (open with its votes, upheld, dismissed, refused late)."""
    return db.frame(con, "select a.appeal_id, a.ruling_id, a.status, r.kind, r.team_no as "
                         "ruled_team, coalesce(t.team_name, '') as ruled_name, (select "
                         "count(*) filter (where uphold) from official_votes v where "
                         "v.appeal_id = a.appeal_id) as uphold, (select count(*) filter (where "
                         "not uphold) from official_votes v where v.appeal_id = a.appeal_id) "
                         "as dismiss from official_appeals a join official_rulings r using "
                         "(ruling_id) left join teams t on t.event_id = r.event_id and "
                         "t.team_no = r.team_no where a.event_id = $e and a.team_no = $t "
                         "order by a.appeal_id desc", {"e": event_id, "t": team_no}).to_dicts()


