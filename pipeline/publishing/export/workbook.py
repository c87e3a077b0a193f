"""Writing xlsx files, fast and safe: every text cell is an inline string (never a formula),
numbers are numbers. The sheet XML is built column-wise with polars and zipped, instead of a
Python call per cell: the 10,000-team pairings with their seat index (about 250,000 cells)
are written in a fraction of a second. Data cells carry no cell reference (optional in the
format; each is the next column of its row).

A sheet has an optional merged title row, a bold bordered header row, bordered cells, column
widths from the headers and the rows above the data frozen.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

STYLES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<fonts count="3"><font><sz val="11"/><name val="Calibri"/></font>
<font><b/><sz val="11"/><name val="Calibri"/></font>
<font><b/><sz val="14"/><name val="Calibri"/></font></fonts>
<fills count="2"><fill><patternFill patternType="none"/></fill>
<fill><patternFill patternType="gray125"/></fill></fills>
<borders count="2"><border><left/><right/><top/><bottom/><diagonal/></border>
<border><left style="thin"><color auto="1"/></left><right style="thin"><color auto="1"/></right>
<top style="thin"><color auto="1"/></top><bottom style="thin"><color auto="1"/></bottom>
<diagonal/></border></borders>
<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>
<cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>
<xf numFmtId="0" fontId="1" fillId="0" borderId="1" xfId="0" applyFont="1" applyBorder="1"
 applyAlignment="1"><alignment horizontal="center"/></xf>
<xf numFmtId="0" fontId="0" fillId="0" borderId="1" xfId="0" applyBorder="1"/>
<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1"
 applyAlignment="1"><alignment horizontal="center"/></xf></cellXfs>
<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>
</styleSheet>"""
HEADER, CELL, TITLE = 1, 2, 3
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
INVALID_XML = r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]"
ESCAPED = r"[&<>\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]"  # what a text cell's XML mends
MENDED = ESCAPED + r"|^\s|\s$"  # or its spaces kept (`\s`: what strip_chars strips)


def column_letters(index: int) -> str:
    """Spreadsheet letters of a 0-based column.

    >>> column_letters(0), column_letters(25), column_letters(26)
    ('A', 'Z', 'AA')
    """
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _text(value: str) -> str:
    """Text as XML character data, without the characters XML cannot hold (as
    `xml.sax.saxutils.escape`, whose import brings urllib, http and email: 15–20 ms).

    >>> _text("A&B <1> \x01")
    'A&amp;B &lt;1&gt; '
    """
    return re.sub(INVALID_XML, "", value).replace("&", "&amp;").replace("<", "&lt;") \
        .replace(">", "&gt;")


def _cells(frame: pl.DataFrame, first_row: int) -> pl.Expr:
    """The `<row>` of XML of each of the frame's rows, built column-wise (see `_rows`).
    Cells carry no reference (`r` is optional: each cell is the next column), so that a
    large sheet is half the size to build and compress."""
    row_no = (pl.int_range(pl.len()) + first_row).cast(pl.String)
    cells = []
    for name, dtype in frame.schema.items():
        value = pl.col(name)
        if dtype.is_numeric():
            filled = pl.concat_str([pl.lit(f'<c s="{CELL}"><v>'), value.cast(pl.String),
                                    pl.lit("</v></c>")])
        else:
            column = frame[name].cast(pl.String)
            text = value.cast(pl.String)
            opening = pl.lit("<t>")
            if column.str.contains(MENDED).any():  # one pass to look; the rest only to mend
                if column.str.contains(ESCAPED).any():
                    text = text.str.replace_all(INVALID_XML, "") \
                        .str.replace_all("&", "&amp;", literal=True) \
                        .str.replace_all("<", "&lt;", literal=True) \
                        .str.replace_all(">", "&gt;", literal=True)
                if (column.str.strip_chars() != column).any():  # only where it matters
                    spaced = text.str.strip_chars().str.len_bytes() < text.str.len_bytes()
                    opening = pl.when(spaced).then(pl.lit('<t xml:space="preserve">')) \
                        .otherwise(opening)
            filled = pl.concat_str([pl.lit(f'<c s="{CELL}" t="inlineStr"><is>'), opening, text,
                                    pl.lit("</t></is></c>")])
        missing = frame[name].is_null() | (frame[name].is_nan() if dtype.is_float() else False)
        if missing.any():
            filled = pl.when(value.is_null() | (value.is_nan() if dtype.is_float() else False)
                             ).then(pl.lit(f'<c s="{CELL}"/>')).otherwise(filled)
        cells.append(filled)
    return pl.concat_str([pl.lit('<row r="'), row_no, pl.lit('">'), *cells,
                          pl.lit("</row>")])


def _rows(frame: pl.DataFrame, first_row: int) -> bytes:
    """The frame's rows as sheet XML, one UTF-8 text: polars' CSV writer puts the rows one
    after the other, unquoted, with nothing between them — a quarter of the time of joining
    them into one string (`str.join`, 0.5 s for the seat index of 100,000 teams)."""
    out = io.BytesIO()
    frame.select(_cells(frame, first_row)).write_csv(out, include_header=False,
                                                     quote_style="never", line_terminator="")
    return out.getvalue()


@dataclass
class Workbook:
    """The sheets of one xlsx file, written when closed."""

    path: Path
    sheets: list[tuple[str, bytes]] = field(default_factory=list)  # name, worksheet XML

    def add(self, name: str, xml: str | bytes) -> None:
        self.sheets.append((name, xml.encode("utf-8") if isinstance(xml, str) else xml))

    def close(self) -> None:
        names = "".join(f'<sheet name="{_text(name)}" sheetId="{i}" r:id="rId{i}"/>'
                        for i, (name, _) in enumerate(self.sheets, start=1))
        rels = "".join(f'<Relationship Id="rId{i}" Type="{RELS}/worksheet" '
                       f'Target="worksheets/sheet{i}.xml"/>'
                       for i in range(1, len(self.sheets) + 1))
        styles_id = len(self.sheets) + 1
        overrides = "".join(
            f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            for i in range(1, len(self.sheets) + 1))
        head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        with zipfile.ZipFile(self.path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
            archive.writestr("[Content_Types].xml", head + (
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
                'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
                '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.'
                'openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
                '<Override PartName="/xl/styles.xml" ContentType="application/vnd.'
                'openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
                f"{overrides}</Types>"))
            archive.writestr("_rels/.rels", head + (
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                f'relationships"><Relationship Id="rId1" Type="{RELS}/officeDocument" '
                'Target="xl/workbook.xml"/></Relationships>'))
            archive.writestr("xl/workbook.xml", head + (
                f'<workbook xmlns="{MAIN}" xmlns:r="{RELS}"><sheets>{names}</sheets>'
                "</workbook>"))
            archive.writestr("xl/_rels/workbook.xml.rels", head + (
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                f'relationships">{rels}<Relationship Id="rId{styles_id}" Type="{RELS}/'
                'styles" Target="styles.xml"/></Relationships>'))
            archive.writestr("xl/styles.xml", STYLES)
            for i, (_, xml) in enumerate(self.sheets, start=1):
                archive.writestr(f"xl/worksheets/sheet{i}.xml", xml)


def new_workbook(path: Path) -> Workbook:
    return Workbook(Path(path))


def write_sheet(
    book: Workbook, name: str, frame: pl.DataFrame, headers: list[str],
    title: str | None = None, choices: dict[int, list[str]] | None = None,
    input_rows: int = 0,
) -> None:
    """A sheet with an optional merged title row, bold headers and the frame's rows.
    `choices`: drop-down lists by column index, over the data rows and `input_rows` more."""
    top = 1
    rows = []
    merge = ""
    if title:
        last = column_letters(max(len(headers) - 1, 1))
        rows.append(f'<row r="1"><c r="A1" s="{TITLE}" t="inlineStr"><is><t xml:space='
                    f'"preserve">{_text(title)}</t></is></c></row>')
        merge = f'<mergeCells count="1"><mergeCell ref="A1:{last}1"/></mergeCells>'
        top = 2
    rows.append(f'<row r="{top}">' + "".join(
        f'<c r="{column_letters(i)}{top}" s="{HEADER}" t="inlineStr"><is><t xml:space='
        f'"preserve">{_text(h)}</t></is></c>' for i, h in enumerate(headers)) + "</row>")
    data = _rows(frame, top + 1) if frame.height else b""
    widths = "".join(f'<col min="{i}" max="{i}" width="{max(8, 2 * len(h) + 2)}" '
                     'customWidth="1"/>' for i, h in enumerate(headers, start=1))
    pane = (f'<sheetViews><sheetView workbookViewId="0"><pane ySplit="{top}" '
            f'topLeftCell="A{top + 1}" activePane="bottomLeft" state="frozen"/>'
            "</sheetView></sheetViews>")
    lists = ""
    if choices:
        last_row = top + frame.height + input_rows
        lists = f'<dataValidations count="{len(choices)}">' + "".join(
            f'<dataValidation type="list" allowBlank="1" showErrorMessage="1" '
            f'sqref="{column_letters(i)}{top + 1}:{column_letters(i)}{last_row}">'
            f'<formula1>"{_text(",".join(values))}"</formula1></dataValidation>'
            for i, values in sorted(choices.items())) + "</dataValidations>"
    head = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<worksheet xmlns="{MAIN}" xmlns:r="{RELS}">{pane}<cols>{widths}</cols>'
            f'<sheetData>{"".join(rows)}')  # the data rows arrive as UTF-8 bytes from polars
    book.add(name, b"".join([head.encode("utf-8"), data,
                             f"</sheetData>{merge}{lists}</worksheet>".encode()]))


def write_notes(book: Workbook, name: str, lines: list[str]) -> None:
    """A sheet of plain text lines (instructions beside a form)."""
    rows = "".join(f'<row r="{i}"><c r="A{i}" t="inlineStr"><is><t xml:space="preserve">'
                   f"{_text(line)}</t></is></c></row>" for i, line in enumerate(lines, start=1))
    book.add(name, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             f'<worksheet xmlns="{MAIN}" xmlns:r="{RELS}"><sheetData>{rows}</sheetData>'
             "</worksheet>")
