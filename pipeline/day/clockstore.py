"""The round clock of a stored event: reading and changing it, and late arrivals.

`now` is the server's clock (time.time) unless a test passes its own.
"""

from __future__ import annotations

import time

import duckdb

from pipeline.base import db, oplog
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.day.clock import Clock, ClockStatus, LateAction, late_action


def current_round(con: duckdb.DuckDBPyConnection, event_id: str) -> int:
    """The latest paired round, else the latest round with a result, else 1."""
    found = db.scalar(con, "select greatest(coalesce((select max(round) from pairings where "
                           "event_id = $e), 0), coalesce((select max(round) from results where "
                           "event_id = $e), 0))", {"e": event_id})
    return int(found or 0) or 1


def load(con: duckdb.DuckDBPyConnection, event: Event, round_no: int | None = None) -> Clock:
    round_no = round_no or current_round(con, event.event_id)
    rules = event.ruleset.clock
    found = db.rows(con, "select started_at, paused_at, paused_seconds, added_seconds, "
                         "stopped_at from round_clocks where event_id = ? and round = ?",
                    [event.event_id, round_no])
    clock = Clock(rules["round_minutes"], rules["reminder_at_minutes"], round_no)
    if found:
        started, paused, paused_seconds, added, stopped = found[0]
        clock = Clock(rules["round_minutes"], rules["reminder_at_minutes"], round_no, started,
                      paused, paused_seconds, added, stopped)
    return clock


def save(con: duckdb.DuckDBPyConnection, event_id: str, clock: Clock) -> None:
    con.execute("insert or replace into round_clocks values (?, ?, ?, ?, ?, ?, ?)",
                [event_id, clock.round, clock.started_at, clock.paused_at, clock.paused_seconds,
                 clock.added_seconds, clock.stopped_at])


def change(con: duckdb.DuckDBPyConnection, event: Event, action: str, round_no: int | None,
           minutes: float = 0.0, now: float | None = None) -> ClockStatus:
    now = time.time() if now is None else now
    clock = load(con, event, round_no)
    try:
        if action == "start":
            clock = clock.start(now)
        elif action == "pause":
            clock = clock.pause(now)
        elif action == "resume":
            clock = clock.resume(now)
        elif action == "add-minutes":
            clock = clock.add_minutes(minutes)
        elif action == "stop":
            clock = clock.stop(now)
        else:
            raise UsageError(f"unknown clock action {action}")
    except ValueError as exc:
        words = {"the clock is already started": "计时已经开始",
                 "the clock is not running": "计时没有在走",
                 "the clock is not paused": "计时没有暂停",
                 "the clock is not started": "计时还没开始"}
        raise UsageError(f"{words.get(str(exc), '')} {exc}") from None
    save(con, event.event_id, clock)
    oplog.write_on(con, event.event_id, f"clock {action}",
                   f"round {clock.round}" + (f" {minutes:+g} min" if action == "add-minutes"
                                             else ""))
    return clock.status(now)


def status(con: duckdb.DuckDBPyConnection, event: Event, round_no: int | None = None,
           now: float | None = None) -> ClockStatus:
    return load(con, event, round_no).status(time.time() if now is None else now)


def chime(con: duckdb.DuckDBPyConnection, event_id: str) -> bool:
    return bool(db.scalar(con, "select chime from clock_settings where event_id = ?",
                          [event_id]))


def set_chime(con: duckdb.DuckDBPyConnection, event_id: str, on: bool) -> None:
    con.execute("insert or replace into clock_settings values (?, ?)", [event_id, on])


def late(event: Event, minutes: float) -> LateAction:
    if minutes < 0:
        raise UsageError("迟到分钟数不能为负 minutes late must be ≥ 0")
    return late_action(event.ruleset.clock["late"], minutes)


def late_rows(con: duckdb.DuckDBPyConnection, event: Event, round_no: int, team_no: str,
              minutes: float) -> tuple[LateAction, str, list[dict]]:
    """The ladder's action and the sheet rows that record it (penalty or forfeit). Leave the
    chief arbiter granted the team for the round (issue 43; seed 001: 15 minutes) comes
    first: within its grace no sanction, beyond it the round is forfeited."""
    action = late(event, minutes)
    reason = f"迟到 {minutes:g} 分钟"
    leave = db.scalar(con, "select minutes from official_leaves where event_id = ? and "
                           "round = ? and team_no = ?", [event.event_id, round_no, team_no])
    if leave is not None:
        action = LateAction("no_sanction") if minutes <= leave else LateAction("forfeit_round")
        reason += f"（请假 {leave:g} 分钟 on leave）"
    if action.action == "warning":  # a warning (and a violation where the rung says so)
        return action, "fouls", [_added_fouls(con, event.event_id, round_no, team_no, action)]
    if action.action == "penalty" and action.target in ("match_points", "level_diff_score",
                                                        "levels"):
        return action, "penalties", [{"round": round_no, "team_no": team_no,
                                      "target": action.target, "amount": action.amount,
                                      "reason": reason}]
    if action.action == "forfeit_round" and event.ruleset.is_swiss:
        found = db.rows(con, "select table_no, ew_team, ns_team from pairings where event_id = ? "
                             "and round = ? and ? in (ew_team, ns_team) and table_no is not null",
                        [event.event_id, round_no, team_no])
        if not found:
            raise UsageError(f"第 {round_no} 轮编排中没有 {team_no} the team is not paired in "
                             "that round")
        # every table the team plays in the round: a team match is forfeited whole (docs/rules/general.md §7)
        return action, "results", [{"round": round_no, "table": table,
                                    "forfeit": "ew" if team_no == ew else "ns", "note": reason}
                                   for table, ew, _ in found]
    if event.ruleset.discipline == "tractor" and not event.ruleset.is_swiss:
        return action, *_tractor_late_rows(con, event, round_no, team_no, action, reason)
    return action, "", []


def _added_fouls(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int, team_no: str,
                 action: LateAction) -> dict:
    """The team's foul record of the round with this warning (and violations) added."""
    found = db.rows(con, "select fouls, warnings, violations from fouls where event_id = ? "
                         "and round = ? and team_no = ? and table_no = 0",
                    [event_id, round_no, team_no])
    fouls, warnings, violations = found[0] if found else (0, 0, 0)
    return {"round": round_no, "team_no": team_no, "fouls": fouls or 0,
            "warnings": (warnings or 0) + 1, "violations": (violations or 0) + action.violations}


def _tractor_late_rows(con: duckdb.DuckDBPyConnection, event: Event, round_no: int,
                       team_no: str, action: LateAction, reason: str) -> tuple[str, list[dict]]:
    """A late side in its match of round `round_no` (its N-th match): points off the first
    deal (seed 002, 6–15 minutes),
    the first deal lost and the opponents up `late_forfeit_levels` (16–20 minutes), or the
    match forfeited (seed 000, 15 minutes)."""
    from pipeline.tractor import stages

    if action.action not in ("penalty", "forfeit_game", "forfeit_round"):
        return "", []
    stage, match_no = stages.match_of_round(con, event, team_no, round_no)
    teams = db.rows(con, "select team_a, team_b from tractor_matches where event_id = ? and "
                         "stage = ? and match_no = ?", [event.event_id, stage, match_no])[0]
    first_deal = {"stage": stage, "match": match_no, "game": 1, "deal": 1, "team_no": team_no,
                  "reason": reason}
    if action.action == "penalty":
        return "point_penalties", [{**first_deal, "points": action.amount}]
    if action.action == "forfeit_game":
        return "point_penalties", [{**first_deal, "deal_lost": "是",
                                    "levels": event.ruleset.tractor["late_forfeit_levels"]}]
    return "matches", [{"stage": stage, "match": match_no, "team_a": teams[0],
                        "team_b": teams[1], "forfeit": team_no}]
