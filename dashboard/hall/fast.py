"""The phones' pages already made, answered before the rest of the server (issue 53).

Every request of the hall's one process passes Streamlit's app, its middleware (paths,
sessions, compression twice), ours (security headers, the audience, the page's address),
a router of some fifty routes and a worker thread for a plain route: measured with 1,000
phones on the plain pages (py-spy, the thread holding the GIL), that stack was a third of
the server's time, and the console's and the projector's websockets waited behind it on the
one event loop. A page made for the event's version in memory (`pages.kept_page`: the
ranking, the pairings and a team's search, a team's page, the bracket) is answered here, on
the event loop, with the same bytes and headers as its route; anything else — a page not
made yet, a first view, an unknown event, a form, the Streamlit pages — goes on to the app.
"""

from __future__ import annotations

from starlette.requests import Request

from dashboard.hall.pages import kept_page

# answers the stack after this would compress (Starlette's GZipMiddleware, from 500 bytes;
# our pages are kept compressed from 1,025 bytes): left to the stack, so that the answer
# is the same whichever way it goes
COMPRESSED_FROM = 500


class KeptPages:
    """ASGI middleware, outermost: a phone's GET or HEAD of a page already made is answered
    from memory; every other request goes to `app` unchanged."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if (
            scope["type"] == "http"
            and scope["method"] in ("GET", "HEAD")
            and scope["path"].startswith("/m/")
        ):
            request = Request(scope)
            found = kept_page(request)
            if found is not None and (
                found.headers.get("content-encoding") == "gzip"
                or len(found.body) < COMPRESSED_FROM
                or "gzip" not in request.headers.get("accept-encoding", "")
            ):
                await found(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def __getattr__(self, name):  # the app's own attributes (Streamlit's `App`)
        if name == "app":
            raise AttributeError(name)
        return getattr(self.app, name)
