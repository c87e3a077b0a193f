"""赛前 Before: the event created, the registration uploaded (previewed, then stored),
the draw, check-in and withdrawals."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import streamlit as st

from dashboard.common import database, html_table, lang, uploader_words
from dashboard.console.shared import (
    console_version,
    done,
    problems,
    republish,
    uploader_key,
)
from dashboard.i18n import one_language, t
from pipeline.base import db, events
from pipeline.base.errors import PaisaiError, SheetErrors
from pipeline.base.order import in_natural_order
from pipeline.base.ruleset import preset_names
from pipeline.day import queries
from pipeline.intake import undo
from pipeline.intake.ingest import (
    ingest_file,
    note_refusal,
    preview_file,
    refuse_oversized,
)


def _note_refusal_once(event_id: str, name: str, data: bytes, errors: SheetErrors) -> None:
    """A refused upload is listed in `uploads` once, not on every rerun of the page."""
    noted = st.session_state.setdefault("refusals_noted", set())
    digest = hashlib.sha256(data).hexdigest()
    if digest not in noted:
        note_refusal(database(), event_id, name, data, "dashboard", errors)
        noted.add(digest)


@st.cache_data
def _presets() -> dict[str, str]:
    from pipeline.base.ruleset import load_preset

    return {name: load_preset(name).description for name in preset_names()}


def create_event(language: str, expanded: bool = False) -> None:
    """A new event: the ruleset chosen by its description, today's date, and an id made from
    the name when none is given (a Chinese name gives e-YYYYMMDD)."""
    import datetime as dt

    presets = _presets()
    with st.expander(t("create_event", language), expanded=expanded), st.form("create_event"):
        name = st.text_input(t("event_name", language))
        preset = st.selectbox(t("ruleset", language), list(presets), placeholder=t("choose", language),
                              format_func=lambda p: f"{p} — {presets[p][:60]}…")
        st.caption(presets[preset] if preset else "")
        date = st.date_input(t("event_date", language), value=dt.date.today())
        event_id = st.text_input(t("event_id_hint", language))
        if st.form_submit_button(t("create_event", language)):
            try:
                with db.writing(database()) as con:
                    chosen = event_id.strip() or events.propose_id(con, name, date)
                    events.create(con, chosen, name, preset,
                                  date.isoformat() if date else None)
            except PaisaiError as exc:
                st.error(one_language(str(exc), language))
                return
            st.query_params["event"] = chosen
            done(t("event_created", language, id=chosen))


def upload(event_id: str, language: str, entries: bool, version: str | None = None) -> None:
    """Upload sheets: the registration before the event (`entries`), score sheets and
    penalties during it. Each file is previewed — its first rows with every column named as
    it will be stored, the columns not read, the tables not filled in — and stored only on
    confirmation; a registration without any player column must be confirmed as such.
    `version`: the console's version as this run read it (`console_version`)."""
    st.subheader(t("upload_entries" if entries else "upload_round", language))
    key = "entries" if entries else "round"
    types = ["csv", "xlsx", "xls", "txt"]
    uploader_words(language, types)
    files = st.file_uploader("CSV / Excel", type=types, accept_multiple_files=True,
                             key=uploader_key(key))
    if not files:
        return
    ready, needs_players = [], False
    for file in files:
        st.markdown(f"**{file.name}**")
        data = b""
        try:
            refuse_oversized(file.name, file.size)  # the limit, before any reading
            data = file.getvalue()
            report = _preview(event_id, file.name, data, "entries" if entries else None,
                              version)
        except SheetErrors as errors:
            problems(errors)
            if data:  # not an oversized file: that one was never read
                _note_refusal_once(event_id, file.name, data, errors)
            continue
        except PaisaiError as exc:
            st.error(one_language(str(exc), language))
            continue
        except Exception as exc:  # a file that breaks the reader is a refused file
            st.error(f"{file.name}: {type(exc).__name__}: {exc}")
            continue
        for line in report.skipped:
            if "是否同一单位" in line or "按两人登记" in line:  # to review: said loudly
                st.warning(line)
            else:
                st.caption(line)
            _fold_button(line, language, key)
        if report.lacks_players:
            st.warning(t("no_players", language))
            needs_players = True
        from pipeline.intake.sheets.headers import KIND_NAMES

        st.html(html_table(pl.DataFrame(
            [{**s.__dict__, "kind": KIND_NAMES.get(s.kind, s.kind)} for s in report.stored]),
            lang(), "preview"))
        for sheet, sample in report.samples:
            st.caption(f"{sheet} · {t('preview_rows', language)}")
            st.html(html_table(sample, lang(), "preview-rows"))
        ready.append((file.name, data))
    if needs_players and not st.checkbox(t("no_players_confirm", language),
                                         key=f"no-players-{key}"):
        return
    if ready:
        st.button(t("confirm", language), type="primary", key=f"confirm-{key}",
                  on_click=_store_files, args=(event_id, ready, language, key))
    for errors in st.session_state.pop(f"refused-{key}", []):
        problems(errors)


def _fold_button(line: str, language: str, key: str) -> None:
    """For a unit spelled like another ("fold: 昆山海官=昆山海关"): a toggle to fold it into
    the other when the files are stored (one click, no retyping)."""
    import re

    found = re.search(r"fold: (.+?)=(.+?)）", line)
    if not found:
        return
    alias, unit = found.groups()
    folds = st.session_state.setdefault(f"folds-{key}", {})
    if st.checkbox(t("fold_unit", language).format(alias=alias, unit=unit),
                   key=f"fold-{key}-{alias}-{unit}"):
        folds[alias] = unit
    else:
        folds.pop(alias, None)


def _store_files(event_id: str, ready: list[tuple[str, bytes]], language: str,
                 key: str) -> None:
    """The confirmed files stored — before the page is drawn again (a button's callback),
    so one redraw shows the new state; the units the organizer chose to fold, folded."""
    from pipeline.intake import registration
    stored, refused = [], []
    for name, data in ready:
        try:
            with undo.undoable(database(), event_id, upload_label(name)):
                ingest_file(database(), event_id, Path(name), source="dashboard", data=data)
            stored.append(name)
        except SheetErrors as errors:
            refused.append(errors)
    for alias, unit in st.session_state.pop(f"folds-{key}", {}).items():
        try:
            with db.writing(database()) as con:
                registration.fold_unit(con, event_id, alias, unit)
            stored.append(f"{alias} → {unit}")
        except PaisaiError as exc:
            st.session_state.setdefault("fold_errors", []).append(str(exc))
    st.session_state[f"refused-{key}"] = refused
    republish(event_id, language)
    if stored:
        if not refused:  # all stored: the box is emptied (a refused file stays to be fixed)
            st.session_state[f"uploads-{key}-stored"] = \
                st.session_state.get(f"uploads-{key}-stored", 0) + 1
        done(f"{t('stored', language)}: {', '.join(stored)}", redraw=False)


def upload_label(name: str) -> str:
    """What undo names an upload, in both languages, each said whole in the console's own
    (the file's name quoted in the Chinese: a name in Latin letters is data, not English).

    >>> from dashboard.i18n import one_language
    >>> [one_language(upload_label("round-7.csv"), lang) for lang in ("zh", "en")]
    ['上传「round-7.csv」', 'upload round-7.csv']
    """
    return f"上传「{name}」 upload {name}"


def _preview(event_id: str, name: str, data: bytes, kind: str | None,
             version: str | None = None):
    """A file's preview, made once per file and state of the event (its results, pairings
    and teams: the results part of the console's version): the redraws while it waits for
    confirmation do not read and check it again (a refusal is checked anew)."""
    version = console_version(event_id) if version is None else version
    key = (event_id, name, hashlib.sha256(data).hexdigest(), kind,
           queries.results_part(version))
    kept = st.session_state.setdefault("previews", {})
    if key not in kept:
        if len(kept) > 8:
            kept.clear()
        kept[key] = preview_file(database(), event_id, name, data, kind)
    return kept[key]


def registration_desk(event_id: str, language: str) -> None:
    """The draw (seed shown large for the hall), check-in by search, withdrawals."""
    from pipeline.intake import registration
    st.subheader(t("registration", language))
    cols = st.columns(4)
    prefix = cols[0].text_input(t("prefix", language), value="A")
    seed = cols[1].number_input(t("seed", language), min_value=0, value=None, key="draw-seed",
                                placeholder=t("seed_empty", language))
    in_order = cols[2].checkbox(t("in_sheet_order", language))
    apart = cols[3].checkbox(t("singles_apart", language))
    if st.button(t("draw", language)):
        try:
            with db.writing(database()) as con:
                drawn, used, unpaired = registration.draw(
                    con, event_id, prefix, int(seed) if seed is not None else None, in_order,
                    apart)
            st.caption(t("draw_seed_note", language, seed=used))
            st.html(html_table(drawn, language, "drawn"))
            for name in unpaired:
                st.warning(f"{name}: {t('no_partner', language)}")
        except PaisaiError as exc:
            st.error(one_language(str(exc), language))
    with db.reading(database()) as con:
        teams = db.frame(con, "select team_no, team_name, player1, player2, checked_in, "
                              "withdrawn_after from teams where event_id = $e",
                         {"e": event_id})
    teams = in_natural_order(teams)  # A2 before A10
    query = st.text_input(t("checkin_search", language)).strip()
    if query:
        hits = teams.filter(pl.any_horizontal(
            pl.col(c).cast(pl.String).str.contains(query, literal=True)
            for c in ("team_no", "team_name", "player1", "player2")))
        for row in hits.head(20).iter_rows(named=True):
            cols = st.columns([4, 1, 2])
            mark = "✅ " if row["checked_in"] else ""
            cols[0].write(f"{mark}{row['team_no']} {row['team_name'] or ''} "
                          f"{row['player1'] or ''} {row['player2'] or ''}")
            if cols[1].button(t("checkin", language), key=f"in-{row['team_no']}"):
                with db.writing(database()) as con:
                    registration.checkin(con, event_id, [row["team_no"]], False)
                st.rerun()
            after = cols[2].number_input(t("withdraw_after", language), min_value=0, value=0,
                                         key=f"after-{row['team_no']}")
            if cols[2].button(t("withdraw", language), key=f"out-{row['team_no']}"):
                try:
                    with db.writing(database()) as con:
                        registration.withdraw(con, event_id, row["team_no"], int(after), None)
                    st.success(f"{row['team_no']} ✓")
                except PaisaiError as exc:
                    st.error(one_language(str(exc), language))
