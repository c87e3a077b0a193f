"""赛后 After: the ranking, the prize list, certificates, the picture, the backup."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import polars as pl
import streamlit as st

from dashboard.common import database, html_table
from dashboard.i18n import colon, one_language, t
from pipeline.base import db, events
from pipeline.base.errors import PaisaiError, UsageError
from pipeline.publishing.export.standings import export_frame
from pipeline.ranking import scoring
from pipeline.ranking.awards import award_list, unfinished, with_member_ids


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
            st.caption(one_language(not_final, language))
        st.html(html_table(prizes.select("award", "rank", "team_no", "team_name",
                                         *(["note"] if "note" in prizes.columns else [])),
                           language, "prizes"))
    cols = st.columns(len(files))
    for col, (label, path, name) in zip(cols, files, strict=True):
        col.download_button(label, path.read_bytes(), file_name=name, key=f"dl-{name}")
    certificates(event, certified, not_final, folder, language)
    ranking_picture(event, ranking, after, folder, language)
    backup(folder, language)
    from pipeline.publishing.export.template import KINDS, export_template

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
    from pipeline.operations import maintenance
    st.markdown(f"**{t('backup', language)}**")
    if st.button(t("backup_make", language), key="backup-make"):
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = folder / f"paisai-{stamp}.duckdb"
        try:
            maintenance.backup(database(), path)
        except PaisaiError as exc:
            st.error(one_language(str(exc), language))
            return
        st.session_state["backup"] = (path.name, path.read_bytes())
    made = st.session_state.get("backup")
    if made:
        st.download_button(f"{t('backup_download', language)} {made[0]}", made[1],
                           file_name=made[0], key="backup-download")


def ranking_picture(event, ranking: pl.DataFrame, after: int, folder: Path,
                    language: str) -> None:
    """A phone-sized picture of the ranking, for the event's WeChat group."""
    from pipeline.publishing.export.picture import write_picture

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
                st.error(one_language(str(exc), language))
                return
            st.image(path.read_bytes(), width=360)
            st.download_button(t("ranking_picture", language), path.read_bytes(),
                               file_name=f"{event.event_id}-排名.png", mime="image/png",
                               key="picture-png")


def certificates(event, prizes, not_final: str | None, folder: Path, language: str) -> None:
    """Award certificates (one A4 page per prize), made on request: embedding the font takes
    a second. Before the prizes are final the button says why it waits."""
    from pipeline.publishing.export.certificates import write_certificates

    if prizes is None or not_final:
        st.caption(f"{t('certificates', language)}{colon(language)}{one_language(not_final, language)}")
        return
    organizer = st.text_input(t("organizer", language), key="certificates-organizer")
    if st.button(t("make_certificates", language), key="certificates"):
        path = folder / "certificates.pdf"
        try:
            pages = write_certificates(prizes, event.name, event.event_date, path,
                                       organizer=organizer, warn=st.warning)
        except UsageError as exc:
            st.error(one_language(str(exc), language))
            return
        st.download_button(t("pdf_pages", language, what=t("certificates", language), n=pages),
                           path.read_bytes(), file_name=f"{event.event_id}-certificates.pdf",
                           mime="application/pdf", key="certificates-pdf")
