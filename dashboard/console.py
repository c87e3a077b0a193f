"""The organizer console's sections. Every write goes through the pipeline's own paths
(validation, one transaction, audit); nothing here computes a score."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import polars as pl
import segno
import streamlit as st

from dashboard.common import database, html_table, lang
from dashboard.i18n import t
from pipeline import db, events, queries, rounds, scoring, selfreport, undo
from pipeline.awards import award_list, unfinished
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


NEXT_STEP = {
    "register": ("next_register", "报名：上传报名表或在下方登记 register the teams"),
    "pair": ("next_pair", "编排第 1 轮 pair round 1"),
    "enter": ("next_enter", "录入成绩 enter the results"),
    "pair_next": ("next_pair_next", "编排下一轮并打印对阵 pair the next round, print it"),
    "done": ("next_done", "全部轮次已完成：颁奖与备份 all rounds played: awards and backup"),
}


def undo_last(event_id: str, language: str) -> None:
    """Undo the console's last stored action while no later round is paired."""
    found = undo.last(database(), event_id)
    if found is None:
        return
    if st.button(f"{t('undo', language)}：{found[1]}"):
        try:
            label = undo.undo_last(database(), event_id)
            st.success(f"{t('undone', language)}：{label}")
        except PaisaiError as exc:
            st.error(str(exc))


def round_status(event_id: str, language: str) -> None:
    """The console opens on the current round: where it stands and what comes next."""
    status = queries.round_status(database(), event_id)
    cols = st.columns(4)
    cols[0].metric(t("round", language), status.round or "—")
    cols[1].metric(t("reported_short", language), f"{status.reported}/{status.expected}")
    cols[2].metric(t("pending_reports", language), status.pending_reports)
    cols[3].metric(t("rounds_planned", language), status.rounds_planned or "—")
    if status.missing:
        listed = "；".join(f"{table} 号桌 {ew}–{ns or t('bye', language)}"
                          for table, ew, ns in status.missing)
        st.warning(f"{t('missing_tables', language, tables='、'.join(str(m[0]) for m in status.missing))}"
                   f"：{listed}")
    if status.suspended:
        st.warning(status.suspended)
    st.success(f"{t('next_step', language)}：{NEXT_STEP[status.next_step][1]}")


def create_event(language: str) -> None:
    with st.expander(t("create_event", language)), st.form("create_event"):
        event_id = st.text_input("ID (a-z 0-9 -)")
        name = st.text_input("名称 Name")
        preset = st.selectbox("规则 Ruleset", preset_names(), placeholder=t("choose", language))
        date = st.date_input("日期 Date", value=None)
        if st.form_submit_button(t("create_event", language)):
            try:
                with db.writing(database()) as con:
                    events.create(con, event_id.strip(), name, preset,
                                  date.isoformat() if date else None)
                st.success(f"{event_id} ✓")
            except PaisaiError as exc:
                st.error(str(exc))


def upload(event_id: str, language: str) -> None:
    st.subheader(t("upload", language))
    files = st.file_uploader("CSV / Excel", type=["csv", "xlsx", "xls", "txt"],
                             accept_multiple_files=True, key="uploads")
    if not files:
        return
    ready = []
    for file in files:
        st.markdown(f"**{file.name}**")
        data = b""
        try:
            refuse_oversized(file.name, file.size)  # the limit, before any reading
            data = file.getvalue()
            report = preview_file(database(), event_id, file.name, data)
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
            st.caption(line)
        st.html(html_table(pl.DataFrame([s.__dict__ for s in report.stored]), lang(),
                           "preview"))
        ready.append((file.name, data))
    if ready and st.button(t("confirm", language), type="primary"):
        for name, data in ready:
            try:
                with undo.undoable(database(), event_id, f"上传 upload {name}"):
                    ingest_file(database(), event_id, Path(name), source="dashboard",
                                data=data)
                st.success(f"{t('stored', language)}: {name}")
            except SheetErrors as errors:
                _problems(errors)
        digest = hashlib.sha256(b"".join(d for _, d in ready)).hexdigest()[:8]
        st.session_state["last_upload"] = digest
        _republish(event_id, language)


def enter_table(event_id: str, language: str) -> None:
    st.subheader(t("enter_table", language))
    round_no, pairs = queries.current_pairings(database(), event_id)
    levels = [format_level(v) for v in range(2, 16)]
    with st.form("enter_table"):
        cols = st.columns(3)
        chosen_round = cols[0].number_input(t("round", language), min_value=1,
                                            value=round_no or 1)
        table = cols[1].number_input(t("table", language), min_value=1, value=1)
        forfeit = cols[2].selectbox("弃权 Forfeit", ["", "东西", "南北"],
                                    placeholder=t("choose", language))
        cols = st.columns(2)
        # levels start empty: a careless save never records a result nobody chose
        ew = cols[0].selectbox("东西级数 EW level", levels, index=None,
                               placeholder=t("choose", language))
        ns = cols[1].selectbox("南北级数 NS level", levels, index=None,
                               placeholder=t("choose", language))
        ew_team = ns_team = ""
        if not pairs.is_empty() and chosen_round != round_no:
            st.caption("未编排的轮次需要队号 an unpaired round needs the teams")
        cols = st.columns(2)
        ew_team = cols[0].text_input("东西队号 EW team（已编排可不填）")
        ns_team = cols[1].text_input("南北队号 NS team")
        reason = st.text_input(t("reason", language))
        if st.form_submit_button(t("save", language)):
            if not reason.strip():
                st.error(t("reason", language))
                return
            if not forfeit and (ew is None or ns is None):
                st.error("请选择两方级数 choose both levels")
                return
            row = {"round": chosen_round, "table": table, "ew_team": ew_team,
                   "ns_team": ns_team, "ew_level": "" if forfeit else ew,
                   "ns_level": "" if forfeit else ns, "forfeit": forfeit}
            try:
                with undo.undoable(database(), event_id,
                                   f"录入 entry: {t('round', language)} {chosen_round} "
                                   f"{t('table', language)} {table}"):
                    report = ingest_rows(database(), event_id, "results", [row],
                                         source="控制台 console", reason=reason.strip())
                s = report.stored[0]
                st.success(f"✓ new {s.new} · replaced {s.replaced} · unchanged {s.unchanged}")
            except SheetErrors as errors:
                _problems(errors)
            except PaisaiError as exc:
                st.error(str(exc))


def pair_next(event_id: str, language: str) -> None:
    st.subheader(t("pair_next", language))
    cols = st.columns(3)
    seed = cols[0].number_input("抽签种子 seed", min_value=0, value=None,
                                placeholder=t("seed_empty", language))
    force = cols[1].checkbox(t("force", language))
    if cols[2].button(t("pair_next", language)):
        try:
            with db.writing(database()) as con:
                event = events.load(con, event_id)
                round_no, pairing, used = rounds.pair(con, event, None,
                                                      int(seed) if seed is not None else None,
                                                      force)
            st.success(f"{t('round', language)} {round_no} ✓")
            if used is not None:
                st.markdown(f"<div style='font-size:64px;font-weight:700'>抽签种子 {used}</div>",
                            unsafe_allow_html=True)
            for a, b in pairing.rematches:
                st.warning(f"{a}–{b} 再次相遇 rematch")
            _republish(event_id, language)
        except PaisaiError as exc:
            st.error(str(exc))


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


def downloads(event_id: str, language: str) -> None:
    st.subheader(t("downloads", language))
    folder = Path(tempfile.mkdtemp(prefix="paisai-"))
    with db.reading(database()) as con:
        event = events.load(con, event_id)
        latest = rounds.latest_paired_round(con, event_id)
        ranking = scoring.standings(con, event).select(scoring.STANDINGS_COLUMNS) \
            if event.ruleset.is_swiss else None
        try:
            prizes, not_final = award_list(con, event), unfinished(con, event)
        except UsageError as exc:  # a Tractor event before its final
            prizes, not_final = None, str(exc)
        pairs = rounds.pairings(con, event_id, latest) if latest else None
    files = []
    if ranking is not None:
        export_frame(ranking, f"{event.name} 排名", "排名", folder / "standings.xlsx")
        files.append(("排名 standings.xlsx", folder / "standings.xlsx"))
    if prizes is not None:
        export_frame(prizes, f"{event.name} 获奖名单", "获奖名单", folder / "awards.xlsx")
        files.append(("获奖 awards.xlsx", folder / "awards.xlsx"))
    if pairs is not None:
        from pipeline.publish import target

        title = f"{event.name} 第 {latest} 轮"
        site = target(database(), event_id)
        site_url = site[1] if site else None  # phones go to the static site
        export_pairings(pairs, title + "对阵表", folder / "pairings.xlsx", site_url)
        export_pairings(pairs, title + "对阵表", folder / "pairings.html", site_url)
        export_scoresheet(pairs, title + "成绩登记表", folder / "scoresheet.xlsx")
        files += [("对阵表 pairings.xlsx", folder / "pairings.xlsx"),
                  ("对阵表 pairings.html", folder / "pairings.html"),
                  ("成绩登记表 scoresheet.xlsx", folder / "scoresheet.xlsx")]
    if files:
        cols = st.columns(len(files))
        for col, (label, path) in zip(cols, files, strict=True):
            col.download_button(label, path.read_bytes(), file_name=path.name)
    certificates(event, prizes, not_final, folder, language)
    from pipeline.export.template import KINDS, export_template

    with st.expander(t("templates", language)):
        cols = st.columns(4)
        for index, kind in enumerate(KINDS):
            path = folder / f"template-{kind}.xlsx"
            export_template(kind, event.name, path)
            cols[index % 4].download_button(kind, path.read_bytes(), file_name=path.name,
                                            key=f"template-{kind}")


def certificates(event, prizes, not_final: str | None, folder: Path, language: str) -> None:
    """Award certificates (one A4 page per prize), made on request: embedding the font takes
    a second. Before the prizes are final the button says why it waits."""
    from pipeline.export.certificates import write_certificates

    if prizes is None or not_final:
        st.caption(f"{t('certificates', language)}：{not_final}")
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
        st.download_button(f"{t('certificates', language)} certificates.pdf（{pages} 页）",
                           path.read_bytes(), file_name=f"{event.event_id}-certificates.pdf",
                           mime="application/pdf", key="certificates-pdf")


def self_report(event_id: str, language: str) -> None:
    st.subheader(t("self_report", language))
    round_no, _ = queries.current_pairings(database(), event_id)
    if round_no is None:
        st.info(t("no_pairing", language))
        return
    base = st.text_input(t("base_url", language), value=_default_base())
    table = selfreport.links(database(), event_id, round_no, base)
    with st.expander(f"{t('round', language)} {round_no}: {table.height} QR"):
        st.caption(t("side_links", language))
        for row in table.iter_rows(named=True):
            cols = st.columns([1, 1, 3])
            cols[0].html(segno.make(row["ew_url"]).svg_inline(scale=3))
            cols[1].html(segno.make(row["ns_url"]).svg_inline(scale=3))
            cols[2].markdown(f"**{row['table']}** · 东西 {row['ew_team']} – 南北 "
                             f"{row['ns_team']}  \n`{row['ew_url']}`  \n`{row['ns_url']}`  \n"
                             f"{t('table_link', language)}: `{row['url']}`")
    waiting = selfreport.pending(database(), event_id)
    st.markdown(f"**{t('pending', language)}: {waiting.height}**")
    sides = {"ew": "东西报 EW", "ns": "南北报 NS", None: "桌报 table"}
    by_side: dict[int, set] = {}
    for row in waiting.filter(waiting["side"].is_not_null()).iter_rows(named=True):
        by_side.setdefault(row["table_no"], set()).add((row["ew_level"], row["ns_level"]))
    for row in waiting.iter_rows(named=True):
        cols = st.columns([4, 1, 1])
        differ = len(by_side.get(row["table_no"], ())) > 1  # both sides sent, not alike
        cols[0].write(f"{t('round', language)} {row['round']} · {t('table', language)} "
                      f"{row['table_no']} · {sides[row['side']]}: {row['ew_level']} – "
                      f"{row['ns_level']}" + (f" ⚠ {t('sides_disagree', language)}"
                                              if differ else ""))
        for col, accept, key in ((cols[1], True, "accept"), (cols[2], False, "reject")):
            if col.button(t(key, language), key=f"{key}-{row['report_id']}"):
                try:
                    with undo.undoable(database(), event_id,
                                       f"桌报 report #{row['report_id']} "
                                       f"{'accepted' if accept else 'rejected'}"):
                        selfreport.decide(database(), event_id, row["report_id"], accept)
                    st.rerun()
                except SheetErrors as errors:
                    _problems(errors)
                except PaisaiError as exc:
                    st.error(str(exc))


def _default_base() -> str:
    try:
        host = st.context.headers.get("Host") or "127.0.0.1:8501"
    except Exception:  # outside a browser session (AppTest)
        host = "127.0.0.1:8501"
    return f"http://{host}"


def clock(event_id: str, language: str) -> None:
    st.subheader(t("clock", language))
    from dashboard import clockview
    from pipeline import clockstore

    clockview.header(database(), event_id, size=40)
    cols = st.columns(6)
    actions = [("start", "开始 start", 0), ("pause", "暂停 pause", 0), ("resume", "继续 resume", 0),
               ("add-minutes", "+1 分钟", 1), ("add-minutes", "−1 分钟", -1),
               ("stop", "结束 stop", 0)]
    for col, (action, label, minutes) in zip(cols, actions, strict=True):
        if col.button(label, key=f"clock-{label}"):
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
        team = cols[0].text_input("队号 team").strip().upper()
        minutes = cols[1].number_input("迟到分钟 minutes", min_value=0.0, value=5.0, step=1.0)
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
    prefix = cols[0].text_input("编号前缀 prefix", value="A")
    seed = cols[1].number_input("抽签种子 seed", min_value=0, value=None, key="draw-seed",
                                placeholder=t("seed_empty", language))
    in_order = cols[2].checkbox("按表中顺序 in sheet order")
    apart = cols[3].checkbox("单人配对不同单位 units apart")
    if st.button(t("draw", language)):
        try:
            with db.writing(database()) as con:
                drawn, used, unpaired = registration.draw(
                    con, event_id, prefix, int(seed) if seed is not None else None, in_order,
                    apart)
            st.markdown(f"<div data-testid='draw-seed' style='font-size:72px;font-weight:800'>"
                        f"抽签种子 {used}</div>", unsafe_allow_html=True)
            st.html(html_table(drawn, language, "drawn"))
            for name in unpaired:
                st.warning(f"{name}: 单人报名暂无搭档 single without a partner")
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
