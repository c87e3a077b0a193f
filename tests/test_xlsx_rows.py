"""The xlsx sheets' rows are written in bulk (issue 53: polars builds each row's XML and its
CSV writer puts them one after another): every cell as a cell-by-cell writer would write it —
text escaped, characters XML cannot hold left out, leading and trailing spaces kept, empty
and NaN cells empty, numbers as numbers — and read back by openpyxl as the values given."""

from __future__ import annotations

import math
import zipfile

import polars as pl
from openpyxl import load_workbook

from pipeline.publishing.export.workbook import CELL, _rows, _text, new_workbook, write_sheet

FRAME = pl.DataFrame(
    {
        "text": [
            "plain",
            "A&B <1>",
            " 前后空格 ",
            "控制\x01字符",
            None,
            "张三、李四",
            "=HYPERLINK(1)",
        ],
        "spaces": ["a", "b", "c", "d", "e", "f", "g"],
        "number": [1, 2, None, 4, 5, 6, 7],
        "real": [1.5, float("nan"), None, -2.0, 0.0, 3.25, 1e6],
    }
)


def _by_cell(frame: pl.DataFrame, first_row: int) -> bytes:
    """The reference: one Python call per cell."""
    out = []
    for n, row in enumerate(frame.iter_rows(), start=first_row):
        cells = []
        for value in row:
            if value is None or (isinstance(value, float) and math.isnan(value)):
                cells.append(f'<c s="{CELL}"/>')
            elif isinstance(value, int | float):
                cells.append(f'<c s="{CELL}"><v>{pl.Series([value]).cast(pl.String)[0]}</v></c>')
            else:
                text = _text(value)
                opening = '<t xml:space="preserve">' if text.strip() != text else "<t>"
                cells.append(f'<c s="{CELL}" t="inlineStr"><is>{opening}{text}</t></is></c>')
        out.append(f'<row r="{n}">{"".join(cells)}</row>')
    return "".join(out).encode()


def test_rows_in_bulk_are_the_cells_one_by_one():
    assert _rows(FRAME, 3) == _by_cell(FRAME, 3)
    plain = FRAME.select("spaces", "number")  # nothing to escape, no spaces to keep
    assert _rows(plain, 2) == _by_cell(plain, 2)


def test_the_sheet_reads_back_as_written(tmp_path):
    out = tmp_path / "rows.xlsx"
    book = new_workbook(out)
    write_sheet(book, "表", FRAME, ["文本", "空格", "数", "实数"], "标题 & <题>")
    book.close()
    with zipfile.ZipFile(out) as archive:
        assert archive.testzip() is None
    sheet = load_workbook(out)["表"]
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][0] == "标题 & <题>" and rows[1] == ("文本", "空格", "数", "实数")
    assert [r[0] for r in rows[2:]] == [
        "plain",
        "A&B <1>",
        " 前后空格 ",
        "控制字符",
        None,
        "张三、李四",
        "=HYPERLINK(1)",
    ]
    assert [r[2] for r in rows[2:]] == [1, 2, None, 4, 5, 6, 7]
    assert [r[3] for r in rows[2:]] == [1.5, None, None, -2, 0, 3.25, 1e6]
