"""Blank sheets to fill in (模板): the header row exactly as ingest reads it, a title row with
the event's name, drop-down lists where a cell has few valid values, one example row that
begins with 示例 (ingest skips it), column widths and the header frozen."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.base.errors import UsageError
from pipeline.base.levels import format_level
from pipeline.intake.sheets.headers import ALIASES, KIND_NAMES
from pipeline.publishing.export.workbook import new_workbook, write_sheet

LEVELS = [format_level(v) for v in range(2, 16)]
SIDES = ["东西", "南北"]
CHOICES = {
    "ew_level": LEVELS, "ns_level": LEVELS, "a_level": LEVELS, "b_level": LEVELS,
    "forfeit": SIDES, "first_to_level": SIDES, "last_deal_side": SIDES,
    "winner_side": SIDES, "partner_finish": ["二游", "三游", "下游"],
    "target": ["积分", "级差分", "升级数"], "deal_lost": ["是", "否"], "choice": ["级", "分"],
}
EXAMPLES = {  # one example row per kind (its first cell is marked 示例)
    "entries": {"team_no": "A1", "team_name": "红队", "player1": "赵一", "player2": "钱二",
                "affiliation": "甲商会"},
    "results": {"round": "1", "table": "1", "ew_team": "A1", "ns_team": "A2",
                "ew_level": "K", "ns_level": "9"},
    "deals": {"round": "1", "table": "1", "deal": "1", "winner_side": "东西",
              "partner_finish": "二游", "ew_team": "A1", "ns_team": "A2"},
    "penalties": {"round": "1", "team_no": "A1", "target": "积分", "amount": "1",
                  "reason": "迟到"},
    "quiz": {"team_no": "A1", "quiz_score": "9", "quiz_seconds": "120"},
    "fouls": {"round": "1", "team_no": "A1", "fouls": "1"},
    "matches": {"stage": "A组", "match": "1", "game": "1", "team_a": "T1", "team_b": "T2",
                "a_level": "过A", "b_level": "10"},
    "tractor_deals": {"stage": "A组", "match": "1", "game": "1", "deal": "1",
                      "declarer_team": "T1", "points": "40"},
}
KINDS = list(EXAMPLES)


def unread_columns(ruleset) -> set[str]:
    """Sheet columns the ruleset's rules never read."""
    if ruleset is not None and ruleset.discipline == "tractor" \
            and not ruleset.tractor["trump_bonus"]:
        return {"trump_cards"}
    return set()


def export_template(kind: str, event_name: str, out: Path, rows: int = 200,
                    ruleset=None) -> None:
    """Write the template of one sheet kind (`rows` rows ready for input); with the event's
    `ruleset`, without the columns its rules never read (报主张数 where the notice has no
    trump bonus)."""
    if kind not in EXAMPLES:
        raise UsageError(f"没有这种模板 no template for {kind!r}; 可用 available: "
                         f"{', '.join(KINDS)}")
    if out.suffix.lower() != ".xlsx":
        raise UsageError("模板导出为 .xlsx templates are .xlsx workbooks")
    codes = [c for c in ALIASES[kind] if c not in unread_columns(ruleset)]
    example = dict(EXAMPLES[kind])
    first = codes[0]
    example[first] = f"示例 example: {example.get(first, '')}".strip()
    frame = pl.DataFrame([{c: example.get(c) for c in codes}],
                         schema=dict.fromkeys(codes, pl.String))
    book = new_workbook(out)
    write_sheet(book, KIND_NAMES[kind].split()[0], frame,
                [ALIASES[kind][c][0] for c in codes],
                f"{event_name} — {KIND_NAMES[kind]}（示例行不会导入 the example row is skipped）",
                {i: CHOICES[c] for i, c in enumerate(codes) if c in CHOICES}, rows)
    book.close()
