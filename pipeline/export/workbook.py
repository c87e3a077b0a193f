"""Writing xlsx files safely: every text cell is written as text, never as a formula."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import xlsxwriter


def new_workbook(path: Path) -> xlsxwriter.Workbook:
    return xlsxwriter.Workbook(str(path), {"strings_to_formulas": False,
                                           "strings_to_numbers": False,
                                           "strings_to_urls": False})


def write_sheet(
    book: xlsxwriter.Workbook, name: str, frame: pl.DataFrame, headers: list[str],
    title: str | None = None,
) -> None:
    """A sheet with an optional merged title row, bold headers and the frame's rows."""
    sheet = book.add_worksheet(name)
    bold = book.add_format({"bold": True, "border": 1, "align": "center"})
    cell = book.add_format({"border": 1})
    big = book.add_format({"bold": True, "font_size": 14, "align": "center"})
    row = 0
    if title:
        sheet.merge_range(0, 0, 0, max(len(headers) - 1, 1), title, big)
        row = 1
    for col, header in enumerate(headers):
        sheet.write_string(row, col, header, bold)
        sheet.set_column(col, col, max(8, 2 * len(header) + 2))
    for values in frame.iter_rows():
        row += 1
        for col, value in enumerate(values):
            if value is None:
                sheet.write_blank(row, col, None, cell)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                sheet.write_number(row, col, value, cell)
            else:
                sheet.write_string(row, col, str(value), cell)
    sheet.freeze_panes(row - frame.height + 1 if frame.height else row + 1, 0)
