"""The read-only JSON API, the same columns as the CLI's JSON:
/api/v1/events, /api/v1/events/{id}/standings?round=N, …/pairings?round=N, …/bracket"""

from __future__ import annotations

import hashlib
import json

from starlette.requests import Request
from starlette.responses import Response

from dashboard.hall.respond import HALL_WAIT, answer, busy, database, problem
from pipeline.base import db, events
from pipeline.base.errors import BusyError, PaisaiError
from pipeline.base.output import to_json
from pipeline.ranking import rounds, scoring

# -- the read-only JSON API: the same columns as the CLI's JSON -------------------------

def _json(request: Request, value) -> Response:
    data = (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)).encode()
    return answer(request, data, '"' + hashlib.sha256(data).hexdigest()[:20] + '"',
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
        return busy(request)
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
        return problem(request, 400, "none", f"round: {exc}")
    except BusyError:
        return busy(request)
    except PaisaiError as exc:
        return problem(request, 404, "no_event", str(exc))
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


def api_version(request: Request) -> Response:
    """/api/v1/events/{id}/version: {"version": …} — what the event's phone pages are kept by
    now (null before its first page is made), read from memory: the phones' process asks it
    at most twice a second per event (`dashboard.phones`). Never kept by a proxy."""
    from dashboard.hall.pages import pages_version
    from dashboard.hall.respond import HEADERS

    try:
        found = pages_version(request.path_params["event"])
    except BusyError:
        return busy(request)
    except PaisaiError as exc:
        return problem(request, 404, "no_event", str(exc))
    return Response(json.dumps({"version": found}), media_type="application/json",
                    headers={**HEADERS, "Cache-Control": "no-store"})


def api_bracket(request: Request) -> Response:
    from pipeline.tractor import stages

    return _api(request, lambda con, event, _: stages.view(con, event))
