"""The blank score sheet of a round, pre-filled so that what comes back is what ingest reads."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.base.errors import UsageError
from pipeline.intake.sheets.headers import ALIASES
from pipeline.publishing.export.template import LEVELS, SIDES
from pipeline.publishing.export.workbook import new_workbook, write_notes, write_sheet

COLUMNS = ["round", "table", "ew_team", "ns_team", "ew_level", "ns_level", "deals", "forfeit",
           "note"]
HEADERS = [ALIASES["results"][c][0] for c in COLUMNS]
# for the people at the table: names to check and the signatures (ingest does not read them)
NAMES = ["东西队名", "南北队名"]
SIGNATURES = ["东西签名", "南北签名"]
CHOICES = {"ew_level": LEVELS, "ns_level": LEVELS, "forfeit": SIDES}


def export_scoresheet(pairs: pl.DataFrame, title: str, out: Path,
                      equal_levels: str = "draw") -> None:
    """One row per table: the round, table and teams filled in (names beside them for the
    players to check), the levels and forfeit to fill from drop-down lists — and, where the
    preset decides equal levels by a side (`equal_levels`; seed 001: 末副上游方), that side's
    column — a signature for each side. Rows left empty are skipped when the sheet comes
    back."""
    from pipeline.base.settings import EQUAL_LEVELS_DECIDERS

    if out.suffix.lower() != ".xlsx":
        raise UsageError("成绩登记表应导出为 .xlsx the score sheet is exported as .xlsx")
    decider = EQUAL_LEVELS_DECIDERS.get(equal_levels)
    columns = COLUMNS[:6] + ([decider[0]] if decider else []) + COLUMNS[6:]
    tables = pairs.filter(pl.col("ns_team").is_not_null()).select(
        "round", "table", "ew_team", "ns_team",
        *(pl.lit(None, pl.String).alias(c) for c in columns[4:]),
        pl.col("ew_name").alias(NAMES[0]), pl.col("ns_name").alias(NAMES[1]),
        *(pl.lit(None, pl.String).alias(c) for c in SIGNATURES),
    )
    choices = {**CHOICES, **({decider[0]: SIDES} if decider else {})}
    book = new_workbook(out)
    write_sheet(book, "成绩登记", tables,
                [ALIASES["results"][c][0] for c in columns] + NAMES + SIGNATURES, title,
                {columns.index(c): values for c, values in choices.items()})
    said = ([f"双方级数相同时，{decider[1].split('（')[0]}一栏填 东西 或 南北（本赛事以它定胜负）。",
             f"When both levels are equal, fill in {decider[2]} (东西 or 南北): it decides "
             "the game."] if decider else [])
    write_notes(book, "填写说明", [
        "级数填写 2…10、J、Q、K、A 或 过A（可从下拉列表选）；弃权一栏填 东西 或 南北（弃权的一方）。",
        "Levels: 2…10, J, Q, K, A or 过A (drop-down lists); forfeit: the side that forfeited.",
        *said,
        "副数可不填；填写时用于核对级数是否可能。未填的桌上传时跳过，可以分几次上传。",
        "Tables left empty are skipped on upload: the sheet may come back in parts.",
    ])
    book.close()
