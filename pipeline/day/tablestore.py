"""The table's own sheet kept in the database (issue 42): each deal entered by the
recorder's side (the preset's `deals.recorder`; seed 001: South's pair), confirmed or
disputed by the other side, a dispute decided by the organizer or a referee, and the
table's result stored — once both sides confirm it — through the deal sheet's own path
(`intake.ingest.apply_rows`, kind `deals`) in the same transaction, so that it is checked,
stored and audited exactly as an uploaded deal sheet. The sheet's reading is the pure
`tablesheet`; a side acts with its signed link and its printed 4-digit code, as on `/r`."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import duckdb
import polars as pl

from pipeline.base import db, events, oplog
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.base.levels import format_level
from pipeline.day import clockstore, selfreport, sheetdeals
from pipeline.day.clock import Clock
from pipeline.day.sheetdeals import utc_now
from pipeline.day.tablesheet import (
    STALE,
    Entry,
    Sheet,
    check_entry,
    deal_rows,
    read,
    stamp,
)
from pipeline.ranking.deals import Deal

SIDE_NAMES = {"ew": "东西 East-West", "ns": "南北 North-South"}


def entries(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int,
            table_no: int) -> list[Entry]:
    return entries_by_table(con, event_id, round_no, table_no).get(table_no, [])


def entries_by_table(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int,
                     table_no: int | None = None) -> dict[int, list[Entry]]:
    """Each table's entries in deal order (one table's when `table_no` is given): one
    query for the whole round."""
    found: dict[int, list[Entry]] = {}
    for t, n, w, f, status, at in db.rows(
            con, "select table_no, deal, winner_side, partner_finish, status, entered_at from "
                 "table_sheet_deals where event_id = ? and round = ? and (? is null or "
                 "table_no = ?) order by table_no, deal", [event_id, round_no, table_no,
                                                           table_no]):
        found.setdefault(t, []).append(Entry(n, Deal(w, f), status, at))
    return found


def time_up(con: duckdb.DuckDBPyConnection, event: Event, round_no: int,
             clock: Clock | None = None) -> dt.datetime | None:
    up = (clock or clockstore.load(con, event, round_no)).time_up_at(time.time())
    return None if up is None else dt.datetime.fromtimestamp(up, dt.UTC).replace(tzinfo=None)


def last_deal_allowed(event: Event, up: dt.datetime | None, entered: list[Entry]) -> int | None:
    """The last deal the round's clock allows once its time is up (`up`): the deals entered
    before then, and the deal in play when the preset finishes it (`deals.after_time`)."""
    if up is None:
        return None
    before = sum(1 for e in entered if e.entered_at <= up)
    return before + (1 if event.ruleset.deals["after_time"] == "finish_deal" else 0)


def takeoffs(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int,
             table_no: int) -> int:
    """How many times the referee took deals off this table's sheet (the next deal's mark)."""
    return sheetdeals.takeoffs(con, _place(event_id, round_no, table_no))


def sheet(con: duckdb.DuckDBPyConnection, event: Event, round_no: int, table_no: int,
          now: dt.datetime | None = None, clock: Clock | None = None) -> Sheet:
    """The table's sheet as it stands; `clock`: the round's, when the caller has it."""
    entered = entries(con, event.event_id, round_no, table_no)
    rules = event.ruleset.deals
    return read(entered, rules, rules["confirm_minutes"], now or utc_now(),
                last_deal_allowed(event, time_up(con, event, round_no, clock), entered))


def _acting(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int, table_no: int,
            signature: str, side: str, code: str | None) -> tuple[Event, tuple[str, str]]:
    """The event and the table's teams, when the side's link and code are genuine and the
    table's result is not stored yet."""
    if side not in ("ew", "ns"):
        raise UsageError("链接无效 this link is not valid")
    teams = selfreport.check_link(con, event_id, round_no, table_no, signature, side)
    selfreport.check_code(con, event_id, round_no, table_no, side, code)
    event = events.load(con, event_id)
    if event.ruleset.discipline != "guandan":
        raise UsageError("这是掼蛋的逐副记分；拖拉机按场记分（paisai bracket links） this is "
                         "Guandan's deal-by-deal sheet; a Tractor match keeps its own")
    decided = selfreport.stored_result(con, event_id, round_no, table_no)
    if decided is not None:
        raise selfreport.Decided(f"已裁定 decided: 本桌成绩已保存 {selfreport.describe_stored(decided)}"
                                 " the table's result is stored")
    return event, teams


def enter(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int, table_no: int,
          signature: str, side: str, code: str | None, number: int, winner: str,
          partner_finish: int, seen: str | None = None) -> None:
    """The recorder's side enters the next deal (refused with the reason when it cannot
    be), in the caller's write transaction."""
    event, _ = _acting(con, event_id, round_no, table_no, signature, side, code)
    if side != event.ruleset.deals["recorder"]:
        raise UsageError("本方负责复查：请确认或提出异议，由对方记录 your side checks the "
                         "record: confirm or dispute; the other side enters the deals")
    found = sheet(con, event, round_no, table_no)
    why = check_entry(found, number, winner, partner_finish)
    if why:  # not the deal due (entered from another phone), a dispute, the round over
        raise UsageError(why)
    place = _place(event_id, round_no, table_no)
    if seen and seen != stamp(found.lines, sheetdeals.takeoffs(con, place)):
        raise UsageError(STALE.format(unit="副"))
    con.execute("insert into table_sheet_deals (event_id, round, table_no, deal, "
                "winner_side, partner_finish, entered_side, entered_at) values "
                "(?, ?, ?, ?, ?, ?, ?, ?)", [event_id, round_no, table_no, number, winner,
                                             partner_finish, side, utc_now()])


def answer(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int, table_no: int,
           signature: str, side: str, code: str | None, number: int, confirm: bool,
           seen: str | None = None) -> None:
    """The other side confirms a deal, or disputes it: a disputed deal freezes the sheet and
    waits for the organizer's (or the referee's) decision, in `paisai log`."""
    event, _ = _acting(con, event_id, round_no, table_no, signature, side, code)
    if side == event.ruleset.deals["recorder"]:
        raise UsageError("本方负责记录，由对方确认 your side enters the deals; the other "
                         "side confirms them")
    sheetdeals.answer(con, _place(event_id, round_no, table_no), side, SIDE_NAMES[side],
                      number, confirm, seen)


def confirm_result(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int,
                   table_no: int, signature: str, side: str, code: str | None) -> str:
    """A side confirms the table's result as its sheet gives it: "waiting" for the other
    side, or "stored" when both have (the deals stored as a deal sheet, with its checks and
    audit, in this transaction)."""
    from pipeline.intake.ingest import apply_rows

    event, teams = _acting(con, event_id, round_no, table_no, signature, side, code)
    found = sheet(con, event, round_no, table_no)
    if found.result is None:
        raise UsageError("还有未确认或有异议的一副 a deal is not final yet" if found.over
                         else "本轮还没有结束 the round is not over yet")
    outcome = found.result
    con.execute("insert or replace into table_sheet_results values "
                "(?, ?, ?, ?, ?, ?, ?, ?)", [event_id, round_no, table_no, side,
                                             outcome.ew_level, outcome.ns_level,
                                             outcome.deals, utc_now()])
    words = db.rows(con, "select ew_level, ns_level, deals from table_sheet_results where "
                         "event_id = ? and round = ? and table_no = ?",
                    [event_id, round_no, table_no])
    if len(words) < 2 or len(set(words)) > 1:
        return "waiting"
    apply_rows(con, event_id, "deals",
               deal_rows(entries(con, event_id, round_no, table_no), round_no, table_no),
               source=f"桌上记分 table sheet {table_no}",
               reason=f"双方确认 both sides confirmed: {teams[0]} "
                      f"{format_level(outcome.ew_level)} – {teams[1]} "
                      f"{format_level(outcome.ns_level)}")
    oplog.write_on(con, event_id, "table sheet stored",
                   f"round {round_no} table {table_no}: {outcome.deals} deals")
    return "stored"


def decide(database: Path, event_id: str, round_no: int, table_no: int, number: int,
           keep: bool, by: str = "组织者 organizer") -> None:
    """A disputed deal decided (`sheetdeals.decide`), in `paisai log` with who decided."""
    sheetdeals.decide(database, _place(event_id, round_no, table_no), number, keep, by)


def _place(event_id: str, round_no: int, table_no: int) -> sheetdeals.Place:
    return sheetdeals.Place("table_sheet_deals", "table_sheet_results", ("round", "table_no"),
                            (round_no, table_no), event_id,
                            f"round {round_no} table {table_no}", "副")


def disputed(con: duckdb.DuckDBPyConnection, event_id: str) -> list[tuple[int, int, int]]:
    """(round, table, deal) of every disputed deal waiting for a decision: a table whose
    result is stored (a score sheet, the console, a decision) has nothing left to decide."""
    return db.rows(con, "select round, table_no, deal from table_sheet_deals d where event_id "
                        "= ? and status = 'disputed' and not exists (select 1 from results r "
                        "where r.event_id = d.event_id and r.round = d.round and "
                        "r.table_no = d.table_no) order by 1, 2, 3", [event_id])


def tables_in_play(con: duckdb.DuckDBPyConnection, event: Event,
                   round_no: int | None) -> list[dict]:
    """The round's tables keeping their own sheet and not yet stored, for the projector and
    the phones: table, teams (numbers and names), deals recorded, both levels, who leads, a dispute waiting."""
    if round_no is None:
        return []
    found = db.rows(con, """
        select d.table_no, p.ew_team, p.ns_team, coalesce(e.team_name, ''),
               coalesce(n.team_name, '') from table_sheet_deals d
        join pairings p on p.event_id = d.event_id and p.round = d.round
          and p.table_no = d.table_no
        left join teams e on e.event_id = p.event_id and e.team_no = p.ew_team
        left join teams n on n.event_id = p.event_id and n.team_no = p.ns_team
        where d.event_id = ? and d.round = ? and not exists (
            select 1 from results r where r.event_id = d.event_id and r.round = d.round
              and r.table_no = d.table_no)
        group by all order by d.table_no""", [event.event_id, round_no])
    now, rules = utc_now(), event.ruleset.deals
    up = time_up(con, event, round_no)
    every = entries_by_table(con, event.event_id, round_no)
    out = []
    for table_no, ew, ns, ew_name, ns_name in found:
        entered = every.get(table_no, [])
        shown = read(entered, rules, rules["confirm_minutes"], now,
                     last_deal_allowed(event, up, entered))
        levels = shown.state.levels
        leader = None if levels["ew"] == levels["ns"] else \
            "ew" if levels["ew"] > levels["ns"] else "ns"
        out.append({"table": table_no, "ew_team": ew, "ns_team": ns, "ew_name": ew_name,
                    "ns_name": ns_name,
                    "deals": len(shown.lines), "ew_level": format_level(levels["ew"]),
                    "ns_level": format_level(levels["ns"]), "leader": leader,
                    "disputed": shown.disputed is not None, "over": shown.over is not None,
                    "levels": (levels["ew"], levels["ns"]),
                    "first_to_level": shown.state.first_to_level,
                    "last_deal_side": shown.state.last_winner})
    return out


def as_results(round_no: int, in_play: list[dict]) -> pl.DataFrame:
    """The tables in play as the results they would be if the round ended now."""
    return pl.DataFrame(
        [{"round": round_no, "table_no": r["table"], "ew_team": r["ew_team"],
          "ns_team": r["ns_team"], "ew_level": r["levels"][0], "ns_level": r["levels"][1],
          "deals": r["deals"], "first_to_level": r["first_to_level"],
          "last_deal_side": r["last_deal_side"]} for r in in_play],
        schema={"round": pl.Int32, "table_no": pl.Int32, "ew_team": pl.String,
                "ns_team": pl.String, "ew_level": pl.Int32, "ns_level": pl.Int32,
                "deals": pl.Int32, "first_to_level": pl.String, "last_deal_side": pl.String})
