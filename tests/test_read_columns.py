"""A sheet's rows become text columns in one transposition (issue 53: `read._columns`, no
Python pass per cell): every cell as the cell-by-cell reading gave it — stripped, empty as
null, a workbook's numbers, dates and booleans as their text, a short row's missing cells
empty — and a CSV read through the real entry point keeps its rows and numbers."""

from __future__ import annotations

import datetime as dt

from conftest import RESULT_HEADER, read_csv_output, write_csv

from pipeline.intake.sheets.read import _cell_text, _columns


def _one_by_one(rows: list[list[object]], position: int) -> list[str | None]:
    """The reading cell by cell, as it was."""
    cells = [r[position] if position < len(r) else None for r in rows]
    texts = [c if type(c) is str else _cell_text(c) for c in cells]
    return [t.strip() or None if t is not None else None for t in texts]


def test_columns_are_the_cells_one_by_one():
    rows = [
        [" A1 ", 1.0, dt.datetime(2026, 5, 1, 9, 30), True, None, dt.time(1, 2)],
        ["A2", 2.5, "文本", False],
        ["", 3, None, None, " z ", dt.timedelta(seconds=5)],
        [],
        ["\u3000A3\u3000", "10", "过A"],
    ]
    positions = [0, 1, 2, 3, 4, 5, 8]
    got = [column.to_list() for column in _columns(rows, positions)]
    assert got == [_one_by_one(rows, p) for p in positions]
    assert got[0] == ["A1", "A2", None, None, "A3"]
    assert got[1] == ["1", "2.5", "3", None, "10"]
    assert _columns([], [0, 2])[1].to_list() == []


def test_a_csv_round_keeps_its_rows(cli, event16, tmp_path):
    rows = [[1, t, f"A{2 * t - 1}", f"A{2 * t}", " 10 ", "8"] for t in range(1, 9)]
    sheet = write_csv(tmp_path / "r1.csv", [RESULT_HEADER, rows[0], [], *rows[1:]])
    assert cli("ingest", "--event", event16, sheet).code == 0
    ranked = read_csv_output(cli("standings", "--event", event16, "--format", "csv").out)
    assert {r["team_no"]: r["levels"] for r in ranked}["A1"] == "10"
    assert sum(int(r["played"]) for r in ranked) == 16
