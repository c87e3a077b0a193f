"""The table's own score sheet on a side's phone (/t, issue 42): plain HTML, no JavaScript,
360 px. The recorder's side (the preset's `deals.recorder`; seed 001: South's pair) enters
each deal — who took 上游 and where the partner finished — and sees both levels after it;
the other side sees the same sheet and confirms or disputes each deal; both confirm the
table's result, which is then stored as a deal sheet. A side acts once its printed code is
given (kept in the page, never in a cookie); the link alone only shows the sheet."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from dashboard.hall.limits import (
    CODE_WINDOW,
    LIMITS,
    PER_LINK,
    WRONG_CODES,
    form_body,
    turned_away,
)
from dashboard.hall.respond import HALL_WAIT, HEADERS, database, page_lang
from pipeline.base import db, events
from pipeline.base.errors import BusyError, PaisaiError
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
           "stopped": "本轮已结束"},
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
           "time_up": "Time is up: the deal in play is the last", "stopped": "The round is over"},
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
            "decided": selfreport.describe_stored(decided) if decided else None,
            "confirmed": confirmed, "clock": clock.status(time.time())}


def _page(request: Request, view: dict, code: str, message: str = "",
          status: int = 200) -> Response:
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
        enter = {"number": len(sheet.lines) + 1, "seen": stamp(sheet.lines),
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
                  refresh=None if enter else 15,  # the recorder's form is never wiped
                  ew_team=view["ew"], ns_team=view["ns"] or "",
                  ew_level=format_level(levels["ew"]), ns_level=format_level(levels["ns"]),
                  played=len(sheet.lines), lines=lines, code=code if acting else "",
                  message=message, unlock=open_ and not code, clock=_clock_words(view["clock"], w),
                  decided=w["decided"].format(r=view["decided"]) if view["decided"] else "",
                  disputed=sheet.disputed if open_ else None, over=sheet.over or "",
                  result=result, enter=enter, report_url="/r?" + urlencode(report))
    return HTMLResponse(page, status_code=status,
                        headers={**HEADERS, "Cache-Control": "no-store"})


def _clock_words(clock, w: dict) -> str:
    """The round's clock as the table needs it: minutes left, or time up (the sheet's last
    deal follows from it); nothing before the clock starts."""
    if clock.state in ("running", "reminder", "paused"):
        return w["left"].format(m=-(-clock.remaining_seconds // 60))
    return w.get(clock.state, "") if clock.state in ("time_up", "stopped") else ""


def _simple(request: Request, text: str, status: int) -> Response:
    """A page that only says `text` (a refused link, a limit, a busy moment)."""
    from dashboard.hall.report import report_page

    return report_page(page_lang(request), text, status)


async def table_sheet_route(request: Request) -> Response:
    """GET: the sheet of a side's signed link; POST: unlock with the side's code, enter a
    deal, confirm or dispute one, confirm the table's result — the action and the page it
    answers with in one transaction (the deal is shown as stored)."""
    params = request.query_params

    def where() -> tuple:
        round_no, table_no = int(params.get("round", "0")), int(params.get("table", "0"))
        side = params.get("side", "")
        if side not in ("ew", "ns"):
            raise ValueError(side)
        return (params.get("event", "")[:64], round_no, table_no, params.get("sig", "")[:200],
                side)

    from pipeline.day import selfreport

    door = SheetDoor(where, _view, _view_on, selfreport.check_code, _act, _page, "t")
    return await handle_sheet(request, door, WORDS)


@dataclass(frozen=True)
class SheetDoor:
    """What a sheet's route needs: the link's parts from the query (`where`, raising
    ValueError for a malformed one), the view of a link, the form's action and the page."""

    where: Callable[[], tuple]
    view: Callable[..., dict]
    view_on: Callable[..., dict]  # the view on an open connection (raises for a bad link)
    check_code: Callable[..., None]  # (con, event, key, key, side, code): raises if wrong
    act: Callable[[dict, tuple, dict], tuple[str, dict]]  # every action but unlocking
    page: Callable[..., Response]
    prefix: str  # the rate limits' key


def _unlock(door: SheetDoor, where: tuple, code: str, w: dict) -> tuple[str, dict]:
    """A side gives its code: only read (the link checked first, then the code)."""
    with db.reading(database(), HALL_WAIT) as con:
        view = door.view_on(con, *where)
        event_id, first, second, _, side = where
        door.check_code(con, event_id, first, second, side, code)
        return w["unlocked"], view


async def handle_sheet(request: Request, door: SheetDoor, words: dict) -> Response:
    """A sheet's GET and POST, the table's and the Tractor match's alike: the link checked,
    the limits kept, a wrong code counted, the action and its page in one transaction."""
    from pipeline.day import selfreport

    w = words[page_lang(request)]
    try:
        where = door.where()
        if request.method != "POST":
            view = await run_in_threadpool(door.view, *where)
            return door.page(request, view, "")
    except BusyError:
        return _simple(request, w["busy"], 503)
    except (PaisaiError, ValueError):
        return _simple(request, w["bad_link"], 403)
    body = await form_body(request)
    if body is None:
        return _simple(request, w["too_long"], 413)
    now = time.monotonic()
    address = request.client.host if request.client else ""
    link = ":".join([door.prefix, *(str(p) for p in where[:-2]), where[-1]])
    # a deal a minute and its answers: three times a report link's allowance
    refused = turned_away(LIMITS, link, PER_LINK * 3, address, now, coded=True)
    if refused:
        return _simple(request, w[refused], 429)
    form = {k: v[0][:16] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
    code = form.get("code", "")
    try:
        call = (_unlock, door, where, code, w) if form.get("action") == "unlock" else \
            (door.act, form, where, w)
        message, view = await run_in_threadpool(*call)
    except BusyError:
        return _simple(request, w["busy"], 503)
    except (PaisaiError, ValueError) as exc:
        wrong = isinstance(exc, selfreport.WrongCode)
        if wrong:  # counted: guessing the code is slow
            LIMITS.allow(f"code:{link}", WRONG_CODES, now, CODE_WINDOW)
        try:
            view = await run_in_threadpool(door.view, *where)
        except BusyError:
            return _simple(request, w["busy"], 503)
        except (PaisaiError, ValueError):
            return _simple(request, w["bad_link"], 403)
        return door.page(request, view, "" if wrong or isinstance(exc, ValueError) else code,
                         str(exc) if isinstance(exc, PaisaiError) else w["bad_link"], 400)
    return door.page(request, view, code, message)


def _act(form: dict, where: tuple, w: dict) -> tuple[str, dict]:
    """The form's action and the page's view after it, in one transaction."""
    from pipeline.day import tablestore

    side = where[-1]
    action, code = form.get("action", ""), form.get("code", "")
    with db.writing(database()) as con:
        message = w["ok"]
        if action == "enter":
            tablestore.enter(con, *where[:4], side, code, int(form.get("number", "0")),
                             form.get("winner", ""), int(form.get("finish") or 0),
                             form.get("seen"))
        elif action in ("confirm", "dispute"):
            tablestore.answer(con, *where[:4], side, code, int(form.get("number", "0")),
                              action == "confirm", form.get("seen"))
        elif action == "result":
            message = w[tablestore.confirm_result(con, *where[:4], side, code)]
        else:
            raise ValueError(action)
        return message, _view_on(con, *where)
