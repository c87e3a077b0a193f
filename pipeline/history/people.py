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


def _names(con: duckdb.DuckDBPyConnection, *player_ids: str) -> set[str]:
    """The folded names a decision about `player_ids` concerns (read again as evidence)."""
    return {n for n, in db.rows(con, "select distinct norm_name from player_map where "
                                     "player_id in (select unnest(?))", [list(player_ids)])}


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
    refresh(con, everything=True, names=_names(con, keep, *others))
    logged(con, "players merge", f"{', '.join(others)} → {keep}", reason)


def unmerge(con: duckdb.DuckDBPyConnection, other: str, reason: str | None = None) -> str:
    """Undo the organizer's last decision that made `other` what it is, exactly: the last
    merge of `other` into another identity (its appearances take their own id again), or
    the split that made `other` (its appearances go back to the id they were split from).
    Returns the id it had been merged into (split from)."""
    found = db.rows(con, "select override_id, into_id from identity_overrides where kind = "
                         "'merge' and player_id = ? and undone_at is null order by "
                         "override_id desc limit 1", [other])
    made = _splits_making(con, other)
    if made and (not found or max(o for o, _ in made) > found[0][0]):
        con.execute("update identity_overrides set undone_at = current_timestamp where "
                    "override_id in (select unnest(?))", [[o for o, _ in made]])
        source = made[0][1]
        refresh(con, everything=True, names=_names(con, other, source))
        logged(con, "players unmerge", f"{other} → {source}（撤销拆分 split undone）", reason)
        return source
    if not found:
        raise UsageError(f"{other} 没有被合并过 was never merged into another identity")
    override_id, into_id = found[0]
    con.execute("update identity_overrides set undone_at = current_timestamp where "
                "override_id = ?", [override_id])
    refresh(con, everything=True, names=_names(con, other, into_id))
    logged(con, "players unmerge", f"{other} ← {into_id}", reason)
    return into_id


def _splits_making(con: duckdb.DuckDBPyConnection, made: str) -> list[tuple[int, str]]:
    """(override_id, the id split from) of the standing split rows that made `made`: one
    decision (a split of several events shares its new id)."""
    from pipeline.history.identity import split_id

    aliases = dict(db.rows(con, "select alias, player_id from identity_aliases"))
    rows = [(o, p) for o, p, into, e, t in db.rows(
        con, "select override_id, player_id, into_id, event_id, team_no from "
             "identity_overrides where kind = 'split' and undone_at is null order by "
             "override_id") if (into or split_id(aliases.get(p, p), e, t)) == made]
    return rows


def split(con: duckdb.DuckDBPyConnection, player_id: str, event_id: str | None = None,
          team_no: str | None = None, reason: str | None = None, *,
          events: list[str] | None = None, partner: str | None = None) -> str:
    """In `event_id` (only in team `team_no` when given: two namesakes in one event),
    `player_id` is somebody else; with several `events`, or the events where he played with
    `partner` (of those events when both are given), somebody else in all of them: one new
    id, one decision (one line in `paisai log`, undone by `unmerge NEW_ID`). Returns the new
    id."""
    from pipeline.history.identity import split_id

    wanted = [e for e in [event_id, *(events or [])] if e]
    if team_no and len(wanted) != 1:
        raise UsageError("--team 只配一场赛事 --team goes with one --event")
    if not wanted and not partner:
        raise UsageError("paisai players split ID --event EVENT [--team TEAM] | --partner NAME")
    _known(con, player_id)
    for event in wanted:
        if not db.scalar(con, "select count(*) from player_map where player_id = ? and "
                              "event_id = ? and (? is null or team_no = ?)",
                         [player_id, event, team_no, team_no]):
            where = f"{event} {team_no}" if team_no else event
            raise UsageError(f"{player_id} 没有参加 {where} the player is not there")
    seats = db.rows(con, db.sql("player_split_seats"), {
        "p": player_id, "events": wanted or None, "team": team_no,
        "partner": person_key(partner) if partner else None})
    if not seats:
        raise UsageError(f"{player_id} 没有与 {partner} 同队的赛事 never played with {partner}"
                         + (f" in {', '.join(wanted)}" if wanted else ""))
    if len(seats) == 1 and not partner:  # one event: as it always was
        into = None
        made = split_id(player_id, seats[0][0], team_no)
    else:
        made = into = split_id(player_id, ",".join(e for e, _ in seats), None)
    for event, team in seats:
        con.execute("insert into identity_overrides (kind, player_id, into_id, event_id, "
                    "team_no, reason) values ('split', ?, ?, ?, ?, ?)",
                    [player_id, into, event, team if partner else team_no, reason])
    refresh(con, everything=True, names=_names(con, player_id))
    where = ", ".join(e + (f" team {t}" if partner or team_no else "") for e, t in seats)
    logged(con, "players split", f"{player_id} in {where}"
           + (f"（与 {partner} 同队 with {partner}）" if partner else "")
           + (f" → {made}" if into else ""), reason)
    return made


TWO = "同名两人？ two people with one name?"  # seen in one event, two member ids, or
# played at the same time without a partner in common
ONE = "一人两单位？ one person under two units?"  # a partner in common, or one after the other
SAME = "一人两号？ one person under two ids?"  # as ONE, but their units are the same: the unit
# does not part them (a name's seats the evidence read as two people; after the organizer's
# split, only when an event stored since shows a partner in common: asked again)

TWO_SEATS = "同场两座？ 一个编号同场坐了两个位置 one id, two seats in one event"  # one person
# cannot: a merge (the organizer's) that an event contradicts


def listing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every identity with its events, units, and what to review: the same folded name
    under another id — worded as two people with one name, or one person under two units
    (under two ids when they share a unit), as their seats say (history_namesakes.sql) —
    and signs of two people under one id. Two ids the organizer's split parted are not
    asked about each other (decided), until an event stored since shows a partner in common
    (new evidence: asked again whether they are one person)."""
    found = db.frame(con, db.sql("history_players") + " order by norm_name, player_id")
    units = [len({normalize_name(u) for u in (listed or [])})
             for listed in found["unit_list"].to_list()]
    homes = {player_id: {normalize_name(u) for u in (listed or [])} for player_id, listed
             in found.select("player_id", "unit_list").iter_rows()}
    words: dict[str, dict[str, list[str]]] = {}
    for player_id, other, certain, shared, overlap, decided, contradicted in db.rows(
            con, db.sql("history_namesakes")):
        if decided and not contradicted:
            continue  # the organizer said two people; nothing new says otherwise
        kind = ONE if contradicted else TWO if certain or (overlap and not shared) else ONE
        if kind == ONE and homes.get(player_id, set()) & homes.get(other, set()):
            kind = SAME
        words.setdefault(player_id, {}).setdefault(kind, []).append(other)
    review = []
    for row, unit_count in zip(found.iter_rows(named=True), units, strict=True):
        notes = [f"{kind}: {', '.join(others)}"
                 for kind, others in sorted(words.get(row["player_id"], {}).items())]
        if row["two_seat_events"]:
            notes.append(f"{TWO_SEATS}: {row['two_seat_events']}")
        if row["same_day_events"]:
            notes.append(f"同一天两场赛事 two events on {row['same_day_events']}")
        if unit_count > 1 and not row["member_id"]:  # homes, not a partner's unit now and then
            notes.append("多个单位 several units")
        if row["notes"]:
            notes.append(row["notes"])
        review.append("；".join(notes))
    return found.drop("unit_list", "notes", "two_seat_events").with_columns(pl.Series("review", review, pl.String))


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
