"""The people as the organizer sees and corrects them: every identity with what to review
(listing), a person found by name, member id or an old id (find), and the organizer's
decisions — merge (many at once), unmerge (exactly undoes a merge), split (one event, or one
team's appearance) — kept in `identity_overrides` with a reason and the official log, then
applied by `identity.refresh`."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.errors import UsageError
from pipeline.history.identity import logged, member_key, normalize_name, person_key, refresh


def _known(con, player_id: str) -> None:
    if not db.scalar(con, "select count(*) from player_map where player_id = ?", [player_id]):
        raise UsageError(f"没有这个选手编号 no such player id: {player_id}")


def merge(con: duckdb.DuckDBPyConnection, keep: str, others: list[str],
          reason: str | None = None) -> None:
    """Each of `others` is the same person as `keep`."""
    if not others:
        raise UsageError("paisai players merge KEEP OTHER [OTHER …]")
    for player_id in (keep, *others):
        _known(con, player_id)
    for other in others:
        if other == keep:
            raise UsageError(f"{other} 不能与自己合并 cannot be merged into itself")
        con.execute("insert into identity_overrides (kind, player_id, into_id, reason) values "
                    "('merge', ?, ?, ?)", [other, keep, reason])
    refresh(con, everything=True)
    logged(con, "players merge", f"{', '.join(others)} → {keep}", reason)


def unmerge(con: duckdb.DuckDBPyConnection, other: str, reason: str | None = None) -> str:
    """Undo the last merge of `other` into another identity, exactly: its appearances take
    their own id again. Returns the id it had been merged into."""
    found = db.rows(con, "select override_id, into_id from identity_overrides where kind = "
                         "'merge' and player_id = ? and undone_at is null order by "
                         "override_id desc limit 1", [other])
    if not found:
        raise UsageError(f"{other} 没有被合并过 was never merged into another identity")
    override_id, into_id = found[0]
    con.execute("update identity_overrides set undone_at = current_timestamp where "
                "override_id = ?", [override_id])
    refresh(con, everything=True)
    logged(con, "players unmerge", f"{other} ← {into_id}", reason)
    return into_id


def split(con: duckdb.DuckDBPyConnection, player_id: str, event_id: str,
          team_no: str | None = None, reason: str | None = None) -> None:
    """In `event_id` (only in team `team_no` when given: two namesakes in one event),
    `player_id` is somebody else."""
    found = db.scalar(con, "select count(*) from player_map where player_id = ? and "
                           "event_id = ? and (? is null or team_no = ?)",
                      [player_id, event_id, team_no, team_no])
    if not found:
        where = f"{event_id} {team_no}" if team_no else event_id
        raise UsageError(f"{player_id} 没有参加 {where} the player is not there")
    con.execute("insert into identity_overrides (kind, player_id, event_id, team_no, reason) "
                "values ('split', ?, ?, ?, ?)", [player_id, event_id, team_no, reason])
    refresh(con, everything=True)
    logged(con, "players split", f"{player_id} in {event_id}"
            + (f" team {team_no}" if team_no else ""), reason)


TWO = "同名两人？ two people with one name?"  # seen in one event, two member ids, or
# played at the same time without a partner in common
ONE = "一人两单位？ one person under two units?"  # a partner in common, or one after the other
SAME = "一人两号？ one person under two ids?"  # as ONE, but their units are the same: the unit
# does not part them (after a split, or a name's seats the evidence read as two people)


def listing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every identity with its events, units, and what to review: the same folded name
    under another id — worded as two people with one name, or one person under two units
    (under two ids when they share a unit), as their seats say (history_namesakes.sql) —
    and signs of two people under one id."""
    found = db.frame(con, db.sql("history_players") + " order by norm_name, player_id")
    units = [len({normalize_name(u) for u in (listed or [])})
             for listed in found["unit_list"].to_list()]
    homes = {player_id: {normalize_name(u) for u in (listed or [])} for player_id, listed
             in found.select("player_id", "unit_list").iter_rows()}
    words: dict[str, dict[str, list[str]]] = {}
    for player_id, other, certain, shared, overlap in db.rows(con, db.sql("history_namesakes")):
        kind = TWO if certain or (overlap and not shared) else ONE
        if kind == ONE and homes.get(player_id, set()) & homes.get(other, set()):
            kind = SAME
        words.setdefault(player_id, {}).setdefault(kind, []).append(other)
    review = []
    for row, unit_count in zip(found.iter_rows(named=True), units, strict=True):
        notes = [f"{kind}: {', '.join(others)}"
                 for kind, others in sorted(words.get(row["player_id"], {}).items())]
        if row["same_day_events"]:
            notes.append(f"同一天两场赛事 two events on {row['same_day_events']}")
        if unit_count > 1 and not row["member_id"]:  # homes, not a partner's unit now and then
            notes.append("多个单位 several units")
        if row["notes"]:
            notes.append(row["notes"])
        review.append("；".join(notes))
    return found.drop("unit_list", "notes").with_columns(pl.Series("review", review, pl.String))


def find(con: duckdb.DuckDBPyConnection, name: str, affiliation: str | None) -> list[str]:
    """The ids of a person by name (or association id, or an id that became another's
    alias), narrowed by a unit they played for."""
    wanted = member_key(name)
    for _ in range(8):  # an alias of an alias: followed to the id in use
        wanted = db.scalar(con, "select player_id from identity_aliases where upper(alias) = "
                                "?", [wanted.upper()]) or wanted
    found = db.rows(con, "select distinct player_id from player_map where (norm_name = ? or "
                         "upper(player_id) = ?) and (? is null or affiliation = ?) order by 1",
                    [person_key(name), wanted.upper(), affiliation, affiliation])
    return [r[0] for r in found]
