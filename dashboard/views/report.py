"""/report: a table enters its two levels from a signed link; the entry waits as pending."""

import streamlit as st

from dashboard.common import database, lang
from dashboard.i18n import t
from pipeline import db, selfreport
from pipeline.errors import PaisaiError
from pipeline.levels import format_level

language = lang()
params = st.query_params
try:
    event_id = params.get("event", "")
    round_no, table_no = int(params.get("round", "0")), int(params.get("table", "0"))
    side = params.get("side") or None  # a side's own link, or the table's
    with db.reading(database()) as con:
        ew, ns = selfreport.check_link(con, event_id, round_no, table_no, params.get("sig", ""),
                                       side)
except (PaisaiError, ValueError) as exc:
    st.error(str(exc) if isinstance(exc, PaisaiError) else "链接无效 this link is not valid")
    st.stop()

st.title(t("report_title", language, r=round_no, n=table_no))
levels = [format_level(v) for v in range(2, 16)]
with st.form("report"):
    ew_level = st.selectbox(f"{t('ew', language)} {ew}", levels, index=None,
                            placeholder=t("choose", language))
    ns_level = st.selectbox(f"{t('ns', language)} {ns}", levels, index=None,
                            placeholder=t("choose", language))
    if st.form_submit_button(t("save", language)):
        try:
            outcome = selfreport.submit(database(), event_id, round_no, table_no,
                                        params.get("sig", ""), ew_level or "", ns_level or "",
                                        side)
            if side is None:
                st.success(t("report_sent", language))
            else:
                st.success(t({"stored": "report_stored", "waiting": "report_waiting_other",
                              "disagree": "report_disagree"}[outcome], language))
        except PaisaiError as exc:
            st.error(str(exc))
