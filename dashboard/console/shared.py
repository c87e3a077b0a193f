"""What the console's sections share: the flash after an action, the undo offer, the
event's versions, the waiting reports' rows, the QR codes and the address phones reach."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import polars as pl
import segno
import streamlit as st

from dashboard.common import database, hall_base, html_table, lan_addresses, lang
from dashboard.i18n import colon, listed, one_language, t
from pipeline.base import db
from pipeline.base.errors import PaisaiError, SheetErrors
from pipeline.day import queries, selfreport
from pipeline.intake import undo


def problems(errors: SheetErrors) -> None:
    language = lang()
    st.error(t("errors_nothing", language))
    st.html(html_table(errors.frame(), language, "problems"))


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


def event_version(event_id: str) -> tuple:
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


def republish(event_id: str, language: str) -> None:
    """The phones' channel: the static site follows every change, when it is published — a
    folder at once, object storage in the background (never holding the hall's pages; its
    outcome shown by `site_status`)."""
    from pipeline.publishing.targets import republish_soon

    try:
        found = republish_soon(database(), event_id)
    except (PaisaiError, OSError) as exc:
        st.warning(f"{t('site_failed', language)}: {exc}")
        return
    if found is not None:
        st.caption(f"{t('site_updated', language)}: {found.shown}")


def site_status(event_id: str, language: str) -> None:
    """The last background publish to object storage, in words: failed (why, retried), or
    when it last succeeded."""
    from pipeline.publishing.remote import last_outcome

    outcome, running = last_outcome(database(), event_id)
    if outcome is not None and not outcome.ok:
        st.warning(f"{t('site_failed', language)}: {outcome.message}"
                   + (f" ({t('site_retrying', language)})" if running else ""))
    elif running:
        st.caption(t("site_publishing", language))


def qr_png(url: str) -> bytes:
    import io

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="png", scale=4, border=2)
    return out.getvalue()


def base_url_input(language: str, key: str) -> str:
    """The address phones open (for QR codes): the browser's own by default; a loopback
    address is refused in words, with this computer's LAN address offered."""
    from pipeline.operations.serve import is_loopback

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

    from pipeline.operations.serve import is_loopback

    host = os.environ.get("PAISAI_LISTEN_HOST", "")
    return not host or not is_loopback(f"http://{host}") or host == "0.0.0.0" \
        or is_loopback(base)


def undo_last(event_id: str, language: str, version: str | None = None) -> None:
    """Undo the console's last stored action; where that would be refused (a table it
    stored was changed since, a later round is paired), the button is off and says why.
    `version`: the console's version as this run read it (`console_version`)."""
    version = console_version(event_id) if version is None else version
    found = _undo_offer(str(database()), event_id, queries.results_part(version))
    if found is None:
        return
    refused = found[2]
    pressed = st.button(f"{t('undo', language)}{colon(language)}"
                        f"{one_language(found[1], language)}", disabled=refused is not None)
    if refused:
        st.caption(one_language(refused, language))
    if pressed:
        try:
            label = undo.undo_last(database(), event_id)
        except PaisaiError as exc:
            st.error(one_language(str(exc), language))
            return
        republish(event_id, language)
        done(f"{t('undone', language)}{colon(language)}{one_language(label, language)}")


def undo_label(report_id: int, accept: bool) -> str:
    """What undo names a phone's report decided on the console, in both languages (shown
    in the console's own: `one_language`).

    >>> undo_label(4, True)
    '桌报 #4 已接受 report #4 accepted'
    """
    return (f"桌报 #{report_id} {'已接受' if accept else '已拒绝'} "
            f"report #{report_id} {'accepted' if accept else 'rejected'}")


@st.cache_data(max_entries=32, show_spinner=False)
def _undo_offer(path: str, event_id: str,
                version: str) -> tuple[int, str, str | None] | None:
    """What an undo would take back, asked again only when the event changes."""
    return undo.last(Path(path), event_id)


def uploader_key(kind: str) -> str:
    """The file box's key: a new one after its files are stored, so the box is empty again."""
    return f"uploads-{kind}-{st.session_state.get(f'uploads-{kind}-stored', 0)}"


def console_version(event_id: str) -> str:
    """One small query: a value that changes whenever the status or the waiting reports
    would (the fragments redraw from the cache until it does)."""
    with db.reading(database()) as con:
        shown = queries.event_version(con, event_id)
        reports = db.rows(con, "select count(*), max(report_id), max(decided_at)::varchar "
                               "from pending_reports where event_id = ?", [event_id])
        deals = [db.rows(con, "select count(*), count(*) filter (where status = 'disputed'), "
                              f"max(coalesce(answered_at, entered_at))::varchar from {table} "
                              "where event_id = ?", [event_id])
                 for table in ("table_sheet_deals", "tractor_sheet_deals")]
        officials = db.rows(con, OFFICIALS_VERSION, {"e": event_id})
    return f"{shown}:{reports}:{deals}:{officials}"


# what the officials did on their phones (issue 51): a record, a proposal and its decision,
# leave, an appeal and each vote redraw the console's officials' part
OFFICIALS_VERSION = """
    select (select count(*) from official_records where event_id = $e),
           (select string_agg(ruling_id || status, ',' order by ruling_id)
            from official_rulings where event_id = $e),
           (select count(*) from official_leaves where event_id = $e),
           (select string_agg(appeal_id || status, ',' order by appeal_id)
            from official_appeals where event_id = $e),
           (select count(*) from official_votes v join official_appeals a using (appeal_id)
            where a.event_id = $e)"""


@st.cache_data(max_entries=32, show_spinner=False)
def status_data(path: str, event_id: str, version: str):
    """The round's status and the waiting reports, read once per version of the event."""
    return (queries.round_status(Path(path), event_id),
            selfreport.pending(Path(path), event_id))


@st.cache_data(max_entries=32, show_spinner=False)
def _disputed(path: str, event_id: str, version: str) -> tuple[list, list]:
    """The disputed deals of the tables' and the matches' own sheets, read once per version
    of the event (its sheets' part counts the disputed deals)."""
    from pipeline.day import tablestore, tractorstore

    with db.reading(Path(path)) as con:
        return (list(tablestore.disputed(con, event_id)),
                list(tractorstore.disputed(con, event_id)))


def disagreeing_tables(waiting: pl.DataFrame) -> list[int]:
    """Tables whose two sides sent different results (waiting for the organizer)."""
    sides = waiting.filter(pl.col("side").is_not_null()).group_by("table_no").agg(
        pl.struct("ew_level", "ns_level", "decider").n_unique().alias("results"))
    return sorted(sides.filter(pl.col("results") > 1)["table_no"].to_list())


def pending_rows(event_id: str, language: str, waiting: pl.DataFrame,
                  only_disagreeing: bool = False, where: str = "list") -> None:
    """Each waiting report with its 接受 / 拒绝 buttons. `only_disagreeing`: the tables whose
    sides disagree, right under the banner that announces them (the buttons beside it)."""
    disagreeing = set(disagreeing_tables(waiting))
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
                      f"{row['ns_level']}"
                      + (f" · {t('decided_by', language)} {t(row['decider'], language)}"
                         if row.get("decider") else "")
                      + (f" ⚠ {t('sides_disagree', language)}"
                                              if row["table_no"] in disagreeing else ""))
        for col, accept, key in ((cols[1], True, "accept"), (cols[2], False, "reject")):
            if col.button(t(key, language), key=f"{where}-{key}-{row['report_id']}"):
                try:
                    with undo.undoable(database(), event_id,
                                       undo_label(row["report_id"], accept)):
                        selfreport.decide(database(), event_id, row["report_id"], accept)
                except SheetErrors as errors:
                    problems(errors)
                    return
                except PaisaiError as exc:
                    st.error(one_language(str(exc), language))
                    return
                republish(event_id, language)
                done(f"{t('table', language)} {row['table_no']}: {t(key, language)} ✓")


def deal_disputes(event_id: str, language: str, version: str | None = None) -> None:
    """The disputed deals of the tables' and the Tractor matches' own sheets (each sheet
    waits), each with its two decisions: kept as the recorder entered it, or taken off to be
    entered again (in `paisai log`). `version`: the console's version as this run read it
    (the disputes read once per version: the status redraws itself every few seconds)."""
    from pipeline.day import tablestore, tractorstore

    version = console_version(event_id) if version is None else version
    tables, matches = _disputed(str(database()), event_id, version)
    found = [(t("deal_at", language, r=r, t=table, d=d), f"{r}-{table}-{d}",
              partial(tablestore.decide, database(), event_id, r, table, d))
             for r, table, d in tables]
    found += [(t("match_deal_at", language, s=s, m=m, d=d), f"{s}-{m}-{d}",
               partial(tractorstore.decide, database(), event_id, s, m, d))
              for s, m, d in matches]
    if not found:
        return
    st.error(t("deal_disputes", language, tables=listed((said for said, _, _ in found),
                                                        language)))
    for said, key_of, decide in found:
        cols = st.columns([3, 1, 1])
        cols[0].write(said)
        for col, keep, key in ((cols[1], True, "deal_keep"), (cols[2], False, "deal_take_off")):
            if col.button(t(key, language), key=f"{key}-{key_of}"):
                try:
                    decide(keep)
                except PaisaiError as exc:
                    st.error(one_language(str(exc), language))
                    return
                done(f"{said}: {t(key, language)} ✓")
