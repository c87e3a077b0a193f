"""The table's own score sheet on a side's phone (/t, issue 42): plain HTML, 360 px, with one
small script of ours that reads the page again when the table changes (`sheetdoor`). The recorder's side (the preset's `deals.recorder`; seed 001: South's pair) enters
each deal — who took 上游 and where the partner finished — and sees both levels after it;
the other side sees the same sheet and confirms or disputes each deal; both confirm the
table's result, which is then stored as a deal sheet. A side acts once its printed code is
given (then kept in an HttpOnly cookie of that link: every form is answered with a redirect
to the page read by GET); the link alone only shows the sheet."""

from __future__ import annotations

import time
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from dashboard.hall.respond import HALL_WAIT, database, page_lang
from dashboard.hall.sheetdoor import (
    FOLLOW_SECONDS,
    SHEET_HEADERS,
    SheetDoor,
    handle_sheet,
    here,
    mark_of,
    mark_route,
    number,
)
from pipeline.base import db, events
from pipeline.base.errors import PaisaiError
from pipeline.base.levels import format_level
from pipeline.day.tablesheet import deal_stamp, stamp
from pipeline.publishing.templating import render

WORDS = {
    "zh": {"title": "第 {r} 轮 {n} 号桌 · 逐副记分", "ew": "东西", "ns": "南北",
           "deals_played": "已记 {n} 副", "deal": "副", "winner_short": "上游",
           "state": "状态", "winner": "上游（头游）方", "partner": "搭档名次",
           "second": "二游", "third": "三游", "last": "下游", "choose": "请选择",
           "deal_no": "第 {n} 副", "played_at": "打", "record": "记录第 {n} 副",
           "entered": "待对方确认", "confirmed": "已确认", "disputed_state": "有异议",
           "final": "已生效", "confirm": "确认", "dispute": "有异议",
           "disputed": "第 {n} 副有异议：已通知裁判，裁定前不能继续记分",
           "result": "本桌结果", "confirm_result": "确认本桌结果",
           "sides_confirmed": "已确认：{sides}", "nobody": "双方尚未确认",
           "code": "本方验证码（纸条上二维码旁的 4 位数字）", "unlock": "开始记分/确认",
           "final_only": "只报最终级数", "bad_link": "链接无效或已过期",
           "too_many": "提交太频繁，请稍后再试", "too_long": "提交的内容太长",
           "too_many_codes": "验证码错误太多次，请 10 分钟后再试或找裁判",
           "busy": "系统正忙，没有记录，请几秒后再提交一次", "ok": "已记录",
           "stored": "双方已确认，本桌成绩已保存", "waiting": "已确认，等待对方确认本桌结果",
           "decided": "本桌成绩已保存：{r}", "unlocked": "验证码正确",
           "left": "本轮剩余 {m} 分钟", "time_up": "本轮时间到：正在打的一副打完为最后一副",
           "stopped": "本轮已结束", "changed": "对方已作答或裁判已裁定：本副提交后记分表随即更新",
           "number": "副号", "finish_field": "搭档名次", "lang": "zh"},
    "en": {"title": "Round {r}, table {n}: deal by deal", "ew": "East-West",
           "ns": "North-South", "deals_played": "{n} deals recorded", "deal": "Deal",
           "winner_short": "First out", "state": "State", "winner": "The side first out (上游)",
           "partner": "Its partner finished", "second": "second", "third": "third",
           "last": "last", "choose": "Choose", "deal_no": "Deal {n}", "played_at": "played at",
           "record": "Record deal {n}", "entered": "waiting for the other side",
           "confirmed": "confirmed", "disputed_state": "disputed", "final": "final",
           "confirm": "Confirm", "dispute": "Dispute",
           "disputed": "Deal {n} is disputed: the referee is called; the sheet waits for the "
                       "ruling", "result": "The table's result",
           "confirm_result": "Confirm the table's result", "sides_confirmed": "Confirmed by: "
           "{sides}", "nobody": "Neither side has confirmed yet",
           "code": "Your side's code (the 4 digits beside the QR code on your slip)",
           "unlock": "Start", "final_only": "Report the final levels only",
           "bad_link": "This link is not valid or has expired",
           "too_many": "Too many entries: wait a minute", "too_long": "Too long",
           "too_many_codes": "Too many wrong codes: try again in 10 minutes or ask the referee",
           "busy": "Busy for a moment: nothing was recorded; send again in a few seconds",
           "ok": "Recorded", "stored": "Both sides confirmed: the table's result is stored",
           "waiting": "Confirmed: waiting for the other side", "decided":
           "The table's result is stored: {r}", "unlocked": "Code accepted: go ahead",
           "left": "{m} minutes left in the round",
           "time_up": "Time is up: the deal in play is the last", "stopped": "The round is over",
           "changed": "The other side answered (or the referee ruled): the sheet shows it once "
                      "this deal is sent", "number": "Deal number",
           "finish_field": "Its partner finished", "lang": "en"},
}


def _view(event_id: str, round_no: int, table_no: int, signature: str, side: str) -> dict:
    """What the page shows, read in one go (raises for a link that is not genuine)."""
    with db.reading(database(), HALL_WAIT) as con:
        return _view_on(con, event_id, round_no, table_no, signature, side)


def _view_on(con, event_id: str, round_no: int, table_no: int, signature: str,
             side: str) -> dict:
    from pipeline.day import clockstore, selfreport, tablestore

    ew, ns = selfreport.check_link(con, event_id, round_no, table_no, signature, side)
    event = events.load(con, event_id)
    if event.ruleset.discipline != "guandan":  # a Tractor match's sheet is /k
        raise PaisaiError("not a Guandan table")
    clock = clockstore.load(con, event, round_no)  # read once: the last deal and the page
    sheet = tablestore.sheet(con, event, round_no, table_no, clock=clock)
    decided = selfreport.stored_result(con, event_id, round_no, table_no)
    confirmed = [r[0] for r in db.rows(
        con, "select side from table_sheet_results where event_id = ? and round = ? and "
             "table_no = ? order by side", [event_id, round_no, table_no])]
    return {"ew": ew, "ns": ns, "sheet": sheet, "recorder": event.ruleset.deals["recorder"],
            "takeoffs": tablestore.takeoffs(con, event_id, round_no, table_no),
            "decided": selfreport.describe_stored(decided) if decided else None,
            "confirmed": confirmed, "clock": clock.status(time.time())}


def mark(view: dict) -> str:
    """What the page shows of the table, in a few characters: it changes when a deal is
    entered, answered, turns final, is decided or taken off, a side confirms the result,
    the result is stored or the clock's time is up — not as the minutes pass."""
    sheet = view["sheet"]
    return mark_of([(line.number, line.status, line.final, line.entered_at)
                    for line in sheet.lines], sheet.over, sheet.disputed, sheet.result,
                   view["confirmed"], view["decided"], view["takeoffs"], view["clock"].state)


def _page(request: Request, view: dict, code: str, message: str = "",
          status: int = 200, typed: dict | None = None) -> Response:
    language = page_lang(request)
    w = WORDS[language]
    params = request.query_params
    round_no, table_no, side = int(params["round"]), int(params["table"]), params["side"]
    sheet = view["sheet"]
    states = {"entered": w["entered"], "confirmed": w["confirmed"],
              "disputed": w["disputed_state"]}
    open_ = view["decided"] is None
    acting = open_ and bool(code)
    recorder = side == view["recorder"]
    lines = [{"number": line.number, "winner": w[line.winner],
              "ew": format_level(line.ew_level), "ns": format_level(line.ns_level),
              "state": states[line.status] if line.status != "entered" or not line.final
              else w["final"],
              "answer": acting and not recorder and line.status == "entered",
              "seen": deal_stamp(line.number, line.entered_at)}
             for line in sheet.lines]
    levels = sheet.state.levels
    enter = None
    if acting and recorder and not sheet.over and sheet.disputed is None:
        at = sheet.state.played_at
        enter = {"number": len(sheet.lines) + 1, "seen": stamp(sheet.lines, view["takeoffs"]),
                 "played_at": format_level(levels[at]) if at else format_level(2)}
    result = None
    if open_ and sheet.result is not None:
        sides = [w[s] for s in view["confirmed"]]
        result = {"ew": format_level(sheet.result.ew_level),
                  "ns": format_level(sheet.result.ns_level),
                  "sides": w["sides_confirmed"].format(sides="、".join(sides)) if sides
                  else w["nobody"], "mine": side in view["confirmed"] or not code}
    report = {k: v for k, v in params.items() if k in ("event", "round", "table", "side", "sig",
                                                        "lang")}
    page = render("site/tablesheet.html", title=w["title"].format(r=round_no, n=table_no),
                  up="", w=w, lang="en" if language == "en" else "zh-CN",
                  nav={"ranking": f"/m/{params.get('event', '')}/", "pairings":
                       f"/m/{params.get('event', '')}/pairings", "teams": "#",
                       "style": "/m/style.css"},
                  words={"ranking": "", "pairings": "", "teams": ""},
                  fallback=None if enter else 15,  # without the script: a form never wiped
                  follow={"mark": mark(view), "every": FOLLOW_SECONDS, "here": here(request),
                          "url": "/t/mark?" + urlencode(report)}, typed=typed or {},
                  ew_team=view["ew"], ns_team=view["ns"] or "",
                  ew_level=format_level(levels["ew"]), ns_level=format_level(levels["ns"]),
                  played=len(sheet.lines), lines=lines, code=code if acting else "",
                  message=message, unlock=open_ and not code, clock=_clock_words(view["clock"], w),
                  decided=w["decided"].format(r=view["decided"]) if view["decided"] else "",
                  disputed=sheet.disputed if open_ else None, over=sheet.over or "",
                  result=result, enter=enter, report_url="/r?" + urlencode(report))
    return HTMLResponse(page, status_code=status, headers=SHEET_HEADERS)


def _clock_words(clock, w: dict) -> str:
    """The round's clock as the table needs it: minutes left, or time up (the sheet's last
    deal follows from it); nothing before the clock starts."""
    if clock.state in ("running", "reminder", "paused"):
        return w["left"].format(m=-(-clock.remaining_seconds // 60))
    return w.get(clock.state, "") if clock.state in ("time_up", "stopped") else ""


def _where(request: Request) -> tuple:
    """The link's parts from the query (ValueError for a malformed one)."""
    params = request.query_params
    round_no, table_no = int(params.get("round", "0")), int(params.get("table", "0"))
    side = params.get("side", "")
    if side not in ("ew", "ns"):
        raise ValueError(side)
    return params.get("event", "")[:64], round_no, table_no, params.get("sig", "")[:200], side


def _door(request: Request) -> SheetDoor:
    from pipeline.day import selfreport

    return SheetDoor(lambda: _where(request), selfreport.check_link, _view, _view_on,
                     selfreport.check_code, _act, _page, mark, "t")


async def table_sheet_route(request: Request) -> Response:
    """GET: the sheet of a side's signed link; POST: unlock with the side's code, enter a
    deal, confirm or dispute one, confirm the table's result — the action in one
    transaction, answered with a redirect to the sheet (see `sheetdoor`)."""
    return await handle_sheet(request, _door(request), WORDS)


async def table_mark_route(request: Request) -> Response:
    """GET: the table's sheet's mark (the open page reads itself again when it changes)."""
    return await mark_route(request, _door(request))


def _act(form: dict, where: tuple, w: dict) -> tuple[str, dict]:
    """The form's action and the page's view after it, in one transaction."""
    from pipeline.day import tablestore

    side = where[-1]
    action, code = form.get("action", ""), form.get("code", "")
    with db.writing(database()) as con:
        message = w["ok"]
        if action == "enter":
            tablestore.enter(con, *where[:4], side, code,
                             number(form, "number", w["number"], 1, 999, lang=w["lang"]),
                             form.get("winner", ""),
                             number(form, "finish", w["finish_field"], 0, 9, default=0,
                                    lang=w["lang"]),
                             form.get("seen"))
        elif action in ("confirm", "dispute"):
            tablestore.answer(con, *where[:4], side, code,
                              number(form, "number", w["number"], 1, 999, lang=w["lang"]),
                              action == "confirm", form.get("seen"))
        elif action == "result":
            message = w[tablestore.confirm_result(con, *where[:4], side, code)]
        else:
            raise PaisaiError(f"不明的操作 unknown action: {action}")
        return message, _view_on(con, *where)
