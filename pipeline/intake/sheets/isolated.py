"""Workbooks whose sheet sizes cannot be read before calamine builds them (.xls, .xlsb, .ods)
are opened in a child process with a memory limit, so that no file can take the dashboard
or `paisai watch` down with it: a child that dies is a refused file.

The child (`python -m pipeline.intake.sheets.isolated`) reads the workbook's bytes from stdin and
writes, pickled, one `(name, visible, rows | None, problem | None)` per sheet, where a
problem is `("size", rows, columns)` or `("error", text)`.
"""

from __future__ import annotations

import pickle
import subprocess
import sys

MEMORY_LIMIT = 3 * 1024**3
TIME_LIMIT = 120


def _limit_memory() -> None:  # runs in the child, before it starts
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def read_sheets(data: bytes, max_cells: int) -> list[tuple[str, bool, list | None, tuple | None]]:
    """Every sheet of a workbook read in a child process; raises ValueError with the reason
    when the child could not read it."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pipeline.intake.sheets.isolated", str(max_cells)], input=data,
            capture_output=True, timeout=TIME_LIMIT, preexec_fn=_limit_memory, check=False)
    except subprocess.TimeoutExpired:
        raise ValueError(f"读取超过 {TIME_LIMIT} 秒 reading took more than {TIME_LIMIT} s") \
            from None
    if done.returncode != 0 or not done.stdout:
        raise ValueError("工作簿过大或已损坏，读取时用尽了内存 the workbook is too large or "
                         "damaged: reading it ran out of memory")
    found = pickle.loads(done.stdout)
    if isinstance(found, str):
        raise ValueError(found)
    return found


def _child(max_cells: int) -> None:
    from python_calamine import CalamineWorkbook, SheetVisibleEnum

    data = sys.stdin.buffer.read()
    try:
        import io

        workbook = CalamineWorkbook.from_filelike(io.BytesIO(data))
        sheets = []
        for meta in workbook.sheets_metadata:  # hidden sheets too: to say where data hides
            visible = meta.visible == SheetVisibleEnum.Visible
            try:
                sheet = workbook.get_sheet_by_name(meta.name)
            except Exception as exc:  # calamine's own limits (e.g. its cell limit for .ods)
                sheets.append((meta.name, visible, None, ("error", str(exc))))
                continue
            if sheet.height * sheet.width > max_cells:
                sheets.append((meta.name, visible, None, ("size", sheet.height, sheet.width)))
                continue
            sheets.append((meta.name, visible, sheet.to_python(skip_empty_area=False), None))
        result: object = sheets
    except Exception as exc:
        result = str(exc)
    sys.stdout.buffer.write(pickle.dumps(result))


if __name__ == "__main__":
    _child(int(sys.argv[1]))
