"""编排 Pairing: the next round previewed and stored, its printouts and table cards."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from dashboard.common import database, html_table
from dashboard.console.shared import base_url_input, done, event_version, republish
from dashboard.i18n import listed, one_language, t
from pipeline.base import db, events
from pipeline.base.errors import PaisaiError, RoundIncomplete, UsageError
from pipeline.day import queries, selfreport
from pipeline.pairing import event_round
from pipeline.publishing.export.pairings import export_pairings
from pipeline.publishing.export.scoresheet import export_scoresheet
from pipeline.ranking import rounds


def pair_next(event_id: str, language: str) -> None:
    """Pair the next round in two steps: a preview (what the pairing would be, and any two
    teams of one unit it puts together), then storing it."""
    st.subheader(t("pair_next", language))
    again = _unplayed_round(str(database()), event_id, event_version(event_id))
    which = None
    if again is not None:  # paired, nothing reported yet: made again, or the round after
        which = st.radio(t("which_round", language), [again, again + 1], horizontal=True,
                         format_func=lambda n: t("pair_again" if n == again else "pair_after",
                                                 language, n=n), key="pair-which")
    round_no = again if which == again else None
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
                made, pairing, used = event_round.pair(con, event, round_no, seed, force, apart)
                same = event_round.same_unit_tables(con, event_id, made)
                shown = rounds.pairings(con, event_id, made).select(
                    "table", "ew_team", "ew_name", "ns_team", "ns_name")
            st.session_state["pairing_preview"] = (made, used, same, shown,
                                                   list(pairing.rematches), round_no)
        except RoundIncomplete as exc:  # the console's own remedy: its checkbox, not --force
            st.error(t("round_incomplete", language, n=exc.round_no, reported=exc.reported,
                       expected=exc.expected, tables=listed(exc.missing, language),
                       force=t("force", language)))
        except PaisaiError as exc:
            st.error(one_language(str(exc), language))
    preview = st.session_state.get("pairing_preview")
    if not preview:
        return
    made, used, same, shown, rematches, asked = preview
    _preview_summary(made, used, same, shown.height, rematches, language)
    # the button above the tables: a 500-table preview put it 20,000 pixels down the page
    st.button(t("store_pairing", language), type="primary", on_click=_store_pairing,
              args=(event_id, asked, used if used is not None else seed, force, apart,
                    language))
    failed = st.session_state.pop("pairing_failed", None)
    if failed:
        st.error(one_language(failed, language))
    with st.container(height=PREVIEW_HEIGHT if shown.height > PREVIEW_ROWS else "content"):
        st.html(html_table(shown, language, "pairing-preview"))


PREVIEW_ROWS = 20  # a preview longer than this scrolls in a box of its own
PREVIEW_HEIGHT = 720
SPELLED_OUT = 5  # rematches, tables of one unit: named each in a warning up to this


def _preview_summary(round_no: int, used: int | None, same: list, tables: int,
                     rematches: list, language: str) -> None:
    """What the organizer checks before storing: the round, its tables, the seed, the
    rematches and the tables of one unit — a few named each, many (a 1,000-team event of
    twelve units: hundreds) as their count with the list one click away."""
    parts = [t("round_n", language, n=round_no), t("tables_n", language, n=tables)]
    if used is not None:
        parts.append(f"{t('seed', language)} {used}")
    parts.append(t("rematches_n", language, n=len(rematches)))
    parts.append(t("same_unit_n", language, n=len(same)))
    st.markdown(f"**{' · '.join(parts)}**")
    for a, b in rematches[:SPELLED_OUT]:
        st.warning(t("rematch", language, a=a, b=b))
    lines = [t("same_unit", language, t=table, ew=ew, ns=ns, unit=unit)
             for table, ew, ns, unit in same]
    if len(lines) <= SPELLED_OUT:
        for line in lines:
            st.warning(line)
        return
    st.warning(t("same_unit_many", language, n=len(lines)))
    with st.expander(t("same_unit_list", language, n=len(lines))):
        st.markdown("\n".join(f"- {line}" for line in lines))


def _store_pairing(event_id: str, asked: int | None, seed: int | None, force: bool,
                   apart: bool, language: str) -> None:
    """The previewed pairing stored — before the page is drawn again (a button's callback),
    so one redraw shows the new round. `asked`: the round made again (None: the next)."""
    try:
        with db.writing(database()) as con:
            event = events.load(con, event_id)
            round_no, pairing, used = event_round.pair(con, event, asked, seed, force, apart)
    except PaisaiError as exc:
        st.session_state["pairing_failed"] = str(exc)
        return
    del st.session_state["pairing_preview"]
    republish(event_id, language)
    note = f" · {t('seed', language)} {used}" if used is not None else ""
    rematches = "".join(f" · {t('rematch', language, a=a, b=b)}" for a, b in pairing.rematches)
    done(t("paired", language, r=round_no) + note + rematches, redraw=False)


@st.cache_data(max_entries=32, show_spinner=False)
def _unplayed_round(path: str, event_id: str, version: str) -> int | None:
    """The latest paired round while none of its tables has a result (its pairing can be
    made again: a team withdrawn or a unit kept apart after the confirmation), else None."""
    from pathlib import Path

    return queries.unplayed_round(Path(path), event_id)


@st.cache_data(max_entries=32, show_spinner=False)
def _round_files(path: str, event_id: str, version: tuple) -> list[tuple[str, str, bytes]]:
    """The current round's printouts: (label's key, file name, bytes)."""
    from pipeline.publishing.targets import target

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
    export_scoresheet(pairs, title + "成绩登记表", folder / "s.xlsx",
                      event.ruleset.scoring["equal_levels"])
    return [("pairings_xlsx", f"{stem}-对阵表.xlsx", (folder / "p.xlsx").read_bytes()),
            ("pairings_html", f"{stem}-对阵表.html", (folder / "p.html").read_bytes()),
            ("scoresheet_xlsx", f"{stem}-成绩登记表.xlsx", (folder / "s.xlsx").read_bytes())]


def round_downloads(event_id: str, language: str) -> None:
    """The round's pairings, score sheet and table cards, named by event and round — the
    round said in the heading (after a round complete and before the next is paired, these
    are still the round just played: the file's name alone said so)."""
    files = _round_files(str(database()), event_id, event_version(event_id))
    if not files:
        st.subheader(t("downloads", language))
        st.caption(t("no_pairing", language))
        return
    round_no, _ = queries.paired_tables(database(), event_id)
    st.subheader(t("downloads_round", language, n=round_no))
    cols = st.columns(len(files))
    for col, (label, name, data) in zip(cols, files, strict=True):
        col.download_button(t(label, language), data, file_name=name, key=f"dl-{name}")
    table_cards(event_id, language)


def table_cards(event_id: str, language: str) -> None:
    from pipeline.publishing.export.cards import write_cards

    round_no, tables = queries.paired_tables(database(), event_id)
    if round_no is None:
        return
    st.markdown(f"**{t('table_cards', language)}**")
    with st.container(border=True):
        base = base_url_input(language, "cards-base")
        if st.button(t("make_cards", language, n=round_no), key="make-cards"):
            with db.reading(database()) as con:
                event = events.load(con, event_id)
            path = Path(tempfile.mkdtemp(prefix="paisai-")) / "cards.pdf"
            try:  # a 500-table round's cards take a while: said while they are made
                with st.spinner(t("making_cards", language, n=tables)):
                    pages = write_cards(selfreport.table_cards(database(), event_id, round_no,
                                                               base), event.name, round_no, path)
            except UsageError as exc:
                st.error(one_language(str(exc), language))
                return
            st.download_button(t("pdf_pages", language, what=t("cards_word", language), n=pages),
                               path.read_bytes(),
                               file_name=f"{event_id}-第{round_no}轮-桌牌.pdf",
                               mime="application/pdf", key="cards-pdf")
