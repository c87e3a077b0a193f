"""Validation: raw sheets → typed frames, or every problem of the file at once.

This is the orchestration only: each kind's cell rules are `schemas.cells` (a clean sheet is
found clean in one polars query; pandera, imported then, names every failure of any other);
its casts and row-spanning checks are in `pipeline/intake/sheets/kinds/`. Each problem
names file, sheet, spreadsheet row, column as written.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipeline.base.errors import REPORT_LIMIT, Problem
from pipeline.intake.sheets.headers import ALIASES
from pipeline.intake.sheets.kinds import KINDS
from pipeline.intake.sheets.kinds.base import FILE, SHEET, EventContext, Where
from pipeline.intake.sheets.read import ROW, RawSheet
from schemas import checks as ck
from schemas.cells import cell_masks, cells_pass


@dataclass
class Checked:
    """Typed rows of one kind from one file, with the problems found."""

    kind: str
    frame: pl.DataFrame
    problems: list[Problem]
    more: dict[str, int]  # failures not built, by column as written (beyond REPORT_LIMIT)


def schema_passes(kind: str, frame: pl.DataFrame) -> bool:
    """True when every cell passes the kind's cell rules (`schemas.cells`), found in one
    polars query without pandera; False sends the sheet to pandera, which names every
    failure."""
    return cells_pass(kind, frame)


def _schema_problems(sheet: RawSheet, frame: pl.DataFrame, where: Where) -> list[Problem]:
    """Every cell failure of a sheet found not clean, named by pandera."""
    from schemas.models import pa, schema, without_pandas  # pandera: only then

    try:
        with without_pandas():
            schema(sheet.kind).validate(frame, lazy=True)
    except pa.errors.SchemaErrors as exc:
        failures = exc.failure_cases
    else:
        return []
    # each column's failures of one check: the first REPORT_LIMIT named, the rest counted
    rank = pl.int_range(pl.len()).over("column", "check")
    for code, n in failures.filter(rank >= REPORT_LIMIT).group_by("column").len().iter_rows():
        where.count_more(code or "", n)
    problems = []
    for case in failures.filter(rank < REPORT_LIMIT).iter_rows(named=True):
        index = case["index"]
        row = int(frame[ROW][index]) if index is not None else None
        code = case["column"] or ""
        written = sheet.written.get(code) or (ALIASES[sheet.kind][code][0] if code in
                                              ALIASES[sheet.kind] else code)
        message = ck.message(str(case["check"]))
        problems.append(Problem(sheet.file, sheet.sheet, row, written,
                                case["failure_case"] or "", message))
    return problems


def _complete(sheet: RawSheet) -> pl.DataFrame:
    """Every column of the kind present (absent optional ones empty)."""
    missing = [c for c in ALIASES[sheet.kind] if c not in sheet.frame.columns]
    return sheet.frame.with_columns(pl.lit(None, pl.String).alias(c) for c in missing)


def _typed(sheet: RawSheet, frame: pl.DataFrame) -> tuple[pl.DataFrame, bool]:
    """Cast text cells (a cell that does not cast becomes null: its problem is listed), and
    whether every cell passes the kind's cell rules (`schemas.cells`): one lazy query, so
    each cell is folded (`checks.normalized`) once for its checks and its cast alike."""
    with ck.plain_columns(frame):
        casts = [*KINDS[sheet.kind].casts(), pl.col(ROW)]
        masks = cell_masks(sheet.kind, frame)
    if masks is None:
        typed, clean = frame.select(casts), False
    else:
        typed = frame.lazy().select(*casts, *masks).collect()
        names = [mask.meta.output_name() for mask in masks]
        clean = not names or bool(typed.select(pl.all_horizontal(names).all()).item())
        typed = typed.drop(names)
    typed = typed.with_columns(pl.lit(sheet.file).alias(FILE), pl.lit(sheet.sheet).alias(SHEET))
    return typed, clean


def check_sheets(sheets: list[RawSheet], context: EventContext) -> Checked:
    """Validate all sheets of one kind from one file together."""
    kind = sheets[0].kind
    where = Where(sheets)
    problems: list[Problem] = []
    typed_frames = []
    for sheet in sheets:
        frame = _complete(sheet)
        typed, clean = _typed(sheet, frame)
        if not clean:
            problems += _schema_problems(sheet, frame, where)
        typed_frames.append(typed)
    typed = pl.concat(typed_frames, how="vertical_relaxed")
    typed, more = KINDS[kind].check(typed, context, where)
    problems += more
    problems.sort(key=lambda p: (p.sheet, p.row or 0, p.column))
    return Checked(kind, typed, problems, where.more)


__all__ = ["Checked", "EventContext", "check_sheets", "schema_passes"]
