"""The phones' pages (plain HTML from the static site's templates, 360 px, no
JavaScript):

    /m/{event}/                 the ranking            (?lang=en)
    /m/{event}/pairings         the pairings, ?q= finds a table
    /m/{event}/teams/{team_no}  a team: its table, its games, why it sits where it does
    /m/{event}/bracket          a Tractor event's groups and knockout"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import replace

import polars as pl
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from dashboard.hall.cache import (
    PAGES,
    PLAYING,
    SEARCHES,
    SEATED_COLUMNS,
    SNAPSHOTS,
    TEAM_SEARCHES,
    NotMade,
    Snapshot,
    current,
    in_play,
    seated,
)
from dashboard.hall.respond import (
    HALL_WAIT,
    HEADERS,
    HEADERS_EN,
    PHONE_COLUMNS,
    PHONE_CSS,
    REFRESH_SECONDS,
    TRACTOR_PHONE_COLUMNS,
    WORDS,
    answer,
    busy,
    database,
    headers_for,
    nav,
    page_lang,
    problem,
)
from pipeline.base import db, events
from pipeline.base.errors import BusyError, PaisaiError
from pipeline.base.names import team_number
from pipeline.base.output import HEADERS_ZH, cell_text
from pipeline.publishing.publish import RESULT_COLUMNS
from pipeline.publishing.templating import environment, render, table_rows


def _event_page(request: Request, page: str, make, reads: tuple[str, ...] = (),
                live: bool = False) -> Response:
    """A phone page of one event: rendered once per version, or a 404 in the page's words
    (a 503 while another process holds the database and the event is not in memory yet).
    `make(event, snapshot, language)` returns the page's text; `reads` are the query
    parameters it reads besides `lang` — the page is kept by those alone, any other
    parameter is ignored (a made-up query string is the same page, never a new render).
    A `live` page shows the tables' own sheets too: it is kept per version of those, and
    `make` is given the tables in play as `seen.in_play`."""
    event_id = request.path_params["event"][:64]
    try:
        event, seen, current_version, memo, key = _kept_as(
            request, page, event_id, request.path_params.get("team", ""), reads, live)
    except BusyError:
        return busy(request)
    except PaisaiError:
        return problem(request, 404, "no_event", event_id)

    def made() -> tuple[bytes, str, bytes | None]:
        shown = replace(seen, in_play=in_play(event, current_version)) if live else seen
        data = make(event, shown, page_lang(request)).encode("utf-8")
        packed = gzip.compress(data, 6, mtime=0) if len(data) > 1024 else None
        return data, '"' + hashlib.sha256(data).hexdigest()[:20] + '"', packed

    try:
        data, etag, packed = memo.get(key, made)
    except BusyError:
        return busy(request)
    except LookupError:
        return problem(request, 404, "no_team", request.path_params.get("team", ""))
    return answer(request, data, etag, "text/html; charset=utf-8", packed)


def _kept_as(request: Request, page: str, event_id: str, team: str, reads: tuple[str, ...],
             live: bool, wait: bool = True):
    """(event, snapshot, version, memo, key): where the page asked for is kept. With `wait`
    false, NotMade when the event's version or snapshot is not in memory yet."""
    event, current_version = current(event_id, wait)
    seen = SNAPSHOTS.get(event, current_version, wait)
    extra = tuple((name, request.query_params.get(name, "").strip()[:40]) for name in reads)
    # kept by the snapshot it is made of — a live page by its own table's sheet too: keyed
    # by the event's newest version alone, a page made from the snapshot the pages go on
    # showing while the next one is made would be kept past the change (issue 51); keyed by
    # the event's version, a thousand teams' pages were made again at every report of any
    # table (issue 53)
    key = (page, event_id, seen.version, _own_sheet(event, seen, current_version, team, wait)
           if live else "", page_lang(request), extra, team)
    memo = SEARCHES if any(value for _, value in extra) else PAGES
    team_search = _team_search(seen, extra)
    if team_search is not None:  # one of the event's teams: its page kept for the version
        key, memo = (*key[:5], (("q", team_search),), key[6]), TEAM_SEARCHES
    return event, seen, current_version, memo, key


# the pages a phone may be answered from memory (`kept_page`): path → (page, reads, live)
KEPT = {"": ("ranking", (), False), "pairings": ("pairings", ("q",), False),
        "bracket": ("bracket", (), False)}


def kept_page(request: Request) -> Response | None:
    """The answer to a phone page already made for the event's version in memory, or None
    (not made yet, not a page kept, anything else): what `dashboard.hall.fast` serves
    without the rest of the server's stack. The same answer as the page's route."""
    if request.scope["path"] == "/m/style.css":
        return style(request)
    parts = request.scope["path"].split("/")  # "", "m", event, page[, team]
    if len(parts) < 4 or parts[1] != "m" or not parts[2]:
        return None
    if len(parts) == 4 and parts[3] in KEPT:
        (page, reads, live), team = KEPT[parts[3]], ""
    elif len(parts) == 5 and parts[3] == "teams" and parts[4]:
        (page, reads, live), team = ("team", (), True), parts[4]
    else:
        return None
    try:
        _event, _seen, _version, memo, key = _kept_as(request, page, parts[2][:64], team,
                                                     reads, live, wait=False)
    except Exception:  # not in memory, no such event, busy: the route answers
        return None
    found = memo.peek(key)
    if found is None:
        return None
    data, etag, packed = found
    return answer(request, data, etag, "text/html; charset=utf-8", packed)


def _own_sheet(event, seen: Snapshot, current_version: str, team: str, wait: bool) -> str:
    """How the team's table stands on its own sheet as of `current_version` (what a team's
    page shows of the tables in play), as a key: '' when it keeps none. NotMade when `wait`
    is false and the tables in play of that version are not read yet."""
    if wait:
        playing = in_play(event, current_version)
    else:
        playing = PLAYING.peek((event.event_id, current_version))
        if playing is None:
            raise NotMade(event.event_id)
    sheet = playing.get((seen.seats.get(team.strip().upper()) or {}).get("table"))
    return "" if sheet is None else repr(sorted(sheet.items()))


def pages_version(event_id: str) -> str | None:
    """What the event's pages are kept by now — the snapshot they show and the event's
    version (a live page's sheets) — from memory, for the phones' process (`dashboard.phones`:
    its pages are kept while this stays the same); None when the event's pages are not in
    memory yet (its first page makes them). PaisaiError for no such event."""
    from dashboard.hall.cache import NotMade

    try:
        event, current_version = current(event_id[:64], wait=False)
        seen = SNAPSHOTS.get(event, current_version, wait=False)
    except NotMade:
        return None
    return f"{seen.version}|{current_version}"


def _team_search(seen: Snapshot, extra: tuple) -> str | None:
    """The team number a search (?q=) names exactly, in the event's own spelling (`a1`,
    ` A1 ` and `A1` are one page), or None for any other search. The page found for a team
    number is the same whatever the spelling (`find_table` compares upper-cased; a full-width
    Ａ６６４ or A 664 is A664: `team_number`)."""
    wanted = team_number(dict(extra).get("q", ""))
    return wanted if wanted and wanted in seen.places else None


def _common(event, language: str) -> dict:
    return {"up": "", "nav": nav(event.event_id, language), "words": WORDS[language],
            "lang": "en" if language == "en" else "zh-CN", "refresh": REFRESH_SECONDS}


def _team_links(event_id: str, teams: list[str], language: str) -> dict[str, str]:
    from urllib.parse import quote

    suffix = "?lang=en" if language == "en" else ""
    return {t: f"/m/{event_id}/teams/{quote(t, safe='')}{suffix}" for t in teams}


def ranking_page(request: Request) -> Response:
    def make(event, seen: Snapshot, language: str) -> str:
        if event.ruleset.is_swiss:
            shown = seen.ranking.select(PHONE_COLUMNS)
            title = f"{event.name} · {WORDS[language]['after'].format(n=seen.after)}"
        else:  # a Tractor event: its group record and places, no round to speak of
            shown = seen.ranking.select(TRACTOR_PHONE_COLUMNS)
            title = f"{event.name} · {WORDS[language]['places']}"
        links = _team_links(event.event_id, shown["team_no"].to_list(), language)
        return render("site/index.html", title=title, headers=headers_for(shown, language),
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
        find = {"action": f"/m/{event.event_id}/pairings", "label": words["find"],
                "button": words["search"], "english": language == "en", "nothing": "",
                "query": query}  # kept in the box: the phone shows what it looked for
        title = f"{event.name} · {words['round'].format(n=latest)}"
        rows, found = seated(event, seen, words["bye"]), None
        if query:  # a team's own number (what a hall of phones asks): its rows, no frame work
            found = rows.by_team.get(team_number(query))
        if found:  # one page for every spelling of the number (kept per team): its own
            find["query"] = team_number(query)
            return render("site/pairings.html", title=title,
                          headers=[(HEADERS_EN if language == "en" else HEADERS_ZH).get(c, c)
                                   for c in SEATED_COLUMNS],
                          rows=Markup("".join(rows.html[i] for i in found)),  # noqa: S704
                          find=find, **common)  # (escaped cell by cell by `row_html`)
        if query:
            from pipeline.day.queries import find_table

            pairs = find_table(pairs, query)
        table = pairs.select(*SEATED_COLUMNS).with_columns(
            pl.col("ns_team").fill_null(words["bye"]))
        find["nothing"] = words["none"] if query and table.is_empty() else ""
        return render("site/pairings.html", title=title, headers=headers_for(table, language),
                      rows=table_rows(table), find=find, **common)

    return _event_page(request, "pairings", make, reads=("q",))


def team_page(request: Request) -> Response:
    team = request.path_params["team"].strip().upper()

    def make(event, seen: Snapshot, language: str) -> str:
        row = seen.places.get(team)
        if row is None:
            raise LookupError(team)
        page = environment().get_template("site/team.html")
        lang = "en" if language == "en" else "zh"
        return page.render(
            title=f"{team} {row['team_name'] or ''}", seat=seen.seats.get(team),
            live=seen.in_play.get((seen.seats.get(team) or {}).get("table")),
            latest=seen.latest, rank=row["rank"], match_points=cell_text(row["match_points"]),
            level_diff_score=cell_text(row["level_diff_score"]), results=seen.results[lang].get(team),
            headers=[(HEADERS_EN if language == "en" else HEADERS_ZH).get(c, c)
                     for c in RESULT_COLUMNS],
            why=seen.why[lang].get(team, ""), **_common(event, language))

    return _event_page(request, "team", make, live=True)


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


STYLE = PHONE_CSS.encode()
STYLE_TAG = '"' + hashlib.sha256(STYLE).hexdigest()[:20] + '"'


def style(request: Request) -> Response:
    return answer(request, STYLE, STYLE_TAG, "text/css; charset=utf-8")


def events_page(request: Request) -> Response:
    """/m/ and /m — the address `paisai dashboard --hall` prints: the only event in play
    opened at once (its ranking), or the events in play listed to choose from; never the
    Streamlit app (a blank page under the phones' no-script policy)."""
    from starlette.responses import HTMLResponse, RedirectResponse

    language = page_lang(request)
    suffix = "?lang=en" if language == "en" else ""
    try:
        with db.reading(database(), HALL_WAIT) as con:
            found = events.in_play(con)
    except BusyError:
        return busy(request)
    headers = {**HEADERS, "Cache-Control": "no-store"}  # a new event shows at once
    if len(found) == 1:
        return RedirectResponse(f"/m/{found[0][0]}/{suffix}", status_code=307, headers=headers)
    words = WORDS[language]
    body = render("site/events.html", title=words["events"], up="",
                  lang="en" if language == "en" else "zh-CN",
                  nav={"ranking": f"/m/{suffix}", "pairings": f"/m/{suffix}",
                       "teams": f"/m/{suffix}", "style": "/m/style.css"},
                  words={"ranking": words["ranking"], "pairings": "", "teams": ""},
                  events=[{"url": f"/m/{e}/{suffix}", "name": n, "id": e} for e, n in found],
                  none=words["no_events"], refresh=REFRESH_SECONDS)
    return HTMLResponse(body, headers=headers)


def without_slash(request: Request) -> Response:
    """/m/{event} → /m/{event}/ (never the Streamlit app: a session per phone)."""
    from starlette.responses import RedirectResponse

    event_id = request.path_params["event"]
    if not events.valid_id(event_id):
        return problem(request, 404, "no_event")
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"/m/{event_id}/{query}", status_code=308, headers=HEADERS)
