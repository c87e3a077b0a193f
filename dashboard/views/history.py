"""/history: player profiles, the rating leaderboard, units over time, two events compared."""

import threading
from pathlib import Path

import plotly.express as px
import polars as pl
import streamlit as st

from dashboard.common import database, html_table, lang
from dashboard.i18n import t
from pipeline.base import db
from pipeline.day import queries
from pipeline.history import people, ratings, stats
from pipeline.operations.demo import demo_ids

LEADER_ESSENTIAL = ["rank", "person", "rating"]
PREPARE_AT = 20  # more events to rank than this (a few seconds): ranked in the background


def for_people(leaders: pl.DataFrame) -> pl.DataFrame:
    """The rating list as people read it: rank, name, association id, unit, rating, games,
    last played, change, provisional (no model internals)."""
    return leaders.select("rank", pl.col("name").alias("person"), "player_id", "affiliation",
                          "rating", "games", "last_played", "change",
                          pl.col("provisional").replace_strict(
                              {True: "暂定 provisional", False: ""}, return_dtype=pl.String))


@st.cache_data(max_entries=4, show_spinner=False)
def to_review(path: str, version: tuple) -> pl.DataFrame:
    """The identities to review (cached while the file's history is unchanged)."""
    with db.reading(Path(path)) as con:
        found = people.listing(con)
    return found.filter(pl.col("review") != "").select(
        pl.col("name").alias("person"), "player_id", "affiliations", "events", "review")


_PREPARING: dict[str, threading.Thread] = {}  # one preparation per database, per server
_LOCK = threading.Lock()


def preparing(path: Path, language: str, stale: int) -> None:
    """Many events' finishes to rank (a database written by other tools or an earlier
    version): ranked in the background, in short batches, while the page shows what it can
    and says how far the preparation is; it draws itself again when done."""
    st.session_state.setdefault("preparing_total", stale)  # counted before the thread starts
    with _LOCK:
        running = _PREPARING.get(str(path))
        if running is None or not running.is_alive():
            running = threading.Thread(target=stats.keep_ranks_current, args=(path,),
                                       daemon=True, name="paisai-prepare-history")
            _PREPARING[str(path)] = running
            running.start()
    progress(path, language)


@st.fragment(run_every=2)
def progress(path: Path, language: str) -> None:
    left = stats.stale_rank_count(path)
    total = max(st.session_state.get("preparing_total", left), left)
    if left == 0:
        st.session_state.pop("preparing_total", None)
        st.rerun(scope="app")
    st.info(t("preparing_history", language, done=total - left, total=total))
    st.progress((total - left) / total if total else 1.0)


language = lang()
st.title(t("history", language))
path = database()
if any(e in demo_ids() for e in queries.event_list(path)["event_id"].to_list()):
    st.caption(f"【{t('demo_data', language)}】")
ratings.keep_current(path)  # reading the history is a read; keeping it current a short write
stale = stats.stale_rank_count(path)
if stale > PREPARE_AT:  # a long preparation: never waited for
    preparing(path, language, stale)
else:
    stats.keep_ranks_current(path)
with db.reading(path) as con:
    leaders = ratings.leaderboard(con, 100)  # the stored list: read once for both tabs
    version = db.rows(con, "select count(*), bit_xor(hash(m)), (select count(*) from "
                           "identity_overrides) from player_map m")[0]  # who is who

search, board, units_tab, compare_tab, identities_tab = st.tabs(
    [t("player_search", language), t("leaderboard", language), t("units", language),
     t("compare", language), t("identities", language)])

with search:
    name = st.text_input(t("player_name", language)).strip()
    if not name:  # the page opens with content: the latest events and the best players
        st.subheader(t("recent_events", language))
        st.html(html_table(queries.event_list(path).head(5), language, "recent-events",
                           ["name", "event_date", "teams"]))
        top = leaders.head(10)
        st.subheader(t("top_players", language))
        st.html(html_table(for_people(top), language, "top-players", LEADER_ESSENTIAL))
    if name:
        with db.reading(path) as con:
            found = people.find(con, name, None)
            about = db.frame(con, """
                select player_id, arg_max(name, event_id) as name,
                       string_agg(distinct affiliation, ', ') as affiliations
                from player_map where player_id in (select unnest($ids::varchar[]))
                group by player_id""", {"ids": found})
        if not found:
            st.warning(t("not_found", language))
        else:
            notes = dict(to_review(str(path), version).select("player_id", "review").rows())
            labels = {r["player_id"]: f"{r['name']} · {r['player_id']} · {r['affiliations']}"
                      + (f" ⚠ {notes[r['player_id']]}" if r["player_id"] in notes else "")
                      for r in about.to_dicts()}
            chosen = st.selectbox(t("player", language), found, format_func=labels.get,
                                  placeholder=t("choose", language))
            with db.reading(path) as con:
                profile = stats.player_profile(con, chosen)
            cols = st.columns(4)
            cols[0].metric(t("events", language), profile["events"])
            cols[1].metric(t("rounds", language), profile["rounds"])
            cols[2].metric("胜/平/负 W/D/L",
                           f"{profile['wins']}/{profile['draws']}/{profile['losses']}")
            cols[3].metric(t("avg_diff", language), profile["avg_level_diff"])
            history = profile["rating_history"]
            if history.height:
                history = history.with_row_index("game", offset=1)
                st.plotly_chart(px.line(history.to_pandas(), x="game", y="ordinal",
                                        hover_data=["event_id", "round"], markers=True,
                                        title=t("rating_over_time", language)), width="stretch")
            st.html(html_table(profile["finishes"], language, "finishes"))
            st.html(html_table(profile["partners"].drop("partner_id", strict=False),
                               language, "partners"))
            other = st.text_input(t("opponent", language)).strip()
            if other:
                with db.reading(path) as con:
                    others = people.find(con, other, None)
                    if others:
                        st.json(stats.head_to_head(con, chosen, others[0]))
                    else:
                        st.warning(t("not_found", language))

with board:
    st.caption(t("rating_explained", language))
    st.html(html_table(for_people(leaders), language, "leaderboard", LEADER_ESSENTIAL))

with units_tab:
    with db.reading(path) as con:
        per_unit = stats.units(con)
        totals = stats.unit_totals(con)
    if totals.height:  # each unit across events, its spellings taken as one
        st.html(html_table(totals, language, "unit-totals"))
    if per_unit.height:
        st.plotly_chart(px.bar(per_unit.to_pandas(), x="event_id", y="wins", color="affiliation",
                               barmode="group", title=t("units", language)), width="stretch")
        st.html(html_table(per_unit, language, "units"))

with compare_tab:
    ids = queries.event_list(path)["event_id"].to_list()
    if len(ids) >= 2:
        cols = st.columns(2)
        first = cols[0].selectbox("1", ids, index=0, placeholder=t("choose", language))
        second = cols[1].selectbox("2", ids, index=1, placeholder=t("choose", language))
        with db.reading(path) as con:
            side_by_side = stats.compare(con, first, second)
        st.html(html_table(side_by_side, language, "compare"))
        both = pl.concat([queries.level_differences(path, e).with_columns(event=pl.lit(e))
                          for e in (first, second)])
        if both.height:
            st.plotly_chart(px.histogram(both.to_pandas(), x="level_diff", color="event",
                                         barmode="group", nbins=14), width="stretch")

with identities_tab:  # likely namesakes are flagged, never merged: the organizer decides
    flagged = to_review(str(path), version)
    if flagged.height:
        st.caption(t("to_review", language, n=flagged.height))
        st.html(html_table(flagged.head(500), language, "identities-to-review",
                           ["person", "review"]))
    else:
        st.caption(t("none_to_review", language))
