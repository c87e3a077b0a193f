"""The officials' report (issue 43, what a federation asks for after the event): every record
at the tables, every ruling (proposed, confirmed, changed, rejected, reversed), every leave
and every appeal with its votes — who, when, round, table, team and outcome — as one
spreadsheet (a sheet each) and a printable HTML page."""

from __future__ import annotations

import html
from pathlib import Path

import polars as pl

from pipeline.base import db, events
from pipeline.officials.ladder import RULING_WORDS, WORDS

STATUS_WORDS = {"proposed": "待裁定 proposed", "confirmed": "已裁定 confirmed",
                "rejected": "驳回 rejected", "reversed": "申诉成立已撤销 reversed on appeal",
                "open": "待仲裁 open", "upheld": "申诉成立 upheld",
                "dismissed": "驳回 dismissed", "refused_late": "逾期不受理 refused: late"}


def sections(database: Path, event_id: str) -> tuple[str, dict[str, pl.DataFrame]]:
    """The event's name and the report's four tables, headed in both languages."""
    with db.reading(database) as con:
        name = events.load(con, event_id).name
        q = {"e": event_id, "fmt": "%Y-%m-%d %H:%M:%S"}  # stored in UTC, shown as the hall's
        records = db.frame(con, """
            select strftime(r.recorded_at at time zone 'UTC', $fmt) as "时间 time", r.round as "轮 round",
                   r.table_no as "桌 table", r.team_no as "队 team", r.kind,
                   coalesce(r.minutes::varchar, '') as "分钟 minutes", r.note as "说明 note",
                   coalesce(o.name, '') as "裁判 official"
            from official_records r left join officials o using (official_id)
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


def write(database: Path, event_id: str, path: Path) -> int:
    """The report as .xlsx (a sheet a section) or .html (printable); returns the rows."""
    name, parts = sections(database, event_id)
    if path.suffix.lower() == ".xlsx":
        import xlsxwriter

        book = xlsxwriter.Workbook(str(path))
        try:
            for title, frame in parts.items():
                frame.write_excel(book, worksheet=title.split()[0], autofit=True,
                                  header_format={"bold": True})
        finally:
            book.close()
    else:
        path.write_text(page(name, parts), encoding="utf-8")
    return sum(f.height for f in parts.values())


def page(name: str, parts: dict[str, pl.DataFrame]) -> str:
    body = []
    for title, frame in parts.items():
        head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
        rows = "".join("<tr>" + "".join(f"<td>{html.escape('' if v is None else str(v))}</td>"
                                        for v in row) + "</tr>" for row in frame.iter_rows())
        empty = "" if frame.height else "<p>（无 none）</p>"
        body.append(f"<h2>{html.escape(title)}</h2>{empty}<table><thead><tr>{head}</tr></thead>"
                    f"<tbody>{rows}</tbody></table>")
    return ("<!doctype html><html lang='zh-CN'><head><meta charset='utf-8'><title>"
            f"{html.escape(name)} — 裁判报告 officials' report</title><style>"
            "body{font-family:'Noto Sans CJK SC',sans-serif;margin:2em}"
            "table{border-collapse:collapse;margin-bottom:1.5em;font-size:13px}"
            "td,th{border:1px solid #999;padding:3px 6px;text-align:left}"
            "th{background:#eee}@media print{h2{break-before:auto}}</style></head><body>"
            f"<h1>{html.escape(name)} — 裁判报告 officials' report</h1>{''.join(body)}"
            "</body></html>")
