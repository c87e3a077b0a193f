"""The officials' door on their phones (/o, issue 43): plain HTML, no JavaScript, 360 px.
Each signs in with their own name and password (the console's session, an HttpOnly
SameSite=Strict cookie) and sees their part: a referee their tables (the ladder's counts, a
record, a proposal), the chief arbiter the proposals to rule on and leave to grant, the
committee the open appeals with their countdown and votes, the desk the appeals it files.
Every form answers with a redirect (a reload never sends it again); a referee acting on a
table not theirs is refused. The team leader's appeal link is /a
(`dashboard.hall.appeals`)."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from dashboard.hall.limits import LIMITS, form_body
from dashboard.hall.respond import HEADERS, database, page_lang
from pipeline.base import db, events
from pipeline.base.errors import BusyError, PaisaiError
from pipeline.officials.ladder import KINDS, RULING_WORDS, RULINGS
from pipeline.officials.ladder import WORDS as KIND_WORDS
from pipeline.publishing.templating import render

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
           "withdrawn_mark": "已撤回"},
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
           "withdrawn_mark": "withdrawn"},
}
PER_OFFICIAL = 60  # actions a minute from one official


def one_language(words: str, lang: str) -> str:
    """A bilingual label in the page's language.

    >>> one_language("判负 round lost", "zh"), one_language("判负 round lost", "en")
    ('判负', 'round lost')
    """
    zh, _, en = words.partition(" ")
    return en if lang == "en" and en else zh


def ruling_word(kind: str, lang: str) -> str:
    return one_language(RULING_WORDS.get(kind, kind), lang)
PER_ADDRESS_LOGINS = 20  # sign-ins a minute from one address (a hall's officials may share one)
PER_NAME_LOGINS = 10  # sign-ins a minute with one name, from anywhere


def _signed_in(request: Request):
    from dashboard.auth import COOKIE
    from pipeline.operations import accounts

    return accounts.session_official(database(), request.cookies.get(COOKIE, ""))


def page(request: Request, status: int = 200, **parts) -> Response:
    language = page_lang(request)
    w = WORDS[language]
    defaults = {"message": "", "login": False, "me": "", "event": "", "event_name": "",
                "screen": False, "tables": None, "table": None, "queue": None, "appeals": None,
                "desk": None, "round": 0, "kinds": [], "ruling_kinds": [], "all_teams": [],
                "leave_minutes": 15}
    page = render("site/officials.html", title=parts.pop("title", w["title"]), up="", w=w,
                  lang_q="?lang=en" if language == "en" else "",
                  lang="en" if language == "en" else "zh-CN",
                  nav={"ranking": "/o", "pairings": "/o", "teams": "/o", "style": "/m/style.css"},
                  words={"ranking": "", "pairings": "", "teams": ""}, refresh=None,
                  **(defaults | parts))
    return HTMLResponse(page, status_code=status, headers={**HEADERS, "Cache-Control": "no-store"})


def _event_of(con, request: Request) -> str | None:
    wanted = request.query_params.get("event", "")[:64]
    if wanted and events.valid_id(wanted):
        return wanted if db.scalar(con, "select count(*) from events where event_id = ?",
                                   [wanted]) else None
    return events.most_recent(con)


def _names(con, event_id: str) -> dict[str, str]:
    """Each team's number → "number name" (a number alone when the team has no name)."""
    return {no: f"{no} {name}" if name else no for no, name in db.rows(
        con, "select team_no, coalesce(team_name, '') from teams where event_id = ?",
        [event_id])}


def _reports(con, event_id: str, round_no: int) -> dict[int, list[dict]]:
    """Each table's both-sides reports still waiting (a disagreement: two that differ)."""
    from pipeline.base.levels import format_level

    out: dict[int, list[dict]] = {}
    for report_id, table, side, ew, ns in db.rows(
            con, "select report_id, table_no, side, ew_level, ns_level from pending_reports "
                 "where event_id = ? and round = ? and status = 'pending' order by table_no, "
                 "side, report_id", [event_id, round_no]):
        out.setdefault(table, []).append({"id": report_id, "side": side or "",
                                          "said": f"{format_level(ew)} – {format_level(ns)}"})
    return out


def _home(request: Request, official, w: dict) -> dict:
    """What the official's own page shows, by role."""
    from pipeline.day import tablestore
    from pipeline.officials import appeals, common, rulings
    from pipeline.pairing.swiss import natural_key
    from pipeline.ranking import rounds

    lang = page_lang(request)
    with db.reading(database()) as con:
        event_id = _event_of(con, request)
        if event_id is None:
            return {"me": official.label}
        event = events.load(con, event_id)
        round_no = rounds.latest_paired_round(con, event_id) or 0
        english = {"lang": "en"} if lang == "en" else {}
        names = _names(con, event_id)
        out = {"me": official.label, "event": event_id, "event_name": event.name,
               "round": round_no, "screen": official.role == "screen",
               "ruling_kinds": [(k, ruling_word(k, lang)) for k in RULINGS],
               "leave_minutes": event.ruleset.officials["leave_minutes"]}
        out["all_teams"] = [(t, names[t]) for t in sorted(names, key=natural_key)]
        if official.role in ("referee", "chief", "organizer") and round_no:
            pairs = db.rows(con, "select table_no, ew_team, ns_team from pairings where "
                                 "event_id = ? and round = ? and table_no is not null order by "
                                 "table_no", [event_id, round_no])
            stored = {r[0] for r in db.rows(con, "select table_no from results where "
                                                 "event_id = ? and round = ?",
                                            [event_id, round_no])}
            playing = {r["table"]: r for r in tablestore.tables_in_play(con, event, round_no)}
            late = {r[0] for r in db.rows(con, "select table_no from official_records where "
                                               "event_id = ? and round = ? and kind = 'late' "
                                               "and withdrawn_at is null",
                                          [event_id, round_no])}
            waiting = _reports(con, event_id, round_no)

            def state(t: int) -> str:
                if t in stored:
                    return w["reported"]
                if playing.get(t, {}).get("disputed"):
                    return w["disputed"]
                if len({r["said"] for r in waiting.get(t, [])}) > 1:
                    return w["disagree"]
                if t in waiting:
                    return w["to_check"]
                return w["in_play"] if t in playing else w["waiting"]

            out["tables"] = [
                {"table": t, "teams": f"{names.get(ew, ew)} – {names.get(ns, ns or '')}",
                 "url": "/o/table?" + urlencode({"event": event_id, "round": round_no,
                                                 "table": t} | english),
                 "state": " · ".join([state(t)] + ([w["late"]] if t in late else []))}
                for t, ew, ns in pairs if official.works_at(t)]
        if official.role in ("chief", "organizer"):
            out["queue"] = [{**p, "said": ruling_word(p["kind"], lang),
                             "team": names.get(p["team_no"], p["team_no"])}
                            for p in rulings.queue(con, event_id)]
        if official.role in ("committee", "organizer", "chief"):
            now = common.now()
            voted = {r[0] for r in db.rows(con, "select appeal_id from official_votes where "
                                                "official_id = ?", [official.official_id])}
            out["appeals"] = [
                {**a, "said": ruling_word(a["kind"], lang),
                 "team": names.get(a["team_no"], a["team_no"]),
                 "ruled": names.get(a["ruled_team"], a["ruled_team"]),
                 "left": w["left"].format(m=max(0, -(-int((a["answer_by"] - now)
                                                          .total_seconds()) // 60)))
                 if a["answer_by"] > now else w["overdue"],
                 "can_vote": official.role == "committee" and a["appeal_id"] not in voted}
                for a in appeals.open_appeals(con, event)]
        if official.role in ("desk", "organizer"):
            out["desk"] = [{**r, "said": ruling_word(r["kind"], lang),
                            "team": names.get(r["team_no"], r["team_no"])}
                           for r in appeals.confirmed_for_appeal(con, event_id)]
    return out


def _table(request: Request, official, w: dict) -> dict:
    from pipeline.day import tablestore
    from pipeline.officials import records

    lang = page_lang(request)
    params = request.query_params
    event_id = params.get("event", "")[:64]
    round_no, table_no = _whole(params.get("round", "0")), _whole(params.get("table", "0"))
    if not official.works_at(table_no):
        raise PermissionError(w["not_yours"])
    with db.reading(database()) as con:
        event = events.load(con, event_id)
        names = _names(con, event_id)
        counts = records.table_counts(con, event, round_no, table_no)
        disputed = [_deal_shown(con, event_id, round_no, table_no, d, w)
                    for r, t, d in tablestore.disputed(con, event_id)
                    if (r, t) == (round_no, table_no)]
        kept = records.listing(con, event_id, round_no, table_no)
        reports = _reports(con, event_id, round_no).get(table_no, [])
    for c in counts:
        c["name"] = names.get(c["team"], c["team"])
    for r in kept:
        r["said"] = one_language(KIND_WORDS.get(r["kind"], r["kind"]), lang)
        r["name"] = names.get(r["team_no"], r["team_no"])
        r["mine"] = r["official_id"] == official.official_id or official.role in (
            "chief", "organizer")
    sides = {"ew": w["ew"], "ns": w["ns"], "": w["table"]}
    for r in reports:
        r["side_said"] = w["side_said"].format(side=sides.get(r["side"], r["side"]),
                                               said=r["said"])
    return {"me": official.label, "event": event_id, "event_name": event.name,
            "round": round_no, "table": {"no": table_no, "counts": counts,
                                         "teams": [(c["team"], c["name"]) for c in counts],
                                         "disputed": disputed, "records": kept,
                                         "reports": reports,
                                         "disagree": len({r["said"] for r in reports}) > 1},
            "kinds": [(k, one_language(KIND_WORDS[k], lang)) for k in (*KINDS, "late")],
            "ruling_kinds": [(k, ruling_word(k, lang)) for k in RULINGS]}


def _whole(text: str) -> int:
    """A whole number from a link or a form (ValueError with the right words otherwise)."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 6:
        raise ValueError(f"不是有效的整数 not a whole number: {text[:20]}")
    return int(text)


def _deal_shown(con, event_id: str, round_no: int, table_no: int, deal: int, w: dict) -> dict:
    """A disputed deal as recorded: who won it, the partner's place, who entered and who
    disputed it."""
    found = db.rows(con, "select winner_side, partner_finish, entered_side, answered_side "
                         "from table_sheet_deals where event_id = ? and round = ? and "
                         "table_no = ? and deal = ?", [event_id, round_no, table_no, deal])
    if not found:
        return {"deal": deal, "said": ""}
    winner, finish, entered, answered = found[0]
    sides = {"ew": w["ew"], "ns": w["ns"]}
    places = {2: w["second"], 3: w["third"], 4: w["last"]}
    return {"deal": deal, "said": w["deal_recorded"].format(
        winner=sides.get(winner, winner), place=places.get(finish, finish),
        entered=sides.get(entered, entered), answered=sides.get(answered, answered or ""))}


async def officials_route(request: Request) -> Response:
    """GET /o: sign in, or the official's own page; GET /o/table: one of their tables."""
    w = WORDS[page_lang(request)]
    try:
        official = await run_in_threadpool(_signed_in, request)
        if official is None:
            return page(request, login=True, message=request.query_params.get("said", "")[:200])
        make = _table if request.url.path == "/o/table" else _home
        parts = await run_in_threadpool(make, request, official, w)
    except BusyError:
        return page(request, 503, message=w["busy"])
    except PermissionError as exc:
        return page(request, 403, message=str(exc), me=official.label)
    except (PaisaiError, ValueError) as exc:
        return page(request, 400, message=str(exc))
    return page(request, message=request.query_params.get("said", "")[:200], **parts)


def _back(path: str, said: str, lang: str = "zh", **params) -> Response:
    """A redirect to `path` saying `said`, in the page's language (a reload never sends the
    form again)."""
    shown = {k: v for k, v in params.items() if v not in (None, "")} | {"said": said}
    query = urlencode(shown | ({"lang": "en"} if lang == "en" else {}))
    return RedirectResponse(f"{path}?{query}", status_code=303,
                            headers={**HEADERS, "Cache-Control": "no-store"})


async def read_form(request: Request) -> dict | None:
    body = await form_body(request)
    if body is None:
        return None
    return {k: v[0][:200] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}


def _host_port(scheme: str, netloc: str) -> tuple[str, int] | None:
    """A host and its port as a browser means it (the scheme's port when none is written)."""
    from urllib.parse import urlsplit

    try:
        found = urlsplit(f"{scheme}://{netloc}")
        return (found.hostname or "").lower(), found.port or (443 if scheme == "https" else 80)
    except ValueError:
        return None


def same_origin(request: Request) -> bool:
    """A form from this site (the cookie is SameSite=Strict too): the browser's
    Sec-Fetch-Site says so, or its Origin names the host AND port this request was sent to
    — the Host header, or behind the shipped nginx the X-Forwarded-Host it passes (with the
    port the browser used: `$http_host`); with no-referrer pages a browser may send "null"."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("origin")
    if origin in (None, "null"):
        return True
    scheme, _, netloc = origin.partition("://")
    if scheme not in ("http", "https") or not netloc:
        return False
    sent = _host_port(scheme, netloc)
    received = {_host_port(request.url.scheme, h.strip()) for h in (
        request.headers.get("x-forwarded-host", "").split(",")[0],
        request.headers.get("host", "")) if h.strip()}
    return sent is not None and sent in received


async def login_route(request: Request) -> Response:
    """POST /o/login: an official's sign-in (the empty name: the first organizer). Every
    name locks alike after five failures (`people.sign_in`), and guesses are slowed per
    address and per name typed, each address the client's own behind the shipped proxy
    (X-Forwarded-For believed from --forwarded-allow-ips only)."""
    from dashboard.auth import COOKIE, session_hours
    from pipeline.officials import people
    from pipeline.operations import accounts

    w = WORDS[page_lang(request)]
    form = await read_form(request)
    if form is None or not same_origin(request):
        return _back("/o", w["bad_login"], page_lang(request))
    address = request.client.host if request.client else ""
    name, password = " ".join(form.get("name", "").split()), form.get("password", "")
    import time
    now = time.monotonic()
    if not (LIMITS.allow(f"login:{address}", PER_ADDRESS_LOGINS, now)
            and LIMITS.allow(f"login-name:{name}", PER_NAME_LOGINS, now)):
        return _back("/o", w["too_many"], page_lang(request))

    try:
        official = await run_in_threadpool(people.sign_in, database(), name, password)
    except people.LockedOut as exc:
        await asyncio.sleep(1.0)
        return _back("/o", str(exc), page_lang(request))
    except BusyError:
        return _back("/o", w["busy"], page_lang(request))
    if official is None:
        await asyncio.sleep(1.0)  # a failure is slow: guessing is
        return _back("/o", w["bad_login"], page_lang(request))
    token = await run_in_threadpool(accounts.open_official_session, database(), official,
                                    session_hours())
    secure = "; Secure" if request.url.scheme == "https" else ""
    response = _back("/o", "", page_lang(request))
    response.headers["Set-Cookie"] = (f"{COOKIE}={token}; Path=/; Max-Age="
                                      f"{int(session_hours() * 3600)}; HttpOnly; "
                                      f"SameSite=Strict{secure}")
    return response


async def logout_route(request: Request) -> Response:
    from dashboard.auth import COOKIE
    from pipeline.operations import accounts

    await run_in_threadpool(accounts.end_session, database(), request.cookies.get(COOKIE, ""))
    response = _back("/o", "", page_lang(request))
    response.headers["Set-Cookie"] = f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
    return response


def number(form: dict, name: str) -> int:
    """A whole number from a form (0 when empty); ValueError with the right words when it
    is not one (an official's form never passes `1e309`, `-5` or `１２` on)."""
    value = form.get(name, "").strip()
    return _whole(value) if value else 0


def minutes_late(text: str) -> float | None:
    """Minutes late from the form: a finite number within the day (None when empty).

    >>> minutes_late("16"), minutes_late("2.5"), minutes_late("")
    (16.0, 2.5, None)
    """
    import re

    from pipeline.officials.records import MAX_LATE_MINUTES

    text = text.strip()
    if not text:
        return None
    if not re.fullmatch(r"[0-9]{1,4}(\.[0-9]{1,2})?", text) or float(text) > MAX_LATE_MINUTES:
        raise ValueError(f"迟到分钟数应为 0–{MAX_LATE_MINUTES} 之间的数字 minutes late: a "
                         f"number from 0 to {MAX_LATE_MINUTES}")
    return float(text)


def _act(official, form: dict, w: dict) -> tuple[str, str, dict]:
    """The form's action as the official; returns the page to go back to and what to say."""
    from pipeline.base.db import acting
    from pipeline.officials import appeals, leave, records, rulings, votes

    action, event_id = form.get("action", ""), form.get("event", "")[:64]
    round_no, table = number(form, "round"), form.get("table", "")
    back = ("/o/table", {"event": event_id, "round": round_no, "table": table}) if table \
        else ("/o", {"event": event_id})
    with acting(official.label):
        if action == "record":
            done = records.record(database(), event_id, official, round_no, form.get("team", ""),
                                  form.get("kind", ""), minutes_late(form.get("minutes", "")),
                                  form.get("note", ""))
            said = w["done"] + (f" · {done.late}" if done.late else "") + \
                (f" · #{done.proposed} → {w['queue']}" if done.proposed else "")
        elif action == "propose":
            ruling = rulings.propose(database(), event_id, official, round_no,
                                     form.get("team", ""), form.get("kind", ""),
                                     number(form, "amount"), form.get("reason", ""))
            said = f"#{ruling} → {w['queue']}"
        elif action == "decide":
            status = rulings.decide(database(), event_id, official, number(form, "ruling"),
                                    form.get("decision") == "confirm", form.get("kind") or None,
                                    number(form, "amount"), form.get("note", ""))
            said = f"#{number(form, 'ruling')} · {w['status_' + status]}"
        elif action == "leave":
            grace = leave.grant_leave(database(), event_id, official, round_no,
                                        form.get("team", ""), number(form, "minutes") or None)
            said = f"{form.get('team', '')}: {w['on_leave'].format(m=grace)}"
        elif action == "deal":  # a disputed deal of one of the referee's tables (issue 42)
            from pipeline.day import tablestore

            if not official.works_at(int(table or 0)) or official.role not in (
                    "referee", "chief", "organizer"):
                raise PermissionError(w["not_yours"])
            deal, keep = number(form, "deal"), form.get("keep") == "1"
            tablestore.decide(database(), event_id, round_no, int(table), deal, keep,
                              by=official.label)
            said = w["deal_kept" if keep else "deal_off"].format(n=deal)
        elif action == "withdraw":  # a record of one's own, entered by mistake
            records.withdraw(database(), event_id, official, number(form, "record"))
            said = w["withdrawn"]
        elif action == "report":  # a both-sides report chosen where the sides disagree
            from pipeline.day import selfreport

            if not official.works_at(_whole(table or "0")) or official.role not in (
                    "referee", "chief", "organizer"):
                raise PermissionError(w["not_yours"])
            report_id = number(form, "report")
            with db.reading(database()) as con:
                found = db.scalar(con, "select count(*) from pending_reports where "
                                       "event_id = ? and round = ? and table_no = ? and "
                                       "report_id = ? and status = 'pending'",
                                  [event_id, round_no, _whole(table), report_id])
            if not found:
                raise ValueError("这条桌报已处理 this report was dealt with already")
            selfreport.decide(database(), event_id, report_id, True)
            said = w["report_kept"]
        elif action == "vote":
            status = votes.vote(database(), event_id, official, number(form, "appeal"),
                                  form.get("vote") == "uphold")
            said = f"#{number(form, 'appeal')} · {w['status_' + status]}"
        elif action == "appeal":
            if official.role not in ("desk", "organizer"):
                raise PermissionError(w["not_yours"])
            found = appeals.appeal(database(), event_id, number(form, "ruling"),
                                   form.get("team", ""), "desk", official, form.get("fee", ""),
                                   form.get("statement", ""))
            said = f"#{found}: {w['filed']}"
        else:
            raise ValueError(action)
    return back[0], said, back[1]


async def act_route(request: Request) -> Response:
    import time

    w = WORDS[page_lang(request)]
    official = await run_in_threadpool(_signed_in, request)
    if official is None:
        return _back("/o", w["bad_login"], page_lang(request))
    form = await read_form(request)
    if form is None or not same_origin(request):
        return page(request, 400, message=w["too_many"])
    if not LIMITS.allow(f"official:{official.official_id}", PER_OFFICIAL, time.monotonic()):
        return _back("/o", w["too_many"], page_lang(request), event=form.get("event", ""))
    try:
        path, said, params = await run_in_threadpool(_act, official, form, w)
    except BusyError:
        return _back("/o", w["busy"], page_lang(request), event=form.get("event", ""))
    except PermissionError as exc:
        return page(request, 403, message=str(exc), me=official.label)
    except (PaisaiError, ValueError) as exc:
        table = form.get("table", "")
        return _back("/o/table" if table else "/o", str(exc), page_lang(request),
                     event=form.get("event", ""),
                     round=form.get("round", ""), table=table)
    return _back(path, said, page_lang(request), **params)
