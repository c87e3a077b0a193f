"""The phones' routes answered before the rest of the server (issue 53).

Every request of the hall's one process passed Streamlit's app, its middleware, ours (the
audience's, among others) and a router of some fifty routes, Streamlit's first, before a
plain route of ours. Measured with 1,000 phones on the plain pages (py-spy, the thread
holding the GIL), nine samples in ten were the event loop's — the one thread that also
carries the console's and the projectors' websockets — and a third of those that stack.
So a page made for the event's version in memory (`pages.kept_page`: the ranking, the
pairings and a team's search, a team's page, the bracket, the style sheet) is answered here,
outermost, on the event loop, with the same bytes and headers as its route: no stack, no
worker thread (in-process, a burst of 1,000 requests on a kept page: 1.4–1.6 ms of the
server's CPU each before, 0.6–1.1 ms after). Anything else — a page not made yet, a first
view, an unknown event, a form, the Streamlit pages — goes on to the app unchanged. (An app
of the plain routes alone, before Streamlit's app and router, was tried for the others and
measured no cheaper: 1.34–1.50 against 1.38–1.39 ms a request — most of it is the worker
thread and Starlette's own layers.)
"""

from __future__ import annotations

from starlette.requests import Request

from dashboard.hall.pages import kept_page


def compressed_from() -> int:
    """The size from which the stack compresses an answer the client accepts gzip for."""
    from streamlit.web.server.starlette.starlette_server_config import GZIP_MINIMUM_SIZE

    return GZIP_MINIMUM_SIZE


class KeptPages:
    """ASGI middleware, outermost: a phone's GET or HEAD of a page already made is answered
    from memory; every other request goes to `app` unchanged."""

    def __init__(self, app):
        self.app = app
        self.smallest = compressed_from()

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
                or len(found.body) < self.smallest
                or "gzip" not in request.headers.get("accept-encoding", "")
            ):
                await found(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def __getattr__(self, name):  # the app's own attributes (Streamlit's `App`)
        if name == "app":
            raise AttributeError(name)
        return getattr(self.app, name)
