"""How the hall's plain routes answer: the page's language, the words, ETag and
Cache-Control, the problems in the page's words, a busy database."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from dashboard.headers import PLAIN_HEADERS
from pipeline.base import db
from pipeline.base.errors import BusyError
from pipeline.base.output import HEADERS_ZH
from pipeline.publishing.publish import CSS
from pipeline.publishing.templating import render

REFRESH_SECONDS = 20  # the page asks for itself again (a meta refresh: no JavaScript)


MAX_AGE = 5  # seconds a proxy or the phone may keep a page or an answer


HEADERS = PLAIN_HEADERS  # every answer: no Referer leaves with a signed link, no script


WORDS = {
    "zh": {"ranking": "排名", "pairings": "对阵", "teams": "各队", "after": "第 {n} 轮后排名",
           "places": "名次（小组赛成绩，决赛后按淘汰赛）",
           "round": "第 {n} 轮对阵", "find": "查找我的座位（队号、队名或姓名）", "search": "查找",
           "none": "没有找到", "no_event": "没有这个赛事", "no_team": "没有这个队",
           "not_paired": "还没有编排", "bye": "轮空", "bracket": "赛程与淘汰赛",
           "not_bracket": "本赛事没有淘汰赛",
           "team_round": "第 {n} 轮", "team_table": "{n} 号桌", "team_opponent": "对手：",
           "team_rank": "名次", "team_points": "积分", "team_lds": "级差分",
           "东西 EW": "东西", "南北 NS": "南北",
           "team_live": "桌上实况：东西 {ew} · 南北 {ns}，已记 {n} 副",
           "busy": "系统正忙（数据库正在备份、导入或恢复），请几秒后再刷新",
           "events": "正在进行的赛事", "no_events": "现在没有进行中的赛事"},
    "en": {"ranking": "Ranking", "pairings": "Pairings", "teams": "Teams",
           "after": "Ranking after round {n}", "round": "Round {n} pairings",
           "places": "Places (the group record; after the final, the knockout's)",
           "find": "Find my table (team no., name or player)", "search": "Find",
           "none": "Not found", "no_event": "No such event", "no_team": "No such team",
           "not_paired": "Not paired yet", "bye": "bye", "bracket": "Bracket",
           "not_bracket": "This event has no bracket",
           "team_round": "Round {n}", "team_table": "Table {n}", "team_opponent": "Opponent: ",
           "team_rank": "Rank", "team_points": "Points", "team_lds": "Level diff. score",
           "东西 EW": "East-West", "南北 NS": "North-South",
           "team_live": "At the table now: East-West {ew} · North-South {ns}, {n} deals",
           "busy": "Busy for a moment (a backup, an import or a restore): refresh in a few "
                   "seconds", "events": "Events in play", "no_events": "No event in play now"},
}


HEADERS_EN = {"rank": "Rank", "team_no": "No.", "team_name": "Team", "played": "Played",
              "wins": "W", "draws": "D", "losses": "L", "match_points": "Points",
              "level_diff_score": "Level diff. score", "levels": "Levels",
              "net_levels": "Net levels", "game_diff": "Game diff.", "level_diff": "Level diff.",
              "table": "Table", "ew_team": "EW", "ew_name": "EW team",
              "ns_team": "NS", "ns_name": "NS team", "round": "Round", "opponent": "Opponent",
              "outcome": "Result"}


PHONE_COLUMNS = ["rank", "team_no", "team_name", "match_points", "level_diff_score"]
# a Tractor event: group points, game and level difference (no 级差分 there)
TRACTOR_PHONE_COLUMNS = ["rank", "team_no", "team_name", "match_points", "game_diff",
                         "level_diff"]


PHONE_CSS = CSS + ("td{white-space:nowrap}th{white-space:normal}.wrap{overflow-x:auto}"
                   "table{max-width:100%}form{margin:8px 0}"
                   "input{font-size:16px;padding:6px;max-width:70%}button{font-size:16px}"
                   # a sheet's deals within 360 px in either language: the state wraps
                   "table[data-testid=deals] td{white-space:normal}"
                   "table[data-testid=deals] th,table[data-testid=deals] td{padding:6px 4px}"
                   "nav{display:flex;flex-wrap:wrap;gap:4px 14px}nav a{margin:0}"
                   "nav a[data-testid=nav-lang]{margin-left:auto}")


def database() -> Path:
    return db.db_path()


def page_lang(request: Request) -> str:
    return "en" if request.query_params.get("lang") == "en" else "zh"


def answer(request: Request, data: bytes, etag: str, media: str,
            packed: bytes | None = None) -> Response:
    """A page or an answer with its ETag (304 when the phone has it already), sent
    compressed as made once (`packed`, gzip) to a client that accepts it."""
    headers = {**HEADERS, "ETag": etag, "Cache-Control": f"public, max-age={MAX_AGE}",
               "Vary": "Accept-Encoding"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    if packed is not None and "gzip" in request.headers.get("accept-encoding", ""):
        return Response(packed, media_type=media, headers={**headers,
                                                           "Content-Encoding": "gzip"})
    return Response(data, media_type=media, headers=headers)


def problem(request: Request, status: int, key: str, detail: str = "") -> Response:
    words = WORDS[page_lang(request)]
    headers = dict(HEADERS)
    if status == 503:  # busy: asked again shortly, never kept by a proxy as the page
        headers.update({"Retry-After": str(BusyError.retry_after), "Cache-Control": "no-store"})
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": words[key], "detail": detail}, status_code=status,
                            headers=headers)
    body = render("site/page.html", title=words[key], up="", nav=nav("", page_lang(request)),
                  words=words, lang=page_lang(request))
    return HTMLResponse(body, status_code=status, headers=headers)


def busy(request: Request) -> Response:
    """Another process holds the database (a restore, an import, a backup): "busy, try
    again" with Retry-After — never "no such event", never a path or a process."""
    return problem(request, 503, "busy")


HALL_WAIT = 1.0  # seconds a phone's or a program's read waits for a busy database: pages
# already made are answered from memory meanwhile, so only a first view waits, and briefly


def nav(event_id: str, language: str) -> dict:
    suffix = "?lang=en" if language == "en" else ""
    base = f"/m/{event_id}"
    return {"ranking": f"{base}/{suffix}", "pairings": f"{base}/pairings{suffix}",
            "teams": f"{base}/{suffix}", "style": "/m/style.css"}


def headers_for(frame: pl.DataFrame, language: str) -> list[str]:
    names = HEADERS_EN if language == "en" else HEADERS_ZH
    return [names.get(c, c) for c in frame.columns]
