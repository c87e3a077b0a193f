"""What the officials do at the tables (issue 43, docs/rules/general.md §12): a referee records what the
ladder knows at their own tables (the ladder applies itself); anything that decides a deal
or a game is a proposal the chief arbiter confirms, changes or rejects (the ranking counts
it only once confirmed: a round lost through `team_rounds.sql`, levels through the
penalties, a forfeit through the results, a suspension through the withdrawal); leave
granted before a round; an appeal within the preset's minutes, decided by the committee's
simple majority — upheld, the ruling is reversed. Every step names the official, in
`paisai log` and in these tables. It is kept whole: one ruling's life from proposal to reversal
reads best in one place."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from pipeline.base import db, events, oplog
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.day import clockstore
from pipeline.officials.ladder import (
    KINDS,
    RULING_WORDS,
    RULINGS,
    WORDS,
    count,
    local_time,
    majority,
    suspends,
)
from pipeline.officials.people import Official

DECIDES = ("chief", "organizer")  # who rules on a proposal


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _table_of(con, event_id: str, round_no: int, team_no: str) -> tuple[int, str | None]:
    """The team's table in the round and its opponent."""
    found = db.rows(con, "select table_no, ew_team, ns_team from pairings where event_id = ? "
                         "and round = ? and ? in (ew_team, ns_team) and table_no is not null "
                         "order by table_no limit 1", [event_id, round_no, team_no])
    if not found:
        raise UsageError(f"第 {round_no} 轮编排中没有 {team_no} the team is not paired in that "
                         "round")
    table, ew, ns = found[0]
    return table, ns if team_no == ew else ew


def _require_table(official: Official, table_no: int) -> None:
    if not official.works_at(table_no):
        raise UsageError(f"{table_no} 号桌不是你负责的桌 table {table_no} is not one of yours")


def _log(con, event_id: str, official: Official | None, action: str, detail: str) -> None:
    who = official.label if official else "规则自动 the ladder itself"
    oplog.write_on(con, event_id, action, f"{detail} · 由 by {who}")


@dataclass(frozen=True)
class Recorded:
    """What a referee's record came to: the team's count in the round, what the preset's
    late ladder said (late arrivals), and the proposal the ladder made, if any."""

    warnings: int
    violations: int
    fouls: int
    out: bool
    late: str = ""
    proposed: int | None = None


def record(database: Path, event_id: str, official: Official, round_no: int, team_no: str,
           kind: str, minutes: float | None = None, note: str = "") -> Recorded:
    """A referee's record at one of their tables; the ladder applies itself. A late arrival
    goes through the preset's late ladder, with the leave the chief granted: within its
    grace nothing, beyond it a forfeit — a proposal, as every forfeit is."""
    if kind not in (*KINDS, "late"):
        raise UsageError(f"记录应为 {' / '.join((*KINDS, 'late'))} what a referee records")
    with db.writing(database) as con:
        event = events.load(con, event_id)
        table_no, _ = _table_of(con, event_id, round_no, team_no)
        _require_table(official, table_no)
        said, proposed = "", None
        if kind == "late":
            if minutes is None or minutes < 0:
                raise UsageError("迟到要写分钟数 a late arrival needs its minutes")
            said, kinds, proposed = _late(con, event, official, round_no, table_no, team_no,
                                          minutes)
        else:
            kinds = [kind]
        for k in kinds:
            con.execute("insert into official_records (event_id, round, table_no, team_no, kind, "
                        "minutes, note, official_id, recorded_at) values "
                        "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [event_id, round_no, table_no, team_no, k,
                         minutes if k == "late" else None, note[:200], official.official_id,
                         now()])
        _log(con, event_id, official, "official record",
             f"round {round_no} table {table_no} {team_no}: {WORDS[kind]}"
             + (f" {minutes:g} min" if kind == "late" else "") + (f" ({note})" if note else ""))
        found = team_count(con, event, round_no, team_no)
        if found.out and proposed is None:
            proposed = _ladder_proposal(con, event, round_no, table_no, team_no, found)
    return Recorded(found.warnings, found.violations, found.fouls, found.out, said, proposed)


def team_count(con, event: Event, round_no: int, team_no: str):
    kinds = [r[0] for r in db.rows(con, "select kind from official_records where event_id = ? "
                                        "and round = ? and team_no = ?",
                                   [event.event_id, round_no, team_no])]
    return count(kinds, event.ruleset.scoring)


def _late(con, event: Event, official: Official, round_no: int, table_no: int, team_no: str,
          minutes: float) -> tuple[str, list[str], int | None]:
    """What the late ladder says, as the records it makes and a forfeit proposal."""
    leave = db.scalar(con, "select minutes from official_leaves where event_id = ? and "
                           "round = ? and team_no = ?", [event.event_id, round_no, team_no])
    if leave is not None and minutes <= leave:
        return f"请假 {leave:g} 分钟之内：不处罚 within the leave's {leave:g} minutes: no " \
               "sanction", ["late"], None
    if leave is not None:
        action, said = "forfeit_round", f"超过请假的 {leave:g} 分钟：判该轮弃权 beyond the " \
                                        f"leave's {leave:g} minutes: the round is forfeited"
    else:
        rung = clockstore.late(event, minutes)
        action, said = rung.action, rung.describe(minutes)
    if action in ("forfeit_round", "forfeit_game"):
        proposed = propose_on(con, event, official, round_no, team_no, "forfeit", 0,
                              f"迟到 {minutes:g} 分钟 late {minutes:g} min")
        return said, ["late"], proposed
    if action == "warning":
        return said, ["late", "warning", *(["violation"] * rung.violations)], None
    if action == "penalty":  # points off: it decides no game, the ladder's rows are stored
        from pipeline.intake.ingest import apply_rows

        _, kind, rows = clockstore.late_rows(con, event, round_no, team_no, minutes)
        if rows:
            apply_rows(con, event.event_id, kind, rows, source=f"迟到 late {team_no}",
                       reason=f"迟到 {minutes:g} 分钟，{official.label} 记录")
    return said, ["late"], None


def _ladder_proposal(con, event: Event, round_no: int, table_no: int, team_no: str,
                     found) -> int | None:
    """The round lost, proposed by the ladder itself once the count reaches it (once)."""
    if db.scalar(con, "select count(*) from official_rulings where event_id = ? and round = ? "
                      "and team_no = ? and kind = 'ruled_loss' and status in ('proposed', "
                      "'confirmed')", [event.event_id, round_no, team_no]):
        return None
    why = (f"违例 {found.violations} 次 {found.violations} violations" if found.violations
           else f"犯规 {found.fouls} 次 {found.fouls} fouls")
    return propose_on(con, event, None, round_no, team_no, "ruled_loss", 0, why)


def propose(database: Path, event_id: str, official: Official, round_no: int, team_no: str,
            kind: str, amount: int = 0, reason: str = "") -> int:
    """A referee's (or the chief's) proposal of what decides a deal or a game."""
    with db.writing(database) as con:
        event = events.load(con, event_id)
        table_no, _ = _table_of(con, event_id, round_no, team_no)
        _require_table(official, table_no)
        return propose_on(con, event, official, round_no, team_no, kind, amount, reason)


def propose_on(con, event: Event, official: Official | None, round_no: int, team_no: str,
               kind: str, amount: int, reason: str) -> int:
    if kind not in RULINGS:
        raise UsageError(f"裁定应为 {' / '.join(RULINGS)} a ruling is one of these")
    if kind in ("levels_down", "opponent_up") and not 1 <= amount <= 13:
        raise UsageError("升降级数应在 1–13 之间 the levels are 1 to 13")
    table_no = None if kind == "suspension" else _table_of(con, event.event_id, round_no,
                                                            team_no)[0]
    ruling_id = db.scalar(con, "insert into official_rulings (event_id, round, table_no, "
                               "team_no, kind, amount, reason, proposed_by, proposed_at) values "
                               "(?, ?, ?, ?, ?, ?, ?, ?, ?) returning ruling_id",
                          [event.event_id, round_no, table_no, team_no, kind, amount,
                           reason[:200], official.official_id if official else None, now()])
    _log(con, event.event_id, official, "ruling proposed",
         f"#{ruling_id} round {round_no} {team_no}: {RULING_WORDS[kind]}"
         + (f" {amount}" if amount else "") + (f" ({reason})" if reason else ""))
    return ruling_id


def decide(database: Path, event_id: str, official: Official, ruling_id: int, confirm: bool,
           kind: str | None = None, amount: int | None = None, note: str = "") -> str:
    """The chief arbiter confirms a proposal (where several penalties are possible, the one
    they choose: `kind`, `amount`), or rejects it. Returns the ruling's new status."""
    if official.role not in DECIDES:
        raise UsageError("只有裁判长裁定 only the chief arbiter rules")
    with db.writing(database) as con:
        event = events.load(con, event_id)
        found = _ruling(con, event_id, ruling_id)
        if found["status"] != "proposed":
            raise UsageError(f"#{ruling_id} 已{found['status']} is {found['status']} already")
        if found["proposed_by"] == official.official_id and official.role != "chief":
            raise UsageError("提议人不能裁定自己的提议（裁判长除外） who proposed may not confirm it "
                             "(unless the chief)")
        status = "rejected"
        if confirm:
            chosen = kind or found["kind"]
            levels = found["amount"] if amount is None else amount
            if chosen not in RULINGS:
                raise UsageError(f"裁定应为 {' / '.join(RULINGS)}")
            if chosen in ("levels_down", "opponent_up") and not 1 <= levels <= 13:
                raise UsageError("升降级数应在 1–13 之间 the levels are 1 to 13")
            undo = _apply(con, event, {**found, "kind": chosen, "amount": levels})
            con.execute("update official_rulings set kind = ?, amount = ?, undo = ? where "
                        "ruling_id = ?", [chosen, levels, json.dumps(undo), ruling_id])
            status = "confirmed"
        con.execute("update official_rulings set status = ?, decided_by = ?, decided_at = ?, "
                    "decision_note = ? where ruling_id = ?",
                    [status, official.official_id, now(), note[:200], ruling_id])
        _log(con, event_id, official, f"ruling {status}", f"#{ruling_id} {found['team_no']}"
             + (f": {RULING_WORDS[kind or found['kind']]}" if confirm else "")
             + (f" ({note})" if note else ""))
        if confirm and (kind or found["kind"]) == "ruled_loss":
            _maybe_suspend(con, event, found["round"], found["team_no"])
    return status


def _maybe_suspend(con, event: Event, round_no: int, team_no: str) -> None:
    """停赛 proposed by the ladder once the team's confirmed ruled losses reach the preset's
    number (seed 001: two); the chief decides it."""
    losses = db.scalar(con, "select count(distinct round) from official_rulings where "
                            "event_id = ? and team_no = ? and kind in ('ruled_loss', "
                            "'forfeit') and status = 'confirmed'", [event.event_id, team_no])
    if not suspends(losses, event.ruleset.scoring):
        return
    if db.scalar(con, "select count(*) from official_rulings where event_id = ? and team_no = ? "
                      "and kind = 'suspension' and status in ('proposed', 'confirmed')",
                 [event.event_id, team_no]):
        return
    propose_on(con, event, None, round_no, team_no, "suspension", 0,
               f"判负 {losses} 次 {losses} rounds lost by ruling")


def _ruling(con, event_id: str, ruling_id: int) -> dict:
    found = db.frame(con, "select * from official_rulings where event_id = $e and ruling_id = $r",
                     {"e": event_id, "r": ruling_id})
    if found.is_empty():
        raise UsageError(f"没有裁定 #{ruling_id} no such ruling")
    return found.row(0, named=True)


def _apply(con, event: Event, ruling: dict) -> dict:
    """Make a confirmed ruling count; returns what reverses it."""
    from pipeline.intake import registration
    from pipeline.intake.ingest import apply_rows

    kind, team, round_no = ruling["kind"], ruling["team_no"], ruling["round"]
    reason = f"裁定 ruling #{ruling['ruling_id']}"
    if kind == "ruled_loss":  # counted by team_rounds.sql from the confirmed ruling itself
        return {}
    if kind in ("levels_down", "opponent_up"):
        # 降级: the team's levels down; 对方升级: its opponent's up (a negative penalty)
        target = team if kind == "levels_down" else _table_of(con, event.event_id, round_no,
                                                              team)[1]
        amount = ruling["amount"] if kind == "levels_down" else -ruling["amount"]
        con.execute("insert or replace into penalties (event_id, round, team_no, target, "
                    "amount, reason, source_file) values (?, ?, ?, 'levels', ?, ?, ?)",
                    [event.event_id, round_no, target, amount, reason, "裁判长裁定 chief"])
        return {"penalty": [round_no, target, reason]}
    if kind == "forfeit":
        before = db.frame(con, "select * exclude (event_id) from results where event_id = $e "
                               "and round = $r and table_no = $t",
                          {"e": event.event_id, "r": round_no, "t": ruling["table_no"]})
        if not event.ruleset.is_swiss:
            raise UsageError("本赛事的弃权请在赛程中记录 record this forfeit on the bracket")
        side = db.scalar(con, "select case when ew_team = ? then 'ew' else 'ns' end from "
                              "pairings where event_id = ? and round = ? and table_no = ?",
                         [team, event.event_id, round_no, ruling["table_no"]])
        rows = [{"round": round_no, "table": ruling["table_no"], "forfeit": side,
                 "note": ruling["reason"] or reason}]
        apply_rows(con, event.event_id, "results", rows, source="裁判长裁定 chief",
                   reason=reason)
        return {"results": before.write_json(), "round": round_no,
                "table": ruling["table_no"]}
    if kind == "suspension":
        latest = db.scalar(con, "select coalesce(max(round), 0) from pairings where event_id = ?",
                           [event.event_id])
        registration.withdraw(con, event.event_id, team, latest, "停赛 suspended")
        return {"suspension": team}
    raise UsageError(kind)


def _reverse(con, event: Event, ruling: dict) -> None:
    """Take back what a confirmed ruling made count."""
    import polars as pl

    from pipeline.intake import registration

    undo = json.loads(ruling["undo"] or "{}")
    if "penalty" in undo:
        round_no, team, reason = undo["penalty"]
        con.execute("delete from penalties where event_id = ? and round = ? and team_no = ? and "
                    "target = 'levels' and reason = ?", [event.event_id, round_no, team, reason])
    if "results" in undo:
        before = pl.read_json(undo["results"].encode()) if undo["results"].strip() != "[]" \
            else None
        con.execute("delete from results where event_id = ? and round = ? and table_no = ?",
                    [event.event_id, undo["round"], undo["table"]])
        if before is not None and before.height:
            con.register("restored", before)
            try:
                con.execute("insert into results by name select ? as event_id, * from restored",
                            [event.event_id])
            finally:
                con.unregister("restored")
    if "suspension" in undo:
        registration.reinstate(con, event.event_id, undo["suspension"])


def grant_leave(database: Path, event_id: str, official: Official, round_no: int,
                team_no: str, minutes: float | None = None, reason: str = "") -> float:
    """Leave the chief grants before a round (seed 001 十三 第3条): lateness within its
    grace is not sanctioned; beyond it the round is forfeited all the same."""
    if official.role not in DECIDES:
        raise UsageError("请假由裁判长批准 leave is granted by the chief arbiter")
    with db.writing(database) as con:
        event = events.load(con, event_id)
        _table_of(con, event_id, round_no, team_no)
        grace = event.ruleset.officials["leave_minutes"] if minutes is None else minutes
        if not 0 < grace <= 120:
            raise UsageError("请假时间应在 1–120 分钟 leave of 1 to 120 minutes")
        con.execute("insert or replace into official_leaves (event_id, round, team_no, minutes, "
                    "reason, granted_by, granted_at) values (?, ?, ?, ?, ?, ?, ?)",
                    [event_id, round_no, team_no, grace, reason[:200], official.official_id,
                     now()])
        _log(con, event_id, official, "leave granted",
             f"round {round_no} {team_no}: {grace:g} min" + (f" ({reason})" if reason else ""))
    return grace


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
        ruling = _ruling(con, event_id, ruling_id)
        if ruling["status"] != "confirmed":
            raise UsageError(f"#{ruling_id} 不是已生效的裁定 is not a confirmed ruling")
        _, opponent = _table_of(con, event_id, ruling["round"], ruling["team_no"]) \
            if ruling["table_no"] is not None else (None, None)
        if team_no not in (ruling["team_no"], opponent):
            raise UsageError(f"{team_no} 与该裁定无关 the team is not concerned by the ruling")
        deadline = appeal_deadline(con, event, ruling, at)
        late = deadline is not None and at > deadline
        appeal_id = db.scalar(con, "insert into official_appeals (event_id, ruling_id, team_no, "
                                   "filed_at, filed_via, filed_by, fee, statement, status) "
                                   "values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning appeal_id",
                              [event_id, ruling_id, team_no, at, via,
                               filed_by.official_id if filed_by else None, fee[:40],
                               statement[:500], "refused_late" if late else "open"])
        _log(con, event_id, filed_by, "appeal refused late" if late else "appeal filed",
             f"#{appeal_id} against ruling #{ruling_id} by {team_no} at "
             f"{local_time(at, True)} (deadline "
             f"{local_time(deadline, True) if deadline else 'after the game'})")
    if late:
        came, until = local_time(at, True), local_time(deadline, True)
        raise LateAppeal(f"申诉于 {came} 提交，已过截止时间 {until}（裁定或比赛结束后 "
                         f"{event.ruleset.officials['appeal_minutes']:g} 分钟），不予受理 the "
                         f"appeal came at {came}, after the deadline {until}")
    return appeal_id


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
        if db.scalar(con, "select count(*) from official_votes where appeal_id = ? and "
                          "official_id = ?", [appeal_id, official.official_id]):
            raise UsageError("你已投过票 you have voted already")
        con.execute("insert into official_votes (appeal_id, official_id, uphold, voted_at) "
                    "values (?, ?, ?, ?)", [appeal_id, official.official_id, uphold, now()])
        votes = [r[0] for r in db.rows(con, "select uphold from official_votes where "
                                            "appeal_id = ?", [appeal_id])]
        _log(con, event_id, official, "appeal vote",
             f"#{appeal_id}: {'uphold' if uphold else 'dismiss'}")
        decided = majority(votes, committee_size(con))
        if decided is None:
            return "open"
        status = "upheld" if decided else "dismissed"
        con.execute("update official_appeals set status = ?, decided_at = ? where appeal_id = ?",
                    [status, now(), appeal_id])
        if decided:
            ruling = _ruling(con, event_id, ruling_id)
            _reverse(con, event, ruling)
            con.execute("update official_rulings set status = 'reversed' where ruling_id = ?",
                        [ruling_id])
        oplog.write_on(con, event_id, f"appeal {status}",
                       f"#{appeal_id}: ruling #{ruling_id} "
                       f"{'reversed' if decided else 'stands'} (votes {votes.count(True)}–"
                       f"{votes.count(False)} of {committee_size(con)})")
    return status


def queue(con, event_id: str) -> list[dict]:
    """The proposals waiting for the chief, oldest first."""
    return db.frame(con, "select r.ruling_id, r.round, r.table_no, r.team_no, r.kind, r.amount, "
                         "r.reason, coalesce(o.name, '规则 ladder') as proposed_by, "
                         "r.proposed_at from official_rulings r left join officials o on "
                         "o.official_id = r.proposed_by where r.event_id = $e and r.status = "
                         "'proposed' order by r.ruling_id", {"e": event_id}).to_dicts()


def open_appeals(con, event: Event) -> list[dict]:
    """The appeals waiting for the committee, with their answer deadline (seed 001: 30
    minutes) and the votes so far."""
    rows = db.frame(con, "select a.appeal_id, a.ruling_id, a.team_no, a.filed_at, a.fee, "
                         "a.statement, r.kind, r.team_no as ruled_team, r.round, "
                         "(select count(*) filter (where uphold) from official_votes v where "
                         "v.appeal_id = a.appeal_id) as uphold, (select count(*) filter "
                         "(where not uphold) from official_votes v where v.appeal_id = "
                         "a.appeal_id) as dismiss from official_appeals a join "
                         "official_rulings r using (ruling_id) where a.event_id = $e and "
                         "a.status = 'open' order by a.appeal_id",
                    {"e": event.event_id}).to_dicts()
    minutes = event.ruleset.officials["answer_minutes"]
    for row in rows:
        row["answer_by"] = row["filed_at"] + dt.timedelta(minutes=minutes)
    return rows


def confirmed_for_appeal(con, event_id: str, team_no: str | None = None) -> list[dict]:
    """The confirmed rulings a team may appeal (all of them without a team)."""
    return db.frame(con, "select ruling_id, round, table_no, team_no, kind, amount, reason, "
                         "decided_at from official_rulings where event_id = $e and status = "
                         "'confirmed' and ($t is null or team_no = $t or table_no in (select "
                         "table_no from pairings p where p.event_id = $e and p.round = "
                         "official_rulings.round and $t in (p.ew_team, p.ns_team))) order by "
                         "ruling_id", {"e": event_id, "t": team_no}).to_dicts()


def table_counts(con, event: Event, round_no: int, table_no: int) -> list[dict]:
    """Both teams at a table: their count in the round and their records."""
    found = db.rows(con, "select ew_team, ns_team from pairings where event_id = ? and round = ? "
                         "and table_no = ?", [event.event_id, round_no, table_no])
    if not found:
        raise UsageError("没有这一桌 no such table")
    out = []
    for team in [t for t in found[0] if t]:
        c = team_count(con, event, round_no, team)
        out.append({"team": team, "warnings": c.warnings, "violations": c.violations,
                    "fouls": c.fouls, "out": c.out,
                    "leave": db.scalar(con, "select minutes from official_leaves where "
                                            "event_id = ? and round = ? and team_no = ?",
                                       [event.event_id, round_no, team])})
    return out
