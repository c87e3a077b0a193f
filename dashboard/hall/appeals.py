"""A team leader's appeal by the team's signed link (/a, issue 43): plain HTML from a template
(every name and number escaped), 360 px. GET: the team's appeals and where each stands
(waiting with its votes, upheld, rejected), and the rulings the team may still appeal, each
with its deadline; POST (with the team's code): the appeal, refused when it comes late —
with the time it came — or while the ruling has one waiting. Answers with a redirect."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from dashboard.hall.limits import LIMITS, MAX_BODY, turned_away, wrong_code
from dashboard.hall.officials import (
    WORDS,
    page,
    read_form,
    ruling_word,
    said_in,
    same_origin,
)
from dashboard.hall.respond import HEADERS, database, page_lang
from dashboard.hall.sheetdoor import number
from pipeline.base import db, events
from pipeline.base.errors import BusyError, PaisaiError
from pipeline.officials.ladder import local_time
from pipeline.publishing.templating import render

PER_TEAM = 10  # appeal forms a minute from one team's link


async def appeal_route(request: Request) -> Response:
    """/a: a team leader's appeal by the team's signed link and its code (GET: the rulings
    the team may appeal and their deadline; POST: the appeal, refused when late)."""
    from pipeline.officials import appeals, links

    lang = page_lang(request)
    w = WORDS[lang]
    params = request.query_params
    # the team's number as registered (no length limit there): the signature decides
    event_id, team, sig = params.get("event", "")[:64], params.get("team", "")[:MAX_BODY], \
        params.get("sig", "")[:40]

    def view() -> dict:
        with db.reading(database()) as con:
            links.check(con, event_id, team, sig)
            event = events.load(con, event_id)
            found = appeals.confirmed_for_appeal(con, event_id, team)
            minutes = event.ruleset.officials["appeal_minutes"]
            for r in found:
                r["said"] = ruling_word(r["kind"], lang)
                r["deadline_said"] = _deadline(appeals.appeal_deadline(con, event, r),
                                               minutes, w)
            outcomes = appeals.of_team(con, event_id, team)
            for o in outcomes:
                o["said"] = ruling_word(o["kind"], lang)
                o["outcome"] = w[f"appeal_{o['status']}"].format(u=o["uphold"],
                                                                  d=o["dismiss"])
        return {"event": event_id, "event_name": event.name, "found": found,
                "outcomes": outcomes}

    try:
        seen = await run_in_threadpool(view)
    except BusyError:
        return page(request, 503, message=w["busy"])
    except (PaisaiError, ValueError):
        return page(request, 403, message=said_in("链接无效 this link is not valid", lang))
    message = params.get("said", "")[:300]
    if request.method == "POST":
        said = await _filed(request, event_id, team, sig, lang)
        kept = {"event": event_id, "team": team, "sig": sig, "said": said}
        back = f"/a?{urlencode(kept | ({'lang': 'en'} if lang == 'en' else {}))}"
        return RedirectResponse(back, status_code=303,
                                headers={**HEADERS, "Cache-Control": "no-store"})
    return _appeal_page(request, w, team, seen, message)


async def _filed(request: Request, event_id: str, team: str, sig: str, lang: str) -> str:
    """The appeal form of a genuine link taken, or why not (every answer a redirect): the
    link's and the address's limits, and the team's wrong codes as on /t and /r (five in ten
    minutes, then the link waits)."""
    import time

    from pipeline.day import selfreport
    from pipeline.officials import appeals, links

    w = WORDS[lang]
    form = await read_form(request)
    if form is None:
        return w["too_long"]
    if not same_origin(request):
        return w["cross_site"]
    link, now = f"a:{event_id}:{team}", time.monotonic()
    refused = turned_away(LIMITS, link, PER_TEAM, request.client.host if request.client
                          else "", now, coded=True)
    if refused:
        return w[refused]

    def file() -> str:
        with db.reading(database()) as con:
            links.check(con, event_id, team, sig, form.get("code", ""))
        found = appeals.appeal(database(), event_id,
                               number(form, "ruling", w["field_ruling"], 1, 999_999, lang=lang),
                               team, "link", None, form.get("fee", ""),
                               form.get("statement", ""))
        return f"#{found}: {w['filed']}"

    try:
        return await run_in_threadpool(file)
    except selfreport.WrongCode as exc:  # counted: guessing the code is slow
        wrong_code(LIMITS, link, now)
        return said_in(str(exc), lang)
    except BusyError:
        return w["busy"]
    except (PaisaiError, ValueError) as exc:
        return said_in(str(exc), lang)


def _deadline(at, minutes: float, w: dict) -> str:
    return w["deadline"].format(t=local_time(at)) if at else \
        w["after_game"].format(m=minutes)


def _appeal_page(request: Request, w: dict, team: str, seen: dict, message: str) -> Response:
    english = page_lang(request) == "en"
    body = render("site/appeal.html", title=f"{seen['event_name']} · "
                  f"{w['appeal_title'].format(team=team)}", up="", w=w,
                  lang="en" if english else "zh-CN",
                  nav={"ranking": f"/m/{quote(seen['event'])}/", "pairings": "#",
                       "teams": "#", "style": "/m/style.css"},
                  words={"ranking": "", "pairings": "", "teams": ""}, refresh=None,
                  message=message, found=seen["found"], outcomes=seen["outcomes"])
    return HTMLResponse(body, headers={**HEADERS, "Cache-Control": "no-store"})
