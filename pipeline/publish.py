"""`paisai publish`: a static site for thousands of phones (HTML, CSS, JSON; no server code).

Pages: the ranking (index.html), the current pairings, one page per team (its table and
seat this round, its results so far) and a QR page for the projector pointing at the site's
address. Publishing again rewrites only the files whose content changed.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import polars as pl
import segno

from pipeline import db, events, rounds, scoring
from pipeline.errors import UsageError
from pipeline.levels import format_level
from pipeline.output import HEADERS_ZH, html_text

CSS = """body{font-family:"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;
margin:0;padding:12px;background:#f5f7fb;color:#112}h1{font-size:22px;margin:8px 0}
nav a{margin-right:12px}table{border-collapse:collapse;width:100%;background:#fff}
th{background:#1f3b63;color:#fff;position:sticky;top:0}th,td{padding:6px 8px;
border-bottom:1px solid #dde;font-size:15px;text-align:left}td.n{text-align:right}
.card{background:#fff;border-radius:8px;padding:12px;margin:10px 0;font-size:18px}
.big{font-size:34px;font-weight:700}@media(min-width:800px){body{max-width:960px;margin:auto}}
"""


def _page(title: str, body: str, depth: int = 0) -> str:
    up = "../" * depth
    return (f'<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{html.escape(title)}</title>"
            f'<link rel="stylesheet" href="{up}style.css"></head><body>'
            f'<nav><a href="{up}index.html">排名</a><a href="{up}pairings.html">对阵</a>'
            f'<a href="{up}teams.html">各队</a></nav><h1>{html.escape(title)}</h1>{body}'
            "</body></html>\n")


def _head(columns: list[str]) -> str:
    return "".join(f"<th>{html.escape(HEADERS_ZH.get(c, c))}</th>" for c in columns)


def _row_html(schema: pl.Schema, linked: bool) -> pl.Expr:
    """One <tr> per row, built column-wise: cells escaped, numbers right-aligned, and the
    team number linked to its page when the frame carries a `_link` column."""
    cells = []
    for column, dtype in schema.items():
        if column == "_link":
            continue
        text = html_text(pl.col(column))
        if linked and column == "team_no":
            text = pl.when(pl.col("_link").is_not_null()).then(pl.concat_str(
                [pl.lit('<a href="'), pl.col("_link"), pl.lit('">'), text, pl.lit("</a>")])
            ).otherwise(text)
        opening = pl.lit('<td class="">')
        if dtype.is_numeric():
            opening = pl.when(pl.col(column).is_null()).then(opening).otherwise(
                pl.lit('<td class="n">'))
        cells.append(pl.concat_str([opening, text, pl.lit("</td>")]))
    return pl.concat_str([pl.lit("<tr>"), *cells, pl.lit("</tr>")])


def _table(frame: pl.DataFrame, links: dict[str, str] | None = None) -> str:
    linked = bool(links) and "team_no" in frame.columns
    if linked:
        frame = frame.with_columns(pl.col("team_no").replace_strict(
            links, default=None, return_dtype=pl.String).alias("_link"))
    rows = "".join(frame.select(_row_html(frame.schema, linked)).to_series().to_list())
    head = _head([c for c in frame.columns if c != "_link"])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _results_by_team(played: pl.DataFrame) -> dict[str, str]:
    """Each team's results so far as one HTML table, for all teams in one pass."""
    if played.is_empty():
        return {}
    shown = ["round", "opponent", "outcome", "match_points", "level_diff_score", "levels"]
    spelled = {v: format_level(v) for v in played["levels"].drop_nulls().unique().to_list()}
    games = played.sort("team_no", "round").select(
        "team_no", *shown[:-1],
        pl.col("levels").replace_strict(spelled, default=None, return_dtype=pl.String))
    rows = games.group_by("team_no", maintain_order=True).agg(
        _row_html(games.select(shown).schema, False).str.join("").alias("rows"))
    head = _head(shown)
    return {team: f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            for team, body in rows.iter_rows()}


SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")


def team_file(team_no: str) -> str:
    """A team page's file: the team number where it is a safe file name, else a short hash
    (`甲1`, a 30-character number), so every name is valid on any disk and in any URL.

    >>> team_file("A12"), team_file("甲1")
    ('teams/A12.html', 'teams/t-364c27363ba5.html')
    """
    if SAFE_NAME.fullmatch(team_no):
        return f"teams/{team_no}.html"
    return f"teams/t-{hashlib.sha256(team_no.encode()).hexdigest()[:12]}.html"


class _Site:
    """The site built whole in a scratch folder beside `out`, then swapped in: a failure
    leaves the published site as it was. A file whose content is unchanged is linked from
    the published one (same file, same time), so a sync or a CDN sees only what changed."""

    def __init__(self, out: Path):
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out 指向的是一个文件，不是文件夹 --out is a file, not a folder: "
                             f"{out}")
        out.parent.mkdir(parents=True, exist_ok=True)
        self.out = out
        self.build = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
        self.changed: list[str] = []

    def write(self, relative: str, text: str) -> None:
        data = text.encode("utf-8")
        published = self.out / relative
        path = self.build / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if published.is_file() and published.read_bytes() == data:
            try:
                os.link(published, path)
                return
            except OSError:
                shutil.copy2(published, path)
                return
        path.write_bytes(data)
        self.changed.append(relative)

    def swap(self) -> None:
        old = None
        if self.out.exists():
            old = self.out.with_name(f".{self.out.name}.old-{os.getpid()}")
            os.replace(self.out, old)
        os.replace(self.build, self.out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.build, ignore_errors=True)


def publish(database: Path, event_id: str, out: Path, base_url: str | None = None) -> list[str]:
    """Write the site; returns the files that changed."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        after = scoring.latest_round(con, event_id)
        ranking = scoring.standings(con, event, after)
        played = scoring.team_rounds(con, event, after)
        latest = rounds.latest_paired_round(con, event_id)
        pairs = rounds.pairings(con, event_id, latest) if latest else None
    site = _Site(out)
    try:
        _write_pages(site, event, after, ranking, played, latest, pairs, base_url)
    except BaseException:
        site.discard()
        raise
    site.swap()
    return site.changed


def _write_pages(site: _Site, event, after: int, ranking: pl.DataFrame, played: pl.DataFrame,
                 latest: int | None, pairs: pl.DataFrame | None, base_url: str | None) -> None:
    event_id = event.event_id
    links = {t: team_file(t) for t in ranking["team_no"]}
    shown = ranking.select(scoring.STANDINGS_COLUMNS)
    site.write("style.css", CSS)
    site.write("index.html", _page(f"{event.name} · 第 {after} 轮后排名",
                                    _table(shown, links)))
    site.write("standings.json", json.dumps(
        {"event": event_id, "round": after, "standings": shown.to_dicts()},
        ensure_ascii=False))
    seats: dict[str, tuple[int | None, str, str | None]] = {}
    if pairs is not None:
        table = pairs.select("table", "ew_team", "ew_name", "ns_team", "ns_name").with_columns(
            pl.col("ns_team").fill_null("轮空 bye"))
        site.write("pairings.html", _page(f"{event.name} · 第 {latest} 轮对阵",
                                           _table(table)))
        site.write("pairings.json", json.dumps(
            {"event": event_id, "round": latest, "tables": pairs.select(
                "table", "ew_team", "ns_team").to_dicts()}, ensure_ascii=False))
        for r in pairs.iter_rows(named=True):
            seats[r["ew_team"]] = (r["table"], "东西 EW", r["ns_team"])
            if r["ns_team"]:
                seats[r["ns_team"]] = (r["table"], "南北 NS", r["ew_team"])
    else:
        site.write("pairings.html", _page(event.name, "<p>还没有编排 not paired yet</p>"))
    index = "".join(f'<li><a href="{html.escape(team_file(t))}">{html.escape(t)} '
                    f'{html.escape(n or "")}</a></li>'
                    for t, n in ranking.select("team_no", "team_name").iter_rows())
    site.write("teams.html", _page(f"{event.name} · 各队", f"<ul>{index}</ul>"))
    results_of = _results_by_team(played)
    for r in ranking.iter_rows(named=True):
        team = r["team_no"]
        seat = seats.get(team)
        if seat and seat[0] is not None:
            now = (f'<div class="card">第 {latest} 轮 round {latest}<br>'
                   f'<span class="big">{seat[0]} 号桌</span> · {seat[1]}<br>'
                   f"对手 opponent: {html.escape(seat[2] or '')}</div>")
        elif seat:
            now = f'<div class="card">第 {latest} 轮：轮空 bye</div>'
        else:
            now = ""
        results = results_of.get(team, "")
        summary = (f'<div class="card">名次 rank <span class="big">{r["rank"]}</span> · '
                   f'积分 {r["match_points"]} · 级差分 {r["level_diff_score"]}</div>')
        site.write(team_file(team), _page(f"{team} {r['team_name'] or ''}",
                                           now + summary + results, depth=1))
    if base_url:
        qr = segno.make(base_url).svg_inline(scale=12)
        site.write("qr.html", _page(event.name, f'<div style="text-align:center">{qr}'
                                     f'<p class="big">{html.escape(base_url)}</p></div>'))
