"""The site's team pages are built column-wise (issue 32: 100,000 pages); each must be
byte for byte what the template renders for that team, in every layout: seated at a
table, a bye, not paired; with and without a reason and results; names that need escaping;
fractional points."""

from __future__ import annotations

import polars as pl
from markupsafe import Markup

from pipeline.publishing.publish import HEADERS_ZH, RESULT_COLUMNS, STYLE_FILE, team_pages
from pipeline.publishing.templating import environment


def _one_by_one(teams: pl.DataFrame, latest: int | None) -> dict[str, str]:
    page = environment().get_template("site/team.html")
    headers = [HEADERS_ZH.get(c, c) for c in RESULT_COLUMNS]
    shown = {}
    for r in teams.iter_rows(named=True):
        seat = None if not r["seated"] else {"table": r["table"], "side": r["side"],
                                             "opponent": r["opponent"]}
        shown[r["team_no"]] = page.render(
            title=r["title"], seat=seat, latest=latest, rank=r["rank"],
            match_points=r["match_points"], level_diff_score=r["level_diff_score"],
            results=Markup(r["results"]) if r["results"] is not None else None,
            headers=headers, why=r["why"], style_file=STYLE_FILE)
    return shown


def test_every_layout_is_what_the_template_renders():
    teams = pl.DataFrame({
        "team_no": ["A1", "A2", "A3", "A4", "B&1", "A6"],
        "title": ["A1 雄鹰", "A2 <b>粗</b>", "A3 'q' \"d\"", "A4 ", "B&1 甲&乙", "A6 x"],
        "rank": [1, 2, 2, 4, 5, 6],
        "match_points": [3.5, 2.0, 2.0, 0.5, 0.0, None],
        "level_diff_score": [12, -3, -3, 0, -9, 0],
        "table": [1, 1, None, None, 2, None],
        "side": ["东西 EW", "南北 NS", "东西 EW", None, "南北 NS", None],
        "opponent": ["A2", "A1", None, None, "A9", None],
        "seated": [True, True, True, False, True, False],
        "results": ["<tr><td>1</td></tr>", None, "<tr><td>2</td></tr>", "<tr></tr>", None,
                    None],
        "why": ["排在 A2 之前：积分 3.5 对 2 <above>", "", "与 A2 并列", "", "x & y", ""],
    })
    built = dict(team_pages(teams, 3).iter_rows())
    assert list(built) == teams["team_no"].to_list()
    assert built == _one_by_one(teams, 3)
    whole = teams.with_columns(pl.col("match_points").fill_null(1.0).cast(pl.Int64))
    assert dict(team_pages(whole, None).iter_rows()) == _one_by_one(whole, None)
