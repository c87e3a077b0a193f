"""One ASGI app on one port (uvicorn): the Streamlit pages — the organizer's console and the
projector — and, beside them, plain routes for phones and programs (`dashboard.hall`),
which open no Streamlit session and no websocket. A phone that opens a public Streamlit page
gets its plain page, and the audience's Streamlit sessions are bounded (`dashboard.audience`).
A phone's page already made is answered before all of it (`dashboard.hall.fast`)."""

from contextlib import asynccontextmanager
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware
from streamlit import config

from dashboard.audience import Audience
from dashboard.hall import routes
from dashboard.hall.address import PageAddress
from dashboard.hall.fast import KeptPages
from dashboard.headers import SecurityHeaders
from pipeline.base import db
from pipeline.operations.serve import streamlit_options

for _key, _value in streamlit_options().items():  # uvicorn: no STREAMLIT_* variables are read
    config.set_option(_key, _value, "paisai")
db.share_readers()  # the console's, the projector's and the phones' reads share a connection


@asynccontextmanager
async def _warm(_app):
    """The console's modules imported at start, not on the organizer's first click — once
    Streamlit's runtime is running, so that their caches are made as the runtime's (imported
    before it, each cached function warned "No runtime found" at every start)."""
    # with the sign-in (argon2, the sessions) and what the console's first drawing asks:
    # the organizer's first view is not the one that imports them (issue 53)
    import dashboard.auth  # noqa: F401
    import dashboard.console  # noqa: F401
    import pipeline.officials.people  # noqa: F401
    import pipeline.operations.accounts  # noqa: F401
    import pipeline.publishing.remote  # noqa: F401

    yield


app = KeptPages(st.App(
    Path(__file__).parent / "app.py", routes=routes(),
    middleware=[Middleware(SecurityHeaders), Middleware(Audience), Middleware(PageAddress)],
    lifespan=_warm))
