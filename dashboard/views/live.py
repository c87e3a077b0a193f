"""/live: the ranking of the selected event, for the hall and the projector."""

import html
import math
import time
from dataclasses import replace

import polars as pl
import streamlit as st

from dashboard import charts, versioned
from dashboard.common import (
    database,
    event_version,
    html_table,
    lang,
    phones_qr,
    projector,
    public_page_event,
    rotate_if_due,
)
from dashboard.i18n import colon, t
from pipeline.day import queries
from pipeline.ranking.scoring import STANDINGS_COLUMNS

PAGE_ROWS = 20
PODIUM_ROWS = 14  # rows a page beside the podium, still within 1080 pixels
PAGE_SECONDS = 10
READER_ROWS = 50  # a reader's page of a big ranking (chosen; the projector turns its own)

language = lang()
event_id = public_page_event(language, swiss=True)


ESSENTIAL = ("rank", "team_no", "team_name", "match_points", "level_diff_score")
seen: dict[str, str] = {}  # the event's version as this run's ranking read it


@st.cache_data(ttl=5, max_entries=16, show_spinner=False)
def _last_change(path: str, event: str, version: str):
    """When the event last changed (a result, a deal on a sheet, a ruling, the round's
    start), once per version of the event — and every 5 s: a clock started changes no
    version."""
    from pathlib import Path

    return queries.last_change(Path(path), event)


if projector():
    phones_qr(event_id, language)


# a cheap look at the event's version, the ranking when it changed: every second on the
# projector (the round complete shows within 3 s of the last table, issue 53), 2 s elsewhere
@st.fragment(run_every=1 if projector() else 2)
def ranking() -> None:
    rotate_if_due("live")
    version = seen["version"] = event_version(event_id)
    results = queries.results_part(version)
    view = versioned.live(str(database()), event_id, results)
    view = replace(view, in_play=versioned.in_play(str(database()), event_id, version))
    st.title(view.event_name)
    changed = _last_change(str(database()), event_id, version)
    updated = changed.strftime("%H:%M:%S") if changed else "—"
    if view.in_play and not view.over:  # tables keep their own sheets: if the round ended now
        found = _provisional(str(database()), event_id)
        if found is not None:
            provisional(view, found, updated)
            return
    if view.round == 0:  # nothing reported yet: the round's tables, not a ranking of zeros
        round_pairings(view)
        return
    if view.over:
        parts = [t("event_over", language)]
    elif view.reported < view.expected:  # "after round N" only once round N is complete
        parts = [t("in_progress", language, n=view.round, x=view.reported, y=view.expected)]
    else:
        parts = [t("after_round", language, n=view.round),
                 t("reported", language, x=view.reported, y=view.expected)]
    parts.append(t("updated", language, t=updated))
    table = versioned.ranking_table(str(database()), event_id, results, language, "ranking",
                                    ESSENTIAL)
    total = len(table.rows)
    prizes = None
    if view.over:
        prizes = prize_list(str(database()), event_id, results)
        podium(prizes)
    rows = PODIUM_ROWS if view.over else PAGE_ROWS  # everything within 1080 pixels
    start, count = 0, total
    if projector() and (total > rows or prizes is not None):
        chunks = math.ceil(total / rows)
        pages = chunks + (1 if prizes is not None else 0)  # the prize list: a page too
        page = versioned.turned_page(pages, changed, PAGE_SECONDS)
        parts.append(t("page_of", language, p=page + 1, n=pages))
        if page == chunks:
            st.html(f"<div class='progress' data-testid='progress'>"
                    f"{html.escape(' · '.join([t('prizes', language), *parts[1:]]))}</div>")
            st.html(html_table(prizes.select("award", "rank", "team_no", "team_name"),
                               language, "prizes"))
            return
        start, count = page * rows, rows
    st.html(f"<div class='progress' data-testid='progress'>{html.escape(' · '.join(parts))}"
            "</div>")
    if projector() and view.latest_results and not view.over:
        # the newest result's round alone, named: a team's table of the round before beside
        # its table of this one read as one team at two tables
        newest = view.latest_results[0][0]
        feed = "　".join([f"{t('table_at', language, n=tb)} {ew} {el} – {ns} {nl}"
                         + _overturned(view.ruled.get((r, tb)))
                         for r, tb, ew, el, ns, nl in view.latest_results if r == newest][:4])
        said = t("latest_results", language, n=newest)
        st.html(f"<div class='feed' data-testid='feed'>{html.escape(said)}{colon(language)}"
                f"{html.escape(feed)}</div>")
    if not projector():
        start, count = reader_page(total, "ranking-page")
    st.html(table.page(start, count))
    # a reader's part below the ranking, made ahead for this version (in a thread, while
    # readers come) by whichever session sees the version first: the projector's run every
    # second, a reader's own ranking every 2 s — the reader's next run finds it made (a
    # reader's whole run makes it itself, next: a thread beside it would only share the work)
    if projector() or _ranking_alone():
        versioned.warm((str(database()), event_id, results, language),
                       lambda: readers_part(results))


def _ranking_alone() -> bool:
    """This run redraws the ranking alone (its fragment's own timer), not the whole page."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    return bool(context is not None and context.fragment_ids_this_run)


def reader_page(total: int, key: str) -> tuple[int, int]:
    """A reader's page of a big ranking, READER_ROWS places a page, chosen above it (the
    projector turns its pages by itself): (first row, rows)."""
    spans = versioned.pages(total, READER_ROWS)
    if len(spans) == 1:
        return 0, total
    labels = [t("rank_range", language, a=first + 1, b=first + n) for first, n in spans]
    chosen = st.selectbox(t("ranking_page", language), range(len(spans)), key=key,
                          format_func=labels.__getitem__, placeholder=t("choose", language))
    return spans[chosen or 0]


def _overturned(ruled: tuple[str, str] | None) -> str:
    """The mark of a result a confirmed ruling decides otherwise than the sheet says."""
    if ruled is None:
        return ""
    kind, team = ruled
    return f" [{t('overturned', language, ruling=f'{team} {_ruling_word(kind)}')}]"


def _ruling_word(kind: str) -> str:
    from dashboard.i18n import one_language
    from pipeline.officials.ladder import RULING_WORDS

    return one_language(RULING_WORDS[kind], language)


IN_PLAY_ROWS = 10  # the projector lists this many tables in play a page: disputes first


def in_play(view, page: int = 0) -> None:
    """The tables keeping their own sheet, as they stand after their last deal (issue 42):
    levels, deals, who leads, a dispute; not counted in the ranking until stored. The
    projector lists the disputed first, IN_PLAY_ROWS a page (`page`), the totals above."""
    if not view.in_play:
        return
    sides = {"ew": t("ew", language), "ns": t("ns", language)}

    def state(row: dict) -> str:
        if row["disputed"]:
            return t("play_disputed", language)
        if row["over"]:
            return t("play_over", language)
        return t("play_leads", language, side=sides[row["leader"]]) if row["leader"] \
            else t("play_level", language)

    shown = sorted(view.in_play, key=lambda r: (not r["disputed"], r["table"]))
    if projector():
        chunks = math.ceil(len(shown) / IN_PLAY_ROWS)
        start = page % chunks * IN_PLAY_ROWS
        shown = shown[start:start + IN_PLAY_ROWS]
    frame = pl.DataFrame([{"table": r["table"], "ew_team": r["ew_team"], "ew_name": r["ew_name"],
                           "play_ew_level": r["ew_level"], "ns_team": r["ns_team"],
                           "ns_name": r["ns_name"], "play_ns_level": r["ns_level"],
                           "deals_recorded": r["deals"],
                           "sheet_state": state(r)} for r in shown])
    total = t("in_play", language, tables=len(view.in_play),
              deals=sum(r["deals"] for r in view.in_play))
    st.html(f"<div class='progress' data-testid='in-play-total'>{html.escape(total)}</div>")
    st.html(html_table(frame, language, "in-play"))


@st.cache_resource(ttl=5, max_entries=16, show_spinner=False)
def _provisional(path: str, event: str):
    """The ranking if the round ended now, made at most every 5 s whatever the hall enters
    (a full hall changes the event every second; the tables in play above it stay live)."""
    from pathlib import Path

    return queries.if_round_ended_now(Path(path), event)


def provisional(view, found, updated: str) -> None:
    """While tables keep their own sheets: the tables in play, and the ranking as it would be
    if the round ended now — said to be provisional until every table's result is stored."""
    table = found.standings.select(STANDINGS_COLUMNS)
    parts = [t("provisional", language, n=found.round, x=found.reported, y=found.expected),
             t("updated", language, t=updated)]
    page = 0
    if projector():  # within 1080 pixels: the tables in play and the ranking a page each
        rows = PAGE_ROWS - min(len(view.in_play), IN_PLAY_ROWS) - 2
        pages = max(math.ceil(table.height / rows), math.ceil(len(view.in_play) / IN_PLAY_ROWS))
        page = int(time.time() // PAGE_SECONDS) % pages
        if pages > 1:
            parts.append(t("page_of", language, p=page + 1, n=pages))
        table = table.slice(page % math.ceil(table.height / rows) * rows, rows) \
            if table.height else table
    in_play(view, page)
    if not projector():
        table = table.slice(*reader_page(table.height, "provisional-page"))
    st.html(f"<div class='progress' data-testid='progress'>{html.escape(' · '.join(parts))}"
            "</div>")
    st.html(html_table(table, language, "provisional", list(ESSENTIAL)))


def round_pairings(view) -> None:
    """Before the first result: the round's tables, so that players find their seats."""
    tables = versioned.pairings_table(str(database()), event_id, queries.results_part(
        seen["version"]), language, t("bye", language))
    if tables is None:
        st.info(t("no_results", language))
        return
    round_no, _ = versioned.pairings(str(database()), event_id,
                                     queries.results_part(seen["version"]))
    st.html(f"<div class='progress' data-testid='progress'>"
            f"{html.escape(t('round_pairing', language, n=round_no))} · "
            f"{html.escape(t('reported', language, x=view.reported, y=view.expected))}</div>")
    st.html(tables.page(0, len(tables.rows)))


@st.cache_resource(max_entries=16, show_spinner=False)
def prize_list(path: str, event: str, version: str):
    """The prizes as awarded (shared places shown as shared), once per version."""
    from pathlib import Path

    from pipeline.base import db, events
    from pipeline.ranking import awards
    with db.reading(Path(path)) as con:
        return awards.award_list(con, events.load(con, event))


PLACE_COLOURS = ["#d4a017", "#a8a9ad", "#b0793f"]  # gold, silver, bronze: plain CSS


def podium(prizes) -> None:
    """The podium as the prizes were awarded — the first three awards' teams (two 季军 make
    two cards), a coloured badge instead of emoji a projector's fonts may lack — and the
    prize list itself."""
    names = list(dict.fromkeys(prizes["award"].to_list()))[:3]
    top = prizes.filter(pl.col("award").is_in(names))
    big = "36px" if projector() else "1.4em"
    cards = "".join(
        f"<div style='flex:1;min-width:150px;background:#fff7e0;border-radius:10px;"
        f"padding:8px 14px;text-align:center'><div style='display:inline-block;"
        f"background:{PLACE_COLOURS[names.index(r['award'])]};color:#fff;border-radius:18px;"
        f"padding:2px 16px;font-size:24px;font-weight:700'>{html.escape(r['award'])}</div>"
        f"<div style='font-size:{big};font-weight:700'>"
        f"{html.escape(str(r['team_name'] or r['team_no']))}</div>"
        f"<div style='font-size:24px'>{html.escape(r['team_no'])}</div></div>"
        for r in top.iter_rows(named=True))
    st.html(f"<div data-testid='podium' style='display:flex;gap:12px;flex-wrap:wrap;"
            f"margin-bottom:8px'>{cards}</div>")
    if not projector():  # the projector shows the prize list as a page of its own
        with st.expander(t("prizes", language), expanded=True):
            st.html(html_table(prizes.select("award", "rank", "team_no", "team_name"),
                               language, "prizes"))


# Below the ranking, for a reader (not the projector): each made once per version of the
# event's results and kept for every session (dashboard.versioned) — the ranking after every
# round alone was 0.8 s of CPU at 1,000 teams, and every rerun of every session made it again
# (issue 53: a rerun of this page 1.2–1.6 s of CPU, two laptops' sessions held up the console).


def readers_part(results: str) -> tuple:
    """What a reader's run shows below the ranking as of one version: why each team sits
    where it does, the bump chart, the level differences (each made once, kept)."""
    path = str(database())
    return (versioned.why(path, event_id, results, language),
            versioned.progression_chart(path, event_id, results,
                                        t("progression", language, n=charts.TOP_TEAMS), None),
            versioned.diffs_chart(path, event_id, results, t("diff_dist", language),
                                  t("tables_count", language)))


ranking()
if not projector():
    versioned.reader_seen()
    results = queries.results_part(seen.get("version") or event_version(event_id))
    why, progression, diffs = readers_part(results)
    team = None
    if why:
        team = st.selectbox(t("why_here", language), list(why), index=None,
                            placeholder=t("choose_team", language))
        if team:
            st.info(f"{team}: {why[team] or '—'}")
    if team:  # the chosen team's line beside the first places'
        progression = versioned.progression_chart(
            str(database()), event_id, results, t("progression", language, n=charts.TOP_TEAMS),
            team)
    if progression is not None:
        st.plotly_chart(progression, width="stretch")
    if diffs is not None:
        st.plotly_chart(diffs, width="stretch")
