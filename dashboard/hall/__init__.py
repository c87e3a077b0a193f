"""The phones' channel and the read-only API: plain Starlette routes served beside the
Streamlit pages by the same process (`dashboard.asgi`), with no Streamlit session and no
websocket. Pages are rendered from the static site's templates once per change of the event
(not per request), carry an ETag and a short Cache-Control, refresh themselves without
JavaScript (the sheets /t and /k with one script of ours), and fit a 360-px screen. The pages and the API only read; the signed links of
a table (/r, /t) are the only routes that change an event (a side acts with its code).

    /m/, /m                     the events in play (the only one: its ranking)
    /m/{event}/                 the ranking            (?lang=en)
    /m/{event}/pairings         the pairings, ?q= finds a table
    /m/{event}/teams/{team_no}  a team: its table, its games, why it sits where it does
    /m/{event}/bracket          a Tractor event's groups and knockout
    /r, /t                      a table's report, its deal-by-deal sheet (signed links)
    /k                          a Tractor match's deal-by-deal sheet (signed links)
    /t/mark, /k/mark            a sheet's mark: its open page reads itself again on a change
    /api/v1/events, /api/v1/events/{id}/standings?round=N, …/pairings?round=N, …/bracket
    /api/v1/events/{id}/version  what its phone pages are kept by (`dashboard.phones`)
"""

from starlette.routing import Route

from dashboard.hall.api import (
    api_bracket,
    api_events,
    api_pairings,
    api_standings,
    api_version,
)
from dashboard.hall.appeals import appeal_route
from dashboard.hall.matchsheet import match_mark_route, match_sheet_route
from dashboard.hall.officials import (
    act_route,
    login_route,
    logout_route,
    officials_route,
)
from dashboard.hall.pages import (
    bracket_page,
    events_page,
    pairings_page,
    ranking_page,
    style,
    team_page,
    without_slash,
)
from dashboard.hall.report import report_route
from dashboard.hall.session import console_session
from dashboard.hall.sheetdoor import follow_script
from dashboard.hall.tablesheet import table_mark_route, table_sheet_route


def routes() -> list[Route]:
    return [
        Route("/admin/session", console_session, methods=["POST", "DELETE"]),
        Route("/r", report_route, methods=["GET", "POST"]),
        Route("/t", table_sheet_route, methods=["GET", "POST"]),
        Route("/k", match_sheet_route, methods=["GET", "POST"]),
        Route("/t/mark", table_mark_route),
        Route("/k/mark", match_mark_route),
        Route("/t/follow.js", follow_script),
        Route("/o", officials_route),
        Route("/o/table", officials_route),
        Route("/o/login", login_route, methods=["POST"]),
        Route("/o/logout", logout_route, methods=["POST"]),
        Route("/o/act", act_route, methods=["POST"]),
        Route("/a", appeal_route, methods=["GET", "POST"]),
        Route("/m", events_page),  # the address the hall prints: never the Streamlit app
        Route("/m/", events_page),
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
        Route("/api/v1/events/{event}/version", api_version),
    ]
