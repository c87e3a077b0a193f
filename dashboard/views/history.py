"""/history: player profiles, the rating leaderboard, units over time, two events compared."""

import plotly.express as px
import polars as pl
import streamlit as st

from dashboard.common import database, html_table, lang
from dashboard.i18n import t
from pipeline import db, queries
from pipeline.demo import demo_ids
from pipeline.history import identity, ratings, stats

LEADER_ESSENTIAL = ["rank", "name", "rating"]


def for_people(leaders: pl.DataFrame) -> pl.DataFrame:
    """The rating list as people read it: rank, name, unit, rating, games, last played,
    change, provisional (no model internals)."""
    return leaders.select("rank", "name", "affiliation", "rating", "games", "last_played",
                          "change", pl.col("provisional").replace_strict(
                              {True: "暂定 provisional", False: ""}, return_dtype=pl.String))


language = lang()
st.title(t("history", language))
path = database()
if any(e in demo_ids() for e in queries.event_list(path)["event_id"].to_list()):
    st.caption(f"【{t('demo_data', language)}】")
ratings.keep_current(path)  # reading the history is a read; keeping it current a short write
stats.keep_ranks_current(path)
with db.reading(path) as con:
    leaders = ratings.leaderboard(con, 100)  # two fits: read once for both tabs

search, board, units_tab, compare_tab = st.tabs(
    [t("player_search", language), t("leaderboard", language), t("units", language),
     t("compare", language)])

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
            found = identity.find(con, name, None)
            listing = identity.listing(con).filter(pl.col("player_id").is_in(found))
        if not found:
            st.warning(t("not_found", language))
        else:
            labels = {r["player_id"]: f"{r['name']} · {r['affiliations']}"
                      for r in listing.to_dicts()}
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
                    others = identity.find(con, other, None)
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
