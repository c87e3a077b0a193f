"""/admin/session: the console's one-time grant swapped for its HttpOnly cookie."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from dashboard.hall.respond import HEADERS


async def console_session(request: Request) -> Response:
    """POST: a login's one-time grant (dashboard.auth) swapped for the session's cookie —
    HttpOnly (no script reads it), SameSite=Strict, Secure over https; DELETE: the cookie
    cleared (the session itself is ended in the database by the logout)."""
    from dashboard.auth import COOKIE, GRANTS, session_hours

    secure = "; Secure" if request.url.scheme == "https" else ""
    if request.method == "DELETE":
        cookie = f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict{secure}"
    else:
        body = b""
        async for chunk in request.stream():  # a grant is 24 characters: never read more
            body += chunk
            if len(body) > 200:
                return Response(status_code=413, headers={**HEADERS, "Cache-Control":
                                                          "no-store"})
        token = GRANTS.take(body.decode("ascii", "replace").strip())
        if token is None:
            return Response(status_code=403, headers={**HEADERS, "Cache-Control": "no-store"})
        cookie = (f"{COOKIE}={token}; Path=/; Max-Age={int(session_hours() * 3600)}; "
                  f"HttpOnly; SameSite=Strict{secure}")
    return Response(status_code=204, headers={**HEADERS, "Cache-Control": "no-store",
                                              "Set-Cookie": cookie})
