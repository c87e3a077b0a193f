"""Errors the user can act on. The CLI turns them into exit codes without a traceback."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


class PaisaiError(Exception):
    """A failure with a message for the user (exit code 1)."""

    exit_code = 1


class UsageError(PaisaiError):
    """Invalid input given on the command line or in a ruleset (exit code 2)."""

    exit_code = 2


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a sheet, where the organizer can find and fix it."""

    file: str
    sheet: str
    row: int | None
    column: str
    value: str
    message: str


PROBLEM_COLUMNS = {
    "file": "文件 file",
    "sheet": "工作表 sheet",
    "row": "行 row",
    "column": "列 column",
    "value": "值 value",
    "message": "问题 problem",
}


class SheetErrors(PaisaiError):
    """A file with errors: nothing from it is stored (exit code 2)."""

    exit_code = 2

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__(f"{len(problems)} 处错误 error(s)")

    @classmethod
    def single(cls, file: str, message: str, sheet: str = "") -> SheetErrors:
        return cls([Problem(file, sheet, None, "", "", message)])

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(
            [p.__dict__ for p in self.problems],
            schema={
                "file": pl.String,
                "sheet": pl.String,
                "row": pl.Int64,
                "column": pl.String,
                "value": pl.String,
                "message": pl.String,
            },
        )
