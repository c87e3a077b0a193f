"""Printing frames for people (aligned tables, Chinese headers) and for programs (CSV, JSON).

CSV cells that a spreadsheet would run as a formula (=, +, -, @ first) are quoted with a
leading apostrophe, so a team name can never inject a formula.
"""

from __future__ import annotations

import csv
import io
import json
import math
import unicodedata

import polars as pl

from pipeline.errors import PROBLEM_COLUMNS, SheetErrors

HEADERS_ZH = {
    "rank": "名次",
    "team_no": "队号",
    "team_name": "队名",
    "played": "场次",
    "wins": "胜",
    "draws": "平",
    "losses": "负",
    "match_points": "积分",
    "level_diff_score": "级差分",
    "levels": "升级数",
    "net_levels": "净胜级",
    "round": "轮次",
    "table": "桌号",
    "ew_team": "东西",
    "ew_name": "东西队名",
    "ns_name": "南北队名",
    "ns_team": "南北",
    "reported": "已报桌数",
    "expected": "应报桌数",
    "status": "状态",
    "event_id": "赛事编号",
    "name": "名称",
    "ruleset": "规则",
    "event_date": "日期",
    "teams": "队数",
    "rounds": "轮数",
    "description": "说明",
    "player1": "队员1",
    "player2": "队员2",
    "affiliation": "单位",
    "award": "奖项",
    "player_id": "选手编号",
    "affiliations": "单位",
    "events": "赛事数",
    "event_ids": "赛事",
    "likely_duplicates": "可能重复",
    "games": "场数",
    "best_rank": "最好名次",
    "field_size": "参赛队数",
    "event_name": "赛事名称",
    "partner": "搭档",
    "partner_id": "搭档编号",
    "avg_level_diff": "平均级差",
    "level_diffs": "级差分布",
    "upset_share": "爆冷比例",
    "ordinal": "评分",
    "placement_points": "名次分",
    "forfeit_deductions": "弃权扣分",
    "deduction": "扣分",
    "tables": "桌数",
    "total": "总分",
}

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def display_width(text: str) -> int:
    """Columns a string takes in a terminal (CJK characters take two).

    >>> display_width("级差分"), display_width("A1")
    (6, 2)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * (width - display_width(text))
    return fill + text if right else text + fill


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value)


def table(frame: pl.DataFrame, title: str | None = None) -> str:
    headers = [HEADERS_ZH.get(c, c) for c in frame.columns]
    numeric = [dtype.is_numeric() for dtype in frame.dtypes]
    body = [[_cell(v) for v in row] for row in frame.iter_rows()]
    widths = [max([display_width(h)] + [display_width(r[i]) for r in body])
              for i, h in enumerate(headers)]
    lines = [title] if title else []
    lines.append("  ".join(_pad(h, w, n) for h, w, n in zip(headers, widths, numeric, strict=True)))
    lines.append("  ".join("-" * w for w in widths))
    for row in body:
        lines.append("  ".join(_pad(v, w, n) for v, w, n in zip(row, widths, numeric, strict=True)))
    return "\n".join(lines)


def safe_text(value: object) -> object:
    """A text cell made safe from spreadsheet formula injection.

    >>> safe_text("=1+1"), safe_text("A1"), safe_text(-3)
    ("'=1+1", 'A1', -3)
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def to_csv(frame: pl.DataFrame) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(frame.columns)
    for row in frame.iter_rows():
        writer.writerow([_cell(safe_text(v)) for v in row])
    return out.getvalue()


def _json_value(value: object) -> object:
    """JSON has no NaN or Infinity: a non-finite number is written as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(frame: pl.DataFrame) -> str:
    rows = [{k: _json_value(v) for k, v in row.items()} for row in frame.to_dicts()]
    return json.dumps(rows, ensure_ascii=False, indent=2, default=str, allow_nan=False)


def problem_report(errors: SheetErrors) -> str:
    """A file's problems as a table for people, with the count of those not listed."""
    lines = [table(errors.frame().rename(PROBLEM_COLUMNS))]
    if errors.more:
        lines.append(errors.more_line())
    return "\n".join(lines)


def render(frame: pl.DataFrame, fmt: str, title: str | None = None) -> str:
    if fmt == "csv":
        return to_csv(frame)
    if fmt == "json":
        return to_json(frame) + "\n"
    return table(frame, title) + "\n"
