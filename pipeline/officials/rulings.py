"""The rulings that decide a deal or a game (issue 43, docs/rules/general.md §12): proposed by a referee (or by
the ladder itself once a team's count reaches it), confirmed, changed or rejected by the
chief arbiter. The ranking counts a ruling only once confirmed (a round lost through
`team_rounds.sql`, levels through the penalties, a forfeit through the results, a
suspension through the withdrawal: `effects`); a second ruled loss proposes the
suspension. Every step names the official, in `paisai log` and in the table."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.base import db, events
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.officials import effects
from pipeline.officials.common import log, now, require_table, ruling_row, table_of
from pipeline.officials.ladder import RULING_WORDS, RULINGS, STATUS_WORDS, suspends
from pipeline.officials.people import Official

DECIDES = ("chief", "organizer")  # who rules on a proposal


def propose(database: Path, event_id: str, official: Official, round_no: int, team_no: str,
            kind: str, amount: int = 0, reason: str = "") -> int:
    """A referee's (or the chief's) proposal of what decides a deal or a game."""
    with db.writing(database) as con:
        event = events.load(con, event_id)
        table_no, _ = table_of(con, event_id, round_no, team_no)
        require_table(official, table_no)
        return propose_on(con, event, official, round_no, team_no, kind, amount, reason)


def propose_on(con, event: Event, official: Official | None, round_no: int, team_no: str,
               kind: str, amount: int, reason: str) -> int:
    if kind not in RULINGS:
        raise UsageError(f"裁定应为 {' / '.join(RULINGS)} a ruling is one of these")
    if kind in ("levels_down", "opponent_up") and not 1 <= amount <= 13:
        raise UsageError("升降级数应在 1–13 之间 the levels are 1 to 13")
    table_no = None if kind == "suspension" else table_of(con, event.event_id, round_no,
                                                            team_no)[0]
    ruling_id = db.scalar(con, "insert into official_rulings (event_id, round, table_no, "
                               "team_no, kind, amount, reason, proposed_by, proposed_at) values "
                               "(?, ?, ?, ?, ?, ?, ?, ?, ?) returning ruling_id",
                          [event.event_id, round_no, table_no, team_no, kind, amount,
                           reason[:200], official.official_id if official else None, now()])
    log(con, event.event_id, official, "ruling proposed",
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
        found = ruling_row(con, event_id, ruling_id)
        if found["status"] != "proposed":
            zh, _, en = STATUS_WORDS[found["status"]].partition(" ")
            raise UsageError(f"裁定 #{ruling_id} 已是“{zh}”，不能再裁定 ruling #{ruling_id} is "
                             f"{en} already: it cannot be ruled again")
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
            undo = effects.apply(con, event, {**found, "kind": chosen, "amount": levels})
            con.execute("update official_rulings set kind = ?, amount = ?, undo = ? where "
                        "ruling_id = ?", [chosen, levels, json.dumps(undo), ruling_id])
            status = "confirmed"
        con.execute("update official_rulings set status = ?, decided_by = ?, decided_at = ?, "
                    "decision_note = ? where ruling_id = ?",
                    [status, official.official_id, now(), note[:200], ruling_id])
        log(con, event_id, official, f"ruling {status}", f"#{ruling_id} {found['team_no']}"
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


def queue(con, event_id: str) -> list[dict]:
    """The proposals waiting for the chief, oldest first."""
    return db.frame(con, "select r.ruling_id, r.round, r.table_no, r.team_no, r.kind, r.amount, "
                         "r.reason, coalesce(o.name, '规则 ladder') as proposed_by, "
                         "r.proposed_at from official_rulings r left join officials o on "
                         "o.official_id = r.proposed_by where r.event_id = $e and r.status = "
                         "'proposed' order by r.ruling_id", {"e": event_id}).to_dicts()


