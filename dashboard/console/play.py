"""本轮 The round: the clock, late arrivals, a table typed in, sheets uploaded, the
phones' reports."""

from __future__ import annotations

import streamlit as st

from dashboard.common import database
from dashboard.console.shared import (
    base_url_input,
    console_version,
    done,
    pending_rows,
    problems,
    qr_png,
    republish,
    status_data,
)
from dashboard.console.status import FOLLOW_SECONDS, hall_version
from dashboard.i18n import one_language, t
from pipeline.base import db, events
from pipeline.base.errors import PaisaiError, SheetErrors
from pipeline.base.levels import format_level
from pipeline.day import queries, selfreport
from pipeline.intake import undo
from pipeline.intake.ingest import (
    ingest_rows,
)


def clock(event_id: str, language: str) -> None:
    st.subheader(t("clock", language))
    from dashboard import clockview
    from pipeline.day import clockstore
    # its pace changes within its own timers: the page (the file box) is never drawn again
    # for the clock, nor for the hall (the status and the waiting reports follow it)
    clockview.header(database(), event_id, size=40, language=language, keep_page=True)
    cols = st.columns(6)
    actions = [("start", "clock_start", 0), ("pause", "clock_pause", 0),
               ("resume", "clock_resume", 0), ("add-minutes", "clock_plus", 1),
               ("add-minutes", "clock_minus", -1), ("stop", "clock_stop", 0)]
    for col, (action, label, minutes) in zip(cols, actions, strict=True):
        if col.button(t(label, language), key=f"clock-{label}"):
            try:
                with db.writing(database()) as con:
                    clockstore.change(con, events.load(con, event_id), action, None, minutes)
            except PaisaiError as exc:
                st.error(one_language(str(exc), language))
    with db.reading(database()) as con:
        chime_on = clockstore.chime(con, event_id)
        playing = clockstore.current_round(con, event_id)  # a late team is late for it
    wanted = st.toggle(t("chime", language), value=chime_on)
    if wanted != chime_on:
        with db.writing(database()) as con:
            clockstore.set_chime(con, event_id, wanted)
    with st.form("late"):
        st.markdown(f"**{t('late', language)}**")
        cols = st.columns(3)
        team = cols[0].text_input(t("team_no", language)).strip().upper()
        minutes = cols[1].number_input(t("late_minutes", language), min_value=0.0, value=5.0, step=1.0)
        round_no = cols[2].number_input(t("round", language), min_value=1,
                                        value=max(1, playing or 1))
        decide = st.form_submit_button(t("late_decide", language))
    if decide and team:
        with db.reading(database()) as con:
            event = events.load(con, event_id)
            try:
                action, kind, rows = clockstore.late_rows(con, event, int(round_no), team,
                                                          minutes)
            except PaisaiError as exc:
                st.error(one_language(str(exc), language))
                return
        st.session_state["late"] = (team, minutes, int(round_no), kind, rows,
                                    action.describe(minutes))
    pending = st.session_state.get("late")
    if pending:
        team, minutes, round_no, kind, rows, text = pending
        st.info(f"{team}: {text}")
        if rows and st.button(t("late_confirm", language)):
            try:
                ingest_rows(database(), event_id, kind, rows, source=f"迟到 late {team}",
                            reason=f"迟到 {minutes:g} 分钟")
                st.success("✓")
                del st.session_state["late"]
            except SheetErrors as errors:
                problems(errors)


def enter_table(event_id: str, language: str) -> None:
    """One table typed in: the teams at the chosen table shown, the levels from lists. A
    first entry needs no reason; a correction does (the audit). The confirmation names
    the table, the teams and the result, and the form starts empty again."""
    st.subheader(t("enter_table", language))
    round_no, _ = queries.paired_tables(database(), event_id)
    levels = [format_level(v) for v in range(2, 16)]
    cols = st.columns(2)
    chosen_round = int(cols[0].number_input(t("round", language), min_value=1,
                                            value=round_no or 1, key="entry-round"))
    table = int(cols[1].number_input(t("table", language), min_value=1, value=1,
                                     key="entry-table"))
    seated, previous, decider = _table_state(event_id, chosen_round, table)
    known = seated is not None
    if known:
        st.info(t("seated", language, ew=seated[0], ns=seated[1]))
    else:
        st.warning(t("not_paired_table", language, r=chosen_round, t=table))
    # kept as typed until stored: a refusal (a level game without its decider, a missing
    # reason) never clears the form
    with st.form("enter_table", clear_on_submit=False):
        cols = st.columns(3)
        # levels start empty: a careless save never records a result nobody chose
        ew = cols[0].selectbox(f"{t('ew_level', language)} {seated[0] if known else ''}", levels,
                               index=None, placeholder=t("choose", language), key="entry-ew")
        ns = cols[1].selectbox(f"{t('ns_level', language)} {seated[1] if known else ''}", levels,
                               index=None, placeholder=t("choose", language), key="entry-ns")
        sides = {"东西": t("ew", language), "南北": t("ns", language)}
        forfeit = cols[2].selectbox(t("forfeit", language), ["", "东西", "南北"],
                                    placeholder=t("choose", language),
                                    format_func=lambda side: sides.get(side, ""),
                                    key="entry-forfeit")
        decided_by = ""
        if decider:  # the preset decides equal levels by a side (seed 001: 末副上游方)
            named = decider[1] if language == "zh" else decider[2]
            decided_by = st.selectbox(f"{named}（{t('decider_note', language)}）",
                                      ["", "东西", "南北"], placeholder=t("choose", language),
                                      format_func=lambda side: sides.get(side, ""),
                                      key="entry-decider")
        ew_team = ns_team = ""
        if not known:
            cols = st.columns(2)
            ew_team = cols[0].text_input(t("ew_team", language), key="entry-ew-team")
            ns_team = cols[1].text_input(t("ns_team", language), key="entry-ns-team")
        reason = st.text_input(t("reason_correction", language) if previous else
                               t("reason_optional", language), key="entry-reason")
        if st.form_submit_button(t("save", language)):
            if not forfeit and (ew is None or ns is None):
                st.error(t("choose_levels", language))
                return
            if decider and not forfeit and ew == ns and not decided_by:
                named = decider[1] if language == "zh" else decider[2]
                st.error(t("choose_decider", language, field=named, level=ew))
                return
            if previous and not reason.strip():
                st.error(t("reason_correction", language))
                return
            row = {"round": chosen_round, "table": table, "ew_team": ew_team,
                   "ns_team": ns_team, "ew_level": "" if forfeit else ew,
                   "ns_level": "" if forfeit else ns, "forfeit": forfeit}
            if decider and decided_by and not forfeit and ew == ns:
                row[decider[0]] = decided_by
            try:
                with undo.undoable(database(), event_id,
                                   f"录入 第 {chosen_round} 轮 {table} 号桌 "
                                   f"entry: round {chosen_round} table {table}"):
                    report = ingest_rows(database(), event_id, "results", [row],
                                         source="控制台 console",
                                         reason=reason.strip() or "控制台录入 console entry")
            except SheetErrors as errors:
                problems(errors)
                return
            except PaisaiError as exc:
                st.error(one_language(str(exc), language))
                return
            s = report.stored[0]
            teams = seated or (ew_team.strip().upper(), ns_team.strip().upper())
            words = "unchanged_entry" if not (s.new or s.replaced) else (
                "corrected" if s.replaced else "entered")
            for key in ("entry-ew", "entry-ns", "entry-forfeit", "entry-decider",
                        "entry-ew-team", "entry-ns-team", "entry-reason"):
                st.session_state.pop(key, None)  # stored: the form starts empty again
            republish(event_id, language)
            done(t(words, language, r=chosen_round, t=table, ew=teams[0], ns=teams[1],
                   ewl=t("forfeited", language) if forfeit == "东西" else ew or "",
                   nsl=t("forfeited", language) if forfeit == "南北" else ns or ""))


def _table_state(event_id: str, round_no: int,
                 table: int) -> tuple[tuple[str, str] | None, bool, tuple[str, str, str] | None]:
    """For the table chosen, in one read: its teams (None when the round has no such table),
    whether a result is stored for it, and the field deciding a level game under the
    event's preset (None when the preset needs none)."""
    with db.reading(database()) as con:
        seated = db.rows(con, "select ew_team, ns_team from pairings where event_id = ? and "
                              "round = ? and table_no = ?", [event_id, round_no, table])
        stored = db.scalar(con, "select count(*) from results where event_id = ? and "
                                "round = ? and table_no = ?", [event_id, round_no, table])
        equal_levels = events.load(con, event_id).ruleset.scoring["equal_levels"]
    return (seated[0] if seated else None, bool(stored),
            selfreport.decider_field(equal_levels))


def self_report(event_id: str, language: str, version: str | None = None) -> None:
    """Each table's two QR codes (one a side) as images, the links clickable; a warning when
    the address is one only this computer opens, with its LAN address offered; the reports
    waiting, disagreements first. The links are signed only when they are shown (a round of
    500 tables is 1,500 signatures). `version`: the console's version as this run read it."""
    st.subheader(t("self_report", language))
    round_no, tables = queries.paired_tables(database(), event_id)
    if round_no is None:
        st.info(t("no_pairing", language))
        return
    base = base_url_input(language, "self-report-base")
    # a toggle, not an expander: its state is the server's, so a redraw never folds it away
    if st.toggle(f"{t('round', language)} {round_no}: {tables} × 2 QR", key="show-qr"):
        table = selfreport.links(database(), event_id, round_no, base)
        st.caption(t("side_links", language))
        for row in table.iter_rows(named=True):
            cols = st.columns([1, 1, 3])
            cols[0].image(qr_png(row["ew_url"]), width=150,
                          caption=f"{t('ew', language)} {row['ew_team']} · {row['ew_code']}")
            cols[1].image(qr_png(row["ns_url"]), width=150,
                          caption=f"{t('ns', language)} {row['ns_team']} · {row['ns_code']}")
            ew, ns = t("ew", language), t("ns", language)
            cols[2].markdown(f"**{t('table', language)} {row['table']}** · {ew} "
                             f"{row['ew_team']} – {ns} {row['ns_team']}  \n"
                             f"[{ew}]({row['ew_url']}) · [{ns}]({row['ns_url']}) · "
                             f"[{t('table_link', language)}]({row['url']})")
    pending_reports(event_id, language, version)


@st.fragment(run_every=FOLLOW_SECONDS)
def pending_reports(event_id: str, language: str, version: str | None = None) -> None:
    """The reports waiting for the organizer, disagreements first (read once per version
    of the event): a part of the page that redraws itself when the hall changed the event
    (`hall_version`), never the page."""
    version = hall_version(event_id, "pending",
                           console_version(event_id) if version is None else version)
    _, waiting = status_data(str(database()), event_id, version)
    pending_rows(event_id, language, waiting)
