"""Table cards: one A4 page per table of a round, to stand on the table — the table number
large, both teams, and each side's signed self-report link as a QR code (both sides confirm:
RULES and the self-report design), in a PDF with the CJK font embedded."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import segno

from pipeline.errors import UsageError
from pipeline.export.certificates import fit, new_pdf, save_pdf

INK = (30, 34, 48)
GREY = (110, 116, 130)


def write_cards(tables: pl.DataFrame, event_name: str, round_no: int, path: Path) -> int:
    """`tables`: table, ew_team, ns_team, ew_name, ns_name, ew_url, ns_url (one row per
    table with two teams). Returns the number of pages."""
    if tables.is_empty():
        raise UsageError("本轮没有需要报成绩的桌 no tables to print cards for")
    pdf = new_pdf(f"{event_name} 第 {round_no} 轮 桌牌 table cards")
    for row in tables.sort("table").iter_rows(named=True):
        _card(pdf, row, event_name, round_no)
    save_pdf(pdf, path)
    return tables.height


def _qr_png(url: str) -> io.BytesIO:
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="png", scale=10, border=2)
    out.seek(0)
    return out


def _card(pdf, row: dict, event_name: str, round_no: int) -> None:
    pdf.add_page()
    width = pdf.w
    pdf.set_text_color(*GREY)
    fit(pdf, f"{event_name} · 第 {round_no} 轮 round {round_no}", 15, 14, width - 30, 10, 16)
    pdf.set_text_color(*INK)
    fit(pdf, f"第 {row['table']} 桌", 15, 28, width - 30, 40, 96)
    pdf.set_font("cjk", size=14)
    pdf.set_xy(15, 66)
    pdf.cell(width - 30, 8, f"TABLE {row['table']}", align="C")
    half = (width - 30) / 2
    for index, side in enumerate(("ew", "ns")):
        left = 15 + index * half
        label = "东西 EW" if side == "ew" else "南北 NS"
        pdf.set_text_color(*GREY)
        fit(pdf, label, left, 84, half, 10, 18)
        pdf.set_text_color(*INK)
        fit(pdf, str(row[f"{side}_team"]), left, 96, half, 16, 34)
        fit(pdf, str(row[f"{side}_name"] or ""), left + 4, 114, half - 8, 16, 18, 10)
        size = 70
        pdf.image(_qr_png(row[f"{side}_url"]), x=left + (half - size) / 2, y=136, w=size,
                  h=size)
        pdf.set_text_color(*GREY)
        fit(pdf, f"{label} 扫码报成绩 scan to report", left, 210, half, 10, 14)
    pdf.set_text_color(*GREY)
    fit(pdf, "打完后双方各扫自己一方的码，两方一致即记录；不一致由裁判裁定。"
             "After the round each side scans its own code: the same result from both is stored.",
        20, 232, width - 40, 20, 12, 8)
