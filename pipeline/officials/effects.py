"""What a confirmed ruling stores, and taking back exactly that (issue 49): a forfeit's
result, a penalty in levels, a suspension's withdrawal — each remembered as the ruling
stored it, so that a reversal removes it only while it is still there as stored. Whatever
was stored after the ruling (the table's real result entered later, a withdrawal for
another reason) is never touched by the reversal; a ruled loss is counted from the ruling
itself (`team_rounds.sql`) and needs nothing taken back."""

from __future__ import annotations

import json

from pipeline.base import db, oplog
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.officials.common import table_of

RESULT = ("ew_team, ns_team, ew_level, ns_level, deals, forfeit, note, source_file, "
          "updated_at::varchar")
SUSPENDED = "停赛 suspended"


def _result_now(con, event_id: str, round_no: int, table_no: int) -> list | None:
    found = db.rows(con, f"select {RESULT} from results where event_id = ? and round = ? and "
                         "table_no = ?", [event_id, round_no, table_no])
    return [*found[0]] if found else None


def apply(con, event: Event, ruling: dict) -> dict:
    """Make a confirmed ruling count; returns what reverses it (what it stored, and what
    was there before)."""
    from pipeline.intake import registration
    from pipeline.intake.ingest import apply_rows

    kind, team, round_no = ruling["kind"], ruling["team_no"], ruling["round"]
    reason = f"裁定 ruling #{ruling['ruling_id']}"
    if kind == "ruled_loss":  # counted by team_rounds.sql from the confirmed ruling itself
        return {}
    if kind in ("levels_down", "opponent_up"):
        # 降级: the team's levels down; 对方升级: its opponent's up (a negative penalty)
        target = team if kind == "levels_down" else table_of(con, event.event_id, round_no,
                                                             team)[1]
        amount = ruling["amount"] if kind == "levels_down" else -ruling["amount"]
        con.execute("insert or replace into penalties (event_id, round, team_no, target, "
                    "amount, reason, source_file) values (?, ?, ?, 'levels', ?, ?, ?)",
                    [event.event_id, round_no, target, amount, reason, "裁判长裁定 chief"])
        return {"penalty": [round_no, target, reason]}
    if kind == "forfeit":
        if not event.ruleset.is_swiss:
            raise UsageError("本赛事的弃权请在赛程中记录 record this forfeit on the bracket")
        table = ruling["table_no"]
        before = db.frame(con, "select * exclude (event_id) from results where event_id = $e "
                               "and round = $r and table_no = $t",
                          {"e": event.event_id, "r": round_no, "t": table})
        side = db.scalar(con, "select case when ew_team = ? then 'ew' else 'ns' end from "
                              "pairings where event_id = ? and round = ? and table_no = ?",
                         [team, event.event_id, round_no, table])
        rows = [{"round": round_no, "table": table, "forfeit": side,
                 "note": ruling["reason"] or reason}]
        apply_rows(con, event.event_id, "results", rows, source="裁判长裁定 chief",
                   reason=reason)
        return {"results": before.write_json(), "round": round_no, "table": table,
                "stored": _result_now(con, event.event_id, round_no, table)}
    if kind == "suspension":
        if db.scalar(con, "select withdrawn_after is not null from teams where event_id = ? "
                          "and team_no = ?", [event.event_id, team]):
            raise UsageError(f"{team} 已退赛或停赛 the team is withdrawn or suspended already")
        latest = db.scalar(con, "select coalesce(max(round), 0) from pairings where event_id = ?",
                           [event.event_id])
        registration.withdraw(con, event.event_id, team, latest, SUSPENDED)
        return {"suspension": team, "after": latest}
    raise UsageError(kind)


def reverse(con, event: Event, ruling: dict) -> list[str]:
    """Take back what a confirmed ruling stored, and only that; returns what was left
    because something stored after the ruling replaced it (said in the log)."""
    import polars as pl

    from pipeline.intake import registration

    undo, kept = json.loads(ruling["undo"] or "{}"), []
    if "penalty" in undo:  # the ruling's own row: its reason names the ruling
        round_no, team, reason = undo["penalty"]
        con.execute("delete from penalties where event_id = ? and round = ? and team_no = ? and "
                    "target = 'levels' and reason = ?", [event.event_id, round_no, team, reason])
    if "results" in undo:
        now = _result_now(con, event.event_id, undo["round"], undo["table"])
        stored = undo.get("stored")
        still = now is not None and (now == stored if stored is not None else
                                     now[5] is not None and now[7] == "裁判长裁定 chief")
        if still:
            con.execute("delete from results where event_id = ? and round = ? and "
                        "table_no = ?", [event.event_id, undo["round"], undo["table"]])
            before = pl.read_json(undo["results"].encode()) \
                if undo["results"].strip() != "[]" else None
            if before is not None and before.height:
                db.register(con, "restored", before)
                try:
                    con.execute("insert into results by name select ? as event_id, * from "
                                "restored", [event.event_id])
                finally:
                    con.unregister("restored")
        else:
            kept.append(f"round {undo['round']} table {undo['table']}: the result stored "
                        "after the ruling stays")
    if "suspension" in undo:
        team = undo["suspension"]
        reason = db.scalar(con, "select withdraw_reason from teams where event_id = ? and "
                                "team_no = ?", [event.event_id, team])
        if reason == SUSPENDED:
            registration.reinstate(con, event.event_id, team)
        else:
            kept.append(f"{team}: withdrawn since for another reason, stays withdrawn")
    for line in kept:
        oplog.write_on(con, event.event_id, "ruling reversal kept",
                       f"#{ruling['ruling_id']} {line}")
    return kept
