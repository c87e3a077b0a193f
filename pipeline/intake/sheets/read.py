"""Files → raw sheets: text cells under code-name columns, with the spreadsheet row number.

CSV in UTF-8 (with or without BOM), UTF-16 or GB18030/GBK, separated by commas, semicolons
or tabs; Excel workbooks (.xlsx, .xls, .xlsm) read with calamine. Up to ten title lines may
stand above the header row. Nothing here judges the values: that is validation's job.

About 420 lines, kept whole: CSV and Excel share the header search, the title rows, the
example rows and the sheet's making; the decoding of bytes is `decoding`.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.base.errors import Problem, SheetErrors
from pipeline.intake.sheets import isolated
from pipeline.intake.sheets.decoding import decode, decodings, encoding_changes, utf8_breaks_at
from pipeline.intake.sheets.headers import KIND_NAMES, HeaderMatch, nearest, recognise
from pipeline.intake.sheets.xlsx_scan import SheetScan, scan_workbook

MAX_TITLE_ROWS = 10
EXCEL_SUFFIXES = {".xlsx", ".xlsm", ".xls", ".xlsb", ".ods"}
CSV_SUFFIXES = {".csv", ".txt", ".tsv"}
ROW = "_row"


@dataclass
class RawSheet:
    """One sheet recognised as a kind. `frame` has one String column per code name and `_row`."""

    file: str
    sheet: str
    kind: str
    header_row: int
    written: dict[str, str]
    frame: pl.DataFrame
    ignored: list[str] = field(default_factory=list)  # header cells no column is read from
    unfilled: list[str] = field(default_factory=list)  # tables whose result is not filled in
    warnings: list[str] = field(default_factory=list)  # what to review; nothing is refused

    @property
    def lacks_players(self) -> bool:
        """A registration without any player's name (the organizer confirms it as such)."""
        return self.kind == "entries" and not any(c.startswith("player") for c in self.written)

    def notes(self) -> list[str]:
        """What the organizer should know of this sheet before trusting it: the columns
        not read, and a registration without any player's name."""
        where = f"{self.sheet}: " if self.sheet else ""
        said = []
        if self.ignored:
            said.append(f"{where}未读取的列 columns not read: {'、'.join(self.ignored)}")
        if self.unfilled:
            tables = "、".join(self.unfilled[:30]) + ("…" if len(self.unfilled) > 30 else "")
            said.append(f"{where}第 {tables} 桌未填，已跳过 tables not filled in, skipped: "
                        f"{', '.join(self.unfilled[:30])}")
        said += [f"{where}{warning}" for warning in self.warnings]
        if self.lacks_players:
            said.append(f"{where}报名表没有队员姓名列（队员1、选手一、姓名1…），对阵表与证书上将没有"
                        "队员姓名 the registration has no player column: pairings and "
                        "certificates will show no players")
        return said


@dataclass
class FileRead:
    file: str
    sheets: list[RawSheet] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def notes(self) -> list[str]:
        """The sheets skipped, then each sheet's notes (columns not read, no players)."""
        return self.skipped + [note for sheet in self.sheets for note in sheet.notes()]


def _file_problem(file: str, message: str, sheet: str = "") -> SheetErrors:
    return SheetErrors.single(file, message, sheet)


def _cell_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime | dt.date | dt.time | dt.timedelta):
        return value.isoformat() if hasattr(value, "isoformat") else str(value)
    text = str(value).strip()
    return text or None


def _find_header(rows: list[list[object]], kind: str | None) -> tuple[int, HeaderMatch] | None:
    for index, cells in enumerate(rows[: MAX_TITLE_ROWS + 1]):
        found = recognise(cells, kind)
        if found is not None:
            return index, found
    return None


MAX_UNPACKED = 200 * 1024 * 1024
MAX_TEXT = 200
MAX_CELLS = 5_000_000  # a sheet's used range, rows × columns (10,000 teams use ~100,000)
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # .xls (and encrypted workbooks)


def _is_blank(cells: list[object]) -> bool:
    """A row with nothing in any cell (blank rows are not rows of data)."""
    try:
        return not "".join(cells).strip()  # type: ignore[arg-type]  # text cells: the fast way
    except TypeError:
        return not any(_cell_text(c) for c in cells)


EXAMPLE = "示例"  # a template's example row begins so: it shows how to fill in, and is skipped

# A pre-filled score sheet's row whose result cells are all empty is a table not reported
# yet: skipped and named, never an error (a row half filled in still is one).
RESULT_CELLS = {
    "results": ("ew_level", "ns_level", "forfeit", "first_to_level", "last_deal_side"),
    "results_sides": ("level_a", "level_b", "result_a", "result_b"),
    "results_by_team": ("own_level", "opponent_level", "result"),
}
# sheets paisai writes beside a form for people to read (a score sheet's 填写说明)
NOTES_SHEETS = {"填写说明", "说明", "instructions"}
# columns paisai's own score sheet writes for the people at the table, not data to read
FOR_PEOPLE = {"东西队名", "南北队名", "东西签名", "南北签名", "签名", "裁判签名"}


def _text_of(cell: object) -> str | None:
    """`_cell_text`, the common case (a text cell) first."""
    return (cell.strip() or None) if type(cell) is str else _cell_text(cell)


def _is_example(cells: list[object]) -> bool:
    for cell in cells:
        text = _text_of(cell)
        if text:
            return text.startswith(EXAMPLE)
    return False


def _blank(cells: list[object], position: int) -> bool:
    return position >= len(cells) or not _text_of(cells[position])


def _columns(data_rows: list[list[object]], positions: list[int]) -> list[pl.Series]:
    """The cells at `positions` as text columns: stripped, empty as null. The rows are turned
    into columns once (zip, no Python work per cell: 100,000 teams' sheet has 450,000); a
    column with any cell not text (a workbook's numbers, dates) is converted cell by cell."""
    width = max(positions, default=-1) + 1
    if any(len(r) < width for r in data_rows):  # a short row: its missing cells are empty
        data_rows = [r if len(r) >= width else [*r, *[None] * (width - len(r))]
                     for r in data_rows]
    columns = list(zip(*data_rows, strict=False)) if data_rows else [()] * width
    found = []
    for position in positions:
        cells = columns[position]
        try:
            column = pl.Series(cells, dtype=pl.String, strict=True)
        except (TypeError, ValueError, pl.exceptions.PolarsError):  # not all text
            column = pl.Series([c if type(c) is str else _cell_text(c) for c in cells],
                               dtype=pl.String)
        found.append(column.str.strip_chars().replace("", None))
    return found


def _to_sheet(
    file: str, sheet: str, rows: list[list[object]], index: int, found: HeaderMatch,
    uncalculated: set[tuple[int, int]] = frozenset(),  # type: ignore[assignment]
) -> RawSheet:
    data_rows = rows[index + 1 :]
    formulas = sorted((row, found.written[code]) for code, position in found.positions.items()
                      for row, column in uncalculated if column == position and row > index)
    kept = [offset for offset, cells in enumerate(data_rows)
            if not _is_blank(cells) and not _is_example(cells)]
    data_rows = [data_rows[offset] for offset in kept]
    unfilled: list[str] = []
    result_cells = [found.positions[c] for c in RESULT_CELLS.get(found.kind, ())
                    if c in found.positions]
    if result_cells:
        label = found.positions.get("table")
        filled = [not all(_blank(r, p) for p in result_cells) for r in data_rows]
        unfilled = [_cell_text(r[label]) if label is not None and label < len(r)
                    and _cell_text(r[label]) else f"#{index + 2 + offset}"
                    for r, offset, keep in zip(data_rows, kept, filled, strict=True) if not keep]
        kept = [offset for offset, keep in zip(kept, filled, strict=True) if keep]
        data_rows = [r for r, keep in zip(data_rows, filled, strict=True) if keep]
    codes = list(found.positions)
    columns = _columns(data_rows, [found.positions[code] for code in codes])
    frame = pl.DataFrame(
        {**dict(zip(codes, columns, strict=True)),
         ROW: [index + 2 + offset for offset in kept]},
        schema={**{code: pl.String for code in codes}, ROW: pl.Int64},
    )
    # a data row that repeats the header (a second header row in the middle of the data)
    again = pl.sum_horizontal([(pl.col(c) == found.written[c]).fill_null(False) for c in codes]) >= 2
    repeated = frame.filter(again)[ROW].to_list()
    problems = [(row, -1, Problem(file, sheet, row, "", "",
                                  "表头在数据中又出现了一次，请删除这一行 the header row appears "
                                  "again among the data: delete this row")) for row in repeated]
    if repeated:
        frame = frame.filter(~again)
    for position, code in enumerate(codes):
        for row, text in frame.filter(pl.col(code).str.len_chars() > MAX_TEXT) \
                .select(ROW, code).iter_rows():
            problems.append((row, position, Problem(
                file, sheet, row, found.written[code], text[:20] + "…",
                f"内容过长（超过 {MAX_TEXT} 字） the cell is longer than {MAX_TEXT} characters")))
    problems += [(row + 1, 0, Problem(
        file, sheet, row + 1, written, "",
        "这是 Excel 尚未计算的公式（没有保存计算结果）：请用 Excel 打开并保存后再上传 the cell is a "
        "formula Excel has not calculated: open the file in Excel, save it, and send it again"))
        for row, written in formulas]
    found_problems = [problem for *_, problem in sorted(problems, key=lambda p: p[:2])]
    # a title row has one cell; a header row above the header (merged group names) has several
    two_rows = index > 0 and sum(1 for c in rows[index - 1] if _cell_text(c)) >= 2
    found_problems += [
        Problem(file, sheet, index + 1, found.written[code], "",
                "表头占了两行（合并单元格）：请只留一行表头，每列一个名称，如 东西队号、东西级数 "
                "the header spans two rows (merged cells): keep one header row with one name "
                "per column, e.g. 东西队号" if two_rows else
                f"列重复出现 column appears {len(places)} times")
        for code, places in found.duplicates.items()
    ]
    if frame.is_empty() and not found_problems:
        found_problems.append(Problem(
            file, sheet, index + 1, "", "",
            "还没有填写任何一桌的成绩 no table's result is filled in yet" if unfilled
            else "只有表头，没有数据行 only a header row, no data"))
    if found_problems:
        raise SheetErrors(found_problems)
    used = set(found.positions.values()) | {p for ps in found.duplicates.values() for p in ps}
    ignored = [text for position, cell in enumerate(rows[index])
               if position not in used and (text := _cell_text(cell)) and text not in FOR_PEOPLE]
    return RawSheet(file, sheet, found.kind, index + 1, found.written, frame, ignored,
                    unfilled)


def read_csv(path: Path, data: bytes, kind: str | None) -> FileRead:
    file = path.name
    texts = decodings(data)
    if not texts:
        decode(data, file)  # raises: no encoding fits
    if not texts[0].strip():
        raise _file_problem(file, "文件是空的 the file is empty")
    for text in texts:
        found = _locate_csv(text, kind)
        if found is not None:
            rows, index, header = found
            return FileRead(file, [_to_sheet(file, "", rows, index, header)])
    changed = _encoding_change(data, kind)
    if changed:
        raise _file_problem(file, changed)
    head = list(csv.reader(io.StringIO("\n".join(texts[0].splitlines()[: MAX_TITLE_ROWS + 1])),
                           delimiter=","))
    raise _file_problem(file, _no_header_message(kind, head))


def _encoding_change(data: bytes, kind: str | None) -> str | None:
    """The message for a file whose header reads as UTF-8 and whose later rows do not (a
    UTF-8 header pasted over a GBK sheet), else None."""
    line = utf8_breaks_at(data)
    if line is None or b"\x00" in data:
        return None
    head = data.decode("utf-8-sig", errors="replace")
    return encoding_changes(line) if _locate_csv(head, kind) is not None else None


# csv's default 128 KB field limit is an internal error on a long cell: read it, and let the
# cell checks name it (MAX_TEXT)
csv.field_size_limit(256 * 1024 * 1024)


def _locate_csv(text: str, kind: str | None) -> tuple[list[list[object]], int, HeaderMatch] | None:
    """The rows, the header's index and match; CR, LF and CRLF line ends alike (Excel for
    Mac saves "CSV (Macintosh)" with CR only)."""
    head_text = "\n".join(text.splitlines()[: MAX_TITLE_ROWS + 1])
    for delimiter in (",", "\t", ";"):
        located = _find_header(list(csv.reader(io.StringIO(head_text), delimiter=delimiter)),
                               kind)
        if located is not None:
            return list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)), *located
    return None


def _no_header_message(kind: str | None, rows: list[list[object]] | None = None) -> str:
    wanted = KIND_NAMES[kind] if kind else "、".join(KIND_NAMES.values())
    text = (f"前 {MAX_TITLE_ROWS + 1} 行中找不到表头 no header row found in the first "
            f"{MAX_TITLE_ROWS + 1} rows (expected: {wanted})")
    if rows:
        text += "。" + nearest(rows[: MAX_TITLE_ROWS + 1], kind)
    return text


def read_excel(path: Path, data: bytes, kind: str | None) -> FileRead:
    file = path.name
    _refuse_zip_bomb(file, data)
    result = FileRead(file)
    unrecognised: list[list[object]] = []
    for name, rows, uncalculated in _excel_sheets(file, data):
        if rows is None:
            result.skipped.append(f"{name}: 隐藏的工作表，已忽略 hidden sheet ignored")
            continue
        located = _find_header(rows, kind)
        if located is None and name.strip().lower() in NOTES_SHEETS:
            continue  # instructions beside the form: nothing to read, nothing to say
        if located is None:
            result.skipped.append(f"{name}: 不是成绩或报名表，已跳过 not a score sheet, skipped")
            unrecognised = unrecognised or rows[: MAX_TITLE_ROWS + 1]
            continue
        result.sheets.append(_to_sheet(file, name, rows, *located, uncalculated))
    if not result.sheets:
        hidden = [name for name, rows, _ in _excel_sheets(file, data, hidden=True)
                  if _find_header(rows, kind) is not None]
        if hidden:
            raise _file_problem(file, f"数据在隐藏的工作表“{'、'.join(hidden)}”上：请在 Excel 中"
                                      "取消隐藏（右键工作表标签 → 取消隐藏）后再上传 the sheet with the "
                                      "data is hidden: unhide it in Excel and send the file again")
        raise _file_problem(file, "没有一个工作表的表头能识别 no sheet has a recognised header; "
                                  + _no_header_message(kind, unrecognised))
    return result


def _too_large(file: str, sheet: str, rows: int, columns: int) -> SheetErrors:
    return _file_problem(
        file, f"工作表的使用范围 {rows} 行 × {columns} 列 超过 {MAX_CELLS:,} 个单元格，拒绝读取"
              f"（表外远处是否有误填的单元格？） the sheet's used range ({rows} rows × {columns} "
              f"columns) is beyond {MAX_CELLS:,} cells; refused (a stray cell far outside the "
              "table?)", sheet)


def _excel_sheets(file: str, data: bytes, hidden: bool = False):
    """(sheet name, rows or None when hidden, formula cells without a value) per sheet;
    with `hidden`, only the hidden sheets, with their rows.

    An xlsx is scanned before calamine builds any sheet, and a sheet whose used range is
    beyond MAX_CELLS is refused; other workbook formats are read in a child process."""
    if not data.startswith(b"PK") or data[:8] == OLE_MAGIC:
        yield from _excel_sheets_isolated(file, data, hidden)
        return
    from python_calamine import CalamineWorkbook, SheetVisibleEnum

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            scans = scan_workbook(archive)
    except (zipfile.BadZipFile, KeyError, ValueError):
        scans = {}
    if not scans:  # a zip that is not an xlsx (an .ods): its size is only known by building it
        yield from _excel_sheets_isolated(file, data, hidden)
        return
    try:
        workbook = CalamineWorkbook.from_filelike(io.BytesIO(data))
    except Exception as exc:  # calamine raises several types for unreadable files
        raise _unreadable(file, exc) from None
    for meta in workbook.sheets_metadata:
        if (meta.visible != SheetVisibleEnum.Visible) != hidden:
            if not hidden:
                yield meta.name, None, set()
            continue
        scan = scans.get(meta.name, SheetScan())
        if scan.cells > MAX_CELLS:
            raise _too_large(file, meta.name, scan.rows, scan.columns)
        try:
            rows = workbook.get_sheet_by_name(meta.name).to_python(skip_empty_area=False)
        except Exception as exc:
            raise _file_problem(file, f"无法读取工作表 cannot read sheet: {exc}", meta.name) \
                from None
        yield meta.name, rows, scan.uncalculated


def _excel_sheets_isolated(file: str, data: bytes, hidden: bool = False):
    try:
        sheets = isolated.read_sheets(data, MAX_CELLS)
    except ValueError as exc:
        raise _unreadable(file, exc) from None
    for name, visible, rows, problem in sheets:
        if hidden:  # only the hidden sheets that could be read
            if not visible and rows is not None:
                yield name, rows, set()
        elif not visible:
            yield name, None, set()
        elif problem and problem[0] == "size":
            raise _too_large(file, name, problem[1], problem[2])
        elif problem:
            raise _file_problem(file, f"无法读取工作表 cannot read sheet: {problem[1]}", name)
        else:
            yield name, rows, set()


def _unreadable(file: str, exc: object) -> SheetErrors:
    return _file_problem(file, "无法打开工作簿（文件损坏、加密或不是 Excel 文件） "
                               f"cannot open workbook (damaged, encrypted or not Excel): {exc}")


def _refuse_zip_bomb(file: str, data: bytes) -> None:
    """An xlsx is a zip: refuse one that would unpack to more than MAX_UNPACKED bytes."""
    if not data.startswith(b"PK"):
        return
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except zipfile.BadZipFile:
        raise _file_problem(file, "文件已损坏，不是有效的 Excel 文件 the file is damaged: not a "
                                  "valid workbook") from None
    if unpacked > MAX_UNPACKED:
        raise _file_problem(file, f"工作簿解压后超过 {MAX_UNPACKED // 1024 // 1024} MB，拒绝读取 "
                                  "the workbook unpacks to more than the limit; refused")


def read_file(path: Path, kind: str | None = None, data: bytes | None = None) -> FileRead:
    """Read every recognisable sheet of a file (raises SheetErrors when there is none)."""
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise _file_problem(path.name, f"无法读取文件 cannot read file: {exc.strerror}") from None
    suffix = path.suffix.lower()
    if not data:
        raise _file_problem(path.name, "文件是空的 the file is empty")
    if suffix in CSV_SUFFIXES and data.startswith((OLE_MAGIC, b"PK\x03\x04")):
        return read_excel(path, data, kind)  # a workbook saved under a .csv name
    if suffix in EXCEL_SUFFIXES:
        return read_excel(path, data, kind)
    if suffix in CSV_SUFFIXES:
        return read_csv(path, data, kind)
    raise _file_problem(path.name, "只能读取 .csv .xlsx .xls 文件 only .csv, .xlsx and .xls are read")
