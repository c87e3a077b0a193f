"""A referee's records at their own tables (issue 43, docs/rules/general.md §12): warnings, violations, fouls,
late arrivals — the ladder applies itself (a late arrival through the preset's late
ladder and the leave granted; a team's count reaching a round lost proposes it to the
chief). A referee may withdraw a record of their own made by mistake (issue 51): kept,
marked withdrawn, in `paisai log` with who."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from pipeline.base import db, events
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.day import clockstore
from pipeline.officials.common import log, now, require_table, table_of
from pipeline.officials.ladder import KINDS, WORDS, count
from pipeline.officials.people import Official
from pipeline.officials.rulings import propose_on

MAX_LATE_MINUTES = 24 * 60  # a late arrival within the day


def checked_minutes(minutes: float | None) -> float:
    """Minutes late as the ladder takes them: a finite number from 0 to a day (`nan`,
    `inf` and `1e309` never reach it: "not covered" is no answer to 90 minutes late).

    >>> checked_minutes(16.0)
    16.0
    """
    if minutes is None or not math.isfinite(minutes) or not 0 <= minutes <= MAX_LATE_MINUTES:
        raise UsageError(f"迟到分钟数应为 0–{MAX_LATE_MINUTES} 之间的数字 minutes late: a "
                         f"number from 0 to {MAX_LATE_MINUTES}")
    return minutes


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
        table_no, _ = table_of(con, event_id, round_no, team_no)
        require_table(official, table_no)
        said, proposed = "", None
        if kind == "late":
            minutes = checked_minutes(minutes)
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
        log(con, event_id, official, "official record",
             f"round {round_no} table {table_no} {team_no}: {WORDS[kind]}"
             + (f" {minutes:g} min" if kind == "late" else "") + (f" ({note})" if note else ""))
        found = team_count(con, event, round_no, team_no)
        if found.out and proposed is None:
            proposed = _ladder_proposal(con, event, round_no, table_no, team_no, found)
    return Recorded(found.warnings, found.violations, found.fouls, found.out, said, proposed)


def team_count(con, event: Event, round_no: int, team_no: str):
    kinds = [r[0] for r in db.rows(con, "select kind from official_records where event_id = ? "
                                        "and round = ? and team_no = ? and withdrawn_at is "
                                        "null order by record_id",
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


def listing(con, event_id: str, round_no: int, table_no: int) -> list[dict]:
    """The records at a table in a round, oldest first, each with who made it and whether
    it was withdrawn."""
    return db.frame(con, "select r.record_id, r.team_no, r.kind, r.minutes, r.note, "
                         "r.official_id, coalesce(o.name, '') as official, r.recorded_at, "
                         "r.withdrawn_at is not null as withdrawn from official_records r "
                         "left join officials o using (official_id) where r.event_id = $e and "
                         "r.round = $r and r.table_no = $t order by r.record_id",
                    {"e": event_id, "r": round_no, "t": table_no}).to_dicts()


def withdraw(database: Path, event_id: str, official: Official, record_id: int) -> str:
    """A record withdrawn as a mistake — by the referee who made it, or the chief — kept and
    marked, in `paisai log` with who; the ladder counts it no more. A late arrival's
    forfeit already proposed stays for the chief to reject. Returns the team."""
    with db.writing(database) as con:
        found = db.rows(con, "select round, table_no, team_no, kind, official_id, "
                             "withdrawn_at from official_records where event_id = ? and "
                             "record_id = ?", [event_id, record_id])
        if not found:
            raise UsageError(f"没有记录 #{record_id} no such record")
        round_no, table_no, team, kind, by, gone = found[0]
        require_table(official, table_no)
        if by != official.official_id and official.role not in ("chief", "organizer"):
            raise UsageError("只能撤回自己的记录 only your own records can be withdrawn")
        if gone is not None:
            raise UsageError(f"记录 #{record_id} 已撤回 the record is withdrawn already")
        con.execute("update official_records set withdrawn_at = ?, withdrawn_by = ? where "
                    "record_id = ?", [now(), official.official_id, record_id])
        log(con, event_id, official, "official record withdrawn",
            f"#{record_id} round {round_no} table {table_no} {team}: {WORDS.get(kind, kind)}")
    return team
