"""The table list of a round (对阵表) and the index to find one's table (查找座位)."""

from __future__ import annotations

import html
from pathlib import Path

import polars as pl

from pipeline.errors import UsageError
from pipeline.export.workbook import new_workbook, write_sheet
from pipeline.output import html_text, to_csv

TABLE_HEADERS = ["桌号", "东西队号", "东西队名", "东西队员", "南北队号", "南北队名", "南北队员"]
INDEX_HEADERS = ["查找 (队号/队名/队员)", "队号", "队名", "桌号", "方位"]


def _players(side: str) -> pl.Expr:
    return pl.concat_str(pl.col(f"{side}_player1"), pl.col(f"{side}_player2"), separator="、",
                         ignore_nulls=True).alias(f"{side}_players")


def table_list(pairs: pl.DataFrame) -> pl.DataFrame:
    """One row per table in order; a bye shows as 轮空 without a table."""
    return pairs.select(
        pl.col("table"),
        pl.col("ew_team"),
        pl.col("ew_name"),
        _players("ew"),
        pl.col("ns_team").fill_null("轮空 bye"),
        pl.col("ns_name"),
        _players("ns"),
    )


def seat_index(pairs: pl.DataFrame) -> pl.DataFrame:
    """Every team and player name with its table and seat, sorted for finding by eye."""
    sides = []
    for side, seat in (("ew", "东西 EW"), ("ns", "南北 NS")):
        one = pairs.filter(pl.col(f"{side}_team").is_not_null()).select(
            pl.col(f"{side}_team").alias("team_no"), pl.col(f"{side}_name").alias("team_name"),
            "table",
            pl.when(pl.col("ns_team").is_null()).then(pl.lit("轮空 bye")).otherwise(
                pl.lit(seat)).alias("seat"),
            pl.concat_list(f"{side}_team", f"{side}_name", f"{side}_player1",
                           f"{side}_player2").alias("find"))
        sides.append(one)
    frame = pl.concat(sides).explode("find").drop_nulls("find")
    return frame.select("find", "team_no", "team_name", "table", "seat").unique().sort(
        ["find", "team_no"])


def _html(title: str, tables: pl.DataFrame, index: pl.DataFrame) -> str:
    def rows(frame: pl.DataFrame) -> str:
        cells = [pl.lit("<td>") + html_text(pl.col(c)) + pl.lit("</td>") for c in frame.columns]
        return "\n".join(frame.select(
            pl.concat_str([pl.lit("<tr>"), *cells, pl.lit("</tr>")])).to_series().to_list())

    def head(headers: list[str]) -> str:
        return "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr>"

    return f"""<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
@page {{ size: A4; margin: 12mm; }}
body {{ font-family: "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; }}
h1 {{ font-size: 20pt; text-align: center; }}
table {{ border-collapse: collapse; width: 100%; margin-bottom: 8mm; }}
th, td {{ border: 1px solid #333; padding: 4px 6px; font-size: 12pt; }}
th {{ background: #eee; }}
td:first-child {{ text-align: center; font-weight: bold; }}
.index {{ page-break-before: always; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<table>{head(TABLE_HEADERS)}
{rows(tables)}
</table>
<h1 class="index">查找座位 Find your table</h1>
<table>{head(INDEX_HEADERS)}
{rows(index)}
</table>
</body></html>
"""


def export_pairings(pairs: pl.DataFrame, title: str, out: Path) -> None:
    suffix = out.suffix.lower()
    tables = table_list(pairs)
    index = seat_index(pairs)
    if suffix == ".csv":
        plain = pairs.select("round", "table", "ew_team", "ew_name", "ns_team", "ns_name")
        out.write_text(to_csv(plain), encoding="utf-8-sig")
    elif suffix == ".xlsx":
        book = new_workbook(out)
        write_sheet(book, "对阵表", tables, TABLE_HEADERS, title)
        write_sheet(book, "查找座位", index, INDEX_HEADERS, title)
        book.close()
    elif suffix in {".html", ".htm"}:
        out.write_text(_html(title, tables, index), encoding="utf-8")
    else:
        raise UsageError("导出文件应为 .xlsx .csv 或 .html export to .xlsx, .csv or .html")
