"""The appeals committee's votes (issue 43): each member once; the simple majority of the
committee decides. Upheld, the ruling is reversed — once, taking back exactly what it
stored (`effects.reverse`) — and the ranking follows."""

from __future__ import annotations

from pathlib import Path

from pipeline.base import db, events, oplog
from pipeline.base.errors import UsageError
from pipeline.officials import effects
from pipeline.officials.common import log, now, ruling_row
from pipeline.officials.ladder import majority
from pipeline.officials.people import Official


def committee_size(con) -> int:
    return db.scalar(con, "select count(*) from officials where role = 'committee' and "
                          "disabled_at is null")


def vote(database: Path, event_id: str, official: Official, appeal_id: int,
         uphold: bool) -> str:
    """A committee member's vote (once); the simple majority of the committee decides:
    upheld, the ruling is reversed and the ranking follows. Returns the appeal's status."""
    if official.role != "committee":
        raise UsageError("只有仲裁委员投票 only committee members vote")
    with db.writing(database) as con:
        event = events.load(con, event_id)
        found = db.rows(con, "select ruling_id, status from official_appeals where event_id = ? "
                             "and appeal_id = ?", [event_id, appeal_id])
        if not found:
            raise UsageError(f"没有申诉 #{appeal_id} no such appeal")
        ruling_id, status = found[0]
        if status != "open":
            raise UsageError(f"申诉 #{appeal_id} 已结束 the appeal is decided already")
        if ruling_row(con, event_id, ruling_id)["status"] != "confirmed":  # reversed once
            raise UsageError(f"裁定 #{ruling_id} 已撤销，申诉 #{appeal_id} 无需再表决 the ruling "
                             "was reversed already: nothing left to vote on")
        if db.scalar(con, "select count(*) from official_votes where appeal_id = ? and "
                          "official_id = ?", [appeal_id, official.official_id]):
            raise UsageError("你已投过票 you have voted already")
        con.execute("insert into official_votes (appeal_id, official_id, uphold, voted_at) "
                    "values (?, ?, ?, ?)", [appeal_id, official.official_id, uphold, now()])
        votes = [r[0] for r in db.rows(con, "select uphold from official_votes where "
                                            "appeal_id = ?", [appeal_id])]
        log(con, event_id, official, "appeal vote",
            f"#{appeal_id}: {'uphold' if uphold else 'dismiss'}")
        decided = majority(votes, committee_size(con))
        if decided is None:
            return "open"
        status = "upheld" if decided else "dismissed"
        con.execute("update official_appeals set status = ?, decided_at = ? where appeal_id = ?",
                    [status, now(), appeal_id])
        if decided:
            ruling = ruling_row(con, event_id, ruling_id)
            if db.scalar(con, "update official_rulings set status = 'reversed' where "
                              "ruling_id = ? and status = 'confirmed' returning ruling_id",
                         [ruling_id]) is None:  # a ruling is reversed at most once
                raise UsageError(f"裁定 #{ruling_id} 已撤销 the ruling was reversed already")
            effects.reverse(con, event, ruling)
        oplog.write_on(con, event_id, f"appeal {status}",
                       f"#{appeal_id}: ruling #{ruling_id} "
                       f"{'reversed' if decided else 'stands'} (votes {votes.count(True)}–"
                       f"{votes.count(False)} of {committee_size(con)})")
    return status


