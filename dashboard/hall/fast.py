"""The phones' routes answered before the rest of the server (issue 53).

Every request of the hall's one process passed Streamlit's app, its middleware, ours (the
audience's, among others) and a router of some fifty routes, Streamlit's first, before a
plain route of ours. Measured with 1,000 phones on the plain pages (py-spy, the thread
holding the GIL), nine samples in ten were the event loop's — the one thread that also
carries the console's and the projectors' websockets — and a third of those that stack.
So, outermost:

- a page made for the event's version in memory (`pages.kept_page`: the ranking, the
  pairings and a team's search, a team's page, the bracket) is answered at once, on the
  event loop, with the same bytes and headers as its route;
- any other request for one of the plain routes (`dashboard.hall.routes`: a page to make,
  a report, a sheet, the API) goes to an app of those routes alone, with the same
  middleware it met before (path checks, security headers, the page's address,
  compression as Streamlit's), never through Streamlit's app and router;
- everything else — the Streamlit pages, their websockets and files, an address no plain
  route answers, a method a route refuses — goes on to the app unchanged.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import Match

from dashboard.hall.address import PageAddress
from dashboard.hall.pages import kept_page
from dashboard.headers import SecurityHeaders

PREFIXES = ("/m", "/r", "/t", "/k", "/o", "/a", "/api/")


def plain_app(routes: list) -> Starlette:
    """The plain routes with the middleware they meet inside the Streamlit app."""
    from streamlit.web.server.starlette.starlette_gzip_middleware import (
        SelectiveGZipMiddleware,
    )
    from streamlit.web.server.starlette.starlette_path_security_middleware import (
        PathSecurityMiddleware,
    )
    from streamlit.web.server.starlette.starlette_server_config import (
        GZIP_COMPRESSLEVEL,
        GZIP_MINIMUM_SIZE,
    )

    return Starlette(
        routes=routes,
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(PageAddress),
            Middleware(PathSecurityMiddleware),
            Middleware(
                SelectiveGZipMiddleware,
                minimum_size=GZIP_MINIMUM_SIZE,
                compresslevel=GZIP_COMPRESSLEVEL,
            ),
        ],
    )


def compressed_from() -> int:
    """The size from which the stack compresses an answer the client accepts gzip for."""
    from streamlit.web.server.starlette.starlette_server_config import GZIP_MINIMUM_SIZE

    return GZIP_MINIMUM_SIZE


class KeptPages:
    """ASGI middleware, outermost (see the module's docstring). `routes`: the plain routes
    to answer apart from `app` (none: only the pages kept are answered apart)."""

    def __init__(self, app, routes: list | None = None):
        self.app = app
        self.routes = routes or []
        self.plain = plain_app(self.routes) if self.routes else None
        self.smallest = compressed_from()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"].startswith(PREFIXES):
            if scope["method"] in ("GET", "HEAD") and scope["path"].startswith("/m/"):
                request = Request(scope)
                found = kept_page(request)
                if found is not None and (
                    found.headers.get("content-encoding") == "gzip"
                    or len(found.body) < self.smallest
                    or "gzip" not in request.headers.get("accept-encoding", "")
                ):
                    await found(scope, receive, send)
                    return
            if self.plain is not None and any(
                route.matches(scope)[0] is Match.FULL for route in self.routes
            ):
                await self.plain(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def __getattr__(self, name):  # the app's own attributes (Streamlit's `App`)
        if name == "app":
            raise AttributeError(name)
        return getattr(self.app, name)
