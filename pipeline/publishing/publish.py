"""`paisai publish`: a static site for thousands of phones (HTML, CSS, JSON; no server code).

Pages: the ranking (index.html), the current pairings, one page per team (its table and
seat this round, its results so far) and a QR page for the projector pointing at the site's
address. Publishing again rewrites only the files whose content changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

import polars as pl
import segno
from markupsafe import Markup

from pipeline.base import db, events, scratch
from pipeline.base.errors import UsageError
from pipeline.base.levels import format_level
from pipeline.base.output import HEADERS_ZH
from pipeline.publishing.templating import environment, escaped, row_html, table_rows
from pipeline.publishing.templating import render as render_page
from pipeline.ranking import rounds, scoring
from pipeline.ranking.explain import why_here

CSS = """body{font-family:"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;
margin:0;padding:12px;background:#f5f7fb;color:#112}h1{font-size:22px;margin:8px 0}
nav a{margin-right:12px}table{border-collapse:collapse;width:100%;background:#fff}
th{background:#1f3b63;color:#fff;position:sticky;top:0}th,td{padding:6px 8px;
border-bottom:1px solid #dde;font-size:15px;text-align:left}td.n{text-align:right}
.card{background:#fff;border-radius:8px;padding:12px;margin:10px 0;font-size:18px}
.big{font-size:34px;font-weight:700}@media(min-width:800px){body{max-width:960px;margin:auto}}
"""


# the style sheet under a name of its content: cached for a year, a new style a new name
# (style.css stays too, for pages saved before)
STYLE_FILE = f"assets/style-{hashlib.sha256(CSS.encode()).hexdigest()[:12]}.css"


def _headers(frame: pl.DataFrame) -> list[str]:
    return [HEADERS_ZH.get(c, c) for c in frame.columns]


RESULT_COLUMNS = ["round", "opponent", "outcome", "match_points", "level_diff_score", "levels"]


OUTCOME_WORDS = {"zh": {"win": "胜", "loss": "负", "draw": "平"},
                 "en": {"win": "Win", "loss": "Loss", "draw": "Draw"}}


def results_by_team(played: pl.DataFrame, language: str = "zh") -> dict[str, Markup]:
    """Each team's results so far as table rows, for all teams in one grouped query, in one
    language ("zh" or "en"): the outcome in its words, points whole where they are (3, not
    3.0)."""
    if played.is_empty():
        return {}
    spelled = {v: format_level(v) for v in played["levels"].drop_nulls().unique().to_list()}
    points = pl.col("match_points")
    if played.schema["match_points"].is_float() and \
            (played["match_points"].drop_nulls() % 1 == 0).all():
        points = points.cast(pl.Int64)
    games = played.sort("team_no", "round").select(
        "team_no", "round", "opponent",
        pl.col("outcome").replace(OUTCOME_WORDS["en" if language == "en" else "zh"]),
        points, "level_diff_score",
        pl.col("levels").replace_strict(spelled, default=None, return_dtype=pl.String))
    rows = games.group_by("team_no", maintain_order=True).agg(
        row_html(games.select(RESULT_COLUMNS).schema).str.join("").alias("rows"))
    return {team: Markup(body) for team, body in rows.iter_rows()}  # noqa: S704 - escaped


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


MARKER = ".paisai-site"
# the files a site published before the marker existed holds: such a folder is paisai's too
SITE_NAMES = {"index.html", "pairings.html", "teams.html", "standings.json", "pairings.json",
              "style.css", "qr.html", "teams", "assets", MARKER}


def _folder_mode() -> int:
    """The mode a new folder gets under the process's umask (mkdtemp's is 0700)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


def check_site_folder(out: Path) -> Path:
    """The folder a site may be published into, resolved: missing, empty, or a site paisai
    published (its marker file, or nothing but paisai's own page names). Anything else is
    refused (UsageError): publishing replaces the folder whole.

    >>> check_site_folder(Path("/"))
    Traceback (most recent call last):
    ...
    pipeline.base.errors.UsageError: --out 不能是根目录或当前文件夹及其上级 --out cannot be the root, the current folder or one holding it: /
    """
    out = Path(os.path.abspath(out.expanduser()))
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out 指向的是一个文件，不是文件夹 --out is a file, not a folder: {out}")
    here = Path.cwd().resolve()
    if out.parent == out or out.resolve() == here or out.resolve() in here.parents:
        raise UsageError(f"--out 不能是根目录或当前文件夹及其上级 --out cannot be the root, "
                         f"the current folder or one holding it: {out}")
    if out.is_dir():
        names = {p.name for p in out.iterdir()}
        if names and MARKER not in names and not names <= SITE_NAMES:
            shown = ", ".join(sorted(names - SITE_NAMES)[:5])
            raise UsageError(
                f"--out 文件夹 {out} 已有其他文件（{shown}），发布会替换整个文件夹，请指定一个新的"
                f"或空的文件夹 the folder holds files paisai did not publish ({shown}); "
                "publishing replaces the whole folder: give a new or empty folder")
    return out


# A site of more files than this has its previous version removed by a process of its own
# once the new one is in place: at 100,000 teams removing the old files takes as long as
# writing the new ones, and the readers already see the new site (a remover stopped halfway
# leaves a scratch folder the next publish clears).
LARGE_SITE = 5_000


def remove_later(folder: Path) -> None:
    """Remove `folder` in a process of its own that outlives this one. A thread waits for it
    (daemon: a command's exit never waits), so that in a long-lived process — the hall's
    server publishes in-process — the finished remover leaves no zombie behind."""
    remover = subprocess.Popen(
        [sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], True)",
         str(folder)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    threading.Thread(target=remover.wait, daemon=True, name="remove-later").start()


class _Site:
    """The site built whole in a scratch folder beside `out`, then swapped in: a failure
    leaves the published site as it was. A file whose content is unchanged is linked from
    the published one (same file, same time), so a sync or a CDN sees only what changed."""

    def __init__(self, out: Path):
        out = check_site_folder(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        self.out = out
        scratch.clear_dead(out.parent, out.name, "old")
        self.build = scratch.make_dir(out.parent, out.name, "building")
        os.chmod(self.build, _folder_mode())
        self.changed: list[str] = []
        self.folders: set[str] = set()
        self.known = self._digests(out)  # what each published file holds, by its digest
        self.digests: dict[str, str] = {}

    @staticmethod
    def _digests(out: Path) -> dict[str, str]:
        """The published files' digests, as the last publish listed them in its marker
        (none from a site published before the marker listed them: those are compared by
        content)."""
        try:
            lines = (out / MARKER).read_text(encoding="utf-8").splitlines()[1:]
        except OSError:
            return {}
        return dict(line.split("\t", 1)[::-1] for line in lines if "\t" in line)

    def write(self, relative: str, text: str) -> None:
        data = text.encode("utf-8")
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        self.digests[relative] = digest
        published = os.path.join(self.out, relative)  # str paths: 100,000 files a publish
        path = os.path.join(self.build, relative)
        folder = relative.rpartition("/")[0]
        if folder and folder not in self.folders:
            os.makedirs(os.path.join(self.build, folder), exist_ok=True)
            self.folders.add(folder)
        same = self.known.get(relative) == digest if self.known else (
            os.path.isfile(published) and Path(published).read_bytes() == data)
        if same:
            try:
                os.link(published, path)
                return
            except OSError:
                if os.path.isfile(published):
                    shutil.copy2(published, path)
                    return
        with open(path, "wb") as file:
            file.write(data)
        self.changed.append(relative)

    def finish(self) -> None:
        """The marker, with the digest of every file written (the next publish compares
        against these instead of reading each file); a published file this publish no
        longer writes (the QR page, a withdrawn team's page) is counted as changed — the
        swap removes it."""
        published = set(self.known) if self.known else {
            p.relative_to(self.out).as_posix() for p in self.out.rglob("*")
            if p.is_file() and p.name != MARKER} if self.out.is_dir() else set()
        self.changed += sorted(published - set(self.digests))
        listed = "".join(f"{digest}\t{name}\n" for name, digest in self.digests.items())
        (self.build / MARKER).write_text(
            "paisai publish: this folder is replaced whole on every publish\n" + listed,
            encoding="utf-8")

    def swap(self) -> None:
        old = None
        if self.out.exists():
            old = self.out.with_name(scratch.scratch_name(self.out.name, "old") + "x")
            os.replace(self.out, old)
        os.replace(self.build, self.out)
        if old is not None and len(self.digests) > LARGE_SITE:
            remove_later(old)
        elif old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.build, ignore_errors=True)


def site_facts(database: Path, event_id: str) -> tuple:
    """What the site is made from, read in one go: (event, after, ranking, played, latest,
    pairs)."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        after = scoring.latest_round(con, event_id)
        ranking = scoring.standings(con, event, after)
        played = scoring.team_rounds(con, event, after)
        latest = rounds.latest_paired_round(con, event_id)
        pairs = rounds.pairings(con, event_id, latest) if latest else None
    return event, after, ranking, played, latest, pairs


def publish(database: Path, event_id: str, out: Path, base_url: str | None = None,
            on_page: Callable[[str], None] = lambda page: None) -> list[str]:
    """Write the site; returns the files that changed."""
    facts = site_facts(database, event_id)
    site = _Site(out)
    try:
        write_pages(site, *facts, base_url, on_page)
        site.finish()
    except BaseException:
        site.discard()
        raise
    site.swap()
    return site.changed


def write_pages(site, event, after: int, ranking: pl.DataFrame, played: pl.DataFrame,
                latest: int | None, pairs: pl.DataFrame | None, base_url: str | None,
                on_page: Callable[[str], None]) -> None:
    """Every file of the site through `site.write(relative, text)` (a folder, or object
    storage), the style sheet first and index.html — the page a reader starts from — last."""
    event_id = event.event_id
    pages = {t: team_file(t) for t in ranking["team_no"]}
    shown = ranking.select(scoring.STANDINGS_COLUMNS)
    site.write("style.css", CSS)
    site.write(STYLE_FILE, CSS)
    render = partial(render_page, style_file=STYLE_FILE)
    index = render(
        "site/index.html", title=f"{event.name} · 第 {after} 轮后排名", up="",
        headers=_headers(shown), rows=table_rows(shown, pages))
    site.write("standings.json", json.dumps(
        {"event": event_id, "round": after, "standings": shown.to_dicts()},
        ensure_ascii=False))
    seats: dict[str, dict] = {}
    on_page("pairings.html")
    if pairs is not None:
        table = pairs.select("table", "ew_team", "ew_name",
                             pl.col("ns_team").fill_null(pl.col("bye")), "ns_name")
        site.write("pairings.html", render(
            "site/pairings.html", title=f"{event.name} · 第 {latest} 轮对阵", up="",
            headers=_headers(table), rows=table_rows(table)))
        site.write("pairings.json", json.dumps(
            {"event": event_id, "round": latest, "tables": pairs.select(
                "table", "ew_team", "ns_team").to_dicts()}, ensure_ascii=False))
        for r in pairs.iter_rows(named=True):
            seats[r["ew_team"]] = {"table": r["table"], "side": "东西 EW",
                                   "opponent": r["ns_team"]}
            if r["ns_team"]:
                seats[r["ns_team"]] = {"table": r["table"], "side": "南北 NS",
                                       "opponent": r["ew_team"]}
    else:
        site.write("pairings.html", render("site/pairings.html", title=event.name, up="",
                                           rows=None))
    site.write("teams.html", render(
        "site/teams.html", title=f"{event.name} · 各队", up="",
        teams=[(t, n, pages[t]) for t, n in ranking.select("team_no", "team_name").iter_rows()]))
    results_of = results_by_team(played)
    why = why_here(ranking, scoring.published_keys(event, after))
    on_page(f"{ranking.height} 个队页 team pages")
    teams = ranking.select(
        "team_no", pl.concat_str([pl.col("team_no"), pl.lit(" "),
                                  pl.col("team_name").fill_null("")]).alias("title"),
        "rank", "match_points", "level_diff_score").with_columns(
        pl.col("team_no").replace_strict({t: s["table"] for t, s in seats.items()},
                                         default=None, return_dtype=pl.Int64).alias("table"),
        pl.col("team_no").replace_strict({t: s["side"] for t, s in seats.items()},
                                         default=None, return_dtype=pl.String).alias("side"),
        pl.col("team_no").replace_strict({t: s["opponent"] for t, s in seats.items()},
                                         default=None, return_dtype=pl.String)
        .alias("opponent"),
        pl.col("team_no").is_in(list(seats)).alias("seated"),
        pl.col("team_no").replace_strict({t: str(m) for t, m in results_of.items()},
                                         default=None, return_dtype=pl.String).alias("results"),
        pl.col("team_no").replace_strict(why, default="", return_dtype=pl.String).alias("why"))
    for team, html in team_pages(teams, latest).iter_rows():
        site.write(team_file(team), html)
    if base_url:
        site.write("qr.html", render("site/qr.html", title=event.name, up="",
                                     qr_svg=segno.make(base_url).svg_inline(scale=12),
                                     base_url=base_url))
    on_page("index.html")
    site.write("index.html", index)


SLOT = "\ue000{}\ue001"  # a value's place in a page rendered once per layout (private use)


def team_pages(teams: pl.DataFrame, latest: int | None) -> pl.DataFrame:
    """Every team's page (team_no, html), as the template `site/team.html` renders it, built
    column-wise: the template is rendered once per layout (seated at a table, a bye, not
    paired; with or without a reason and results) with markers in the values' places, and
    each team's escaped values are put in their places (100,000 pages in seconds, where
    rendering each took a minute). `teams`: team_no, title, rank, match_points,
    level_diff_score, table, side, opponent, seated, results (HTML rows), why."""
    page = environment().get_template("site/team.html")
    headers = [HEADERS_ZH.get(c, c) for c in RESULT_COLUMNS]
    values = {name: escaped(pl.col(name)) for name in ("title", "side", "opponent", "why")}
    for name in ("rank", "match_points", "level_diff_score", "table"):  # as str() writes them
        if teams.schema[name].is_float():  # str() of each distinct value, not polars' own
            distinct = teams[name].drop_nulls().unique().to_list()
            values[name] = pl.col(name).replace_strict({v: str(v) for v in distinct},
                                                       default=None, return_dtype=pl.String)
        else:
            values[name] = pl.col(name).cast(pl.String)
        values[name] = values[name].fill_null("None")
    values["results"] = pl.col("results")  # HTML already (results_by_team escapes)
    layout = pl.concat_str([
        pl.when(~pl.col("seated")).then(pl.lit("none")).when(pl.col("table").is_null())
        .then(pl.lit("bye")).otherwise(pl.lit("table")),
        pl.col("why").str.len_bytes() > 0, pl.col("results").is_not_null()],
        separator=",").alias("layout")
    teams = teams.with_columns(layout)
    pages = []
    for (key,), group in teams.group_by("layout", maintain_order=True):
        seat_kind, has_why, has_results = key.split(",")
        seat = None if seat_kind == "none" else {
            "table": SLOT.format("table") if seat_kind == "table" else None,
            "side": SLOT.format("side"), "opponent": SLOT.format("opponent")}
        text = page.render(title=SLOT.format("title"), seat=seat, latest=latest,
                           style_file=STYLE_FILE,
                           rank=SLOT.format("rank"), match_points=SLOT.format("match_points"),
                           level_diff_score=SLOT.format("level_diff_score"),
                           results=Markup(SLOT.format("results")) if has_results == "true"
                           else None,
                           headers=headers, why=SLOT.format("why") if has_why == "true" else "")
        parts = re.split("\ue000(\\w+)\ue001", text)
        pages.append(group.select("team_no", pl.concat_str(
            [pl.lit(part) if i % 2 == 0 else values[part] for i, part in enumerate(parts)]
        ).alias("html")))
    order = teams.select("team_no").with_row_index("at")
    return pl.concat(pages).join(order, on="team_no").sort("at").drop("at") if pages else \
        pl.DataFrame(schema={"team_no": pl.String, "html": pl.String})
