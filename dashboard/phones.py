"""The phones' channel and the read-only API: plain Starlette routes served beside the
Streamlit pages by the same process (`dashboard.asgi`), with no Streamlit session and no
websocket. Pages are rendered from the static site's templates once per change of the event
(not per request), carry an ETag and a short Cache-Control, refresh themselves without
JavaScript, and fit a 360-px screen. These routes reach only read queries: nothing here can
change an event.

    /m/{event}/                 the ranking            (?lang=en)
    /m/{event}/pairings         the pairings, ?q= finds a table
    /m/{event}/teams/{team_no}  a team: its table, its games, why it sits where it does
    /m/{event}/bracket          a Tractor event's groups and knockout
    /api/v1/events, /api/v1/events/{id}/standings?round=N, …/pairings?round=N, …/bracket
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import polars as pl
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from dashboard.headers import PLAIN_HEADERS
from pipeline import db, events, queries, rounds, scoring
from pipeline.errors import BusyError, PaisaiError
from pipeline.explain import why_here
from pipeline.output import HEADERS_ZH, to_json
from pipeline.publish import CSS, RESULT_COLUMNS, results_by_team
from pipeline.templating import environment, render, table_rows

REFRESH_SECONDS = 20  # the page asks for itself again (a meta refresh: no JavaScript)
MAX_AGE = 5  # seconds a proxy or the phone may keep a page or an answer
HEADERS = PLAIN_HEADERS  # every answer: no Referer leaves with a signed link, no script
WORDS = {
    "zh": {"ranking": "排名", "pairings": "对阵", "teams": "各队", "after": "第 {n} 轮后排名",
           "round": "第 {n} 轮对阵", "find": "查找我的座位（队号、队名或姓名）", "search": "查找",
           "none": "没有找到", "no_event": "没有这个赛事", "no_team": "没有这个队",
           "not_paired": "还没有编排", "bye": "轮空", "bracket": "赛程与淘汰赛",
           "not_bracket": "本赛事没有淘汰赛",
           "team_round": "第 {n} 轮", "team_table": "{n} 号桌", "team_opponent": "对手",
           "team_rank": "名次", "team_points": "积分", "team_lds": "级差分",
           "东西 EW": "东西", "南北 NS": "南北",
           "busy": "系统正忙（数据库正在备份、导入或恢复），请几秒后再刷新"},
    "en": {"ranking": "Ranking", "pairings": "Pairings", "teams": "Teams",
           "after": "Ranking after round {n}", "round": "Round {n} pairings",
           "find": "Find my table (team no., name or player)", "search": "Find",
           "none": "Not found", "no_event": "No such event", "no_team": "No such team",
           "not_paired": "Not paired yet", "bye": "bye", "bracket": "Bracket",
           "not_bracket": "This event has no bracket",
           "team_round": "Round {n}", "team_table": "Table {n}", "team_opponent": "Opponent",
           "team_rank": "Rank", "team_points": "Points", "team_lds": "Level diff. score",
           "东西 EW": "East-West", "南北 NS": "North-South",
           "busy": "Busy for a moment (a backup, an import or a restore): refresh in a few "
                   "seconds"},
}
HEADERS_EN = {"rank": "Rank", "team_no": "No.", "team_name": "Team", "played": "Played",
              "wins": "W", "draws": "D", "losses": "L", "match_points": "Points",
              "level_diff_score": "Level diff. score", "levels": "Levels",
              "net_levels": "Net levels", "table": "Table", "ew_team": "EW", "ew_name": "EW team",
              "ns_team": "NS", "ns_name": "NS team", "round": "Round", "opponent": "Opponent",
              "outcome": "Result"}
PHONE_COLUMNS = ["rank", "team_no", "team_name", "match_points", "level_diff_score"]
PHONE_CSS = CSS + ("td{white-space:nowrap}th{white-space:normal}.wrap{overflow-x:auto}"
                   "table{max-width:100%}form{margin:8px 0}"
                   "input{font-size:16px;padding:6px;max-width:70%}button{font-size:16px}")


def database() -> Path:
    return db.db_path()


def _lang(request: Request) -> str:
    return "en" if request.query_params.get("lang") == "en" else "zh"


class Once:
    """Values made once per key and kept (the most recent `size` keys): a hall of phones
    asking for the same page is one render, and every later ask a dictionary look-up. When
    many ask for a key not made yet — the moment a round is stored — one makes it and the
    others wait for it, instead of all making it at once."""

    def __init__(self, size: int = 512):
        self.values: OrderedDict[tuple, object] = OrderedDict()
        self.making: dict[tuple, threading.Event] = {}
        self.lock = threading.Lock()
        self.size = size

    def get(self, key: tuple, make):
        while True:
            with self.lock:
                if key in self.values:
                    self.values.move_to_end(key)
                    return self.values[key]
                waiting = self.making.get(key)
                if waiting is None:
                    self.making[key] = threading.Event()
                    break
            waiting.wait(30)  # the maker failed or finished: look again
        try:
            value = make()
            with self.lock:
                self.values[key] = value
                while len(self.values) > self.size:
                    self.values.popitem(last=False)
            return value
        finally:
            with self.lock:
                self.making.pop(key).set()

    def clear(self) -> None:
        with self.lock:
            self.values.clear()


PAGES = Once()  # (page, event, version, language, query, team) → (body, etag)
FIRST = Once(16)  # (event, version) → an event's first snapshot, made while its asker waits



def _answer(request: Request, data: bytes, etag: str, media: str,
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


def _problem(request: Request, status: int, key: str, detail: str = "") -> Response:
    words = WORDS[_lang(request)]
    headers = dict(HEADERS)
    if status == 503:  # busy: asked again shortly, never kept by a proxy as the page
        headers.update({"Retry-After": str(BusyError.retry_after), "Cache-Control": "no-store"})
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": words[key], "detail": detail}, status_code=status,
                            headers=headers)
    body = render("site/page.html", title=words[key], up="", nav=_nav("", _lang(request)),
                  words=words, lang=_lang(request))
    return HTMLResponse(body, status_code=status, headers=headers)


def _busy(request: Request) -> Response:
    """Another process holds the database (a restore, an import, a backup): "busy, try
    again" with Retry-After — never "no such event", never a path or a process."""
    return _problem(request, 503, "busy")


HALL_WAIT = 1.0  # seconds a phone's or a program's read waits for a busy database: pages
# already made are answered from memory meanwhile, so only a first view waits, and briefly


def _nav(event_id: str, language: str) -> dict:
    suffix = "?lang=en" if language == "en" else ""
    base = f"/m/{event_id}"
    return {"ranking": f"{base}/{suffix}", "pairings": f"{base}/pairings{suffix}",
            "teams": f"{base}/{suffix}", "style": "/m/style.css"}


def _headers(frame: pl.DataFrame, language: str) -> list[str]:
    names = HEADERS_EN if language == "en" else HEADERS_ZH
    return [names.get(c, c) for c in frame.columns]


VERSION_SECONDS = 1.0  # how long a page's version is trusted before the database is asked
FIRST_ASK = Once(256)  # (event, second) → (event, version) the first time: its askers wait


def _ask(event_id: str):
    """(event, version), or (None, None) when there is no such event."""
    with db.reading(database(), HALL_WAIT) as con:
        try:
            event = events.load(con, event_id)
        except PaisaiError:
            return None, None
        return event, queries.event_version(con, event_id)


class Versions:
    """Each event's version as last read, asked again in the background once it is older
    than VERSION_SECONDS: a page never waits for the database (a write under way, a hall's
    reports), only an event's first page does."""

    def __init__(self):
        self.known: dict[str, tuple[float, object, str | None]] = {}
        self.asking: set[str] = set()
        self.lock = threading.Lock()

    def get(self, event_id: str):
        import time

        now = time.monotonic()
        with self.lock:
            have = self.known.get(event_id)
            stale = have is None or now - have[0] >= VERSION_SECONDS
            if have is not None and stale and event_id not in self.asking:
                self.asking.add(event_id)
                threading.Thread(target=self._ask_again, args=(event_id,), daemon=True).start()
        if have is not None:
            return have[1:]
        found = FIRST_ASK.get((event_id, int(now)), partial(_ask, event_id))
        with self.lock:
            if len(self.known) > 1000:
                self.known.clear()
            self.known.setdefault(event_id, (now, *found))
        return found

    def _ask_again(self, event_id: str) -> None:
        import time

        try:
            found = _ask(event_id)
            with self.lock:
                self.known[event_id] = (time.monotonic(), *found)
        except Exception:  # the database is busy or gone: the next page asks again
            pass
        finally:
            with self.lock:
                self.asking.discard(event_id)

    def clear(self) -> None:
        with self.lock:
            self.known.clear()


VERSIONS = Versions()


def current(event_id: str):
    """(event, version) from memory, read again at most once a second in the background:
    a hall of phones is answered without waiting for the database, and a change shows
    within seconds (PaisaiError when there is no such event)."""
    event, value = VERSIONS.get(event_id)
    if event is None:
        raise PaisaiError(f"no event {event_id}")
    return event, value


def forget_versions() -> None:
    """Ask the database again on the next page (a test's fresh database)."""
    for memo in (VERSIONS, FIRST_ASK, FIRST, PAGES):
        memo.clear()
    SNAPSHOTS.clear()


@dataclass(frozen=True)
class Snapshot:
    """What the phones' pages of one version of an event show, read from the database once:
    a thousand team pages after a round are a thousand renders of this, not a thousand
    rankings."""

    version: str
    after: int
    ranking: pl.DataFrame
    latest: int | None
    pairs: pl.DataFrame | None
    why: dict
    places: dict  # team → its row of the ranking
    seats: dict  # team → its table this round: {table, side, opponent}
    results: dict  # team → its games as table rows


def _snapshot(event, current_version: str) -> Snapshot:
    with db.reading(database(), HALL_WAIT) as con:
        after = scoring.latest_round(con, event.event_id)
        ranking = scoring.standings(con, event, after)
        played = scoring.team_rounds(con, event, after)
        latest = rounds.latest_paired_round(con, event.event_id)
        pairs = rounds.pairings(con, event.event_id, latest) if latest else None
    seats = {}
    for r in pairs.iter_rows(named=True) if pairs is not None else ():
        seats[r["ew_team"]] = {"table": r["table"], "side": "东西 EW", "opponent": r["ns_team"]}
        if r["ns_team"] is not None:
            seats[r["ns_team"]] = {"table": r["table"], "side": "南北 NS",
                                   "opponent": r["ew_team"]}
    return Snapshot(current_version, after, ranking, latest, pairs,
                    why_here(ranking, scoring.published_keys(event, after)),
                    {r["team_no"]: r for r in ranking.iter_rows(named=True)}, seats,
                    results_by_team(played))


class Snapshots:
    """Each event's latest snapshot. When the event changes, the pages go on showing the
    snapshot they have while one thread makes the next (at most one at a time per event, at
    least REFRESH_GAP apart): a hall reporting a hundred tables a minute costs one ranking
    at a time, never one per report or per phone. Only an event's first snapshot is waited
    for."""

    # seconds between the end of one refresh and the start of the next: every new snapshot
    # has each phone's page rendered again (a thousand teams: ~1 s of the server's time)
    REFRESH_GAP = 4.0
    # (0: every change is waited for — a test)

    def __init__(self):
        self.latest: dict[str, Snapshot] = {}
        self.refreshing: set[str] = set()
        self.lock = threading.Lock()

    def get(self, event, current_version: str) -> Snapshot:
        event_id = event.event_id
        with self.lock:
            have = self.latest.get(event_id)
            if have is not None and have.version != current_version \
                    and event_id not in self.refreshing and self.REFRESH_GAP > 0:
                self.refreshing.add(event_id)
                threading.Thread(target=self._refresh, args=(event, current_version),
                                 daemon=True).start()
        if have is not None and self.REFRESH_GAP > 0:
            return have
        made = FIRST.get((event_id, current_version),
                         partial(_snapshot, event, current_version))
        with self.lock:
            if event_id not in self.latest or self.REFRESH_GAP <= 0:
                if len(self.latest) > 64:
                    self.latest.clear()
                self.latest[event_id] = made
            return self.latest[event_id]

    def _refresh(self, event, current_version: str) -> None:
        try:
            made = _snapshot(event, current_version)
            with self.lock:
                self.latest[event.event_id] = made
        except Exception:  # the pages keep the snapshot they have; the next ask tries again
            pass
        finally:
            import time

            time.sleep(self.REFRESH_GAP)
            with self.lock:
                self.refreshing.discard(event.event_id)

    def clear(self) -> None:
        with self.lock:
            self.latest.clear()


SNAPSHOTS = Snapshots()


SEARCHES = Once(64)  # pages of one search (?q=): kept apart, so that made-up searches
# never push the pages everyone reads out of PAGES


def _event_page(request: Request, page: str, make, reads: tuple[str, ...] = ()) -> Response:
    """A phone page of one event: rendered once per version, or a 404 in the page's words
    (a 503 while another process holds the database and the event is not in memory yet).
    `make(event, snapshot, language)` returns the page's text; `reads` are the query
    parameters it reads besides `lang` — the page is kept by those alone, any other
    parameter is ignored (a made-up query string is the same page, never a new render)."""
    event_id = request.path_params["event"][:64]
    language = _lang(request)
    try:
        event, current_version = current(event_id)
        seen = SNAPSHOTS.get(event, current_version)
    except BusyError:
        return _busy(request)
    except PaisaiError:
        return _problem(request, 404, "no_event", event_id)
    extra = tuple((name, request.query_params.get(name, "").strip()[:40]) for name in reads)
    key = (page, event_id, seen.version, language, extra, request.path_params.get("team", ""))
    memo = SEARCHES if any(value for _, value in extra) else PAGES

    def made() -> tuple[bytes, str, bytes | None]:
        data = make(event, seen, language).encode("utf-8")
        packed = gzip.compress(data, 6, mtime=0) if len(data) > 1024 else None
        return data, '"' + hashlib.sha256(data).hexdigest()[:20] + '"', packed

    try:
        data, etag, packed = memo.get(key, made)
    except BusyError:
        return _busy(request)
    except LookupError:
        return _problem(request, 404, "no_team", request.path_params.get("team", ""))
    return _answer(request, data, etag, "text/html; charset=utf-8", packed)


def _common(event, language: str) -> dict:
    return {"up": "", "nav": _nav(event.event_id, language), "words": WORDS[language],
            "lang": "en" if language == "en" else "zh-CN", "refresh": REFRESH_SECONDS}


def _team_links(event_id: str, teams: list[str], language: str) -> dict[str, str]:
    from urllib.parse import quote

    suffix = "?lang=en" if language == "en" else ""
    return {t: f"/m/{event_id}/teams/{quote(t, safe='')}{suffix}" for t in teams}


def ranking_page(request: Request) -> Response:
    def make(event, seen: Snapshot, language: str) -> str:
        shown = seen.ranking.select(PHONE_COLUMNS)
        title = f"{event.name} · {WORDS[language]['after'].format(n=seen.after)}"
        links = _team_links(event.event_id, shown["team_no"].to_list(), language)
        return render("site/index.html", title=title, headers=_headers(shown, language),
                      rows=table_rows(shown, links), **_common(event, language))

    return _event_page(request, "ranking", make)


def pairings_page(request: Request) -> Response:
    query = (request.query_params.get("q") or "").strip()[:40]

    def make(event, seen: Snapshot, language: str) -> str:
        words = WORDS[language]
        latest, pairs = seen.latest, seen.pairs
        common = _common(event, language)
        common["refresh"] = None  # a search being typed is never wiped by a reload
        if pairs is None:
            return render("site/pairings.html", title=f"{event.name} · {words['not_paired']}",
                          rows=None, **common)
        if query:
            from pipeline.queries import find_table

            pairs = find_table(pairs, query)
        table = pairs.select("table", "ew_team", "ew_name", "ns_team", "ns_name").with_columns(
            pl.col("ns_team").fill_null(words["bye"]))
        body = render("site/pairings.html", title=f"{event.name} · "
                      f"{words['round'].format(n=latest)}", headers=_headers(table, language),
                      rows=table_rows(table), **common)
        form = (f'<form method="get" action="/m/{event.event_id}/pairings">'
                f'<label>{words["find"]}<br><input name="q" value="" maxlength="40">'
                f'</label>{"<input type=hidden name=lang value=en>" if language == "en" else ""}'
                f' <button>{words["search"]}</button></form>')
        if query and table.is_empty():
            form += f"<p>{words['none']}</p>"
        return body.replace("</h1>", "</h1>" + form, 1)

    return _event_page(request, "pairings", make, reads=("q",))


def team_page(request: Request) -> Response:
    team = request.path_params["team"].strip().upper()

    def make(event, seen: Snapshot, language: str) -> str:
        row = seen.places.get(team)
        if row is None:
            raise LookupError(team)
        page = environment().get_template("site/team.html")
        return page.render(
            title=f"{team} {row['team_name'] or ''}", seat=seen.seats.get(team),
            latest=seen.latest, rank=row["rank"], match_points=row["match_points"],
            level_diff_score=row["level_diff_score"], results=seen.results.get(team),
            headers=[(HEADERS_EN if language == "en" else HEADERS_ZH).get(c, c)
                     for c in RESULT_COLUMNS],
            why=seen.why.get(team, ""), **_common(event, language))

    return _event_page(request, "team", make)


def bracket_page(request: Request) -> Response:
    def make(event, _seen: Snapshot, language: str) -> str:
        from dashboard.common import bracket_html, stage_name
        from pipeline.tractor import stages

        words = WORDS[language]
        common = _common(event, language)
        if event.ruleset.is_swiss:
            return render("site/pairings.html", title=f"{event.name} · {words['not_bracket']}",
                          rows=None, **common)
        with db.reading(database(), HALL_WAIT) as con:
            data = stages.view(con, event)
            names = dict(db.rows(con, "select team_no, team_name from teams where "
                                      "event_id = ?", [event.event_id]))
        groups = pl.DataFrame(data["groups"]) if data["groups"] else None
        body = render("site/pairings.html", title=f"{event.name} · {words['bracket']}",
                      rows=None if groups is None else table_rows(groups.select(
                          "stage", "rank", "team_no", "points")),
                      headers=["组", "名次", "队号", "积分"] if language == "zh" else
                      ["Group", "Rank", "No.", "Points"], **common)
        knockout = [{**s, "name": stage_name(s["name"], language)}
                    for s in data["stages"] if s["kind"] == "knockout"]
        tree = f"<div class='wrap'>{bracket_html(knockout, names)}</div>" if knockout else ""
        return body.replace("</body>", tree + "</body>", 1)

    return _event_page(request, "bracket", make)


def style(request: Request) -> Response:
    data = PHONE_CSS.encode()
    return _answer(request, data, '"' + hashlib.sha256(data).hexdigest()[:20] + '"',
                   "text/css; charset=utf-8")


# -- the read-only JSON API: the same columns as the CLI's JSON -------------------------

def _json(request: Request, value) -> Response:
    data = (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)).encode()
    return _answer(request, data, '"' + hashlib.sha256(data).hexdigest()[:20] + '"',
                   "application/json; charset=utf-8")


def _round(request: Request) -> int | None:
    given = request.query_params.get("round")
    if given is None:
        return None
    if not given.isdigit() or len(given) > 6:
        raise ValueError(given)
    return int(given)


def api_events(request: Request) -> Response:
    try:
        with db.reading(database(), HALL_WAIT) as con:
            listing = events.listing(con)
    except BusyError:
        return _busy(request)
    return _json(request, to_json(listing))


def _api(request: Request, answer) -> Response:
    """One API answer: `answer(con, event)` read in one short read-only connection; an
    unknown event is a 404, a bad `round` a 400, both as {"error": …}."""
    try:
        round_no = _round(request)
        with db.reading(database(), HALL_WAIT) as con:
            event = events.load(con, request.path_params["event"])
            value = answer(con, event, round_no)
    except ValueError as exc:
        return _problem(request, 400, "none", f"round: {exc}")
    except BusyError:
        return _busy(request)
    except PaisaiError as exc:
        return _problem(request, 404, "no_event", str(exc))
    return _json(request, value)


def api_standings(request: Request) -> Response:
    def answer(con, event, after):
        if after is None:
            after = scoring.latest_round(con, event.event_id)
        return to_json(scoring.published(scoring.standings(con, event, after), event))

    return _api(request, answer)


def api_pairings(request: Request) -> Response:
    def answer(con, event, round_no):
        round_no = round_no or rounds.latest_paired_round(con, event.event_id)
        if not round_no:
            return "[]"
        return to_json(rounds.pairings(con, event.event_id, round_no)
                       .select(rounds.PAIRING_COLUMNS))

    return _api(request, answer)


def api_bracket(request: Request) -> Response:
    from pipeline.tractor import stages

    return _api(request, lambda con, event, _: stages.view(con, event))


# -- a table reports its result from a side's signed link (a plain form, no JavaScript) --

MAX_BODY = 2048  # a report is two levels: anything longer is refused unread
PER_LINK = 10  # reports a minute from one link
PER_ADDRESS = 600  # reports a minute from one address: a hall of 300 phones behind one NAT,
# each side reporting twice (a correction), fits; one link is limited on its own (PER_LINK)
REPORT_WORDS = {
    "zh": {"title": "第 {r} 轮 {n} 号桌报成绩", "ew": "东西", "ns": "南北", "send": "提交",
           "choose": "请选择", "bad_link": "链接无效或已过期", "too_many": "提交太频繁，请稍后再试",
           "too_long": "提交的内容太长", "sent": "已提交，等待裁判确认",
           "stored": "双方一致，成绩已保存", "waiting": "已提交，等待对方确认",
           "disagree": "与对方所报不一致，已交裁判裁定", "again": "改报",
           "busy": "系统正忙，成绩没有提交，请几秒后再提交一次",
           "code": "本方验证码（纸条上二维码旁的 4 位数字）",
           "decided": "已裁定：本桌成绩已保存。如有异议请找裁判，由组织者重新打开本桌。",
           "closed": "这个链接已关闭", "ask_referee": "请把成绩交给裁判或组织者（纸质记分表）。",
           "you_sent": "你提交的成绩",
           "too_many_codes": "验证码错误太多次，请 10 分钟后再试或找裁判"},
    "en": {"title": "Round {r}, table {n}: report", "ew": "East-West", "ns": "North-South",
           "send": "Send", "choose": "Choose", "bad_link": "This link is not valid or has "
           "expired", "too_many": "Too many reports: wait a minute", "too_long": "Too long",
           "sent": "Sent; waiting for the organizer", "stored": "Both sides agree: the "
           "result is stored", "waiting": "Sent: waiting for the other side",
           "disagree": "The other side sent another result: the organizer decides",
           "again": "Report again",
           "busy": "Busy for a moment: nothing was sent; send again in a few seconds",
           "code": "Your side's code (the 4 digits beside the QR code on your slip)",
           "decided": "Decided: this table's result is stored. To dispute it, ask the referee: "
                      "the organizer can reopen the table.",
           "closed": "This link is closed",
           "ask_referee": "Give your result to the referee or the organizer (the paper "
                          "score sheet).",
           "you_sent": "You sent",
           "too_many_codes": "Too many wrong codes: try again in 10 minutes or ask the "
                             "referee"},
}


WRONG_CODES = 5  # wrong slip codes from one side's link …
CODE_WINDOW = 600  # … in ten minutes, then it waits (a 4-digit code is not guessed so)


class Limits:
    """Requests in the last `window` seconds, by key (a link, an address)."""

    def __init__(self):
        self.times: dict[str, list[float]] = {}
        self.lock = threading.Lock()

    def allow(self, key: str, limit: int, now: float, window: float = 60,
              count: bool = True) -> bool:
        """True while `key` has had fewer than `limit` in the window; counts this one
        (unless `count` is False: only asked)."""
        with self.lock:
            if len(self.times) > 100_000:  # made-up keys never fill the memory
                self.times.clear()
            kept = [t for t in self.times.get(key, []) if now - t < window]
            if len(kept) >= limit:
                self.times[key] = kept
                return False
            self.times[key] = [*kept, now] if count else kept
            if not self.times[key]:
                del self.times[key]
            return True


LIMITS = Limits()


class Reports:
    """The phones' reports stored by one thread, all those waiting in one transaction (one
    opening of the database for a hall's last minutes, not one per phone); each request
    waits for its own outcome."""

    BATCH = 100
    GATHER = 0.25  # seconds a report waits for others to be stored with it (each storing
    # opens the database read-write and closes the readers' shared connection: ~0.1 s)

    def __init__(self):
        self.waiting: list[tuple] = []
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.worker: threading.Thread | None = None

    async def submit(self, report) -> str:
        import asyncio

        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self.lock:
            self.waiting.append((report, loop, future))
            if self.worker is None or not self.worker.is_alive():
                self.worker = threading.Thread(target=self._store, daemon=True)
                self.worker.start()
        self.wake.set()
        return await future

    def _store(self) -> None:
        import time

        from pipeline import selfreport

        while True:
            self.wake.wait(60)
            time.sleep(self.GATHER)  # the reports of the next moment join this one
            with self.lock:
                batch, self.waiting = self.waiting[:self.BATCH], self.waiting[self.BATCH:]
                if not self.waiting:
                    self.wake.clear()
            if not batch:
                continue
            try:
                outcomes = selfreport.submit_many(database(), [r for r, _, _ in batch])
            except Exception as exc:  # the database failed: every report of the batch says so
                outcomes = [exc] * len(batch)
            for (_, loop, future), outcome in zip(batch, outcomes, strict=True):
                loop.call_soon_threadsafe(_settle, future, outcome)


def _settle(future, outcome) -> None:
    if future.done():  # the phone went away
        return
    if isinstance(outcome, Exception):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


REPORTS = Reports()


def _report_page(language: str, title: str, body: str, status: int = 200) -> Response:
    extra = {"Retry-After": str(BusyError.retry_after)} if status == 503 else {}
    page = render("site/page.html", title=title, up="",
                  nav={"ranking": "#", "pairings": "#", "teams": "#", "style": "/m/style.css"},
                  words={"ranking": "", "pairings": "", "teams": ""},
                  lang="en" if language == "en" else "zh-CN")
    return HTMLResponse(page.replace("</h1>", "</h1>" + body, 1), status_code=status,
                        headers={**HEADERS, "Cache-Control": "no-store", **extra})


async def report(request: Request) -> Response:
    """GET: the form of a table's (or a side's) signed link; POST: the report, stored
    through the self-report logic (both sides confirm; a disagreement waits)."""
    import html
    import time
    from urllib.parse import parse_qs

    from pipeline import selfreport
    from pipeline.levels import format_level

    language = _lang(request)
    words = REPORT_WORDS[language]
    params = request.query_params
    try:
        event_id = params.get("event", "")[:64]
        round_no, table_no = int(params.get("round", "0")), int(params.get("table", "0"))
        side = params.get("side") or None
        signature = params.get("sig", "")[:200]
        ew, ns, decided = await run_in_threadpool(_check_link, event_id, round_no, table_no,
                                                  signature, side)
    except BusyError:
        return _report_page(language, words["busy"], "", 503)
    except selfreport.LinkClosed as exc:  # genuine, but its round or event is over
        return _report_page(language, words["closed"], f"<p class='card'>"
                            f"{html.escape(str(exc))}</p><p>{words['ask_referee']}</p>", 410)
    except (PaisaiError, ValueError):
        return _report_page(language, words["bad_link"], f"<p>{words['ask_referee']}</p>", 403)
    title = words["title"].format(r=round_no, n=table_no)
    if decided is not None:  # reopening the link shows what is stored, never a blank form
        return _report_page(language, title, f"<p class='card big' data-testid='said'>"
                            f"{html.escape(words['decided'])}<br>{html.escape(ew)} – "
                            f"{html.escape(ns or '')}: {html.escape(decided)}</p>",
                            409 if request.method == "POST" else 200)
    if request.method == "POST":
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return _report_page(language, words["too_long"], "", 413)
        now = time.monotonic()
        address = request.client.host if request.client else ""
        link = f"{event_id}:{round_no}:{table_no}:{side}"
        if not (LIMITS.allow(f"link:{link}", PER_LINK, now)
                and LIMITS.allow(f"address:{address}", PER_ADDRESS, now)):
            return _report_page(language, words["too_many"], "", 429)
        form = parse_qs(body.decode("utf-8", "replace"))
        if side and not LIMITS.allow(f"code:{link}", WRONG_CODES, now, CODE_WINDOW,
                                     count=False):
            return _report_page(language, words["too_many_codes"], "", 429)
        try:
            outcome = await REPORTS.submit(selfreport.Report(
                event_id, round_no, table_no, signature, form.get("ew_level", [""])[0][:8],
                form.get("ns_level", [""])[0][:8], side, form.get("code", [""])[0][:8]))
        except BusyError:
            return _report_page(language, words["busy"], "", 503)
        except selfreport.Decided as exc:  # decided meanwhile: said, no form
            return _report_page(language, title, f"<p class='card big' data-testid='said'>"
                                f"{html.escape(str(exc))}</p>", 409)
        except PaisaiError as exc:
            if isinstance(exc, selfreport.WrongCode):  # counted: guessing the code is slow
                LIMITS.allow(f"code:{link}", WRONG_CODES, now, CODE_WINDOW)
            return _report_page(language, title, f"<p class='card'>{html.escape(str(exc))}</p>"
                                + _report_form(words, ew, ns, format_level, side), 400)
        said = words["sent"] if side is None else words[outcome]
        sent = (f"{words['you_sent']}：{words['ew']} {html.escape(ew)} "
                f"{html.escape(form.get('ew_level', [''])[0][:8])} – {words['ns']} "
                f"{html.escape(ns or '')} {html.escape(form.get('ns_level', [''])[0][:8])}")
        return _report_page(language, title, f"<p class='card big' data-testid='said'>"
                            f"{html.escape(said)}</p><p class='card' data-testid='sent'>{sent}"
                            f"</p><p><a href='{html.escape(str(request.url))}'>"
                            f"{words['again']}</a></p>")
    return _report_page(language, title, _report_form(words, ew, ns, format_level, side))


def _check_link(event_id: str, round_no: int, table_no: int, signature: str,
                side: str | None) -> tuple[str, str, str | None]:
    """The table's teams, and its stored result in words when it is decided (else None)."""
    from pipeline import selfreport

    with db.reading(database(), HALL_WAIT) as con:
        ew, ns = selfreport.check_link(con, event_id, round_no, table_no, signature, side)
        decided = selfreport.stored_result(con, event_id, round_no, table_no)
        names = dict(db.rows(con, "select team_no, team_name from teams where event_id = ? "
                                  "and team_no in (?, ?)", [event_id, ew, ns or ""]))
    # each side as the players know it: its number and its name
    ew, ns = (f"{team} {names.get(team) or ''}".strip() if team else team for team in (ew, ns))
    return ew, ns, selfreport.describe_stored(decided) if decided else None


def _report_form(words: dict, ew: str, ns: str, format_level, side: str | None) -> str:
    import html

    options = "".join(f"<option>{format_level(v)}</option>" for v in range(2, 16))
    choose = f"<option value=''>{words['choose']}</option>"
    code = (f"<label>{words['code']}<br><input name='code' inputmode='numeric' "
            f"pattern='[0-9]{{4}}' maxlength='4' autocomplete='off' required></label><br><br>"
            if side else "")
    return (f"<form method='post' class='card'>{code}"
            f"<label>{words['ew']} {html.escape(ew)}<br><select name='ew_level' required>"
            f"{choose}{options}</select></label><br><br>"
            f"<label>{words['ns']} {html.escape(ns or '')}<br><select name='ns_level' required>"
            f"{choose}{options}</select></label><br><br>"
            f"<button type='submit'>{words['send']}</button></form>")


async def console_session(request: Request) -> Response:
    """POST: a login's one-time grant (dashboard.auth) swapped for the session's cookie —
    HttpOnly (no script reads it), SameSite=Strict, Secure over https; DELETE: the cookie
    cleared (the session itself is ended in the database by the logout)."""
    from dashboard.auth import COOKIE, GRANTS, session_hours

    secure = "; Secure" if request.url.scheme == "https" else ""
    if request.method == "DELETE":
        cookie = f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict{secure}"
    else:
        body = b""
        async for chunk in request.stream():  # a grant is 24 characters: never read more
            body += chunk
            if len(body) > 200:
                return Response(status_code=413, headers={**HEADERS, "Cache-Control":
                                                          "no-store"})
        token = GRANTS.take(body.decode("ascii", "replace").strip())
        if token is None:
            return Response(status_code=403, headers={**HEADERS, "Cache-Control": "no-store"})
        cookie = (f"{COOKIE}={token}; Path=/; Max-Age={int(session_hours() * 3600)}; "
                  f"HttpOnly; SameSite=Strict{secure}")
    return Response(status_code=204, headers={**HEADERS, "Cache-Control": "no-store",
                                              "Set-Cookie": cookie})


def without_slash(request: Request) -> Response:
    """/m/{event} → /m/{event}/ (never the Streamlit app: a session per phone)."""
    from starlette.responses import RedirectResponse

    event_id = request.path_params["event"]
    if not events.valid_id(event_id):
        return _problem(request, 404, "no_event")
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"/m/{event_id}/{query}", status_code=308, headers=HEADERS)


def routes() -> list[Route]:
    return [
        Route("/admin/session", console_session, methods=["POST", "DELETE"]),
        Route("/r", report, methods=["GET", "POST"]),
        Route("/m/style.css", style),  # before /m/{event}: the style sheet is no event
        Route("/m/{event}", without_slash),
        Route("/m/{event}/", ranking_page),
        Route("/m/{event}/pairings", pairings_page),
        Route("/m/{event}/teams/{team}", team_page),
        Route("/m/{event}/bracket", bracket_page),
        Route("/api/v1/events", api_events),
        Route("/api/v1/events/{event}/standings", api_standings),
        Route("/api/v1/events/{event}/pairings", api_pairings),
        Route("/api/v1/events/{event}/bracket", api_bracket),
    ]
