"""/bracket: Tractor group tables and the knockout tree, winners advancing, the champion."""

import html

import polars as pl
import streamlit as st

from dashboard.common import (
    bracket_html,
    database,
    html_table,
    lang,
    projector,
    public_page_event,
    rotate_if_due,
    stage_name,
)
from dashboard.i18n import t
from pipeline.base import db, events
from pipeline.day import tractorstore
from pipeline.tractor import stages

IN_PLAY_ROWS = 8  # the projector lists this many matches in play: disputes first

language = lang()
event_id = public_page_event(language, swiss=False)
GROUP_ESSENTIAL = ["rank", "team_no", "team_name", "points"]
if not projector():  # two group tables side by side beside the menu: compact, never clipped
    st.html("<style>@media (min-width:641px){table[data-testid^=group-] td,"
            "table[data-testid^=group-] th{font-size:15px !important;padding:3px 6px "
            "!important}}</style>")


@st.fragment(run_every=5)
def show() -> None:
    rotate_if_due("bracket")
    with db.reading(database()) as con:
        event = events.load(con, event_id)
        if event.ruleset.is_swiss:
            st.info(t("not_tractor" if event.ruleset.discipline != "tractor" else "swiss_tractor",
                      language))
            return
        data = stages.view(con, event)
        tables = stages.group_tables(con, event)
        names = dict(db.rows(con, "select team_no, team_name from teams where event_id = ?",
                             [event_id]))
        playing = tractorstore.matches_in_play(con, event)
    st.title(f"{event.name} · {t('bracket', language)}")
    if not data["stages"]:
        st.info(t("no_draw", language))
        return
    if data["champion"]:
        champion = data["champion"]
        shown = f"{names.get(champion) or ''} {champion}".strip()
        st.markdown(f"<h2 data-testid='champion' style='color:#b8860b'>★ "
                    f"{t('champion', language)}: {html.escape(shown)}</h2>",
                    unsafe_allow_html=True)
    in_play(playing, names)
    knockout = [s for s in data["stages"] if s["kind"] == "knockout"]
    if knockout and projector():  # the knockout is what the hall follows: above the fold
        tree(knockout, names)
    groups = [s for s in data["stages"] if s["kind"] == "group"]
    per_row = 2  # two group tables side by side fit a projector's large type, names unbroken
    for first in range(0, len(groups), per_row):
        row = groups[first:first + per_row]
        cols = st.columns(per_row if len(groups) > per_row else len(row))
        for col, stage in zip(cols, row, strict=False):
            col.subheader(stage_name(stage["name"], language))
            group = tables.filter(tables["stage"] == stage["name"]).with_columns(
                pl.col("team_no").replace_strict(names, default="").alias("team_name"))
            shown = group.select(  # the projector: the team's name first, fewer columns
                ["rank", "team_name", "team_no", "points", "game_diff", "level_diff"]
                if projector() else
                ["rank", "team_no", "team_name", "wins", "losses", "points", "game_diff",
                 "level_diff"])
            col.html(html_table(shown, language, f"group-{stage['name']}", GROUP_ESSENTIAL))
    if knockout and not projector():
        tree(knockout, names)


def in_play(playing: list[dict], names: dict[str, str]) -> None:
    """The matches keeping their own sheet (issue 42), as they stand after their last deal:
    the game, both levels, the games won, a dispute first."""
    if not playing:
        return

    def state(row: dict) -> str:
        if row["disputed"]:
            return t("play_disputed", language)
        return t("play_over", language) if row["over"] else ""

    shown = sorted(playing, key=lambda r: (not r["disputed"], r["stage"], r["match"]))
    frame = pl.DataFrame([{"stage": stage_name(r["stage"], language), "match_no": r["match"],
                           "team_a": f"{r['team_a']} {names.get(r['team_a']) or ''}".strip(),
                           "play_a_level": r["a_level"],
                           "team_b": f"{r['team_b']} {names.get(r['team_b']) or ''}".strip(),
                           "play_b_level": r["b_level"],
                           "play_game": r["game"], "games_won": r["games"],
                           "sheet_state": state(r)} for r in shown[:IN_PLAY_ROWS]])
    total = t("matches_in_play", language, n=len(playing), deals=sum(r["deals"] for r in playing))
    st.html(f"<div class='progress' data-testid='in-play-total'>{html.escape(total)}</div>")
    st.html(html_table(frame, language, "matches-in-play"))


def tree(knockout: list[dict], names: dict[str, str]) -> None:
    shown = [{**s, "name": stage_name(s["name"], language)} for s in knockout]
    st.html(f"<div class='paisai-wrap'>{bracket_html(shown, names, names_first=projector())}"
            "</div>")
    st.caption(t("games_legend", language))


show()
