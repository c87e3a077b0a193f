"""Errors the user can act on. The CLI turns them into exit codes without a traceback."""

from __future__ import annotations

import errno
from dataclasses import dataclass

import polars as pl


class PaisaiError(Exception):
    """A failure with a message for the user (exit code 1)."""

    exit_code = 1


class UsageError(PaisaiError):
    """Invalid input given on the command line or in a ruleset (exit code 2)."""

    exit_code = 2


class RoundIncomplete(UsageError):
    """The next round asked for while the last one has tables without a result: the round,
    how many are reported, and the missing tables' numbers (ranges past a dozen), so that a
    page can say its own remedy (the console's checkbox) where the CLI says --force."""

    def __init__(self, round_no: int, reported: int, expected: int, missing: list[str]):
        self.round_no, self.reported, self.expected, self.missing = (
            round_no, reported, expected, missing)
        which = ", ".join(missing)
        super().__init__(
            f"第 {round_no} 轮只报了 {reported}/{expected} 桌"
            + (f"（未报：第 {'、'.join(missing)} 桌）" if missing else "")
            + f"，加 --force 仍可编排 round {round_no} has {reported}/{expected} tables "
            + f"reported{f' (missing: tables {which})' if missing else ''}; use --force to "
            + "pair anyway")


class BusyError(PaisaiError):
    """Another process holds the database file (an import, a restore, a backup, a DuckDB
    shell): nothing is wrong, the same request succeeds a little later. Its message names
    the file and the holder for the organizer's terminal; the hall's pages and the API
    answer "busy, try again" in their own words (never a path or a process)."""

    exit_code = 1
    retry_after = 5  # seconds a page or a program is told to wait before asking again


# What the disk said, as the operating system or DuckDB words it → what to tell the organizer
_DISK_PROBLEMS = [
    ((errno.ENOSPC, errno.EDQUOT), ("No space left on device", "Disk quota exceeded"),
     "磁盘已满 the disk is full: 请腾出空间后再试 free some space and try again"),
    ((errno.EROFS,), ("Read-only file system",),
     "磁盘或文件夹是只读的 the disk or folder is read-only: 请换一个可写的位置 use a writable place "
     "(--db / --out)"),
    ((errno.EACCES, errno.EPERM), ("Permission denied", "Operation not permitted"),
     "没有写入权限 no permission to write there: 请换一个位置或让管理员授权 use another place or ask "
     "for the permission"),
]


def disk_problem(exc: BaseException) -> str | None:
    """The plain words for a full, read-only or forbidden disk behind `exc` (an OSError or a
    DuckDB error quoting one), else None.

    >>> disk_problem(OSError(28, "No space left on device"))[:4]
    '磁盘已满'
    >>> disk_problem(ValueError("x")) is None
    True
    """
    text = str(exc)
    for numbers, words, message in _DISK_PROBLEMS:
        if (isinstance(exc, OSError) and exc.errno in numbers) or any(w in text for w in words):
            return message
    return None


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


REPORT_LIMIT = 200


class SheetErrors(PaisaiError):
    """A file with errors: nothing from it is stored (exit code 2).

    The report names the first REPORT_LIMIT problems; the rest are counted by column
    (`more`), never all built or printed: a 19 MB sheet of bad cells gets a readable report.
    """

    exit_code = 2

    def __init__(self, problems: list[Problem], more: dict[str, int] | None = None):
        counts = dict(more or {})
        for problem in problems[REPORT_LIMIT:]:
            counts[problem.column] = counts.get(problem.column, 0) + 1
        self.problems = problems[:REPORT_LIMIT]
        self.more = {column: n for column, n in counts.items() if n}
        self.total = len(self.problems) + sum(self.more.values())
        super().__init__(f"{self.total} 处错误 error(s)")

    def more_line(self) -> str:
        """'… N more, by column: …' when the report was cut, else ''."""
        if not self.more:
            return ""
        by_column = "; ".join(f"{column or '—'} {n}" for column, n in
                              sorted(self.more.items(), key=lambda item: -item[1]))
        return (f"… 另有 {sum(self.more.values())} 处错误未列出 {sum(self.more.values())} more "
                f"not listed, by column 按列: {by_column}")

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
