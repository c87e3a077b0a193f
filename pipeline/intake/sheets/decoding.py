"""A CSV file's bytes to text: every encoding Excel in China saves (UTF-8 with or without
BOM, UTF-16, GB18030/GBK, Big5), and when none fits, why — as precisely as can be told (NUL
bytes, an encoding that changes at a given line)."""

from __future__ import annotations

from pipeline.base.errors import SheetErrors


def decodings(data: bytes) -> list[str]:
    """The readings of a CSV file's bytes, most likely first: UTF-16 (with its BOM), UTF-8,
    GB18030/GBK (mainland Excel), Big5 (halls using traditional characters). Big5 bytes also
    decode as GB18030, as nonsense: the reader keeps the first reading with a header row."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return [data.decode("utf-16")]
        except UnicodeDecodeError:
            return []
    texts = []
    for encoding in ("utf-8-sig", "gb18030", "big5"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if "\x00" not in text:
            texts.append(text)
    return texts


def decode(data: bytes, file: str) -> str:
    """Text of a CSV file in any encoding Excel in China saves."""
    texts = decodings(data)
    if not texts:
        raise SheetErrors.single(file, undecodable(data))
    return texts[0]


def utf8_breaks_at(data: bytes) -> int | None:
    """The line where bytes that begin as UTF-8 stop being UTF-8, else None."""
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return data[: exc.start].count(b"\n") + 1 if exc.start > 0 else None
    return None


def encoding_changes(line: int) -> str:
    return (f"文件的编码在第 {line} 行变了（前面是 UTF-8，后面不是）：请把整个文件另存为 UTF-8 的 "
            f"CSV the encoding changes inside the file at line {line} (UTF-8 before it, not "
            "after): save the whole file as UTF-8 CSV")


def undecodable(data: bytes) -> str:
    """Why no encoding reads the bytes, as precisely as can be told."""
    if b"\x00" in data:
        return ("文件中含有 NUL 字节，不是文本文件（CSV）：请从 Excel 另存为 CSV 或直接上传 xlsx "
                "the file holds NUL bytes: it is not a text (CSV) file; save it as CSV from "
                "Excel, or send the .xlsx")
    line = utf8_breaks_at(data)
    if line is not None:
        return encoding_changes(line)
    return ("无法识别文件编码，请另存为 UTF-8 或 GBK 的 CSV unknown text encoding: save as UTF-8 "
            "or GBK CSV")
