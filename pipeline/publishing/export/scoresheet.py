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


def export_scoresheet(pairs: pl.DataFrame, title: str, out: Path) -> None:
    """One row per table: the round, table and teams filled in (names beside them for the
    players to check), the levels and forfeit to fill from drop-down lists, a signature
    for each side. Rows left empty are skipped when the sheet comes back."""
    if out.suffix.lower() != ".xlsx":
        raise UsageError("成绩登记表应导出为 .xlsx the score sheet is exported as .xlsx")
    tables = pairs.filter(pl.col("ns_team").is_not_null()).select(
        "round", "table", "ew_team", "ns_team",
        *(pl.lit(None, pl.String).alias(c) for c in COLUMNS[4:]),
        pl.col("ew_name").alias(NAMES[0]), pl.col("ns_name").alias(NAMES[1]),
        *(pl.lit(None, pl.String).alias(c) for c in SIGNATURES),
    )
    book = new_workbook(out)
    write_sheet(book, "成绩登记", tables, HEADERS + NAMES + SIGNATURES, title,
                {COLUMNS.index(c): values for c, values in CHOICES.items()})
    write_notes(book, "填写说明", [
        "级数填写 2…10、J、Q、K、A 或 过A（可从下拉列表选）；弃权一栏填 东西 或 南北（弃权的一方）。",
        "Levels: 2…10, J, Q, K, A or 过A (drop-down lists); forfeit: the side that forfeited.",
        "副数可不填；填写时用于核对级数是否可能。未填的桌上传时跳过，可以分几次上传。",
        "Tables left empty are skipped on upload: the sheet may come back in parts.",
    ])
    book.close()
