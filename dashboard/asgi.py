"""One ASGI app on one port (uvicorn): the Streamlit pages — the organizer's console and the
projector — and, beside them, plain routes for phones and programs (`dashboard.phones`),
which open no Streamlit session and no websocket."""

from pathlib import Path

import streamlit as st

from dashboard.phones import routes

app = st.App(Path(__file__).parent / "app.py", routes=routes())
