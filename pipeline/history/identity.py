"""Who is who across events: one identity per person, whatever team, partner or unit.

A person is keyed by the association's member id when the registration gives one (会员号:
it decides), else by the folded name — NFKC, zero-width characters and spaces removed,
traditional → simplified, case folded — except that a surname simplification would turn
into another surname stays as written (於明 is not 于明). The unit is an attribute of each
appearance: a player who changes club, or plays with a partner from another club, stays one
person. Two namesakes in one event (the same folded name in two teams, no member ids) are
told apart by their units there and flagged for review; nothing is merged silently across
events beyond the name itself, and identities that look like two people (several units,
two events on one day) are flagged for the organizer. The organizer's decisions — merge
(many at once), unmerge (exactly undoes a merge), split (one event, or one team's
appearance) — are kept in `identity_overrides` with a reason, never by editing results.

>>> person_key(" 張 三 ") == person_key("张三"), person_key("ＬＩ Ｌｅｉ")
(True, 'lilei')
>>> person_key("王\\u200b伟") == person_key("王伟"), person_key("於明") == person_key("于明")
(True, False)
>>> association_id("張三", None) == association_id("张 三", None), association_id("x", " js-7 ")
(True, 'JS-7')
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
MEMBERS = ("member1", "member2", "member3", "member4")
SCHEME = 2  # the way ids are made: 1 name + unit, 2 member id or folded name
ZERO_WIDTH = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
# surnames that simplification would make into another surname: kept as written
DISTINCT_SURNAMES = frozenset("於乾")


@cache
def normalize_name(name: str | None) -> str:
    """Traditional → simplified, full-width → half-width, no spaces or zero-width
    characters, case folded (names of units too: 恒通貿易 = 恒通贸易)."""
    if not name:
        return ""
    text = ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", name))
    text = simplified(text)
    return re.sub(r"\s+", "", text).casefold()


@cache
def person_key(name: str | None) -> str:
    """A person's folded name: as `normalize_name`, the surname kept where simplifying it
    would make another surname."""
    text = re.sub(r"\s+", "", ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", name or "")))
    if text[:1] in DISTINCT_SURNAMES:
        return text[0] + normalize_name(text[1:])
    return normalize_name(text)


def member_key(member_id: str | None) -> str:
    return ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", member_id or "")).strip().upper()


def association_id(name: str, member_id: str | None, namesake_of: str | None = None) -> str:
    """The association id: the member id when given, else one made from the folded name
    (and, for a namesake in an event, the unit that tells them apart)."""
    if member_key(member_id):
        return member_key(member_id)
    key = person_key(name) + (f"|{normalize_name(namesake_of)}" if namesake_of else "")
    return "P" + hashlib.sha1(key.encode()).hexdigest()[:10]


def _split_id(player_id: str, event_id: str, team_no: str | None) -> str:
    where = f"{event_id}|{team_no}" if team_no else event_id
    return "P" + hashlib.sha1(f"{player_id}|split|{where}".encode()).hexdigest()[:10]


def _resolve(frame: pl.DataFrame, overrides: list[tuple]) -> pl.DataFrame:
    """Apply splits (per event, or per team of an event), then merges (transitively), in the
    order they were made; undone merges are left out."""
    ids = frame["player_id"].to_list()
    events = frame["event_id"].to_list()
    teams = frame["team_no"].to_list()
    merged: dict[str, str] = {}

    def root(x: str) -> str:
        while x in merged:
            x = merged[x]
        return x

    for kind, player_id, into_id, event_id, team_no in overrides:
        if kind == "split":
            ids = [_split_id(p, e, team_no) if root(p) == root(player_id) and e == event_id
                   and (team_no is None or t == team_no) else p
                   for p, e, t in zip(ids, events, teams, strict=True)]
        elif root(player_id) != root(into_id):
            merged[root(player_id)] = root(into_id)
    return frame.with_columns(pl.Series("player_id", [root(p) for p in ids]))


def _each(values: pl.Series, fold, known: dict[str, str] | None = None) -> pl.Series:
    """`fold` of each value, computed once per distinct value not already `known`."""
    known = known or {}
    distinct = values.unique().to_list()
    return values.replace_strict({v: known[v] if v in known else fold(v) for v in distinct},
                                 return_dtype=pl.String)


def _name_id(norm_name: str) -> str:
    return "P" + hashlib.sha1(norm_name.encode()).hexdigest()[:10]


def appearances(teams: pl.DataFrame, folded: dict[str, str] | None = None) -> pl.DataFrame:
    """One row per player slot of the registered teams, with the id the registration gives:
    the member id, or the folded name. Namesakes in one event (the same folded name in two
    teams, no member ids): the one of the unit that name has played for elsewhere keeps the
    name's id; the others get an id of their own, made with their unit. `folded`: names
    whose person_key is known already (the player map's)."""
    numbered = teams.with_row_index("row")
    frame = pl.concat([
        numbered.select("row", "event_id", "team_no", pl.lit(slot).alias("slot"),
                        pl.col(column).str.replace_all(ZERO_WIDTH.pattern, "")
                        .str.strip_chars().alias("name"),  # as written, less what no one
                        pl.col("affiliation"),  # can see (a zero-width space from a chat)
                        pl.col(member).fill_null("").alias("member_id"))
        for slot, (column, member) in enumerate(zip(SLOTS, MEMBERS, strict=True), start=1)
    ]).filter(pl.col("name").is_not_null() & (pl.col("name") != "")).sort("row", "slot")
    frame = frame.with_columns(
        _each(frame["name"], person_key, folded).alias("norm_name"),
        _each(frame["member_id"], member_key).replace("", None).alias("member_id"),
        _each(frame["affiliation"].fill_null(""), normalize_name).alias("unit")).select(
        "event_id", "team_no", pl.col("slot").cast(pl.Int64), "name", "affiliation",
        "norm_name", "member_id", "unit")
    if frame.is_empty():
        return frame.drop("unit").with_columns(pl.lit(None, pl.String).alias("player_id"))
    by_name = frame.filter(pl.col("member_id").is_null())
    clash = by_name.group_by("event_id", "norm_name").agg(
        pl.col("team_no").n_unique().alias("teams")).filter(pl.col("teams") > 1)
    clashing = by_name.join(clash, on=["event_id", "norm_name"], how="semi")
    home = by_name.join(clash, on=["event_id", "norm_name"], how="anti").filter(
        pl.col("unit") != "").group_by("norm_name", "unit").len().sort(
        "len", "unit", descending=[True, False]).group_by("norm_name", maintain_order=True).first()
    apart = clashing.join(home.select("norm_name", pl.col("unit").alias("home")),
                          on="norm_name", how="left").filter(
        pl.col("home").is_null() | (pl.col("unit") != pl.col("home"))).select(
        "event_id", "team_no", "slot", pl.lit(True).alias("apart"))
    frame = frame.join(apart, on=["event_id", "team_no", "slot"], how="left",
                       maintain_order="left")
    separated = frame.filter(pl.col("apart").fill_null(False) & pl.col("member_id").is_null())
    # namesakes of one unit in one event (two 王伟 of one company): two people, told apart
    # by their teams (issue 39: never refused, flagged for review)
    one_unit = separated.group_by("event_id", "norm_name", "unit").agg(
        pl.col("team_no").n_unique().alias("teams")).filter(pl.col("teams") > 1)
    shared = {(e, n, u) for e, n, u, _ in one_unit.iter_rows()}
    by_unit = {(e, t, s): association_id(
                   name, None, f"{unit}|{e}/{t}" if (e, n, u) in shared
                   else unit if u else f"{e}/{t}")  # no unit: the team tells them apart
               for e, t, s, name, unit, n, u in separated.select(
                   "event_id", "team_no", "slot", "name", "affiliation", "norm_name",
                   "unit").iter_rows()}
    ids = pl.when(pl.col("member_id").is_not_null()).then(pl.col("member_id")).otherwise(
        _each(frame["norm_name"], _name_id))
    frame = frame.with_columns(ids.alias("player_id"))
    if by_unit:
        own = pl.DataFrame([(*k, v) for k, v in by_unit.items()], orient="row", schema={
            "event_id": pl.String, "team_no": pl.String, "slot": pl.Int64, "own": pl.String})
        frame = frame.join(own, on=["event_id", "team_no", "slot"], how="left",
                           maintain_order="left").with_columns(
            pl.coalesce("own", "player_id").alias("player_id")).drop("own")
    return frame.drop("apart", "unit")


def refresh(con: duckdb.DuckDBPyConnection) -> None:
    """Rebuild `player_map` from the registered teams. Every event's ids are made again, also
    when one event's registration changed: who keeps a name's id among namesakes depends on
    the name's other events."""
    teams = db.frame(con, f"select event_id, team_no, {', '.join(SLOTS)}, "
                          f"{', '.join(MEMBERS)}, affiliation from teams")
    folded = dict(db.rows(con, "select distinct name, norm_name from player_map")) \
        if is_current(con) else {}  # names folded before, by the same scheme
    frame = appearances(teams, folded)
    overrides = db.rows(con, "select kind, player_id, into_id, event_id, team_no from "
                             "identity_overrides where undone_at is null order by override_id")
    if frame.height:
        frame = _resolve(frame, overrides)
    columns = ["event_id", "team_no", "slot", "name", "affiliation", "norm_name", "player_id",
               "member_id"]
    if not frame.height:
        frame = pl.DataFrame(schema={c: pl.Int64 if c == "slot" else pl.String
                                     for c in columns})
    con.register("new_map", frame.select(columns))
    try:  # only the rows that differ are rewritten: a commit of a few rows, not the whole map
        con.execute(db.sql("player_map_changes"))
    finally:
        con.unregister("new_map")
    con.execute("delete from identity_scheme")
    con.execute("insert into identity_scheme values (?)", [SCHEME])


def is_current(con: duckdb.DuckDBPyConnection) -> bool:
    """The player map was built by this version's rules (else `refresh` rebuilds it)."""
    return db.scalar(con, "select max(version) from identity_scheme") == SCHEME or not \
        db.scalar(con, "select count(*) from teams")


def _known(con, player_id: str) -> None:
    if not db.scalar(con, "select count(*) from player_map where player_id = ?", [player_id]):
        raise UsageError(f"没有这个选手编号 no such player id: {player_id}")


def _logged(con, action: str, detail: str, reason: str | None) -> None:
    from pipeline import oplog

    oplog.write_on(con, None, action, detail + (f" · 原因 reason: {reason}" if reason else ""))


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
    refresh(con)
    _logged(con, "players merge", f"{', '.join(others)} → {keep}", reason)


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
    refresh(con)
    _logged(con, "players unmerge", f"{other} ← {into_id}", reason)
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
    refresh(con)
    _logged(con, "players split", f"{player_id} in {event_id}"
            + (f" team {team_no}" if team_no else ""), reason)


def listing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every identity with its events, units, and what to review: likely duplicates (the
    same folded name under another id) and signs of two people under one id."""
    found = db.frame(con, db.sql("history_players") + " order by norm_name, player_id")
    units = [len({normalize_name(u) for u in (listed or [])})
             for listed in found["unit_list"].to_list()]
    review = []
    for row, unit_count in zip(found.iter_rows(named=True), units, strict=True):
        notes = []
        if row["likely_duplicates"]:
            notes.append(f"同名 namesakes: {row['likely_duplicates']}")
        if row["same_day_events"]:
            notes.append(f"同一天两场赛事 two events on {row['same_day_events']}")
        if unit_count > 1 and not row["member_id"]:
            notes.append("多个单位 several units")
        review.append("；".join(notes))
    return found.drop("unit_list").with_columns(pl.Series("review", review, pl.String))


def find(con: duckdb.DuckDBPyConnection, name: str, affiliation: str | None) -> list[str]:
    """The ids of a person by name (or association id), narrowed by a unit they played for."""
    found = db.rows(con, "select distinct player_id from player_map where (norm_name = ? or "
                         "upper(player_id) = ?) and (? is null or affiliation = ?) order by 1",
                    [person_key(name), member_key(name), affiliation, affiliation])
    return [r[0] for r in found]
