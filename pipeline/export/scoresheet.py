"""The blank score sheet of a round, pre-filled so that what comes back is what ingest reads."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.errors import UsageError
from pipeline.export.workbook import new_workbook, write_notes, write_sheet
from pipeline.sheets.headers import ALIASES

COLUMNS = ["round", "table", "ew_team", "ns_team", "ew_level", "ns_level", "deals", "forfeit",
           "note"]
HEADERS = [ALIASES["results"][c][0] for c in COLUMNS]


def export_scoresheet(pairs: pl.DataFrame, title: str, out: Path) -> None:
    if out.suffix.lower() != ".xlsx":
        raise UsageError("成绩登记表应导出为 .xlsx the score sheet is exported as .xlsx")
    tables = pairs.filter(pl.col("ns_team").is_not_null()).select(
        "round", "table", "ew_team", "ns_team",
        *(pl.lit(None, pl.String).alias(c) for c in COLUMNS[4:]),
    )
    book = new_workbook(out)
    write_sheet(book, "成绩登记", tables, HEADERS, title)
    write_notes(book, "填写说明", [
        "级数填写 2…10、J、Q、K、A 或 过A；弃权一栏填 东西 或 南北（弃权的一方）。",
        "Levels: 2…10, J, Q, K, A or 过A; forfeit: the side that forfeited (东西/南北).",
        "副数可不填；填写时用于核对级数是否可能。",
    ])
    book.close()
