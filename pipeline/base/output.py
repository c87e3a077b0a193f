"""Printing frames for people (aligned tables, Chinese headers) and for programs (CSV, JSON).

CSV cells that a spreadsheet would run as a formula (=, +, -, @ first) are quoted with a
leading apostrophe, so a team name can never inject a formula.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import sys
import unicodedata

import polars as pl

from pipeline.base.errors import PROBLEM_COLUMNS, SheetErrors

HEADERS_ZH = {
    "opponent": "对手",
    "outcome": "胜负",
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
    "game_diff": "净胜局",
    "level_diff": "级差",
    "round": "轮次",
    "table": "桌号",
    "table_no": "桌号",
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
    "ew_rating": "东西评分",
    "ns_rating": "南北评分",
    "ew_win_probability": "东西胜率",
    "rating": "评分",
    "last_played": "最近比赛",
    "change": "变化",
    "provisional": "暂定",
    "inactive": "不活跃",
    "current_unit": "现单位",
    "review": "待核对",
    "win_share": "胜率",
    "players": "选手数",
    "returning": "老选手",
    "newcomers": "新选手",
    "field_strength": "平均评分",
    "podium": "前三名",
    "placement_points": "名次分",
    "forfeit_deductions": "弃权扣分",
    "deduction": "扣分",
    "tables": "桌数",
    "total": "总分",
    "quiz_score": "测试题得分",
    "quiz_seconds": "答题用时",
    "head_to_head": "相互胜负",
    "vp": "换算积分",
    "level_points": "牌级积分",
    "levels_gained": "累积小分",
    "buchholz": "对手分",
    "buchholz_cut1": "对手分去最低",
    "median_buchholz": "中间对手分",
    "sonneborn_berger": "索伯分",
    "opponents_level_diff": "对手级差分",
    "progressive": "累进分",
    "games_won": "胜局数",
    "lot": "抽签",
    "carried_points": "带入积分",
    "upload_id": "编号",
    "received_at": "收到时间",
    "file_name": "文件",
    "source": "来源",
    "message": "说明",
    "size_bytes": "字节",
    "sha256": "内容指纹",
    "note": "备注",
    "missing": "未报桌号",
}

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def display_width(text: str) -> int:
    """Columns a string takes in a terminal (CJK characters take two).

    >>> display_width("级差分"), display_width("A1")
    (6, 2)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def cell_text(value: object) -> str:
    """A value as a table cell shows it: whole floats without .0, nothing for null."""
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value)


# a table for people off a terminal is this wide when it may wrap (stderr's reports)
PLAIN_WIDTH = 100


ANSI = {"bold": "1", "dim": "2", "green": "32", "bold green": "1;32"}  # row styles shown
GAP = "  "  # between columns
NARROWEST = 4  # a column wrapped to fit the width keeps at least this many columns


def _fold(text: str, width: int) -> list[str]:
    """A cell's text as lines of at most `width` display columns (its own line breaks kept).

    >>> _fold("掼蛋比赛ab", 4), _fold("a\\nbc", 9)
    (['掼蛋', '比赛', 'ab'], ['a', 'bc'])
    """
    lines = []
    for part in text.split("\n"):
        line, used = "", 0
        for ch in part:
            w = display_width(ch)
            if used + w > width and line:
                lines.append(line)
                line, used = "", 0
            line += ch
            used += w
        lines.append(line)
    return lines


def _pad(text: str, width: int, right: bool) -> str:
    space = " " * (width - display_width(text))
    return space + text if right else text + space


def table(frame: pl.DataFrame, title: str | None = None,
          row_styles: list[str | None] | None = None, stream=None) -> str:
    """A frame as an aligned table for people: a header, a rule, one line per row (CJK
    characters count double, numbers to the right). A row's style ("dim" for a withdrawn
    team, "bold green" for the leader) and the bold header show on a terminal, never with
    NO_COLOR. A table for stderr (`stream=sys.stderr`: reports of problems) wraps long
    cells at the terminal's width, or at PLAIN_WIDTH columns off a terminal; one for stdout
    wraps at a terminal's width and is never wrapped off a terminal (a pipe reads whole
    rows)."""
    if not frame.columns:
        return title or ""
    target = stream or sys.stdout
    terminal = target.isatty()
    styled = terminal and not os.environ.get("NO_COLOR")
    limit = shutil.get_terminal_size().columns if terminal else (
        PLAIN_WIDTH if stream is not None else None)
    headers = [HEADERS_ZH.get(c, c) for c in frame.columns]
    right = [dtype.is_numeric() for dtype in frame.dtypes]
    cells = [[cell_text(v) for v in row] for row in frame.iter_rows()]
    widths = [max([display_width(h)] + [max(map(display_width, (row[i] or "").split("\n")))
                                          for row in cells]) for i, h in enumerate(headers)]
    if limit:  # narrow the widest columns until the table fits
        while sum(widths) + len(GAP) * (len(widths) - 1) > limit and max(widths) > NARROWEST:
            widths[widths.index(max(widths))] -= 1

    def lines_of(row: list[str], style: str | None) -> list[str]:
        folded = [_fold(text, w) for text, w in zip(row, widths, strict=True)]
        shown = []
        for k in range(max(map(len, folded))):
            line = GAP.join(_pad(f[k] if k < len(f) else "", w, r)
                            for f, w, r in zip(folded, widths, right, strict=True)).rstrip()
            code = ANSI.get(style or "") if styled else None
            shown.append(f"\x1b[{code}m{line}\x1b[0m" if code and line else line)
        return shown

    out = [title] if title else []
    out += lines_of(headers, "bold")
    out.append("─" * (sum(widths) + len(GAP) * (len(widths) - 1)))
    for row, style in zip(cells, row_styles or [None] * len(cells), strict=True):
        out += lines_of(row, style)
    return "\n".join(out)


def safe_text(value: object) -> object:
    """A text cell made safe from spreadsheet formula injection.

    >>> safe_text("=1+1"), safe_text("A1"), safe_text(-3)
    ("'=1+1", 'A1', -3)
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _csv_text(name: str, dtype: pl.DataType) -> pl.Expr:
    """A column as `cell_text(safe_text(value))` writes each value, column-wise where the
    type allows (text, whole numbers, booleans), value by value otherwise."""
    value = pl.col(name)
    if dtype == pl.String:
        risky = pl.any_horizontal(value.str.starts_with(s) for s in FORMULA_START)
        return pl.when(value == "").then(None).when(risky).then(pl.lit("'") + value) \
            .otherwise(value)
    if dtype.is_integer():
        return value.cast(pl.String)
    if dtype == pl.Boolean:
        return value.replace_strict({True: "True", False: "False"}, return_dtype=pl.String)
    if dtype == pl.Null:
        return value.cast(pl.String)
    if dtype.is_nested():
        return value.map_elements(lambda v: cell_text(v.to_list()), return_dtype=pl.String,
                                  skip_nulls=True)
    return value.map_elements(lambda v: cell_text(safe_text(v)), return_dtype=pl.String,
                              skip_nulls=True)


def to_csv(frame: pl.DataFrame) -> str:
    """The frame as CSV for programs: the columns' code names, values as stored, text that
    a spreadsheet would take for a formula quoted with ' (see `safe_text`), nothing for a
    null; quoted only where needed. Built column-wise (100,000 rows in a blink)."""
    if not frame.columns:
        return "\n"
    if not frame.height:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(frame.columns)
        return out.getvalue()
    texts = frame.select(_csv_text(name, dtype).alias(name)
                         for name, dtype in frame.schema.items())
    return texts.write_csv(null_value="", quote_style="necessary", line_terminator="\n")


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
    lines = [table(errors.frame().rename(PROBLEM_COLUMNS), stream=sys.stderr)]
    if errors.more:
        lines.append(errors.more_line())
    return "\n".join(lines)


STATUS_ZH = {"active": "正常", "withdrawn": "退赛", "absent": "缺席", "disqualified": "取消资格",
             "stored": "已保存",
             "rejected": "已拒收"}


def footnotes(frame: pl.DataFrame, column: str, width: int = PLAIN_WIDTH
              ) -> tuple[pl.DataFrame, str]:
    """A table's long notes moved below it: each distinct note numbered once, the column
    keeping its number (注 1), the notes folded to `width` columns — so that no line of the
    table runs hundreds of columns wide.

    >>> f, text = footnotes(pl.DataFrame({"note": ["a long note", "", "a long note"]}), "note")
    >>> f["note"].to_list(), text
    (['注 1', '', '注 1'], '注 1：a long note')
    """
    notes = list(dict.fromkeys(n for n in frame[column].to_list() if n))
    numbered = {n: f"注 {i}" for i, n in enumerate(notes, start=1)}
    text = "\n".join("\n".join(_fold(f"{numbered[n]}：{n}", width)) for n in notes)
    return frame.with_columns(pl.col(column).replace_strict(
        numbered, default="", return_dtype=pl.String)), text


def render(frame: pl.DataFrame, fmt: str, title: str | None = None,
           row_styles: list[str | None] | None = None) -> str:
    """CSV and JSON for programs (code names, values as stored); a table for people."""
    if fmt == "csv":
        return to_csv(frame)
    if fmt == "json":
        return to_json(frame) + "\n"
    if "status" in frame.columns:  # people read 正常 / 退赛 / 缺席
        frame = frame.with_columns(pl.col("status").replace(STATUS_ZH))
    return table(frame, title, row_styles) + "\n"
