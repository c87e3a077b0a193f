"""A table reports its result from a side's signed link (/r: a plain form, no
JavaScript); reports arriving together are stored together."""

from __future__ import annotations

import threading

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from dashboard.hall.limits import (
    LIMITS,
    PER_LINK,
    form_body,
    turned_away,
    wrong_code,
)
from dashboard.hall.respond import HALL_WAIT, HEADERS, database, page_lang
from pipeline.base import db, events
from pipeline.base.errors import BusyError, PaisaiError
from pipeline.publishing.templating import render

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
           "you_sent": "你提交的成绩", "by_deal": "逐副记分（每副记录、对方确认）",
           "too_many_codes": "验证码错误太多次，请 10 分钟后再试或找裁判",
           "decider_note": "只在双方级数相同时填写", "nobody": "（级数不同，不填）"},
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
           "you_sent": "You sent", "by_deal": "Keep the score deal by deal",
           "too_many_codes": "Too many wrong codes: try again in 10 minutes or ask the "
                             "referee",
           "decider_note": "only when both levels are equal", "nobody": "(levels differ)"},
}


class Reports:
    """The phones' reports stored by one thread, all those waiting in one transaction (one
    opening of the database for a hall's last minutes, not one per phone); each request
    waits for its own outcome."""

    BATCH = 100
    GATHER = 0.25  # seconds a report waits for others to be stored with it (each storing
    # opens the database read-write and closes the readers' shared connection: ~0.1 s)
    GIVE_WAY = 1  # times a batch under way gives way to the organizer's writes (then it
    # still waits for them to start, but goes on once under way: each giving way costs the
    # phones of the batch its whole work again, seconds in a busy hall)

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

        from pipeline.day import selfreport
        gave_way = 0  # times the batch at the head of the queue gave way
        while True:
            self.wake.wait(60)
            time.sleep(self.GATHER)  # the reports of the next moment join this one
            with self.lock:
                batch, self.waiting = self.waiting[:self.BATCH], self.waiting[self.BATCH:]
                if not self.waiting:
                    self.wake.clear()
            if not batch:
                continue
            try:  # the organizer's own writes go first: the phones' batch waits for them,
                # and one under way gives way to them (GIVE_WAY times: never starved)
                with db.background():
                    outcomes = selfreport.submit_many(database(), [r for r, _, _ in batch],
                                                      yielding=gave_way < self.GIVE_WAY)
            except db.GaveWay:  # rolled back: stored again first, after the organizer's work
                gave_way += 1
                with self.lock:
                    self.waiting[:0] = batch
                    self.wake.set()
                continue
            except Exception as exc:  # the database failed: every report of the batch says so
                outcomes = [exc] * len(batch)
            gave_way = 0
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


def report_page(language: str, title: str, status: int = 200, **parts) -> Response:
    """The report page (`site/report.html`): `lines` (said big), `note`, `sent` with
    its `again` link, `ask` (ask the referee), `form` (the levels to choose)."""
    extra = {"Retry-After": str(BusyError.retry_after)} if status == 503 else {}
    page = render("site/report.html", title=title, up="", w=REPORT_WORDS[language],
                  nav={"ranking": "#", "pairings": "#", "teams": "#", "style": "/m/style.css"},
                  words={"ranking": "", "pairings": "", "teams": ""},
                  lang="en" if language == "en" else "zh-CN", **parts)
    return HTMLResponse(page, status_code=status,
                        headers={**HEADERS, "Cache-Control": "no-store", **extra})


async def report_route(request: Request) -> Response:
    """GET: the form of a table's (or a side's) signed link; POST: the report, stored
    through the self-report logic (both sides confirm; a disagreement waits)."""
    import time
    from urllib.parse import parse_qs

    from pipeline.base.levels import format_level, parse_level
    from pipeline.day import selfreport

    language = page_lang(request)
    words = REPORT_WORDS[language]
    params = request.query_params
    try:
        event_id = params.get("event", "")[:64]
        round_no, table_no = int(params.get("round", "0")), int(params.get("table", "0"))
        side = params.get("side") or None
        signature = params.get("sig", "")[:200]
        ew, ns, decided, by_deal, decider = await run_in_threadpool(
            _check_link, event_id, round_no, table_no, signature, side)
    except BusyError:
        return report_page(language, words["busy"], 503)
    except selfreport.LinkClosed as exc:  # genuine, but its round or event is over
        return report_page(language, words["closed"], 410, note=str(exc), ask=True)
    except (PaisaiError, ValueError):
        return report_page(language, words["bad_link"], 403, ask=True)
    title = words["title"].format(r=round_no, n=table_no)
    if decided is not None:  # reopening the link shows what is stored, never a blank form
        return report_page(language, title, 409 if request.method == "POST" else 200,
                            lines=[words["decided"], f"{ew} – {ns or ''}: {decided}"])
    if request.method == "POST":
        body = await form_body(request)
        if body is None:
            return report_page(language, words["too_long"], 413)
        now = time.monotonic()
        address = request.client.host if request.client else ""
        link = f"{event_id}:{round_no}:{table_no}:{side}"
        refused = turned_away(LIMITS, link, PER_LINK, address, now, coded=bool(side))
        if refused:
            return report_page(language, words[refused], 429)
        form = parse_qs(body.decode("utf-8", "replace"))
        typed = {k: form.get(k, [""])[0][:8] for k in ("ew_level", "ns_level", "decider")}
        try:
            outcome = await REPORTS.submit(selfreport.Report(
                event_id, round_no, table_no, signature, typed["ew_level"], typed["ns_level"],
                side, form.get("code", [""])[0][:8], typed["decider"] or None))
        except BusyError:
            return report_page(language, words["busy"], 503)
        except selfreport.Decided as exc:  # decided meanwhile: said, no form
            return report_page(language, title, 409, lines=[str(exc)])
        except PaisaiError as exc:
            if isinstance(exc, selfreport.WrongCode):  # counted: guessing the code is slow
                wrong_code(LIMITS, link, now)
            # which field and why, the form as it was filled (never "1 error", never cleared)
            return report_page(language, title, 400, note=explained(exc),
                                form=_report_form(ew, ns, format_level, side, decider, typed))
        said = words["sent"] if side is None else words[outcome]
        sent = (f"{words['you_sent']}：{words['ew']} {ew} {form.get('ew_level', [''])[0][:8]} – "
                f"{words['ns']} {ns or ''} {form.get('ns_level', [''])[0][:8]}")
        chosen = typed["decider"] if typed["decider"] in ("ew", "ns") else None
        if decider and chosen and parse_level(typed["ew_level"]) == \
                parse_level(typed["ns_level"]):  # the level game's decider, as it was chosen
            sent += f"；{decider[1] if language == 'zh' else decider[2]}：{words[chosen]}"
        return report_page(language, title, lines=[said], sent=sent, again=str(request.url))
    sheet_url = None
    if side and by_deal:  # a side's link: the table's deal-by-deal sheet (Guandan)
        sheet_url = "/t?" + str(request.url.query)
    return report_page(language, title, form=_report_form(ew, ns, format_level, side, decider),
                        **({"sheet_url": sheet_url} if sheet_url else {}))


def _check_link(event_id: str, round_no: int, table_no: int, signature: str,
                side: str | None) -> tuple[str, str, str | None, bool, tuple | None]:
    """The table's teams, its stored result in words when it is decided (else None),
    whether its sides may keep a deal-by-deal sheet (a Guandan event), and the field that
    decides a level game when the preset has one (`selfreport.decider_field`)."""
    from pipeline.day import selfreport
    with db.reading(database(), HALL_WAIT) as con:
        ew, ns = selfreport.check_link(con, event_id, round_no, table_no, signature, side)
        ruleset = events.load(con, event_id).ruleset
        by_deal = ruleset.discipline == "guandan"
        decider = selfreport.decider_field(ruleset.scoring["equal_levels"])
        decided = selfreport.stored_result(con, event_id, round_no, table_no)
        names = dict(db.rows(con, "select team_no, team_name from teams where event_id = ? "
                                  "and team_no in (?, ?)", [event_id, ew, ns or ""]))
    # each side as the players know it: its number and its name
    ew, ns = (f"{team} {names.get(team) or ''}".strip() if team else team for team in (ew, ns))
    return (ew, ns, selfreport.describe_stored(decided) if decided else None, by_deal,
            decider)


def _report_form(ew: str, ns: str, format_level, side: str | None, decider: tuple | None,
                 typed: dict | None = None) -> dict:
    """What the form shows: the two teams, the levels to choose, the side's code field, the
    decider of a level game when the preset has one, and what was typed (a refused form)."""
    return {"ew": ew, "ns": ns or "", "side": side,
            "levels": [format_level(v) for v in range(2, 16)],
            "decider": decider[1:] if decider else None, "typed": typed or {}}


def explained(exc: PaisaiError) -> str:
    """A refusal as the phone says it: a results sheet's problems each with its column and
    reason (a level game without its decider, a level out of range), never only a count."""
    from pipeline.base.errors import SheetErrors

    if not isinstance(exc, SheetErrors):
        return str(exc)
    return "；".join(f"{p.column}：{p.message}" if p.column else p.message
                    for p in exc.problems) or str(exc)
