"""The words of the officials' pages (/o, /a), Chinese and English: one language a page
(issue 51), a bilingual label of the ladder shown in the page's own (`one_language`)."""

from __future__ import annotations

from pipeline.officials.ladder import RULING_WORDS

WORDS = {
    "zh": {"title": "裁判", "name": "姓名（组织者可空）", "password": "密码", "sign_in": "登录",
           "sign_out": "退出", "bad_login": "姓名或密码不对", "projector": "打开大屏",
           "my_tables": "第 {n} 轮 · 我的桌", "table": "桌", "teams": "对阵", "state": "状态",
           "no_tables": "本轮没有你负责的桌", "table_title": "第 {r} 轮 {n} 号桌",
           "count": "警告 {w} · 违例 {v} · 犯规 {f}", "on_leave": "已请假 {m:g} 分钟",
           "out": "已达判负", "record": "记录", "team": "队", "kind": "事项",
           "minutes": "迟到分钟（迟到时填）", "note": "说明", "save_record": "记录",
           "propose": "提议裁定（由裁判长裁定）", "ruling": "裁定", "levels": "级数",
           "reason": "理由", "send_proposal": "提交裁判长", "back": "返回",
           "queue": "待裁定", "round_table": "第 {r} 轮 {t} 号桌", "proposed_by": "提议",
           "chosen": "裁定为", "confirm": "确认", "reject": "驳回", "no_queue": "没有待裁定的提议",
           "leave": "第 {r} 轮请假", "leave_minutes": "宽限分钟", "grant": "批准请假",
           "appeals": "待仲裁的申诉", "appeal_line": "申诉 #{n}（{team}）对裁定 #{ruling}",
           "fee": "申诉费（登记，不收取）", "votes": "支持 {u} · 反对 {d}",
           "left": "剩余 {m} 分钟答复", "overdue": "已超过答复时间", "uphold": "支持申诉",
           "dismiss": "驳回申诉", "no_appeals": "没有待仲裁的申诉", "file_appeal": "受理申诉",
           "statement": "申诉理由", "file": "提交申诉", "no_rulings": "没有可申诉的裁定",
           "choose": "请选择", "reported": "已报", "in_play": "逐副记分中", "disputed": "有异议",
           "waiting": "未报", "done": "已记录", "not_yours": "不是你负责的桌",
           "too_many": "操作太频繁，请稍后再试", "busy": "系统正忙，没有记录，请几秒后再试",
           "appeal_title": "{team} · 申诉", "code": "本队验证码（链接旁的 4 位数字）",
           "filed": "申诉已提交，等待仲裁委员会", "late": "迟到",
           "deal_disputed": "第 {n} 副有异议，请裁定", "deal_keep": "按记录保留",
           "deal_take_off": "删除此副（重新记录）", "deal_kept": "第 {n} 副按记录保留",
           "deal_off": "第 {n} 副已删除，由记录方重新记录",
           "deadline": "截止 {t}", "after_game": "赛后 {m:g} 分钟内",
           "my_appeals": "本队的申诉", "appeal_outcome": "申诉 #{n}（对裁定 #{ruling}）",
           "appeal_open": "待仲裁（支持 {u} · 反对 {d}）", "appeal_upheld": "申诉成立，裁定已撤销",
           "appeal_dismissed": "申诉驳回，裁定维持", "appeal_refused_late": "逾期，不予受理",
           "status_confirmed": "已确认", "status_rejected": "已驳回", "status_open": "待仲裁",
           "status_upheld": "申诉成立，裁定已撤销", "status_dismissed": "申诉驳回，裁定维持",
           "ruled_by": "裁定", "chief_note": "裁判长说明", "withdraw": "撤回此记录（误记）",
           "withdrawn": "记录已撤回", "records": "本桌记录", "recorded_deal": "记录为",
           "side_said": "{side}：{said}", "disagree": "双方所报不一致", "to_check": "桌报待审",
           "ew": "东西", "ns": "南北", "second": "二游", "third": "三游", "last": "下游",
           "deal_recorded": "记录为：{winner}上游，对家{place}（{entered}记录，{answered}有异议）",
           "reports": "双方桌报（东西级数 – 南北级数）", "accept_report": "按此保存",
           "report_kept": "已按所选桌报保存本桌成绩", "ruling_context": "第 {r} 轮 {t} 号桌 · {by}裁定",
           "withdrawn_mark": "已撤回",
           "too_many_codes": "验证码错误太多次，请 10 分钟后再试",
           "cross_site": "表单不是从本站页面提交的，没有记录", "too_long": "提交的内容太长，没有记录",
           "not_your_role": "你的职责不包括这项操作", "field_round": "轮次", "field_table": "桌号",
           "field_amount": "级数", "field_ruling": "裁定编号", "field_deal": "副号",
           "field_minutes": "宽限分钟", "field_record": "记录编号", "field_report": "桌报编号",
           "field_appeal": "申诉编号"},
    "en": {"title": "Officials", "name": "Name (empty: the organizer)", "password": "Password",
           "sign_in": "Sign in", "sign_out": "Sign out", "bad_login": "Wrong name or password",
           "projector": "Open the projector", "my_tables": "Round {n}: my tables",
           "table": "Table", "teams": "Teams", "state": "State",
           "no_tables": "None of your tables in this round",
           "table_title": "Round {r}, table {n}",
           "count": "Warnings {w} · violations {v} · fouls {f}", "on_leave": "on leave {m:g} min",
           "out": "round lost reached", "record": "Record", "team": "Team", "kind": "What",
           "minutes": "Minutes late (late arrivals)", "note": "Note", "save_record": "Record",
           "propose": "Propose a ruling (the chief decides)", "ruling": "Ruling",
           "levels": "Levels", "reason": "Reason", "send_proposal": "Send to the chief",
           "back": "Back", "queue": "Proposals to rule on",
           "round_table": "round {r}, table {t}", "proposed_by": "proposed by",
           "chosen": "Ruled as", "confirm": "Confirm", "reject": "Reject",
           "no_queue": "No proposal waiting", "leave": "Leave for round {r}",
           "leave_minutes": "Grace minutes", "grant": "Grant leave",
           "appeals": "Appeals to decide", "appeal_line": "Appeal #{n} ({team}) against ruling "
           "#{ruling}", "fee": "Fee (noted, not taken)", "votes": "Uphold {u} · dismiss {d}",
           "left": "{m} minutes left to answer", "overdue": "Past the answer time",
           "uphold": "Uphold", "dismiss": "Dismiss", "no_appeals": "No appeal waiting",
           "file_appeal": "File an appeal", "statement": "Statement", "file": "File",
           "no_rulings": "No ruling to appeal", "choose": "Choose", "reported": "reported",
           "in_play": "keeping its sheet", "disputed": "disputed", "waiting": "to report",
           "done": "Recorded", "not_yours": "Not one of your tables",
           "too_many": "Too many actions: wait a minute",
           "busy": "Busy for a moment: nothing was recorded; try again in a few seconds",
           "appeal_title": "{team}: appeals", "code": "Your team's code (4 digits beside the "
           "link)", "filed": "Appeal filed: the committee decides", "late": "late",
           "deal_disputed": "Deal {n} is disputed: rule on it", "deal_keep": "Keep as entered",
           "deal_take_off": "Take it off (entered again)", "deal_kept": "Deal {n} kept as "
           "entered", "deal_off": "Deal {n} taken off: the recorder enters it again",
           "deadline": "deadline {t}", "after_game": "within {m:g} minutes after the game",
           "my_appeals": "Your team's appeals", "appeal_outcome": "Appeal #{n} (against "
           "ruling #{ruling})", "appeal_open": "waiting for the committee (uphold {u} · "
           "dismiss {d})", "appeal_upheld": "upheld: the ruling is reversed",
           "appeal_dismissed": "rejected: the ruling stands",
           "appeal_refused_late": "refused: too late",
           "status_confirmed": "confirmed", "status_rejected": "rejected",
           "status_open": "waiting for the committee",
           "status_upheld": "upheld: the ruling is reversed",
           "status_dismissed": "rejected: the ruling stands", "ruled_by": "ruled by",
           "chief_note": "chief's note", "withdraw": "Withdraw this record (a mistake)",
           "withdrawn": "Record withdrawn", "records": "Records at this table",
           "recorded_deal": "recorded as", "side_said": "{side}: {said}",
           "disagree": "the sides disagree", "to_check": "report to check",
           "ew": "East–West", "ns": "North–South", "second": "second", "third": "third",
           "last": "last", "deal_recorded": "recorded: {winner} first out, partner "
           "{place} (entered by {entered}, disputed by {answered})",
           "reports": "Both sides' reports (East–West level – North–South level)",
           "accept_report": "Store this one", "report_kept": "The table's result stored "
           "from the chosen report", "ruling_context": "round {r}, table {t} · ruled by {by}",
           "withdrawn_mark": "withdrawn",
           "too_many_codes": "Too many wrong codes: try again in 10 minutes",
           "cross_site": "This form was not sent from this site: nothing was recorded",
           "too_long": "The form is too long: nothing was recorded",
           "not_your_role": "This is not part of your role", "field_round": "Round",
           "field_table": "Table", "field_amount": "Levels", "field_ruling": "Ruling number",
           "field_deal": "Deal number", "field_minutes": "Grace minutes",
           "field_record": "Record number", "field_report": "Report number",
           "field_appeal": "Appeal number"},
}


def one_language(words: str, lang: str) -> str:
    """A bilingual label in the page's language.

    >>> one_language("判负 round lost", "zh"), one_language("判负 round lost", "en")
    ('判负', 'round lost')
    """
    zh, _, en = words.partition(" ")
    return en if lang == "en" and en else zh


def ruling_word(kind: str, lang: str) -> str:
    return one_language(RULING_WORDS.get(kind, kind), lang)


def said_in(text: str, lang: str) -> str:
    """A message of paisai's (Chinese, then English after it) in the page's language: the
    English begins at the first lower-case English word after the Chinese.

    >>> said_in("3 号桌不是你负责的桌 table 3 is not one of yours", "zh")
    '3 号桌不是你负责的桌'
    >>> said_in("3 号桌不是你负责的桌 table 3 is not one of yours", "en")
    'table 3 is not one of yours'
    >>> said_in("第 1 轮编排中没有 A1 the team is not paired in that round", "zh")
    '第 1 轮编排中没有 A1'
    """
    import re

    found = re.search(r"[\u3000-\u9fff\uff00-\uffef][^a-z]*?\s(?=[a-z]{2,}|[a-z]'|a\s)",
                      text)
    if found is None:
        return text
    return text[:found.end()].rstrip() if lang != "en" else text[found.end():].strip()

