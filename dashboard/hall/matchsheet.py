"""A Tractor match's own score sheet on a side's phone (/k, issue 42): plain HTML, 360 px,
following the table as the Guandan table's (/t) does. The recorder's side (the preset's
`tractor.recorder`) enters each deal — the declarer, the defenders' points with the
bottom's points times its multiplier, the trump cards where the preset counts them, or a
deal ruled lost — and sees both levels, the game and the games won after it; the other side
confirms or disputes each deal; both confirm the match's result, then stored as the Tractor
sheets are. A side acts once its printed code is given (kept as on /t)."""

from __future__ import annotations

import datetime as dt
from urllib.parse import quote, urlencode

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
from dashboard.hall.tablesheet import WORDS as TABLE_WORDS
from pipeline.base import db, events
from pipeline.base.errors import PaisaiError
from pipeline.base.levels import format_level
from pipeline.day.tablesheet import deal_stamp, stamp
from pipeline.publishing.templating import render

WORDS = {
    "zh": {**TABLE_WORDS["zh"], "title": "{stage} 第 {n} 场 · 逐盘记分", "a": "A 方", "number": "盘号",
           "b": "B 方", "game_no": "第 {n} 局", "games_won": "局分 {a}–{b}",
           "deals_played": "已记 {n} 盘", "deal": "盘", "game": "局", "declarer": "庄家",
           "points": "防家得分", "gain": "升级", "deal_no": "第 {n} 盘",
           "record": "记录第 {n} 盘", "in_play": "防家得分（不含底牌，5 的倍数）",
           "bottom": "底牌分（防家抠底时；否则 0）", "multiplier": "底牌倍数",
           "trump": "报主（反主）张数", "ruled": "本盘判负（裁判裁定）",
           "lost_by": "判负方", "ruled_levels": "对方升级数", "record_ruled": "记录判负",
           "ruled_short": "判负", "start": "开始本场计时", "match_left": "本场剩余 {m} 分钟",
           "match_up": "本场时间到", "result": "本场结果",
           "confirm_result": "确认本场结果", "stored": "双方已确认，本场成绩已保存",
           "waiting": "已确认，等待对方确认本场结果", "decided": "本场成绩已保存：{r}",
           "disputed": "第 {n} 盘有异议：已通知裁判，裁定前不能继续记分",
           "final_only": "", "started": "已开始计时", "entered": "待确认",
           "bottom_field": "底牌分", "multiplier_field": "底牌倍数", "trump_field": "报主张数"},
    "en": {**TABLE_WORDS["en"], "title": "{stage}, match {n}: deal by deal", "a": "Side A",
           "b": "Side B", "game_no": "Game {n}", "games_won": "Games {a}–{b}",
           "deals_played": "{n} deals recorded", "deal": "Deal", "game": "Game",
           "declarer": "Declarer", "points": "Defenders' points", "gain": "Up",
           "deal_no": "Deal {n}", "record": "Record deal {n}",
           "in_play": "Defenders' points in play (multiples of 5)",
           "bottom": "Bottom's points (if the defenders took the last trick; else 0)",
           "multiplier": "The bottom's multiplier", "trump": "Trump cards shown",
           "ruled": "Deal ruled lost (by the referee)", "lost_by": "The side that loses it",
           "ruled_levels": "Levels its opponents go up", "record_ruled": "Record the ruling",
           "ruled_short": "ruled", "start": "Start the match clock",
           "match_left": "{m} minutes left in the match", "match_up": "The match's time is up",
           "result": "The match's result", "confirm_result": "Confirm the match's result",
           "stored": "Both sides confirmed: the match's result is stored",
           "waiting": "Confirmed: waiting for the other side",
           "decided": "The match's result is stored: {r}",
           "disputed": "Deal {n} is disputed: the referee is called; the sheet waits for the "
                       "ruling", "final_only": "", "started": "The match clock is running",
           "entered": "to confirm", "bottom_field": "The bottom's points",
           "multiplier_field": "The bottom's multiplier", "trump_field": "Trump cards shown"},
}


def _view(event_id: str, stage: str, match_no: int, signature: str, side: str) -> dict:
    with db.reading(database(), HALL_WAIT) as con:
        return _view_on(con, event_id, stage, match_no, signature, side)


def _view_on(con, event_id: str, stage: str, match_no: int, signature: str, side: str) -> dict:
    from pipeline.day import tractorstore
    from pipeline.day.tablestore import utc_now

    team_a, team_b = tractorstore.check_link(con, event_id, stage, match_no, signature, side)
    event = events.load(con, event_id)
    now = utc_now()
    names = dict(db.rows(con, "select team_no, team_name from teams where event_id = ? and "
                              "team_no in (?, ?)", [event_id, team_a, team_b]))
    confirmed = [r[0] for r in db.rows(
        con, "select side from tractor_sheet_results where event_id = ? and stage = ? and "
             "match_no = ? order by side", [event_id, stage, match_no])]
    return {"teams": {"a": f"{team_a} {names.get(team_a) or ''}".strip(),
                      "b": f"{team_b} {names.get(team_b) or ''}".strip()},
            "sheet": tractorstore.sheet(con, event, stage, match_no, now),
            "recorder": event.ruleset.tractor["recorder"], "rules": event.ruleset.tractor,
            "decided": tractorstore.stored_elsewhere(con, event_id, stage, match_no),
            "confirmed": confirmed, "now": now,
            "started": tractorstore.started_at(con, event_id, stage, match_no),
            "takeoffs": tractorstore.takeoffs(con, event_id, stage, match_no),
            "time_up": tractorstore.time_up(con, event, stage, match_no)}


def _clock(view: dict, w: dict) -> str:
    """The match's own clock when the preset times each match: minutes left, or time up."""
    up, now = view["time_up"], view["now"]
    if up is None or not view["rules"]["match_minutes"]:
        return ""
    if up <= now:
        return w["match_up"]
    return w["match_left"].format(m=-(-int((up - now) / dt.timedelta(seconds=1)) // 60))


def mark(view: dict) -> str:
    """What the page shows of the match, in a few characters (see the table's `mark`)."""
    sheet = view["sheet"]
    return mark_of([(line.number, line.status, line.final, line.entered_at)
                    for line in sheet.lines], sheet.over, sheet.disputed, sheet.result,
                   view["confirmed"], view["decided"], view["takeoffs"], view["started"],
                   view["time_up"] is not None and view["time_up"] <= view["now"])


def _page(request: Request, view: dict, code: str, message: str = "",
          status: int = 200, typed: dict | None = None) -> Response:
    language = page_lang(request)
    w = WORDS[language]
    params = request.query_params
    stage, match_no, side = params["stage"], int(params["match"]), params["side"]
    sheet, teams, rules = view["sheet"], view["teams"], view["rules"]
    states = {"entered": w["entered"], "confirmed": w["confirmed"],
              "disputed": w["disputed_state"]}
    open_ = view["decided"] is None
    acting = open_ and bool(code)
    recorder = side == view["recorder"]
    lines = [{"number": line.number, "game": line.game, "declarer": line.declarer.upper(),
              "first": line.deal_in_game == 1,
              "points": w["ruled_short"] if line.lost_by else line.points,
              "gain": f"{line.gainer.upper()} +{line.gain}",
              "a": format_level(line.a_level), "b": format_level(line.b_level),
              "state": states[line.status] if line.status != "entered" or not line.final
              else w["final"],
              "answer": acting and not recorder and line.status == "entered",
              "seen": deal_stamp(line.number, line.entered_at)}
             for line in sheet.lines]
    can_enter = acting and recorder and not sheet.over and sheet.disputed is None
    enter = {"number": len(sheet.lines) + 1, "declarer": sheet.next_declarer,
             "seen": stamp(sheet.lines, view["takeoffs"]),
             "declarer_name": teams[sheet.next_declarer] if sheet.next_declarer else "",
             "trump": list(range(1, rules["decks"] + 1)) if rules["trump_bonus"] else []} \
        if can_enter else None
    start = can_enter and rules["match_minutes"] and view["started"] is None
    result = None
    if open_ and sheet.result is not None:
        sides = [w[s] for s in view["confirmed"]]
        games = " ".join(f"{format_level(g.a_level)}:{format_level(g.b_level)}"
                         for g in sheet.result.games)
        result = {"games": games, "winner": teams[sheet.result.winner],
                  "sides": w["sides_confirmed"].format(sides="、".join(sides)) if sides
                  else w["nobody"], "mine": side in view["confirmed"] or not code}
    event = params.get("event", "")
    page = render("site/matchsheet.html", title=w["title"].format(stage=stage, n=match_no),
                  up="", w=w, lang="en" if language == "en" else "zh-CN",
                  nav={"ranking": f"/m/{quote(event)}/", "pairings": f"/m/{quote(event)}/bracket",
                       "teams": "#", "style": "/m/style.css"},
                  words={"ranking": "", "pairings": "", "teams": ""},
                  fallback=None if enter else 15,  # without the script: a form never wiped
                  follow={"mark": mark(view), "every": FOLLOW_SECONDS, "here": here(request),
                          "url": "/k/mark?" + urlencode(
                              {k: v for k, v in params.items() if k != "flash"})},
                  typed=typed or {},
                  teams=teams, levels={s: format_level(v) for s, v in sheet.levels.items()},
                  game=sheet.game, wins=sheet.wins, played=len(sheet.lines), lines=lines,
                  code=code if acting else "", message=message, unlock=open_ and not code,
                  clock="" if sheet.over else _clock(view, w), start=start,
                  decided=w["decided"].format(r=view["decided"]) if view["decided"] else "",
                  disputed=sheet.disputed if open_ else None, over=sheet.over or "",
                  result=result, enter=enter)
    return HTMLResponse(page, status_code=status, headers=SHEET_HEADERS)


def _deal_no(form: dict, w: dict) -> int:
    return number(form, "number", w["number"], 1, 999, lang=w["lang"])


def _act(form: dict, where: tuple, w: dict) -> tuple[str, dict]:
    """The form's action and the page's view after it, in one transaction."""
    from pipeline.day import tractorstore

    side, lang = where[-1], w["lang"]
    action, code = form.get("action", ""), form.get("code", "")
    with db.writing(database()) as con:
        message = w["ok"]
        if action == "start":
            tractorstore.start(con, *where[:4], side, code)
            message = w["started"]
        elif action == "enter":
            tractorstore.enter(con, *where[:4], side, code, _deal_no(form, w),
                               form.get("declarer", ""),
                               number(form, "points", w["points"], 0, 1000, default=0, lang=lang),
                               number(form, "bottom", w["bottom_field"], 0, 1000, default=0,
                                      lang=lang),
                               number(form, "multiplier", w["multiplier_field"], 1, 64,
                                      default=1, lang=lang),
                               number(form, "trump", w["trump_field"], 1, 16, default=1, lang=lang),
                               seen=form.get("seen"))
        elif action == "ruled":
            tractorstore.enter(con, *where[:4], side, code, _deal_no(form, w),
                               form.get("declarer", ""), 0, lost_by=form.get("lost_by", ""),
                               ruled_levels=number(form, "ruled_levels", w["ruled_levels"], 0,
                                                   13, default=0, lang=lang),
                               seen=form.get("seen"))
        elif action in ("confirm", "dispute"):
            tractorstore.answer(con, *where[:4], side, code, _deal_no(form, w),
                                action == "confirm", form.get("seen"))
        elif action == "result":
            message = w[tractorstore.confirm_result(con, *where[:4], side, code)]
        else:
            raise PaisaiError(f"不明的操作 unknown action: {action}")
        return message, _view_on(con, *where)


def _where(request: Request) -> tuple:
    params = request.query_params
    side = params.get("side", "")
    if side not in ("a", "b"):
        raise ValueError(side)
    return (params.get("event", "")[:64], params.get("stage", "")[:32],
            int(params.get("match", "0")), params.get("sig", "")[:200], side)


def _door(request: Request) -> SheetDoor:
    from pipeline.day import tractorstore

    return SheetDoor(lambda: _where(request), tractorstore.check_link, _view, _view_on,
                     tractorstore.check_code, _act, _page, mark, "k")


async def match_sheet_route(request: Request) -> Response:
    """GET: the match's sheet of a side's signed link; POST: its actions (see /t)."""
    return await handle_sheet(request, _door(request), WORDS)


async def match_mark_route(request: Request) -> Response:
    """GET: the match's sheet's mark (the open page reads itself again when it changes)."""
    return await mark_route(request, _door(request))
