"""Player identity across events: normalised name plus affiliation, and the organizer's
merge and split decisions (kept in `identity_overrides`, never by editing results).

>>> normalize_name(" 張 三 ") == normalize_name("张三"), normalize_name("ＬＩ Ｌｅｉ")
(True, 'lilei')
>>> auto_id("張三", "恒通貿易") == auto_id("张 三", "恒通贸易")
True
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import cache

import duckdb
import polars as pl

from pipeline import db
from pipeline.chinese import simplified
from pipeline.errors import UsageError

SLOTS = ("player1", "player2", "player3", "player4")


@cache
def normalize_name(name: str | None) -> str:
    """Traditional → simplified, full-width → half-width, no spaces, case folded."""
    if not name:
        return ""
    text = unicodedata.normalize("NFKC", name)
    text = simplified(text)
    return re.sub(r"\s+", "", text).casefold()


def auto_id(name: str, affiliation: str | None) -> str:
    key = f"{normalize_name(name)}|{normalize_name(affiliation)}"
    return "P" + hashlib.sha1(key.encode()).hexdigest()[:10]


def _split_id(player_id: str, event_id: str) -> str:
    return "P" + hashlib.sha1(f"{player_id}|split|{event_id}".encode()).hexdigest()[:10]


def _resolve(frame: pl.DataFrame, overrides: list[tuple]) -> pl.DataFrame:
    """Apply splits (per event), then merges (transitively), in the order they were made."""
    ids = frame["player_id"].to_list()
    events = frame["event_id"].to_list()
    merged: dict[str, str] = {}

    def root(x: str) -> str:
        while x in merged:
            x = merged[x]
        return x

    for kind, player_id, into_id, event_id in overrides:
        if kind == "split":
            ids = [_split_id(p, e) if root(p) == root(player_id) and e == event_id else p
                   for p, e in zip(ids, events, strict=True)]
        else:
            if root(player_id) != root(into_id):
                merged[root(player_id)] = root(into_id)
    return frame.with_columns(pl.Series("player_id", [root(p) for p in ids]))


def refresh(con: duckdb.DuckDBPyConnection, event_id: str | None = None) -> None:
    """Rebuild `player_map` from the registered teams (one event, or all)."""
    where = "where event_id = $e" if event_id else ""
    teams = db.frame(con, f"select event_id, team_no, player1, player2, player3, player4, "
                          f"affiliation from teams {where}", {"e": event_id} if event_id
                     else None)
    rows = []
    for r in teams.iter_rows(named=True):
        for slot, column in enumerate(SLOTS, start=1):
            name = (r[column] or "").strip()
            if name:
                rows.append((r["event_id"], r["team_no"], slot, name, r["affiliation"],
                             normalize_name(name), auto_id(name, r["affiliation"])))
    frame = pl.DataFrame(rows, schema=["event_id", "team_no", "slot", "name", "affiliation",
                                       "norm_name", "player_id"], orient="row")
    overrides = db.rows(con, "select kind, player_id, into_id, event_id from "
                             "identity_overrides order by override_id")
    if frame.height:
        frame = _resolve(frame, overrides)
    con.execute(f"delete from player_map {where}", {"e": event_id} if event_id else None)
    if frame.height:
        con.register("new_map", frame)
        try:
            con.execute("insert into player_map select * from new_map")
        finally:
            con.unregister("new_map")


def _known(con, player_id: str) -> None:
    if not db.scalar(con, "select count(*) from player_map where player_id = ?", [player_id]):
        raise UsageError(f"没有这个选手编号 no such player id: {player_id}")


def merge(con: duckdb.DuckDBPyConnection, keep: str, other: str) -> None:
    """`other` is the same person as `keep`."""
    _known(con, keep)
    _known(con, other)
    con.execute("insert into identity_overrides (kind, player_id, into_id) values "
                "('merge', ?, ?)", [other, keep])
    refresh(con)


def split(con: duckdb.DuckDBPyConnection, player_id: str, event_id: str) -> None:
    """In `event_id`, `player_id` is somebody else."""
    if not db.scalar(con, "select count(*) from player_map where player_id = ? and "
                          "event_id = ?", [player_id, event_id]):
        raise UsageError(f"{player_id} 没有参加 {event_id} the player is not in that event")
    con.execute("insert into identity_overrides (kind, player_id, event_id) values "
                "('split', ?, ?)", [player_id, event_id])
    refresh(con)


def listing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every identity with its events, and likely duplicates (same name, other affiliation)."""
    return db.frame(con, db.sql("history_players") + " order by norm_name, player_id")


def find(con: duckdb.DuckDBPyConnection, name: str, affiliation: str | None) -> list[str]:
    found = db.rows(con, "select distinct player_id from player_map where norm_name = ? "
                         "and (? is null or affiliation = ?) order by 1",
                    [normalize_name(name), affiliation, affiliation])
    return [r[0] for r in found]
