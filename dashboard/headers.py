"""Security headers on every answer of the hall's server — pages, API answers, errors (404,
405, 503), redirects — whoever made it (a route of ours, Starlette's router, Streamlit):
no Referer ever leaves with a signed link, no content is sniffed into a script, and the
plain routes (phones, API, report form) allow no script and no framing at all."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders

PLAIN_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; form-action 'self'; base-uri 'none'; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}
EVERY_ANSWER = {"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}


def _plain(path: str) -> bool:
    return path == "/r" or path == "/m" or path.startswith(("/m/", "/api/", "/admin/session"))


class SecurityHeaders:
    """ASGI middleware: adds the headers an answer lacks (never replaces one it has)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        wanted = PLAIN_HEADERS if _plain(scope.get("path", "")) else EVERY_ANSWER

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in wanted.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, sending)
