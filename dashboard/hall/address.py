"""The plain page being answered, for its navigation bar (issue 51): every plain page leads
back to the event's ranking and offers the other language, whatever route made it — set
here once per request instead of in every handler (`pipeline.publishing.templating.bar`)."""

from __future__ import annotations

from urllib.parse import parse_qsl

from pipeline.publishing.templating import PAGE_ADDRESS

PLAIN = ("/m/", "/r", "/t", "/k", "/o", "/a")


class PageAddress:
    """ASGI middleware: a plain page's path and query, for the templates it renders."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(PLAIN):
            await self.app(scope, receive, send)
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        token = PAGE_ADDRESS.set((path, query))
        try:
            await self.app(scope, receive, send)
        finally:
            PAGE_ADDRESS.reset(token)
