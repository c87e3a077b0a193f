"""裁判 on the console (issue 43): the chief arbiter's queue of proposals (confirm — as
proposed or as the chief chooses — or reject), leave for a team before a round, the appeals
with the committee's votes and their countdown, and the link to the officials' phone pages.
Every decision goes through `pipeline.officials.rulings`, named after the signed-in
official."""

from __future__ import annotations

import streamlit as st

from dashboard.common import database
from dashboard.console.shared import done
from dashboard.i18n import colon, one_language, t
from pipeline.base import db, events
from pipeline.base.errors import PaisaiError
from pipeline.base.order import natural_key
from pipeline.officials.ladder import RULING_WORDS, RULINGS


def officials_panel(event_id: str, language: str, official) -> None:
    from pipeline.officials import appeals, common, leave, rulings
    from pipeline.ranking import rounds

    with db.reading(database()) as con:
        event = events.load(con, event_id)
        waiting = rulings.queue(con, event_id)
        appeals = appeals.open_appeals(con, event)
        round_no = rounds.latest_paired_round(con, event_id) or 0
        teams = sorted((r[0] for r in db.rows(con, "select team_no from teams where "
                                                  "event_id = ?", [event_id])), key=natural_key)
    st.subheader(t("officials_queue", language))
    st.caption(t("officials_phone", language))
    if not waiting:
        st.info(t("officials_none", language))
    for p in waiting:
        with st.container(border=True):
            st.markdown(f"**#{p['ruling_id']}** · {t('round', language)} {p['round']} · "
                        f"{t('table', language)} {p['table_no'] or '—'} · **{p['team_no']}** · "
                        f"{_said(p['kind'], language)}{' ' + str(p['amount']) if p['amount'] else ''}"
                        f" — {p['reason']} ({p['proposed_by']})")
            cols = st.columns([2, 1, 1, 1])
            kind = cols[0].selectbox(t("officials_chosen", language), RULINGS,
                                     index=RULINGS.index(p["kind"]),
                                     placeholder=t("choose", language),
                                     format_func=lambda k: _said(k, language),
                                     key=f"kind-{p['ruling_id']}")
            amount = cols[1].number_input(t("officials_levels", language), 0, 13,
                                          int(p["amount"]), key=f"amount-{p['ruling_id']}")
            for col, confirm, key in ((cols[2], True, "officials_confirm"),
                                      (cols[3], False, "officials_reject")):
                if col.button(t(key, language), key=f"{key}-{p['ruling_id']}"):
                    _decide(event_id, official, p["ruling_id"], confirm, kind, amount,
                            language)
    if round_no and teams:
        with st.expander(t("officials_leave", language, n=round_no)):
            team = st.selectbox(t("team_no", language), teams, key="leave-team",
                                placeholder=t("choose", language))
            minutes = st.number_input(t("officials_grace", language), 1, 120,
                                      int(event.ruleset.officials["leave_minutes"]),
                                      key="leave-minutes")
            if st.button(t("officials_grant", language), key="leave-grant"):
                try:
                    leave.grant_leave(database(), event_id, official, round_no, team, minutes)
                except PaisaiError as exc:
                    st.error(one_language(str(exc), language))
                else:
                    done(f"{team}: {t('officials_grant', language)} ✓")
    if appeals:
        st.subheader(t("officials_appeals", language))
        now = common.now()
        for a in appeals:
            left = max(0, int((a["answer_by"] - now).total_seconds()) // 60)
            st.write(f"#{a['appeal_id']} · {a['team_no']} → #{a['ruling_id']} "
                     f"{_said(a['kind'], language)} · {a['uphold']}–{a['dismiss']} · "
                     f"{t('officials_left', language, m=left)}")


def _decide(event_id: str, official, ruling_id: int, confirm: bool, kind: str, amount: int,
            language: str) -> None:
    from pipeline.officials import rulings

    try:
        status = rulings.decide(database(), event_id, official, ruling_id, confirm, kind,
                                amount)
    except PaisaiError as exc:
        st.error(one_language(str(exc), language))
        return
    done(f"#{ruling_id}{colon(language)}{t('ruling_' + status, language)} ✓")


def _said(kind: str, language: str) -> str:
    """A ruling's kind in the console's language (the ladder's words are in both)."""
    return one_language(RULING_WORDS[kind], language)
