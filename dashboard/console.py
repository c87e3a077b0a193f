"""The organizer console's sections. Every write goes through the pipeline's own paths
(validation, one transaction, audit); nothing here computes a score."""

from __future__ import annotations

import hashlib
import tempfile
import time
from pathlib import Path

import polars as pl
import segno
import streamlit as st

from dashboard.common import database, hall_base, html_table, lang
from dashboard.i18n import colon, listed, t
from pipeline import db, events, queries, rounds, scoring, selfreport, undo
from pipeline.awards import award_list, unfinished, with_member_ids
from pipeline.errors import PaisaiError, SheetErrors, UsageError
from pipeline.export.pairings import export_pairings
from pipeline.export.scoresheet import export_scoresheet
from pipeline.export.standings import export_frame
from pipeline.ingest import (
    ingest_file,
    ingest_rows,
    note_refusal,
    preview_file,
    refuse_oversized,
)
from pipeline.levels import format_level
from pipeline.ruleset import preset_names


def _problems(errors: SheetErrors) -> None:
    language = lang()
    st.error(t("errors_nothing", language))
    st.html(html_table(errors.frame(), language, "problems"))


def _note_refusal_once(event_id: str, name: str, data: bytes, errors: SheetErrors) -> None:
    """A refused upload is listed in `uploads` once, not on every rerun of the page."""
    noted = st.session_state.setdefault("refusals_noted", set())
    digest = hashlib.sha256(data).hexdigest()
    if digest not in noted:
        note_refusal(database(), event_id, name, data, "dashboard", errors)
        noted.add(digest)


NEXT_STEP = {"register": "next_register", "pair": "next_pair", "enter": "next_enter",
             "pair_next": "next_pair_next", "done": "next_done"}


def undo_last(event_id: str, language: str) -> None:
    """Undo the console's last stored action while no later round is paired."""
    found = _undo_offer(str(database()), event_id, _version(event_id))
    if found is None:
        return
    if st.button(f"{t('undo', language)}{colon(language)}{found[1]}"):
        try:
            label = undo.undo_last(database(), event_id)
        except PaisaiError as exc:
            st.error(str(exc))
            return
        _republish(event_id, language)
        done(f"{t('undone', language)}{colon(language)}{label}")


@st.cache_data(max_entries=32, show_spinner=False)
def _undo_offer(path: str, event_id: str, version: tuple) -> tuple[int, str] | None:
    """What an undo would take back, asked again only when the event changes."""
    return undo.last(Path(path), event_id)


def done(message: str, redraw: bool = True) -> None:
    """An action is stored: say so at the top of the page and draw the page again, so the
    status, the lists and the undo offer all show the new state at once (a button's
    callback passes redraw=False: the page is drawn after it anyway)."""
    st.session_state["flash"] = message
    st.session_state.pop("phase", None)  # the page opens on where the next step is
    if redraw:
        st.rerun()


def flash() -> None:
    message = st.session_state.pop("flash", None)
    if message:
        st.success(message)


# the console's phase that holds each next step
PHASE_OF_STEP = {"register": "before", "pair": "pairing", "enter": "round",
                 "pair_next": "pairing", "done": "after"}

FOLLOW_SECONDS = 3  # the hall's changes (phones, the command line) show within this


@st.fragment(run_every=FOLLOW_SECONDS)
def follow(event_id: str) -> None:
    """Draw nothing; every few seconds ask the event's version (one small query) and redraw
    the console only when something outside it changed the event: a phone's report, a sheet
    or a pairing from the command line, another organizer's console. The console's own
    actions redraw it already, so they are never redrawn twice; and the organizer at work —
    a file waiting for confirmation, a pairing previewed — is never interrupted (with phones
    reporting every few seconds, the preview would be made again and again): the page
    catches up as soon as the work is stored or put away."""
    if _at_work() or not _own_run():
        return
    version = _console_version(event_id)
    seen = st.session_state.setdefault("seen_version", version)
    if version != seen:
        st.session_state["seen_version"] = version
        st.rerun(scope="app")


def _own_run() -> bool:
    """This is the fragment's own run (its timer), not the page's: a page run that was
    restarted from here would lose the click it is answering."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def _at_work() -> bool:
    state = st.session_state
    return any(state.get(_uploader_key(kind)) for kind in ("entries", "round")) or \
        "pairing_preview" in state or "late" in state


def _uploader_key(kind: str) -> str:
    """The file box's key: a new one after its files are stored, so the box is empty again."""
    return f"uploads-{kind}-{st.session_state.get(f'uploads-{kind}-stored', 0)}"


def _console_version(event_id: str) -> str:
    """One small query: a value that changes whenever the status or the waiting reports
    would (the fragments redraw from the cache until it does)."""
    with db.reading(database()) as con:
        shown = queries.event_version(con, event_id)
        reports = db.rows(con, "select count(*), max(report_id), max(decided_at)::varchar "
                               "from pending_reports where event_id = ?", [event_id])
    return f"{shown}:{reports}"


@st.cache_data(max_entries=32, show_spinner=False)
def _status_data(path: str, event_id: str, version: str):
    """The round's status and the waiting reports, read once per version of the event."""
    return (queries.round_status(Path(path), event_id),
            selfreport.pending(Path(path), event_id))


def _disagreeing(waiting: pl.DataFrame) -> list[int]:
    """Tables whose two sides sent different results (waiting for the organizer)."""
    sides = waiting.filter(pl.col("side").is_not_null()).group_by("table_no").agg(
        pl.struct("ew_level", "ns_level").n_unique().alias("results"))
    return sorted(sides.filter(pl.col("results") > 1)["table_no"].to_list())


def round_status(event_id: str, language: str) -> str:
    """The console opens on the current round: where it stands and what comes next, and
    what waits for the organizer (disagreeing self-reports, a suspension) in a banner.
    Returns the phase of the console that holds the next step."""
    version = _console_version(event_id)
    st.session_state["seen_version"] = version  # what this drawing shows (see `follow`)
    status, waiting = _status_data(str(database()), event_id, version)
    disagreeing = _disagreeing(waiting)
    if disagreeing:
        st.error(t("disagreements", language, n=len(disagreeing)) + colon(language) +
                 listed((f"{t('table', language)} {n}" for n in disagreeing), language))
        _pending_rows(event_id, language, waiting, only_disagreeing=True, where="banner")
    cols = st.columns(4)
    cols[0].metric(t("round", language), status.round or "—")
    cols[1].metric(t("reported_short", language), f"{status.reported}/{status.expected}")
    cols[2].metric(t("pending_reports", language), status.pending_reports)
    cols[3].metric(t("rounds_planned", language), status.rounds_planned or "—")
    if status.missing:
        tables = listed((f"{t('table_at', language, n=table)} {ew}–{ns or t('bye', language)}"
                         for table, ew, ns in status.missing), language, strong=True)
        numbers = listed((m[0] for m in status.missing), language)
        st.warning(f"{t('missing_tables', language, tables=numbers)}{colon(language)}{tables}")
    if status.suspended:
        st.warning(status.suspended)
    st.info(f"{t('next_step', language)}{colon(language)}{t(NEXT_STEP[status.next_step], language)}")
    return PHASE_OF_STEP[status.next_step]


@st.cache_data
def _presets() -> dict[str, str]:
    from pipeline.ruleset import load_preset

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
                st.error(str(exc))
                return
            st.query_params["event"] = chosen
            done(t("event_created", language, id=chosen))


def upload(event_id: str, language: str, entries: bool) -> None:
    """Upload sheets: the registration before the event (`entries`), score sheets and
    penalties during it. Each file is previewed — its first rows with every column named as
    it will be stored, the columns not read, the tables not filled in — and stored only on
    confirmation; a registration without any player column must be confirmed as such."""
    st.subheader(t("upload_entries" if entries else "upload_round", language))
    key = "entries" if entries else "round"
    files = st.file_uploader("CSV / Excel", type=["csv", "xlsx", "xls", "txt"],
                             accept_multiple_files=True, key=_uploader_key(key))
    if not files:
        return
    ready, needs_players = [], False
    for file in files:
        st.markdown(f"**{file.name}**")
        data = b""
        try:
            refuse_oversized(file.name, file.size)  # the limit, before any reading
            data = file.getvalue()
            report = _preview(event_id, file.name, data, "entries" if entries else None)
        except SheetErrors as errors:
            _problems(errors)
            if data:  # not an oversized file: that one was never read
                _note_refusal_once(event_id, file.name, data, errors)
            continue
        except PaisaiError as exc:
            st.error(str(exc))
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
        from pipeline.sheets.headers import KIND_NAMES

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
        _problems(errors)


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
    from pipeline import registration

    stored, refused = [], []
    for name, data in ready:
        try:
            with undo.undoable(database(), event_id, f"上传 upload {name}"):
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
    _republish(event_id, language)
    if stored:
        if not refused:  # all stored: the box is emptied (a refused file stays to be fixed)
            st.session_state[f"uploads-{key}-stored"] = \
                st.session_state.get(f"uploads-{key}-stored", 0) + 1
        done(f"{t('stored', language)}: {', '.join(stored)}", redraw=False)


def _preview(event_id: str, name: str, data: bytes, kind: str | None):
    """A file's preview, made once per file and state of the event: the redraws while it
    waits for confirmation do not read and check it again (a refusal is checked anew)."""
    key = (event_id, name, hashlib.sha256(data).hexdigest(), kind, _version(event_id))
    kept = st.session_state.setdefault("previews", {})
    if key not in kept:
        if len(kept) > 8:
            kept.clear()
        kept[key] = preview_file(database(), event_id, name, data, kind)
    return kept[key]


def enter_table(event_id: str, language: str) -> None:
    """One table typed in: the teams at the chosen table shown, the levels from lists. A
    first entry needs no reason; a correction does (the audit). The confirmation names
    the table, the teams and the result, and the form starts empty again."""
    st.subheader(t("enter_table", language))
    round_no, pairs = queries.current_pairings(database(), event_id)
    levels = [format_level(v) for v in range(2, 16)]
    cols = st.columns(2)
    chosen_round = int(cols[0].number_input(t("round", language), min_value=1,
                                            value=round_no or 1, key="entry-round"))
    table = int(cols[1].number_input(t("table", language), min_value=1, value=1,
                                     key="entry-table"))
    seated = _seated(event_id, chosen_round, table)
    known = seated is not None
    if known:
        st.info(t("seated", language, ew=seated[0], ns=seated[1]))
    else:
        st.warning(t("not_paired_table", language, r=chosen_round, t=table))
    previous = _stored_result(event_id, chosen_round, table)
    with st.form("enter_table", clear_on_submit=True):
        cols = st.columns(3)
        # levels start empty: a careless save never records a result nobody chose
        ew = cols[0].selectbox(f"{t('ew_level', language)} {seated[0] if known else ''}", levels,
                               index=None, placeholder=t("choose", language))
        ns = cols[1].selectbox(f"{t('ns_level', language)} {seated[1] if known else ''}", levels,
                               index=None, placeholder=t("choose", language))
        forfeit = cols[2].selectbox(t("forfeit", language), ["", "东西", "南北"],
                                    placeholder=t("choose", language),
                                    format_func=lambda side: {"东西": t("ew", language),
                                                              "南北": t("ns", language)}
                                    .get(side, ""))
        ew_team = ns_team = ""
        if not known:
            cols = st.columns(2)
            ew_team = cols[0].text_input(t("ew_team", language))
            ns_team = cols[1].text_input(t("ns_team", language))
        reason = st.text_input(t("reason_correction", language) if previous else
                               t("reason_optional", language))
        if st.form_submit_button(t("save", language)):
            if not forfeit and (ew is None or ns is None):
                st.error(t("choose_levels", language))
                return
            if previous and not reason.strip():
                st.error(t("reason_correction", language))
                return
            row = {"round": chosen_round, "table": table, "ew_team": ew_team,
                   "ns_team": ns_team, "ew_level": "" if forfeit else ew,
                   "ns_level": "" if forfeit else ns, "forfeit": forfeit}
            try:
                with undo.undoable(database(), event_id,
                                   f"录入 entry: {t('round', language)} {chosen_round} "
                                   f"{t('table', language)} {table}"):
                    report = ingest_rows(database(), event_id, "results", [row],
                                         source="控制台 console",
                                         reason=reason.strip() or "控制台录入 console entry")
            except SheetErrors as errors:
                _problems(errors)
                return
            except PaisaiError as exc:
                st.error(str(exc))
                return
            s = report.stored[0]
            teams = seated or (ew_team.strip().upper(), ns_team.strip().upper())
            words = "unchanged_entry" if not (s.new or s.replaced) else (
                "corrected" if s.replaced else "entered")
            _republish(event_id, language)
            done(t(words, language, r=chosen_round, t=table, ew=teams[0], ns=teams[1],
                   ewl=t("forfeited", language) if forfeit == "东西" else ew or "",
                   nsl=t("forfeited", language) if forfeit == "南北" else ns or ""))


def _seated(event_id: str, round_no: int, table: int) -> tuple[str, str] | None:
    with db.reading(database()) as con:
        found = db.rows(con, "select ew_team, ns_team from pairings where event_id = ? and "
                             "round = ? and table_no = ?", [event_id, round_no, table])
    return found[0] if found else None


def _stored_result(event_id: str, round_no: int, table: int) -> bool:
    with db.reading(database()) as con:
        return bool(db.scalar(con, "select count(*) from results where event_id = ? and "
                                   "round = ? and table_no = ?", [event_id, round_no, table]))


def pair_next(event_id: str, language: str) -> None:
    """Pair the next round in two steps: a preview (what the pairing would be, and any two
    teams of one unit it puts together), then storing it."""
    st.subheader(t("pair_next", language))
    cols = st.columns(4)
    seed = cols[0].number_input(t("seed", language), min_value=0, value=None,
                                placeholder=t("seed_empty", language))
    force = cols[1].checkbox(t("force", language))
    apart = cols[2].checkbox(t("separate_units", language), value=True)
    seed = int(seed) if seed is not None else None
    if cols[3].button(t("preview_pairing", language)):
        try:
            with db.trial(database()) as con:  # rolled back: a look, not a change
                event = events.load(con, event_id)
                round_no, pairing, used = rounds.pair(con, event, None, seed, force, apart)
                same = rounds.same_unit_tables(con, event_id, round_no)
                shown = rounds.pairings(con, event_id, round_no).select(
                    "table", "ew_team", "ew_name", "ns_team", "ns_name")
            st.session_state["pairing_preview"] = (round_no, used, same, shown)
        except PaisaiError as exc:
            st.error(str(exc))
    preview = st.session_state.get("pairing_preview")
    if not preview:
        return
    round_no, used, same, shown = preview
    st.markdown(f"**{t('round', language)} {round_no}**")
    for table, ew, ns, unit in same:
        st.warning(t("same_unit", language, t=table, ew=ew, ns=ns, unit=unit))
    st.html(html_table(shown, language, "pairing-preview"))
    st.button(t("store_pairing", language), type="primary", on_click=_store_pairing,
              args=(event_id, used if used is not None else seed, force, apart, language))
    failed = st.session_state.pop("pairing_failed", None)
    if failed:
        st.error(failed)


def _store_pairing(event_id: str, seed: int | None, force: bool, apart: bool,
                   language: str) -> None:
    """The previewed pairing stored — before the page is drawn again (a button's callback),
    so one redraw shows the new round."""
    try:
        with db.writing(database()) as con:
            event = events.load(con, event_id)
            round_no, pairing, used = rounds.pair(con, event, None, seed, force, apart)
    except PaisaiError as exc:
        st.session_state["pairing_failed"] = str(exc)
        return
    del st.session_state["pairing_preview"]
    _republish(event_id, language)
    note = f" · {t('seed', language)} {used}" if used is not None else ""
    rematches = "".join(f" · {t('rematch', language, a=a, b=b)}" for a, b in pairing.rematches)
    done(t("paired", language, r=round_no) + note + rematches, redraw=False)


def _republish(event_id: str, language: str) -> None:
    """The phones' channel: the static site follows every change, when it is published."""
    from pipeline.publish import republish

    try:
        changed = republish(database(), event_id)
    except (PaisaiError, OSError) as exc:
        st.warning(f"{t('site_failed', language)}: {exc}")
        return
    if changed is not None:
        st.caption(f"{t('site_updated', language)}: {len(changed)}")


def _version(event_id: str) -> tuple:
    """What the event's files are made from: a new value whenever results, pairings or
    teams change (the files are made again only then, not on every click)."""
    with db.reading(database()) as con:
        return tuple(db.rows(con, """
            select (select count(*) from results where event_id = $e),
                   (select max(updated_at)::varchar from results where event_id = $e),
                   (select count(*) from pairings where event_id = $e),
                   (select max(round) from pairings where event_id = $e),
                   (select count(*) from teams where event_id = $e),
                   (select count(*) from result_audit where event_id = $e)""",
                         {"e": event_id})[0])


@st.cache_data(max_entries=32, show_spinner=False)
def _round_files(path: str, event_id: str, version: tuple) -> list[tuple[str, str, bytes]]:
    """The current round's printouts: (label's key, file name, bytes)."""
    from pipeline.publish import target

    with db.reading(Path(path)) as con:
        event = events.load(con, event_id)
        latest = rounds.latest_paired_round(con, event_id)
        pairs = rounds.pairings(con, event_id, latest) if latest else None
    if pairs is None:
        return []
    folder = Path(tempfile.mkdtemp(prefix="paisai-"))
    title = f"{event.name} 第 {latest} 轮"
    site = target(Path(path), event_id)
    site_url = site[1] if site else None  # phones go to the static site
    stem = f"{event_id}-第{latest}轮"
    export_pairings(pairs, title + "对阵表", folder / "p.xlsx", site_url)
    export_pairings(pairs, title + "对阵表", folder / "p.html", site_url)
    export_scoresheet(pairs, title + "成绩登记表", folder / "s.xlsx")
    return [("pairings_xlsx", f"{stem}-对阵表.xlsx", (folder / "p.xlsx").read_bytes()),
            ("pairings_html", f"{stem}-对阵表.html", (folder / "p.html").read_bytes()),
            ("scoresheet_xlsx", f"{stem}-成绩登记表.xlsx", (folder / "s.xlsx").read_bytes())]


def round_downloads(event_id: str, language: str) -> None:
    """The round's pairings, score sheet and table cards, named by event and round."""
    st.subheader(t("downloads", language))
    files = _round_files(str(database()), event_id, _version(event_id))
    if not files:
        st.caption(t("no_pairing", language))
        return
    cols = st.columns(len(files))
    for col, (label, name, data) in zip(cols, files, strict=True):
        col.download_button(t(label, language), data, file_name=name, key=f"dl-{name}")
    table_cards(event_id, language)


def table_cards(event_id: str, language: str) -> None:
    from pipeline.export.cards import write_cards

    round_no, _ = queries.current_pairings(database(), event_id)
    if round_no is None:
        return
    st.markdown(f"**{t('table_cards', language)}**")
    with st.container(border=True):
        base = base_url_input(language, "cards-base")
        if st.button(t("make_cards", language), key="make-cards"):
            with db.reading(database()) as con:
                event = events.load(con, event_id)
            path = Path(tempfile.mkdtemp(prefix="paisai-")) / "cards.pdf"
            try:
                pages = write_cards(selfreport.table_cards(database(), event_id, round_no, base),
                                    event.name, round_no, path)
            except UsageError as exc:
                st.error(str(exc))
                return
            st.download_button(t("pdf_pages", language, what=t("cards_word", language), n=pages),
                               path.read_bytes(),
                               file_name=f"{event_id}-第{round_no}轮-桌牌.pdf",
                               mime="application/pdf", key="cards-pdf")


def downloads(event_id: str, language: str) -> None:
    """After the event: the ranking, the prize list, certificates, the ranking picture."""
    st.subheader(t("downloads", language))
    folder = Path(tempfile.mkdtemp(prefix="paisai-"))
    with db.reading(database()) as con:
        event = events.load(con, event_id)
        ranking = scoring.standings(con, event).select(scoring.STANDINGS_COLUMNS)
        after = scoring.latest_round(con, event_id)
        try:
            prizes, not_final = award_list(con, event), unfinished(con, event)
            certified = with_member_ids(con, event_id, prizes)  # ids printed on them
        except UsageError as exc:  # a Tractor event before its final
            prizes = certified = None
            not_final = str(exc)
    files = []
    export_frame(ranking, f"{event.name} 排名", "排名", folder / "standings.xlsx")
    files.append((t("standings_xlsx", language), folder / "standings.xlsx", f"{event_id}-排名.xlsx"))
    if prizes is not None:
        export_frame(prizes, f"{event.name} 获奖名单", "获奖名单", folder / "awards.xlsx")
        files.append((t("awards_xlsx", language), folder / "awards.xlsx", f"{event_id}-获奖名单.xlsx"))
    if prizes is not None:  # who wins what, as the ranking stands (and why it may change)
        st.markdown(f"**{t('prize_list', language)}**")
        if not_final:
            st.caption(not_final)
        st.html(html_table(prizes.select("award", "rank", "team_no", "team_name",
                                         *(["note"] if "note" in prizes.columns else [])),
                           language, "prizes"))
    cols = st.columns(len(files))
    for col, (label, path, name) in zip(cols, files, strict=True):
        col.download_button(label, path.read_bytes(), file_name=name, key=f"dl-{name}")
    certificates(event, certified, not_final, folder, language)
    ranking_picture(event, ranking, after, folder, language)
    backup(folder, language)
    from pipeline.export.template import KINDS, export_template

    with st.expander(t("templates", language)):
        cols = st.columns(4)
        for index, kind in enumerate(KINDS):
            path = folder / f"template-{kind}.xlsx"
            export_template(kind, event.name, path, ruleset=event.ruleset)
            cols[index % 4].download_button(kind, path.read_bytes(), file_name=path.name,
                                            key=f"template-{kind}")


def backup(folder: Path, language: str) -> None:
    """The day's backup, one click: a consistent copy of the whole database to download
    (the next step says 备份: here it is)."""
    from pipeline import maintenance

    st.markdown(f"**{t('backup', language)}**")
    if st.button(t("backup_make", language), key="backup-make"):
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = folder / f"paisai-{stamp}.duckdb"
        try:
            maintenance.backup(database(), path)
        except PaisaiError as exc:
            st.error(str(exc))
            return
        st.session_state["backup"] = (path.name, path.read_bytes())
    made = st.session_state.get("backup")
    if made:
        st.download_button(f"{t('backup_download', language)} {made[0]}", made[1],
                           file_name=made[0], key="backup-download")


def ranking_picture(event, ranking: pl.DataFrame, after: int, folder: Path,
                    language: str) -> None:
    """A phone-sized picture of the ranking, for the event's WeChat group."""
    from pipeline.export.picture import write_picture

    st.markdown(f"**{t('ranking_picture', language)}**")
    with st.container(border=True):
        top = st.number_input(t("top_n", language), min_value=0, value=16, key="picture-top")
        if st.button(t("make_picture", language), key="make-picture"):
            path = folder / "ranking.png"
            subtitle = (t("picture_after", language, n=after) if event.ruleset.is_swiss
                        else t("picture_places", language))
            try:
                write_picture(ranking, event.name, subtitle, path, int(top) or None)
            except UsageError as exc:
                st.error(str(exc))
                return
            st.image(path.read_bytes(), width=360)
            st.download_button(t("ranking_picture", language), path.read_bytes(),
                               file_name=f"{event.event_id}-排名.png", mime="image/png",
                               key="picture-png")


def certificates(event, prizes, not_final: str | None, folder: Path, language: str) -> None:
    """Award certificates (one A4 page per prize), made on request: embedding the font takes
    a second. Before the prizes are final the button says why it waits."""
    from pipeline.export.certificates import write_certificates

    if prizes is None or not_final:
        st.caption(f"{t('certificates', language)}{colon(language)}{not_final}")
        return
    organizer = st.text_input(t("organizer", language), key="certificates-organizer")
    if st.button(t("make_certificates", language), key="certificates"):
        path = folder / "certificates.pdf"
        try:
            pages = write_certificates(prizes, event.name, event.event_date, path,
                                       organizer=organizer, warn=st.warning)
        except UsageError as exc:
            st.error(str(exc))
            return
        st.download_button(t("pdf_pages", language, what=t("certificates", language), n=pages),
                           path.read_bytes(), file_name=f"{event.event_id}-certificates.pdf",
                           mime="application/pdf", key="certificates-pdf")


def self_report(event_id: str, language: str) -> None:
    """Each table's two QR codes (one a side) as images, the links clickable; a warning when
    the address is one only this computer opens, with its LAN address offered; the reports
    waiting, disagreements first."""
    st.subheader(t("self_report", language))
    round_no, _ = queries.current_pairings(database(), event_id)
    if round_no is None:
        st.info(t("no_pairing", language))
        return
    base = base_url_input(language, "self-report-base")
    table = selfreport.links(database(), event_id, round_no, base)
    # a toggle, not an expander: its state is the server's, so a redraw never folds it away
    if st.toggle(f"{t('round', language)} {round_no}: {table.height} × 2 QR", key="show-qr"):
        st.caption(t("side_links", language))
        for row in table.iter_rows(named=True):
            cols = st.columns([1, 1, 3])
            cols[0].image(_qr_png(row["ew_url"]), width=150,
                          caption=f"{t('ew', language)} {row['ew_team']} · {row['ew_code']}")
            cols[1].image(_qr_png(row["ns_url"]), width=150,
                          caption=f"{t('ns', language)} {row['ns_team']} · {row['ns_code']}")
            ew, ns = t("ew", language), t("ns", language)
            cols[2].markdown(f"**{t('table', language)} {row['table']}** · {ew} "
                             f"{row['ew_team']} – {ns} {row['ns_team']}  \n"
                             f"[{ew}]({row['ew_url']}) · [{ns}]({row['ns_url']}) · "
                             f"[{t('table_link', language)}]({row['url']})")
    pending_reports(event_id, language)


def pending_reports(event_id: str, language: str) -> None:
    """The reports waiting for the organizer, disagreements first (read once per version
    of the event)."""
    _, waiting = _status_data(str(database()), event_id, _console_version(event_id))
    _pending_rows(event_id, language, waiting)


def _pending_rows(event_id: str, language: str, waiting: pl.DataFrame,
                  only_disagreeing: bool = False, where: str = "list") -> None:
    """Each waiting report with its 接受 / 拒绝 buttons. `only_disagreeing`: the tables whose
    sides disagree, right under the banner that announces them (the buttons beside it)."""
    disagreeing = set(_disagreeing(waiting))
    if only_disagreeing:
        waiting = waiting.filter(pl.col("table_no").is_in(sorted(disagreeing)))
    else:
        st.markdown(f"**{t('pending', language)}: {waiting.height}**")
    sides = {"ew": t("report_ew", language), "ns": t("report_ns", language),
             None: t("report_table", language)}
    ordered = waiting.with_columns(pl.col("table_no").is_in(sorted(disagreeing)).alias("d")) \
        .sort("d", "table_no", descending=[True, False])
    for row in ordered.iter_rows(named=True):
        cols = st.columns([4, 1, 1])
        cols[0].write(f"{t('round', language)} {row['round']} · {t('table', language)} "
                      f"{row['table_no']} · {sides[row['side']]}: {row['ew_level']} – "
                      f"{row['ns_level']}" + (f" ⚠ {t('sides_disagree', language)}"
                                              if row["table_no"] in disagreeing else ""))
        for col, accept, key in ((cols[1], True, "accept"), (cols[2], False, "reject")):
            if col.button(t(key, language), key=f"{where}-{key}-{row['report_id']}"):
                try:
                    with undo.undoable(database(), event_id,
                                       f"桌报 report #{row['report_id']} "
                                       f"{'accepted' if accept else 'rejected'}"):
                        selfreport.decide(database(), event_id, row["report_id"], accept)
                except SheetErrors as errors:
                    _problems(errors)
                    return
                except PaisaiError as exc:
                    st.error(str(exc))
                    return
                _republish(event_id, language)
                done(f"{t('table', language)} {row['table_no']}: {t(key, language)} ✓")


def _qr_png(url: str) -> bytes:
    import io

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="png", scale=4, border=2)
    return out.getvalue()


def base_url_input(language: str, key: str) -> str:
    """The address phones open (for QR codes): the browser's own by default; a loopback
    address is refused in words, with this computer's LAN address offered."""
    from pipeline.serve import is_loopback, lan_addresses

    base = st.text_input(t("base_url", language), value=hall_base(), key=key)
    if is_loopback(base):
        lan = lan_addresses()
        st.warning(t("loopback", language) + (f"（{t('lan_address', language)}: "
                                              f"{', '.join(lan)}）" if lan else ""))
    elif not listens_for(base):
        st.error(t("not_listening", language))
    return base


def listens_for(base: str) -> bool:
    """Whether this server listens where `base` points: a loopback-only server (the
    default `paisai dashboard`) cannot be reached at a LAN address."""
    import os

    from pipeline.serve import is_loopback

    host = os.environ.get("PAISAI_LISTEN_HOST", "")
    return not host or not is_loopback(f"http://{host}") or host == "0.0.0.0" \
        or is_loopback(base)


def clock(event_id: str, language: str) -> None:
    st.subheader(t("clock", language))
    from dashboard import clockview
    from pipeline import clockstore

    clockview.header(database(), event_id, size=40, language=language)
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
                st.error(str(exc))
    with db.reading(database()) as con:
        chime_on = clockstore.chime(con, event_id)
    wanted = st.toggle(t("chime", language), value=chime_on)
    if wanted != chime_on:
        with db.writing(database()) as con:
            clockstore.set_chime(con, event_id, wanted)
    with st.form("late"):
        st.markdown(f"**{t('late', language)}**")
        cols = st.columns(3)
        team = cols[0].text_input(t("team_no", language)).strip().upper()
        minutes = cols[1].number_input(t("late_minutes", language), min_value=0.0, value=5.0, step=1.0)
        round_no = cols[2].number_input(t("round", language), min_value=1, value=1)
        decide = st.form_submit_button(t("late_decide", language))
    if decide and team:
        with db.reading(database()) as con:
            event = events.load(con, event_id)
            try:
                action, kind, rows = clockstore.late_rows(con, event, int(round_no), team,
                                                          minutes)
            except PaisaiError as exc:
                st.error(str(exc))
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
                _problems(errors)


def registration_desk(event_id: str, language: str) -> None:
    """The draw (seed shown large for the hall), check-in by search, withdrawals."""
    from pipeline import registration

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
            st.error(str(exc))
    with db.reading(database()) as con:
        teams = db.frame(con, "select team_no, team_name, player1, player2, checked_in, "
                              "withdrawn_after from teams where event_id = $e",
                         {"e": event_id})
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
                    st.error(str(exc))
