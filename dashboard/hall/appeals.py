"""A team leader's appeal by the team's signed link (/a, issue 43): plain HTML, 360 px. GET:
the rulings the team may appeal, each with its deadline; POST (with the team's code): the
appeal, refused when it comes late — with the time it came. Answers with a redirect."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from dashboard.hall.limits import LIMITS
from dashboard.hall.officials import WORDS, number, page, read_form, same_origin
from dashboard.hall.respond import HEADERS, database, page_lang
from pipeline.base import db, events
from pipeline.base.errors import BusyError, PaisaiError
from pipeline.officials.ladder import RULING_WORDS, local_time
from pipeline.publishing.templating import render


async def appeal_route(request: Request) -> Response:
    """/a: a team leader's appeal by the team's signed link and its code (GET: the rulings
    the team may appeal and their deadline; POST: the appeal, refused when late)."""
    from pipeline.day import selfreport
    from pipeline.officials import appeals, links

    w = WORDS[page_lang(request)]
    params = request.query_params
    event_id, team, sig = params.get("event", "")[:64], params.get("team", "")[:16], \
        params.get("sig", "")[:40]

    def view() -> dict:
        with db.reading(database()) as con:
            links.check(con, event_id, team, sig)
            event = events.load(con, event_id)
            found = appeals.confirmed_for_appeal(con, event_id, team)
            for r in found:
                r["said"] = RULING_WORDS[r["kind"]]
                r["deadline"] = appeals.appeal_deadline(con, event, r)
        return {"event": event_id, "event_name": event.name, "found": found,
                "minutes": event.ruleset.officials["appeal_minutes"]}

    try:
        seen = await run_in_threadpool(view)
    except BusyError:
        return page(request, 503, message=w["busy"])
    except (PaisaiError, ValueError):
        return page(request, 403, message="链接无效 this link is not valid")
    message = params.get("said", "")[:300]
    if request.method == "POST":
        form = await read_form(request)
        if form is None or not same_origin(request):
            return page(request, 400, message=w["too_many"])
        import time
        if not LIMITS.allow(f"appeal:{event_id}:{team}", 10, time.monotonic()):
            return page(request, 429, message=w["too_many"])

        def file() -> str:
            with db.reading(database()) as con:
                links.check(con, event_id, team, sig, form.get("code", ""))
            found = appeals.appeal(database(), event_id, number(form, "ruling"), team, "link",
                                   None, form.get("fee", ""), form.get("statement", ""))
            return f"#{found}: {w['filed']}"

        try:
            said = await run_in_threadpool(file)
        except selfreport.WrongCode as exc:
            said = str(exc)
        except BusyError:
            said = w["busy"]
        except (PaisaiError, ValueError) as exc:
            said = str(exc)
        back = f"/a?{urlencode({'event': event_id, 'team': team, 'sig': sig, 'said': said})}"
        return RedirectResponse(back, status_code=303,
                                headers={**HEADERS, "Cache-Control": "no-store"})
    rows = "".join(
        f"<option value='{r['ruling_id']}'>#{r['ruling_id']} {r['team_no']} {r['said']} · "
        f"{_deadline(r['deadline'], seen['minutes'])}</option>" for r in seen["found"])
    return _appeal_page(request, w, team, seen, rows, message)


def _deadline(at, minutes: float) -> str:
    return f"截止 deadline {local_time(at)}" if at else \
        f"赛后 {minutes:g} 分钟内 within {minutes:g} minutes after the game"


def _appeal_page(request: Request, w: dict, team: str, seen: dict, options: str,
                 message: str) -> Response:
    import html

    form = (f"<form method='post' class='card' data-testid='appeal'><label>{w['ruling']}<br>"
            f"<select name='ruling' required>{options}</select></label><br><br>"
            f"<label>{w['code']}<br><input name='code' inputmode='numeric' maxlength='4' "
            f"required></label><br><br><label>{w['fee']}<br><input name='fee' maxlength='20'>"
            f"</label><br><br><label>{w['statement']}<br><input name='statement' "
            f"maxlength='200'></label><br><br><button type='submit'>{w['file']}</button></form>"
            if options else f"<p class='card'>{w['no_rulings']}</p>")
    said = f"<p class='card' data-testid='message'>{html.escape(message)}</p>" if message else ""
    title = w["appeal_title"].format(team=team)
    body = render("site/page.html", title=f"{seen['event_name']} · {title}", up="",
                  lang="en" if page_lang(request) == "en" else "zh-CN",
                  nav={"ranking": f"/m/{quote(seen['event'])}/", "pairings": "#",
                       "teams": "#", "style": "/m/style.css"},
                  words={"ranking": "", "pairings": "", "teams": ""}, refresh=None)
    return HTMLResponse(body.replace("</body>", said + form + "</body>", 1),
                        headers={**HEADERS, "Cache-Control": "no-store"})

