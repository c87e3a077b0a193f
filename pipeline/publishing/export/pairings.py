"""The table list of a round (对阵表) and the index to find one's table (查找座位)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.base.errors import UsageError
from pipeline.base.output import to_csv
from pipeline.publishing.export.workbook import new_workbook, write_sheet

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
        pl.col("ns_team").fill_null(pl.col("bye")),
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
            pl.when(pl.col("ns_team").is_null()).then(pl.col("bye")).otherwise(
                pl.lit(seat)).alias("seat"),
            pl.concat_list(f"{side}_team", f"{side}_name", f"{side}_player1",
                           f"{side}_player2").alias("find"))
        sides.append(one)
    frame = pl.concat(sides).explode("find").drop_nulls("find").select(
        "find", "team_no", "team_name", "table", "seat")
    frame = frame.sort(frame.columns)  # sorted on every column, a repeated row (a player
    # named as the team, a name twice) follows its twin: dropped without a hash of every row
    return frame.filter(~pl.all_horizontal(pl.all().eq_missing(pl.all().shift(1))))


def _html(title: str, tables: pl.DataFrame, index: pl.DataFrame, site_url: str | None) -> str:
    import segno  # the HTML list alone: the xlsx and CSV need neither QR codes nor Jinja2

    from pipeline.publishing.templating import render

    qr = segno.make(site_url).svg_inline(scale=4) if site_url else None
    return render("pairings.html", title=title, table_headers=TABLE_HEADERS,
                  index_headers=INDEX_HEADERS, tables=tables.rows(), index=index.rows(),
                  site_url=site_url, qr_svg=qr)


def export_pairings(pairs: pl.DataFrame, title: str, out: Path,
                    site_url: str | None = None) -> None:
    """The table list and the seat index; with the static site's address (`site_url`), the
    printout carries it and its QR code so that phones go there, not to the dashboard."""
    suffix = out.suffix.lower()
    tables = table_list(pairs)
    index = seat_index(pairs)
    if suffix == ".csv":
        plain = pairs.select("round", "table", "ew_team", "ew_name", "ns_team", "ns_name")
        out.write_text(to_csv(plain), encoding="utf-8-sig")
    elif suffix == ".xlsx":
        book = new_workbook(out)
        heading = f"{title}  手机查座位 on your phone: {site_url}" if site_url else title
        write_sheet(book, "对阵表", tables, TABLE_HEADERS, heading)
        write_sheet(book, "查找座位", index, INDEX_HEADERS, heading)
        book.close()
    elif suffix in {".html", ".htm"}:
        out.write_text(_html(title, tables, index, site_url), encoding="utf-8")
    else:
        raise UsageError("导出文件应为 .xlsx .csv 或 .html export to .xlsx, .csv or .html")
