"""A team's signed link for its appeals (`/a`), with the 4-digit code printed beside it:
handed to the team leader by the desk (`paisai officials links`), like a table's slip."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from urllib.parse import quote

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.errors import UsageError
from pipeline.base.order import natural_key
from pipeline.day import selfreport


def sign(secret: str, event_id: str, team_no: str) -> str:
    message = f"{event_id}:appeal:{team_no}"
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()[:20]


def code(secret: str, event_id: str, team_no: str) -> str:
    digest = hmac.new(secret.encode(), f"code:{event_id}:appeal:{team_no}".encode(),
                      hashlib.sha256).digest()
    return f"{int.from_bytes(digest[:4], 'big') % 10_000:04d}"


def listing(database: Path, event_id: str, base_url: str) -> pl.DataFrame:
    """Every team's appeal link and code, the teams in natural order (A2 before A10)."""
    with db.writing(database) as con:
        secret = selfreport.ensure_secret(con, event_id)
        teams = sorted(db.rows(con, "select team_no, team_name from teams where event_id = ?",
                               [event_id]), key=lambda row: natural_key(row[0]))
    base = f"{base_url.rstrip('/')}/a?event={quote(event_id)}"
    return pl.DataFrame([(t, n, f"{base}&team={quote(t)}&sig={sign(secret, event_id, t)}",
                          code(secret, event_id, t)) for t, n in teams],
                        schema=["team_no", "team_name", "appeal_url", "appeal_code"],
                        orient="row")


def check(con: duckdb.DuckDBPyConnection, event_id: str, team_no: str, signature: str,
          given_code: str | None = None) -> None:
    """The team's link is genuine (and, when given, its code right); raises otherwise."""
    secret = selfreport.event_secret(con, event_id)
    if not hmac.compare_digest(sign(secret, event_id, team_no), signature or ""):
        raise UsageError("链接无效 this link is not valid")
    if given_code is not None and not hmac.compare_digest(code(secret, event_id, team_no),
                                                          (given_code or "").strip()[:8]):
        raise selfreport.WrongCode("验证码不对 the code is wrong")
