"""The ranking and the prize list as workbooks for the organizer's desk."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.base.output import HEADERS_ZH
from pipeline.publishing.export.workbook import new_workbook, write_sheet


def export_frame(frame: pl.DataFrame, title: str, sheet: str, out: Path) -> None:
    book = new_workbook(out)
    write_sheet(book, sheet, frame, [HEADERS_ZH.get(c, c) for c in frame.columns], title)
    book.close()
