"""/live: the ranking of the selected event, for the hall and the projector."""

import html
import math
import time

import streamlit as st

from dashboard import charts
from dashboard.common import (
    database,
    event_version,
    html_table,
    lang,
    projector,
    public_page_event,
    rotate_if_due,
)
from dashboard.i18n import t
from pipeline import queries
from pipeline.scoring import STANDINGS_COLUMNS

PAGE_ROWS = 20
PAGE_SECONDS = 10

language = lang()
event_id = public_page_event(language, swiss=True)


ESSENTIAL = ["rank", "team_no", "team_name", "match_points", "level_diff_score"]


@st.cache_data(max_entries=16, show_spinner=False)
def _live(path: str, event: str, version: str) -> queries.LiveView:
    """The ranking as of one version of the event: read again only when the event changes."""
    from pathlib import Path

    return queries.live(Path(path), event)


@st.fragment(run_every=2)  # a cheap look at the event's version; the ranking when it changed
def ranking() -> None:
    rotate_if_due("live")
    view = _live(str(database()), event_id, event_version(event_id))
    st.title(view.event_name)
    updated = view.updated_at.strftime("%H:%M:%S") if view.updated_at else "—"
    if view.over:
        parts = [t("event_over", language)]
    else:
        parts = [t("after_round", language, n=view.round),
                 t("reported", language, x=view.reported, y=view.expected)]
    parts.append(t("updated", language, t=updated))
    table = view.standings.select(STANDINGS_COLUMNS)
    if view.over:
        podium(table)
    if projector() and table.height > PAGE_ROWS:
        pages = math.ceil(table.height / PAGE_ROWS)
        page = int(time.time() // PAGE_SECONDS) % pages
        table = table.slice(page * PAGE_ROWS, PAGE_ROWS)
        parts.append(t("page_of", language, p=page + 1, n=pages))
    st.html(f"<div class='progress' data-testid='progress'>{html.escape(' · '.join(parts))}"
            "</div>")
    if view.round == 0:
        st.info(t("no_results", language))
    if projector() and view.latest_results and not view.over:
        feed = "　".join(f"{t('table', language)} {tb}: {ew} {el} – {ns} {nl}"
                        for _, tb, ew, el, ns, nl in view.latest_results[:4])
        st.html(f"<div class='feed' data-testid='feed'>{html.escape(t('latest_results', language))}"
                f"：{html.escape(feed)}</div>")
    st.html(html_table(table, language, "ranking", ESSENTIAL))


def podium(table) -> None:
    """The first three, large, once the event is over."""
    top = table.filter(table["rank"] <= 3).head(4)
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    cards = "".join(
        f"<div style='flex:1;min-width:150px;background:#fff7e0;border-radius:10px;"
        f"padding:10px 14px;text-align:center'><div style='font-size:2em'>"
        f"{medals.get(r['rank'], '')}</div><div style='font-size:1.4em;font-weight:700'>"
        f"{html.escape(str(r['team_name'] or r['team_no']))}</div>"
        f"<div>{html.escape(r['team_no'])}</div></div>" for r in top.iter_rows(named=True))
    st.html(f"<div data-testid='podium' style='display:flex;gap:12px;flex-wrap:wrap;"
            f"margin-bottom:10px'>{cards}</div>")


ranking()
if not projector():
    why = queries.why_here(database(), event_id)
    team = None
    if why:
        team = st.selectbox(t("why_here", language), list(why), index=None,
                            placeholder=t("choose_team", language))
        if team:
            st.info(f"{team}: {why[team] or '—'}")
    progression = queries.rank_progression(database(), event_id)
    if progression["round"].n_unique() > 1:
        st.plotly_chart(charts.rank_progression(
            progression, t("progression", language, n=charts.TOP_TEAMS), team), width="stretch")
    diffs = queries.level_differences(database(), event_id)
    if diffs.height:
        st.plotly_chart(charts.level_differences(diffs, t("diff_dist", language),
                                                 t("tables_count", language)),
                        width="stretch")
