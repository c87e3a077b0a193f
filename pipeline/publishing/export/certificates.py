"""Award certificates: one A4 page (landscape) per prize — the event, the prize, the team, its
players, the date — in a PDF with a Chinese font embedded (the glyphs used, subset by fpdf2),
so it prints the same on any computer.

The font: env PAISAI_CJK_FONT (a .ttf/.otf/.ttc file), else Noto Serif/Sans CJK as Debian's
fonts-noto-cjk installs it (`make test` installs it; `apt-get install fonts-noto-cjk`), else
the system fonts of Windows (Microsoft YaHei, SimHei, SimSun) or macOS (PingFang, Hiragino,
STHeiti); the error names the platform's remedy.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import secrets
import shutil
import subprocess
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline.base.errors import UsageError

FONT_ENV = "PAISAI_CJK_FONT"
FAMILIES = ("Noto Serif CJK SC", "Noto Sans CJK SC", "Source Han Serif SC", "Source Han Sans SC",
            "WenQuanYi Zen Hei")
KNOWN_FILES = ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
               "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
               "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc")
# the fonts every Windows and macOS laptop has (issue 39: no fontconfig there)
WINDOWS_FILES = ("msyh.ttc", "msyh.ttf", "simhei.ttf", "simsun.ttc", "simsun.ttf")
MACOS_FILES = ("/System/Library/Fonts/PingFang.ttc", "/System/Library/Fonts/Hiragino Sans GB.ttc",
               "/Library/Fonts/Songti.ttc", "/System/Library/Fonts/STHeiti Medium.ttc",
               "/System/Library/Fonts/STHeiti Light.ttc", "/System/Library/Fonts/Supplemental/"
               "Songti.ttc")
REMEDIES = {
    "linux": "apt-get install fonts-noto-cjk（或发行版的 Noto CJK 字体包 or your distribution's "
             "Noto CJK fonts）",
    "win32": "Windows：安装微软雅黑或黑体（控制面板 → 字体） install Microsoft YaHei or SimHei "
             "(Control Panel → Fonts)",
    "darwin": "macOS：系统自带苹方 PingFang；若已删除，用“字体册”重新安装 reinstall it with Font Book",
}


def font_missing() -> str:
    """The error when no CJK font is found, with this platform's remedy."""
    import sys

    remedy = REMEDIES.get(sys.platform, REMEDIES["linux"])
    return (f"证书、桌牌与图片需要一个中文字体：{remedy}；或设置环境变量 {FONT_ENV}=字体文件 "
            "certificates, cards and pictures need a Chinese font: "
            f"{remedy}; or set {FONT_ENV} to a .ttf/.otf/.ttc file")


def _platform_files() -> Iterator[Path]:
    """The system fonts of Windows (the fonts folder) and macOS, then Linux's known paths."""
    windows = Path(os.environ.get("WINDIR", r"C:\Windows")) / "Fonts"
    for name in WINDOWS_FILES:
        yield windows / name
    yield from map(Path, MACOS_FILES)
    yield from map(Path, KNOWN_FILES)


@dataclass(frozen=True)
class Font:
    path: Path
    index: int  # the face in a collection (.ttc): the simplified-Chinese one


def find_font() -> Font:
    """The CJK font to embed (see the module's docstring); a clear error when there is none."""
    chosen = os.environ.get(FONT_ENV)
    if chosen:
        if not Path(chosen).is_file():
            raise UsageError(f"{FONT_ENV} 指向的字体文件不存在 the font file does not exist: "
                             f"{chosen}")
        return Font(Path(chosen), _simplified_face(Path(chosen)))
    for path in itertools.chain(_fc_match(), _platform_files()):
        if path.is_file():
            return Font(path, _simplified_face(path))
    raise UsageError(font_missing())


def _fc_match() -> Iterator[Path]:
    """fontconfig's file for each family in turn (asked only until one is used)."""
    if not shutil.which("fc-match"):
        return
    for family in FAMILIES:
        run = subprocess.run(["fc-match", "-f", "%{file}", f"{family}:lang=zh-cn"],
                             capture_output=True, text=True, timeout=10)
        name = run.stdout.strip()
        if run.returncode == 0 and ("CJK" in name or "wqy" in name.lower()):
            yield Path(name)


def _simplified_face(path: Path) -> int:
    """In a collection, the face whose family name ends in SC (simplified Chinese); else 0."""
    if path.suffix.lower() not in (".ttc", ".otc"):
        return 0
    from fontTools.ttLib import TTCollection

    try:
        faces = TTCollection(str(path), lazy=True).fonts
    except Exception as exc:  # a file that is not a font collection
        raise UsageError(f"读不出字体 cannot read the font {path}: {exc}") from None
    for index, face in enumerate(faces):
        family = face["name"].getDebugName(1) or ""
        if family.endswith(" SC"):
            return index
    return 0


def certificate_date(event_date: dt.date | None) -> str:
    """The date as a certificate writes it.

    >>> certificate_date(dt.date(2026, 5, 3))
    '2026 年 5 月 3 日'
    """
    day = event_date or dt.date.today()
    return f"{day.year} 年 {day.month} 月 {day.day} 日"


def write_certificates(prizes: pl.DataFrame, event_name: str, event_date: dt.date | None,
                       path: Path, font: Font | None = None, organizer: str = "",
                       warn: Callable[[str], None] = lambda text: None) -> int:
    """One page per row of the prize list (pipeline.ranking.awards.award_list), signed by `organizer`
    when given (above the date); written to a temporary file beside `path` and moved into
    place, so a failure leaves no half-written PDF. Long names are shrunk and wrapped to fit
    their place; characters the font cannot show (emoji, right-to-left scripts) are printed
    as ？ and named through `warn`. Returns the number of pages."""
    if prizes.is_empty():
        raise UsageError("没有获奖名单，无证书可印 no prizes: no certificates to print")
    pdf = new_pdf(f"{event_name} 获奖证书", "landscape", font)
    shown = _Glyphs(pdf)
    date = certificate_date(event_date)
    holders = prizes["award"].value_counts().rows()  # a prize several teams share
    shared = {award for award, count in holders if count > 1}
    for row in prizes.iter_rows(named=True):
        _page(pdf, {k: shown(v) if isinstance(v, str) else v for k, v in row.items()},
              shown(event_name), date, shown(organizer.strip()), row["award"] in shared)
    if shown.missing:
        warn(f"字体没有这些字符，证书上印作 ？ the font cannot show these characters, printed "
             f"as ？: {' '.join(sorted(shown.missing))} "
             f"({', '.join(f'U+{ord(c):04X}' for c in sorted(shown.missing))})")
    save_pdf(pdf, path)
    return prizes.height


def new_pdf(title: str, orientation: str = "portrait", font: Font | None = None):
    """An A4 document with the CJK font embedded as "cjk" (subset to the glyphs used)."""
    from fpdf import FPDF

    font = font or find_font()
    pdf = FPDF(orientation=orientation, format="A4")
    pdf.set_title(title)
    pdf.set_creator("paisai")
    try:
        pdf.add_font("cjk", fname=str(font.path), collection_font_number=font.index)
    except Exception as exc:  # fontTools cannot read it
        raise UsageError(f"读不出字体 cannot read the font {font.path}: {exc}") from None
    pdf.set_auto_page_break(False)
    return pdf


def save_pdf(pdf, path: Path) -> None:
    """Written to a temporary file beside `path` and moved into place: a failure leaves no
    half-written PDF (the mode any new file gets)."""
    scratch = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        pdf.output(str(scratch))
        os.replace(scratch, path)
    finally:
        scratch.unlink(missing_ok=True)


class _Glyphs:
    """Text as the font can print it: a character the font has no glyph for (an emoji, an
    Arabic or Hebrew letter) becomes ？ and is remembered, never dropped without a word."""

    def __init__(self, pdf):
        self.has = set(pdf.fonts["cjk"].cmap)
        self.missing: set[str] = set()

    def __call__(self, text: str) -> str:
        out = []
        for char in text:
            if ord(char) in self.has or char in " \n":
                out.append(char)
            elif unicodedata.category(char) != "Cf":  # format controls (ZWJ, RLM) show nothing
                self.missing.add(char)
                out.append("？")
        return "".join(out)


GOLD = (176, 132, 40)
INK = (40, 40, 48)


def fit(pdf, text: str, x: float, y: float, width: float, height: float, size: float,
         smallest: float = 9) -> None:
    """`text` centred in the box: at `size` points when it fits on one line, else smaller
    (down to `smallest`) and wrapped onto as many lines as the box holds; what still does
    not fit ends in …"""
    mm = 0.3528 * 1.25  # a line's height per point of font size, in mm
    lines: list[str] = [text]
    while True:
        pdf.set_font("cjk", size=size)
        if (size * mm <= height and "\n" not in text
                and pdf.get_string_width(text) <= width - 2 * pdf.c_margin):
            lines = [text]  # on one line at this size: what the dry run would say, measured
            break  # once (the dry run measures each character again: 500 cards, 40 % of it)
        lines = pdf.multi_cell(width, size * mm, text, align="C", dry_run=True, output="LINES")
        if len(lines) * size * mm <= height or size <= smallest:
            break
        size = max(smallest, size * 0.9)
    room = max(1, int(height // (size * mm)))
    if len(lines) > room:
        lines = lines[:room]
        last = lines[-1]
        while last and pdf.get_string_width(last + "…") > width:
            last = last[:-1]
        lines[-1] = last + "…"
    top = y + (height - len(lines) * size * mm) / 2
    for n, line in enumerate(lines):
        pdf.set_xy(x, top + n * size * mm)
        pdf.cell(width, size * mm, line, align="C")


def _page(pdf, row: dict, event_name: str, date: str, organizer: str, shared: bool) -> None:
    """A certificate; a prize several teams share (two 季军, twelve 阳光普照) prints no rank.
    The bottom right is left free for the organizer's seal over the signature."""
    pdf.add_page()
    width, height = pdf.w, pdf.h
    pdf.set_draw_color(*GOLD)
    pdf.set_line_width(2.2)
    pdf.rect(10, 10, width - 20, height - 20)
    pdf.set_line_width(0.6)
    pdf.rect(15, 15, width - 30, height - 30)
    pdf.set_text_color(*GOLD)
    pdf.set_font("cjk", size=48)
    pdf.set_xy(15, 32)
    pdf.cell(width - 30, 22, "荣 誉 证 书", align="C")
    pdf.set_text_color(*INK)
    players = "、".join(p for p in (row.get("player1"), row.get("player2")) if p)
    team = row.get("team_name") or row["team_no"]
    fit(pdf, f"{team}（{row['team_no']}）", 30, 66, width - 60, 20, 26)
    if players:
        fit(pdf, players, 30, 86, width - 60, 11, 22)
    if row.get("member_ids"):  # the association's ids of the players, small, for the record
        fit(pdf, f"编号 {row['member_ids']}", 30, 97, width - 60, 6, 10)
    if row.get("affiliation"):
        fit(pdf, str(row["affiliation"]), 30, 103, width - 60, 9, 16)
    fit(pdf, f"在“{event_name}”中荣获", 30, 113, width - 60, 19, 18)
    pdf.set_text_color(*GOLD)
    fit(pdf, str(row["award"]), 30, 134, width - 60, 22, 44)
    pdf.set_text_color(*INK)
    closing = "特发此证，以资鼓励。" if shared else f"第 {row['rank']} 名，特发此证，以资鼓励。"
    fit(pdf, closing, 30, 158, width - 60, 10, 16)
    if organizer:  # the signature block, bottom right, where the seal is stamped over it
        fit(pdf, organizer, width - 150, height - 42, 120, 12, 16)
    pdf.set_font("cjk", size=16)
    pdf.set_xy(width - 130, height - 30)
    pdf.cell(100, 10, date, align="R")
