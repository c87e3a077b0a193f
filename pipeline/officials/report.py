"""The officials' report (issue 43, what a federation asks for after the event): every record
at the tables (a withdrawn one marked so), the counts the ladder derived from them (two
warnings make a violation), every ruling (proposed, confirmed, changed, rejected,
reversed), every leave, every appeal with its votes, and every disputed deal with the
referee's decision (issue 51) — who, when, round, table, team and outcome — as one
spreadsheet (a sheet each, written by the exports' own writer: text is always text, never a
formula; numbers are numbers) and a printable HTML page from a template."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from pipeline.base import db, events, oplog
from pipeline.base.levels import format_level
from pipeline.officials.ladder import RULING_WORDS, STATUS_WORDS, WORDS, count
from pipeline.ranking.deals import SIDE_WORDS


def sections(database: Path, event_id: str) -> tuple[str, dict[str, pl.DataFrame]]:
    """The event's name and the report's four tables, headed in both languages."""
    with db.reading(database) as con:
        name = events.load(con, event_id).name
        q = {"e": event_id, "fmt": "%Y-%m-%d %H:%M:%S"}  # stored in UTC, shown as the hall's
        records = db.frame(con, """
            select strftime(r.recorded_at at time zone 'UTC', $fmt) as "时间 time", r.round as "轮 round",
                   r.table_no as "桌 table", r.team_no as "队 team", r.kind,
                   r.minutes as "分钟 minutes", r.note as "说明 note",
                   coalesce(o.name, '') as "裁判 official",
                   coalesce(strftime(r.withdrawn_at at time zone 'UTC', $fmt) || ' ' ||
                            coalesce(w.name, ''), '') as "撤回 withdrawn"
            from official_records r left join officials o using (official_id)
            left join officials w on w.official_id = r.withdrawn_by
            where r.event_id = $e order by r.record_id""", q)
        rulings = db.frame(con, """
            select r.ruling_id as "编号 no.", r.round as "轮 round",
                   coalesce(r.table_no::varchar, '') as "桌 table", r.team_no as "队 team",
                   r.kind, r.amount as "级数 levels", r.reason as "理由 reason",
                   coalesce(p.name, '规则 ladder') as "提议 proposed by",
                   strftime(r.proposed_at at time zone 'UTC', $fmt) as "提议时间 proposed at", r.status,
                   coalesce(d.name, '') as "裁定 decided by",
                   coalesce(strftime(r.decided_at at time zone 'UTC', $fmt), '') as "裁定时间 decided at",
                   r.decision_note as "裁定说明 note"
            from official_rulings r left join officials p on p.official_id = r.proposed_by
            left join officials d on d.official_id = r.decided_by
            where r.event_id = $e order by r.ruling_id""", q)
        leaves = db.frame(con, """
            select l.round as "轮 round", l.team_no as "队 team", l.minutes as "分钟 minutes",
                   l.reason as "理由 reason", coalesce(o.name, '') as "批准 granted by",
                   strftime(l.granted_at at time zone 'UTC', $fmt) as "时间 time"
            from official_leaves l left join officials o on o.official_id = l.granted_by
            where l.event_id = $e order by l.round, l.team_no""", q)
        appeals = db.frame(con, """
            select a.appeal_id as "编号 no.", a.ruling_id as "裁定 ruling",
                   a.team_no as "队 team", strftime(a.filed_at at time zone 'UTC', $fmt) as "提交 filed at",
                   a.filed_via as "途径 via", a.fee as "申诉费 fee (noted)",
                   a.statement as "理由 statement", a.status,
                   coalesce(strftime(a.decided_at at time zone 'UTC', $fmt), '') as "决定 decided at",
                   coalesce((select string_agg(o.name || (case when v.uphold then ' 支持'
                             else ' 反对' end), '、' order by v.voted_at)
                             from official_votes v join officials o using (official_id)
                             where v.appeal_id = a.appeal_id), '') as "表决 votes"
            from official_appeals a where a.event_id = $e order by a.appeal_id""", q)
    records = records.with_columns(pl.col("kind").replace_strict(WORDS, default=pl.col("kind"))
                                   .alias("记录 record")).drop("kind")
    rulings = rulings.with_columns(
        pl.col("kind").replace_strict(RULING_WORDS, default=pl.col("kind")).alias("裁定 ruling"),
        pl.col("status").replace_strict(STATUS_WORDS, default=pl.col("status"))
        .alias("结果 outcome")).drop("kind", "status")
    appeals = appeals.with_columns(pl.col("status").replace_strict(
        STATUS_WORDS, default=pl.col("status")).alias("结果 outcome")).drop("status")
    return name, {"记录 records": records, "裁定 rulings": rulings, "请假 leave": leaves,
                  "申诉 appeals": appeals}


def derived(database: Path, event_id: str) -> pl.DataFrame:
    """The ladder's count of each team in each round it has records (seed 001: two
    warnings make a violation, three violations lose the round)."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        found = db.rows(con, "select round, team_no, list(kind order by record_id) from "
                             "official_records where event_id = ? and withdrawn_at is null "
                             "group by all order by "
                             "round, team_no", [event_id])
    rows = []
    for round_no, team, kinds in found:
        c = count(list(kinds), event.ruleset.scoring)
        rows.append({"轮 round": round_no, "队 team": team, "警告 warnings": c.warnings,
                     "违例 violations": c.violations, "犯规 fouls": c.fouls,
                     "判负 round lost": "是 yes" if c.out else ""})
    return pl.DataFrame(rows, schema={"轮 round": pl.Int64, "队 team": pl.String,
                                      "警告 warnings": pl.Int64, "违例 violations": pl.Int64,
                                      "犯规 fouls": pl.Int64, "判负 round lost": pl.String})


def disputes(database: Path, event_id: str) -> pl.DataFrame:
    """Each disputed deal and its decision, as `paisai log` kept them (who disputed, who
    decided and how), and each table whose two sides reported differently (on `/r`) with the
    report the referee or chief chose."""
    with db.reading(database) as con:
        split = {row[0]: row[1:] for row in db.rows(con, _DISAGREEMENTS, [event_id])}
    rows = []
    for line in oplog.read(database, event_id):
        parts = line.split("\t")
        if len(parts) < 4:
            continue
        if parts[2] in ("deal disputed", "deal decided"):
            rows.append({"时间 time": parts[0],
                         "事项 what": "异议 disputed" if parts[2] == "deal disputed"
                         else "裁定 decided", "详情 detail": _once(parts[3])})
        elif parts[2] == "self-report accepted":
            found = re.match(r"#(\d+)\b", parts[3])
            if found and int(found.group(1)) in split:
                rows.append({"时间 time": parts[0], "事项 what": "桌报分歧 disagreement",
                             "详情 detail": _disagreement(split[int(found.group(1))],
                                                        parts[3])})
    return pl.DataFrame(rows, schema={"时间 time": pl.String, "事项 what": pl.String,
                                      "详情 detail": pl.String})


# A report accepted where the table's other side had reported differently: the chosen one and
# what each side said (the other's report is rejected when the table is decided).
_DISAGREEMENTS = """
    select a.report_id, a.round, a.table_no, a.side, a.ew_level, a.ns_level, a.decider,
           o.ew_level, o.ns_level, o.decider
    from pending_reports a join pending_reports o
      on o.event_id = a.event_id and o.round = a.round and o.table_no = a.table_no
     and o.side is not null and a.side is not null and o.side <> a.side
     and o.status = 'rejected' and o.note like '裁判已裁定%'
    where a.event_id = ? and a.status = 'accepted'
      and (a.ew_level, a.ns_level, coalesce(a.decider, ''))
          <> (o.ew_level, o.ns_level, coalesce(o.decider, ''))"""


def _disagreement(found: tuple, logged: str) -> str:
    """`第 1 轮 3 号桌：东西报 K – 5，南北报 Q – 5；按东西所报保存 · 由 by 裁判长`."""
    round_no, table_no, side, ew, ns, decider, other_ew, other_ns, other_decider = found
    other = "ns" if side == "ew" else "ew"
    said = {side: (ew, ns, decider), other: (other_ew, other_ns, other_decider)}

    def told(key: str) -> str:
        e, n, d = said[key]
        mark = f"（平级：{SIDE_WORDS.get(d, d)}）" if d else ""
        return f"{SIDE_WORDS[key]}报 {format_level(e)} – {format_level(n)}{mark}"

    who = logged.split("由 by", 1)[1].strip() if "由 by" in logged else ""
    return (f"第 {round_no} 轮 {table_no} 号桌：{told('ew')}，{told('ns')}；"
            f"按{SIDE_WORDS[side]}所报保存 kept the {side.upper()} report"
            + (f" · 由 by {who}" if who else ""))


def _once(detail: str) -> str:
    """A decision logged before the fix named its official twice (`, by X · 由 by X`):
    once is enough."""
    found = re.search(r", by (.+?) · 由 by (.+)$", detail)
    if found and found.group(1).startswith(found.group(2)):
        return detail[:found.start()] + f" · 由 by {found.group(1)}"
    return detail


def write(database: Path, event_id: str, path: Path) -> int:
    """The report as .xlsx (a sheet a section) or .html (printable); returns the rows."""
    from pipeline.publishing.export.workbook import new_workbook, write_sheet

    name, parts = sections(database, event_id)
    parts = {**parts, "派生 derived": derived(database, event_id),
             "异议 disputes": disputes(database, event_id)}
    if path.suffix.lower() == ".xlsx":
        book = new_workbook(path)
        for title, frame in parts.items():
            write_sheet(book, title.split()[0], frame, frame.columns)
        book.close()
    else:
        path.write_text(page(name, parts), encoding="utf-8")
    return sum(f.height for f in parts.values())


def page(name: str, parts: dict[str, pl.DataFrame]) -> str:
    from pipeline.publishing.templating import render

    return render("officials_report.html", event_name=name, parts=[
        (title, frame.columns, [["" if v is None else v for v in row]
                                for row in frame.iter_rows()])
        for title, frame in parts.items()])
