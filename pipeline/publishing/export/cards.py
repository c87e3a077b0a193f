"""Table cards: one A4 page per table of a round — the table number large and both teams on
the part that stands on the table, and below a dashed cut line each side's own slip: its
signed self-report link as a QR code and its 4-digit code, printed only there (a report
needs both, so whoever scans a slip cannot speak for the other side). Both sides confirm:
RULES and the self-report design. A PDF with the CJK font embedded."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

import polars as pl
import segno

from pipeline.base.errors import UsageError
from pipeline.publishing.export.certificates import fit, new_pdf, save_pdf

INK = (30, 34, 48)
GREY = (110, 116, 130)


def write_cards(tables: pl.DataFrame, event_name: str, round_no: int, path: Path) -> int:
    """`tables`: table, ew_team, ns_team, ew_name, ns_name, ew_url, ns_url, ew_code, ns_code
    (one row per table with two teams). Returns the number of pages."""
    if tables.is_empty():
        raise UsageError("本轮没有需要报成绩的桌 no tables to print cards for")
    pdf = new_pdf(f"{event_name} 第 {round_no} 轮 桌牌 table cards")
    for row in tables.sort("table").iter_rows(named=True):
        _card(pdf, row, event_name, round_no)
    save_pdf(pdf, path)
    return tables.height


def _qr_png(url: str) -> io.BytesIO:
    return io.BytesIO(_qr_bytes(url))


@cache
def _qr_bytes(url: str) -> bytes:
    """A link's QR code as PNG, made once per link: the event's phone pages' code is the same
    on every card (500 cards made it 500 times: a third of their time)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="png", scale=10, border=2)
    return out.getvalue()


def _team(row: dict, side: str) -> str:
    """A side's team as the card names it: its number and name.

    >>> _team({"ew_team": "A1", "ew_name": "炼油一部"}, "ew"), _team({"ns_team": "A2"}, "ns")
    ('A1 炼油一部', 'A2')
    """
    return f"{row[f'{side}_team']} {row.get(f'{side}_name') or ''}".strip()


def _card(pdf, row: dict, event_name: str, round_no: int) -> None:
    pdf.add_page()
    width = pdf.w
    pdf.set_text_color(*GREY)
    fit(pdf, f"{event_name} · 第 {round_no} 轮 round {round_no}", 15, 14, width - 30, 10, 16)
    pdf.set_text_color(*INK)
    fit(pdf, f"第 {row['table']} 桌", 15, 24, width - 58, 32, 90)
    # who sits here, on the half that stands on the table (the slips are cut off; issue 51)
    fit(pdf, f"东西 {_team(row, 'ew')}　—　南北 {_team(row, 'ns')}", 15, 56, width - 58, 10,
        20, 9)
    if row.get("phones_url"):  # the phone pages of the event: ranking, seats, each team
        pdf.image(_qr_png(row["phones_url"]), x=width - 42, y=24, w=30, h=30)
        pdf.set_text_color(*GREY)
        fit(pdf, "扫码看排名与对阵 ranking & seats", width - 48, 55, 42, 6, 8, 6)
        pdf.set_text_color(*INK)
    pdf.set_font("cjk", size=14)
    pdf.set_xy(15, 66)
    pdf.cell(width - 30, 8, f"TABLE {row['table']}", align="C")
    half = (width - 30) / 2
    pdf.set_draw_color(*GREY)
    pdf.set_dash_pattern(dash=2, gap=2)
    pdf.line(8, 80, width - 8, 80)  # cut here: the slips are handed to each side
    pdf.line(width / 2, 80, width / 2, pdf.h - 8)
    pdf.set_dash_pattern()
    pdf.set_text_color(*GREY)
    fit(pdf, "✂ 沿虚线剪开，两方各拿自己的纸条 cut along the dashed lines: each side keeps its own "
             "slip", 15, 72, width - 30, 7, 10, 7)
    for index, side in enumerate(("ew", "ns")):
        left = 15 + index * half
        label = "东西 EW" if side == "ew" else "南北 NS"
        pdf.set_text_color(*GREY)
        fit(pdf, f"第 {row['table']} 桌 · {label}", left, 88, half, 10, 18)
        pdf.set_text_color(*INK)
        fit(pdf, str(row[f"{side}_team"]), left, 100, half, 16, 34)
        fit(pdf, str(row[f"{side}_name"] or ""), left + 4, 118, half - 8, 14, 18, 10)
        size = 62
        pdf.image(_qr_png(row[f"{side}_url"]), x=left + (half - size) / 2, y=136, w=size,
                  h=size)
        pdf.set_text_color(*GREY)
        fit(pdf, "本方验证码 your code", left, 202, half, 8, 12)
        pdf.set_text_color(*INK)
        fit(pdf, str(row[f"{side}_code"]), left, 211, half, 18, 40)
        pdf.set_text_color(*GREY)
        fit(pdf, "打完后扫码、输入验证码报成绩，双方一致即记录；纸条不要给别人看。After the "
                 "round scan, enter the code and report: the same result from both sides is "
                 "stored. Keep this slip to yourselves.", left + 6, 234, half - 12, 24, 11, 7)
