"""Table self-report: signed links per event, round and table; entries wait for the organizer.

A link carries an HMAC of (event, round, table) under the event's secret, so it cannot be
made up for another table; it stops working once the next round is paired (the round is
closed). What a table sends is only a pending entry: it counts once the organizer accepts it,
through the same validation as a sheet.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from pipeline.base import db, events, oplog
from pipeline.base.errors import BusyError, PaisaiError, UsageError
from pipeline.base.levels import format_level, parse_level
from pipeline.intake.ingest import apply_rows


def event_secret(con: duckdb.DuckDBPyConnection, event_id: str) -> str:
    """The event's secret that signs its links (raises before any link was made)."""
    found = db.scalar(con, "select secret from event_secrets where event_id = ?", [event_id])
    if found is None:
        raise PaisaiError("本赛事还没有桌报链接 no table links made for this event yet")
    return found


def ensure_secret(con: duckdb.DuckDBPyConnection, event_id: str) -> str:
    found = db.scalar(con, "select secret from event_secrets where event_id = ?", [event_id])
    if found is None:
        found = secrets.token_hex(16)
        con.execute("insert into event_secrets values (?, ?)", [event_id, found])
    return found


def sign(secret: str, event_id: str, round_no: int, table_no: int,
         side: str | None = None) -> str:
    """The signature of a table's link, or of one side's link (`ew` / `ns`)."""
    message = f"{event_id}:{round_no}:{table_no}" + (f":{side}" if side else "")
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()[:20]


def side_code(secret: str, event_id: str, round_no: int, table_no: int, side: str) -> str:
    """The 4-digit code printed on a side's slip beside its QR code, never in the link: a
    side's report needs both, so whoever scans a slip left on the table — or both — cannot
    speak for a side whose slip they do not hold."""
    message = f"code:{event_id}:{round_no}:{table_no}:{side}"
    digest = hmac.new(secret.encode(), message.encode(), hashlib.sha256).digest()
    return f"{int.from_bytes(digest[:4], 'big') % 10_000:04d}"


def links(database: Path, event_id: str, round_no: int, base_url: str) -> pl.DataFrame:
    """One signed link per table (`url`: the report waits for the organizer) and one per side
    (`ew_url`, `ns_url`: when both sides send the same result it is stored at once), with
    each side's code (`ew_code`, `ns_code`), printed on its slip and asked by its form."""
    with db.reading(database) as con:  # written once, the first time: every later ask reads
        made = db.scalar(con, "select secret from event_secrets where event_id = ?", [event_id])
    with db.reading(database) if made else db.writing(database) as con:
        secret = made or ensure_secret(con, event_id)
        tables = db.rows(con, "select table_no, ew_team, ns_team from pairings where event_id = ? "
                              "and round = ? and table_no is not null order by table_no",
                         [event_id, round_no])
    base = f"{base_url.rstrip('/')}/r?event={event_id}&round={round_no}"  # the plain form

    def url(table: int, side: str | None) -> str:
        sided = f"&side={side}" if side else ""
        return f"{base}&table={table}{sided}&sig={sign(secret, event_id, round_no, table, side)}"

    return pl.DataFrame(
        [(t, ew, ns, url(t, None), url(t, "ew"), url(t, "ns"),
          side_code(secret, event_id, round_no, t, "ew"),
          side_code(secret, event_id, round_no, t, "ns")) for t, ew, ns in tables],
        schema=["table", "ew_team", "ns_team", "url", "ew_url", "ns_url", "ew_code", "ns_code"],
        orient="row")


def table_cards(database: Path, event_id: str, round_no: int, base_url: str) -> pl.DataFrame:
    """What a round's table cards print: each table's teams, names and both sides' links."""
    from pipeline.ranking import rounds
    signed = links(database, event_id, round_no, base_url)
    with db.reading(database) as con:
        names = rounds.pairings(con, event_id, round_no).select("table", "ew_name", "ns_name")
    return signed.join(names, on="table", how="left").select(
        "table", "ew_team", "ns_team", "ew_name", "ns_name", "ew_url", "ns_url", "ew_code",
        "ns_code").with_columns(  # the phones' pages of the event: rankings, seats, teams
        pl.lit(f"{base_url.rstrip('/')}/m/{event_id}/").alias("phones_url"))


def link_hours() -> float:
    """How long the links of a round stay valid after it was paired (env PAISAI_LINK_HOURS,
    default 12): the last round's links, which no later pairing closes, expire too."""
    return float(os.environ.get("PAISAI_LINK_HOURS", "12"))


class LinkClosed(UsageError):
    """A genuine link whose round or event is over (or whose time has run out)."""


def _require_open(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int) -> None:
    """A round takes reports until a later round is paired, the event is closed, or its
    links have grown older than link_hours()."""
    if db.scalar(con, "select closed_at is not null from events where event_id = ?",
                 [event_id]):
        raise LinkClosed("比赛已结束，链接已失效 the event is closed; the link has expired")
    later = db.scalar(con, "select count(*) from pairings where event_id = ? and round > ?",
                      [event_id, round_no])
    if later:
        raise LinkClosed("本轮已结束，链接已失效 the round is closed; the link has expired")
    age = db.scalar(con, "select epoch(current_timestamp::timestamp) - epoch(max(paired_at)) "
                         "from pairings where event_id = ? and round = ?", [event_id, round_no])
    if age is not None and age > link_hours() * 3600:
        raise LinkClosed(f"链接已超过 {link_hours():g} 小时，已失效 the link is older than "
                         f"{link_hours():g} hours and has expired")


def check_link(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int, table_no: int,
               signature: str, side: str | None = None) -> tuple[str, str]:
    """The table's teams, if the link (of the table, or of one side) is genuine and its round
    still open."""
    if side not in (None, "ew", "ns"):
        raise UsageError("链接无效 this link is not valid")
    expected = sign(event_secret(con, event_id), event_id, round_no, table_no, side)
    if not hmac.compare_digest(expected, signature or ""):
        raise UsageError("链接无效 this link is not valid")
    _require_open(con, event_id, round_no)
    found = db.rows(con, "select ew_team, ns_team from pairings where event_id = ? and round = ? "
                         "and table_no = ?", [event_id, round_no, table_no])
    if not found:
        raise UsageError("没有这一桌 no such table")
    return found[0]


def check_code(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int, table_no: int,
               side: str, code: str | None) -> None:
    """The side's 4-digit code, printed on its slip: a side's link alone does not act."""
    if not hmac.compare_digest(side_code(event_secret(con, event_id), event_id, round_no, table_no,
                                         side), (code or "").strip()[:8]):
        raise WrongCode("验证码不对：请输入本方纸条上印的 4 位验证码 the code is wrong: enter the "
                        "4 digits printed on your side's slip")


def submit(database: Path, event_id: str, round_no: int, table_no: int, signature: str,
           ew_level: str, ns_level: str, side: str | None = None,
           code: str | None = None, decider: str | None = None) -> str:
    """A table's report. From a side's link, with the event's ruleset saying
    `self_report = "both_sides"` (the default): when the other side has sent the same result
    it is stored at once ("stored"), a different one waits for the organizer beside it
    ("disagree"), none yet waits ("waiting"). A table's own link always waits ("waiting").
    A newer report from the same table (and side) replaces the pending one. All of it in one
    transaction: the result and the reports' state are stored together or not at all."""
    found = submit_many(database, [Report(event_id, round_no, table_no, signature, ew_level,
                                          ns_level, side, code, decider)])[0]
    if isinstance(found, Exception):
        raise found
    return found


@dataclass(frozen=True)
class Report:
    """One report as a phone sends it."""

    event_id: str
    round_no: int
    table_no: int
    signature: str
    ew_level: str
    ns_level: str
    side: str | None = None
    code: str | None = None  # a side's code from its slip (`side_code`)
    decider: str | None = None  # ew | ns: the preset's decider of equal levels (`DECIDERS`)


def decider_field(equal_levels: str) -> tuple[str, str, str] | None:
    """(column, Chinese name, English name) of the decider a report of a level game needs
    under the preset's `equal_levels`, else None (a draw needs none)."""
    from pipeline.base.settings import EQUAL_LEVELS_DECIDERS

    return EQUAL_LEVELS_DECIDERS.get(equal_levels)


def _decider(equal_levels: str, ew: int, ns: int, given: str | None) -> str | None:
    """The decider of a level game as reported (ew | ns), None when the levels differ or the
    preset needs none; refused, naming the field, when the levels are equal and it is missing."""
    field = decider_field(equal_levels)
    if field is None or ew != ns:
        return None
    if given not in ("ew", "ns"):
        raise UsageError(f"双方级数相同（{format_level(ew)}）：请选择{field[1]}（东西或南北） the "
                         f"levels are equal ({format_level(ew)}): choose {field[2]}")
    return given


def _row(equal_levels: str, round_no: int, table_no: int, ew: int, ns: int,
         decider: str | None) -> dict:
    """A report as a row of a results sheet (its code names), the decider in its column."""
    from pipeline.ranking.deals import SIDE_WORDS

    row = {"round": round_no, "table": table_no, "ew_level": format_level(ew),
           "ns_level": format_level(ns)}
    field = decider_field(equal_levels)
    if field and decider:
        row[field[0]] = SIDE_WORDS[decider]
    return row


class WrongCode(UsageError):
    """A side's report with a code that is not the one on its slip."""


class Decided(UsageError):
    """A report for a table whose result is stored (and not reopened by the organizer)."""


def stored_result(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int,
                  table_no: int) -> tuple | None:
    """(ew_level, ns_level, forfeit, source) of a decided table, else None — a table the
    organizer reopened is not decided."""
    found = db.rows(con, "select ew_level, ns_level, forfeit, source_file from results where "
                         "event_id = ? and round = ? and table_no = ? and not exists (select 1 "
                         "from reopened_tables o where o.event_id = results.event_id and "
                         "o.round = results.round and o.table_no = results.table_no)",
                    [event_id, round_no, table_no])
    return found[0] if found else None


def describe_stored(found: tuple) -> str:
    ew, ns, forfeit, source = found
    if forfeit:
        shown = {"ew": "东西弃权 EW forfeited", "ns": "南北弃权 NS forfeited",
                 "both": "双方弃权 both forfeited"}[forfeit]
    else:
        shown = f"{format_level(ew)} – {format_level(ns)}"
    return f"{shown}（{source or '控制台 console'}）"


def reopen(database: Path, event_id: str, round_no: int, table_no: int) -> None:
    """The organizer reopens a decided table: its sides may report again; the stored
    result stands until a new one is stored. In paisai log."""
    with db.writing(database) as con:
        if not db.scalar(con, "select count(*) from results where event_id = ? and round = ? "
                              "and table_no = ?", [event_id, round_no, table_no]):
            raise UsageError(f"第 {round_no} 轮第 {table_no} 桌还没有成绩，无需重新打开 "
                             "the table has no result: it is open already")
        _require_open(con, event_id, round_no)
        con.execute("insert or replace into reopened_tables (event_id, round, table_no) "
                    "values (?, ?, ?)", [event_id, round_no, table_no])
        oplog.write_on(con, event_id, "table reopened", f"round {round_no} table {table_no}")


def submit_many(database: Path, reports: list[Report],
                yielding: bool = True) -> list[str | PaisaiError]:
    """Reports arriving together stored in one transaction (a hall's last minutes: one
    opening of the file for many phones), each with its outcome as `submit` gives it, or
    the PaisaiError that refused it. When one is refused, none of the transaction is kept
    and each is stored again on its own, so a refusal never takes another report with it.
    Stored in the background (`db.background`) and `yielding`, the batch gives way to the
    organizer between its reports and before its results are stored: `db.GaveWay`, nothing
    of it kept (never once a report of it is kept on its own)."""
    logged: list[tuple[str, str]] = []
    try:
        with db.writing(database) as con:
            agreed: dict[tuple[str, int, int], tuple] = {}
            outcomes: list[str | PaisaiError] = []
            for report in reports:
                if yielding:
                    db.give_way(database)
                outcomes.append(_submit(con, report, agreed))
            if yielding:
                db.give_way(database)
            logged = _store_agreed(con, agreed)
    except BusyError as exc:  # the file is held elsewhere: one wait for the whole batch
        return [exc] * len(reports)
    except PaisaiError as exc:
        if len(reports) == 1:
            return [exc]
        return [submit_many(database, [report], yielding=False)[0] for report in reports]
    for event_id, line in logged:
        oplog.write(database, event_id, "self-report both sides", line)
    return outcomes


def _submit(con: duckdb.DuckDBPyConnection, report: Report, agreed: dict) -> str:
    """One report's pending entry; a table whose two sides now agree is put in `agreed`,
    to be stored with the others of the batch (`_store_agreed`)."""
    event_id, round_no, table_no = report.event_id, report.round_no, report.table_no
    side = report.side
    ew, ns = parse_level(report.ew_level), parse_level(report.ns_level)
    if ew is None or ns is None:
        raise UsageError("请填写有效的级数 enter two levels (2…10 J Q K A 过A)")
    check_link(con, event_id, round_no, table_no, report.signature, side)
    if side:
        check_code(con, event_id, round_no, table_no, side, report.code)
    decided = stored_result(con, event_id, round_no, table_no)
    if decided is not None:  # a sheet, the console, a decision or both sides: it stands
        raise Decided(f"已裁定 decided: 本桌成绩已保存 {describe_stored(decided)}；如有异议请找裁判，"
                      "由组织者重新打开本桌 the result is stored; to change it ask the referee: "
                      "the organizer can reopen the table")
    ruleset = events.load(con, event_id).ruleset
    decider = _decider(ruleset.scoring["equal_levels"], ew, ns, report.decider)
    con.execute("update pending_reports set status = 'rejected', decided_at = "
                "current_timestamp, note = '被同桌新的桌报取代 replaced by a newer report' "
                "where event_id = ? and round = ? and table_no = ? and status = 'pending' "
                "and side is not distinct from ?", [event_id, round_no, table_no, side])
    report_id = db.scalar(
        con, "insert into pending_reports (event_id, round, table_no, ew_level, ns_level, "
             "side, decider) values (?, ?, ?, ?, ?, ?, ?) returning report_id",
        [event_id, round_no, table_no, ew, ns, side, decider])
    if not side or ruleset.self_report != "both_sides":
        return "waiting"
    other = db.rows(con, "select report_id, ew_level, ns_level, decider from pending_reports "
                         "where event_id = ? and round = ? and table_no = ? and "
                         "status = 'pending' and side = ?",
                    [event_id, round_no, table_no, "ns" if side == "ew" else "ew"])
    if not other:
        return "waiting"
    other_id, other_ew, other_ns, other_decider = other[0]
    if (other_ew, other_ns, other_decider) != (ew, ns, decider):
        return "disagree"
    first, second = sorted((report_id, other_id))

    con.execute("update pending_reports set status = 'accepted', decided_at = "
                "current_timestamp, note = '双方一致，自动保存 both sides agree: stored' "
                "where report_id in (?, ?)", [first, second])
    agreed[(event_id, round_no, table_no)] = (ew, ns, first, second, decider)
    return "stored"


def _store_agreed(con: duckdb.DuckDBPyConnection, agreed: dict) -> list[tuple[str, str]]:
    """The tables whose sides agree, stored through the same checks as a sheet (one check of
    the event for all of them); a first result is in the audit too, with both submissions.
    Returns the lines for the operations log."""
    logged = []
    for event_id in dict.fromkeys(key[0] for key in agreed):
        tables = [(r, t, *found) for (e, r, t), found in agreed.items() if e == event_id]
        existed = {(r, t) for r, t in db.rows(
            con, "select round, table_no from results where event_id = ?", [event_id])}
        labels = "; ".join(f"#{first} #{second}" for _, _, _, _, first, second, _ in tables)
        equal_levels = events.load(con, event_id).ruleset.scoring["equal_levels"]
        apply_rows(con, event_id, "results",
                   [_row(equal_levels, r, t, ew, ns, decider)
                    for r, t, ew, ns, _, _, decider in tables],
                   f"桌报 self-report {labels}（双方一致 both sides agree）",
                   "self-report both sides")
        for round_no, table_no, _, _, first, second, _ in tables:
            if (round_no, table_no) not in existed:
                con.execute(
                    "insert into result_audit (event_id, round, table_no, source_file, reason, "
                    "new_ew_team, new_ns_team, new_ew_level, new_ns_level, new_deals, "
                    "new_forfeit) select event_id, round, table_no, ?, "
                    "'self-report both sides', ew_team, ns_team, ew_level, ns_level, deals, "
                    "forfeit from results where event_id = ? and round = ? and table_no = ?",
                    [f"桌报 self-report #{first} #{second}", event_id, round_no, table_no])
            logged.append((event_id, f"#{first} #{second} round {round_no} table {table_no}"))
    return logged


def pending(database: Path, event_id: str) -> pl.DataFrame:
    with db.reading(database) as con:
        found = db.frame(con, "select report_id, round, table_no, side, ew_level, ns_level, "
                              "submitted_at, decider from pending_reports where event_id = $e and "
                              "status = 'pending' order by table_no, side, submitted_at",
                         {"e": event_id})
    return found.with_columns(
        pl.col("ew_level").map_elements(format_level, return_dtype=pl.String),
        pl.col("ns_level").map_elements(format_level, return_dtype=pl.String))


def decide(database: Path, event_id: str, report_id: int, accept: bool) -> None:
    """Accept (through the same checks as a sheet) or reject one pending entry; accepting
    settles the table's other pending reports. One transaction."""
    with db.writing(database) as con:
        found = db.rows(con, "select round, table_no, ew_level, ns_level, decider from "
                             "pending_reports where event_id = ? and report_id = ? and "
                             "status = 'pending'", [event_id, report_id])
        if not found:
            raise UsageError("这条桌报已处理 this report was dealt with already")
        round_no, table_no, ew, ns, decider = found[0]
        if accept:
            _require_open(con, event_id, round_no)  # a closed round's report cannot count
            equal_levels = events.load(con, event_id).ruleset.scoring["equal_levels"]
            apply_rows(con, event_id, "results",
                       [_row(equal_levels, round_no, table_no, ew, ns, decider)],
                       f"桌报 self-report #{report_id}", "self-report")
        con.execute("update pending_reports set status = ?, decided_at = current_timestamp "
                    "where report_id = ?", ["accepted" if accept else "rejected", report_id])
        if accept:  # the organizer decided the table: the other side's report is settled
            con.execute("update pending_reports set status = 'rejected', decided_at = "
                        "current_timestamp, note = '裁判已裁定 decided by the organizer' where "
                        "event_id = ? and round = ? and table_no = ? and status = 'pending'",
                        [event_id, round_no, table_no])
    oplog.write(database, event_id, "self-report " + ("accepted" if accept else "rejected"),
                f"#{report_id} round {round_no} table {table_no}")
