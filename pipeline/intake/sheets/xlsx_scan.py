"""A look at an xlsx workbook's sheets before any is materialised.

calamine builds a dense grid from a sheet's first to its last cell: one cell at XFD1048576
in a 6 KB file asks for 17 billion cells and the process aborts. So each worksheet's XML is
scanned first (a regular expression over the text, no grid) for the range its cells span,
and for formula cells that carry no cached value (a file written by a program, never
opened in Excel: calamine reads such a cell as empty).
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from posixpath import dirname, join, normpath

CELL = re.compile(rb"<(?:\w+:)?(row|c)\b([^>]*?)(/?)>")
CELL_BODY_END = re.compile(rb"</(?:\w+:)?c>")
REF = re.compile(rb'\br="([A-Z]{0,3})(\d*)"')
SHEET = re.compile(rb"<(?:\w+:)?sheet\b[^>]*>")
ATTR = re.compile(rb'([\w:]+)="([^"]*)"')
RELATION = re.compile(rb"<(?:\w+:)?Relationship\b[^>]*>")


@dataclass
class SheetScan:
    """The range a worksheet's cells span, and its formula cells without a cached value."""

    rows: int = 0
    columns: int = 0
    uncalculated: set[tuple[int, int]] = field(default_factory=set)  # 0-based (row, column)

    @property
    def cells(self) -> int:
        return self.rows * self.columns


def column_index(letters: bytes) -> int:
    """0-based column of spreadsheet letters.

    >>> column_index(b"A"), column_index(b"Z"), column_index(b"AA"), column_index(b"XFD")
    (0, 25, 26, 16383)
    """
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number - 1


def scan_sheet(xml: bytes) -> SheetScan:
    """The extent of one worksheet's cells (empty ones included: calamine's grid spans them)."""
    row = -1
    column = -1
    low_row = low_column = None
    high_row = high_column = -1
    uncalculated: set[tuple[int, int]] = set()
    for match in CELL.finditer(xml):
        tag, attributes, closed = match.groups()
        ref = REF.search(attributes)
        if tag == b"row":
            row = int(ref.group(2)) - 1 if ref and ref.group(2) else row + 1
            column = -1
            continue
        if ref and ref.group(1):
            column = column_index(ref.group(1))
            if ref.group(2):
                row = int(ref.group(2)) - 1
        else:
            column += 1
        at_row = max(row, 0)
        low_row = at_row if low_row is None else min(low_row, at_row)
        low_column = column if low_column is None else min(low_column, column)
        high_row = max(high_row, at_row)
        high_column = max(high_column, column)
        if not closed:
            end = CELL_BODY_END.search(xml, match.end())
            body = xml[match.end(): end.start() if end else len(xml)]
            if b"<f" in body and not re.search(rb"<(?:\w+:)?v>[^<]", body):
                uncalculated.add((at_row, column))
    if low_row is None:
        return SheetScan()
    return SheetScan(high_row - low_row + 1, high_column - (low_column or 0) + 1, uncalculated)


def _attributes(tag: bytes) -> dict[str, str]:
    return {k.decode(): _unescape(v.decode("utf-8", "replace")) for k, v in ATTR.findall(tag)}


def _unescape(text: str) -> str:
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&apos;", "'").replace("&amp;", "&"))


def scan_workbook(archive: zipfile.ZipFile) -> dict[str, SheetScan]:
    """Sheet name → its scan, for every worksheet the workbook lists."""
    names = set(archive.namelist())
    if "xl/workbook.xml" not in names:
        return {}
    relations = {}
    if "xl/_rels/workbook.xml.rels" in names:
        for tag in RELATION.findall(archive.read("xl/_rels/workbook.xml.rels")):
            found = _attributes(tag)
            target = found.get("Target", "")
            path = target.lstrip("/") if target.startswith("/") else \
                normpath(join(dirname("xl/workbook.xml"), target))
            relations[found.get("Id")] = path
    scans = {}
    for tag in SHEET.findall(archive.read("xl/workbook.xml")):
        found = _attributes(tag)
        relation = next((v for k, v in found.items() if k.endswith(":id")), None)
        path = relations.get(relation)
        if path in names:
            scans[found.get("name", "")] = scan_sheet(archive.read(path))
    return scans
