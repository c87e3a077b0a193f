"""Who is who across events: one identity per person, whatever team, partner or unit.

A person is keyed by the association's member id when the registration gives one (会员号:
it decides), else by the folded name — NFKC, zero-width characters and spaces removed,
traditional → simplified, case folded — except that a surname simplification would turn
into another surname stays as written (於明 is not 于明). The unit is an attribute of each
appearance: a player who changes club, or plays with a partner from another club, stays one
person. Two namesakes in one event (the same folded name in two teams, no member ids) are
told apart by their units there and flagged for review; nothing is merged silently across
events beyond the name itself, and identities that look like two people (several units,
two events on one day) are flagged for the organizer. The organizer's decisions — merge,
unmerge, split (`pipeline.history.people`) — are kept in `identity_overrides` with a
reason, never by editing results, and applied by every refresh here.

About 370 lines, one algorithm read in order — the seats read (`seatreads`), member ids' claims, the
evidence weighed (`evidence`, pure), ids given from each person's own evidence and renamed
ones aliased — kept whole on purpose. (`identity_anchors`, scheme 3's, is no longer written.)

>>> association_id("張三", None) == association_id("张 三", None), association_id("x", " js-7 ")
(True, 'JS-7')
"""

from __future__ import annotations

import hashlib

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.names import member_key, normalize_name, person_key
from pipeline.history.review_marks import STAND_IN, TURNS
from pipeline.history.seatreads import (
    KEY,
    TEAMS,
    each,
    insert_rows,
    member_claims,
    seats,
    with_partners,
)

SCHEME = 4  # the way ids are made: 1 name + unit, 2 member id or folded name,
# 3 anchored ids, people told apart by evidence across events, 4 ids from each person's
# first evidence in date order (the same strings whatever the import order)


def association_id(name: str, member_id: str | None, namesake_of: str | None = None) -> str:
    """The association id: the member id when given, else one made from the folded name
    (and, for a namesake in an event, the unit that tells them apart)."""
    if member_key(member_id):
        return member_key(member_id)
    key = person_key(name) + (f"|{normalize_name(namesake_of)}" if namesake_of else "")
    return "P" + hashlib.sha1(key.encode()).hexdigest()[:10]


def split_id(player_id: str, event_id: str, team_no: str | None) -> str:
    """The id the organizer's split of `player_id` in `event_id` (that team) gives."""
    where = f"{event_id}|{team_no}" if team_no else event_id
    return "P" + hashlib.sha1(f"{player_id}|split|{where}".encode()).hexdigest()[:10]


def _resolve(frame: pl.DataFrame, overrides: list[tuple]) -> pl.DataFrame:
    """Apply splits (per event, or per team of an event; several events of one decision
    share the new id it names), then merges (transitively), in the order they were made;
    undone decisions are left out. `decided`: a seat some standing split took, or whose id
    a standing merge made (the organizer has looked at that person)."""
    ids = frame["player_id"].to_list()
    events = frame["event_id"].to_list()
    teams = frame["team_no"].to_list()
    taken = [False] * len(ids)
    merged: dict[str, str] = {}

    def root(x: str) -> str:
        while x in merged:
            x = merged[x]
        return x

    for kind, player_id, into_id, event_id, team_no in overrides:
        if kind == "split":
            for n, (p, e, t) in enumerate(zip(ids, events, teams, strict=True)):
                if root(p) == root(player_id) and e == event_id and team_no in (None, t):
                    ids[n] = into_id or split_id(p, e, team_no)
                    taken[n] = True
        elif root(player_id) != root(into_id):
            merged[root(player_id)] = root(into_id)
    made = {root(x) for x in merged}
    final = [root(p) for p in ids]
    return frame.with_columns(pl.Series("player_id", final), pl.Series(
        "decided", [t or p in made for t, p in zip(taken, final, strict=True)]))


def _name_id(norm_name: str) -> str:
    return "P" + hashlib.sha1(norm_name.encode()).hexdigest()[:10]


def appearances(teams: pl.DataFrame, folded: pl.DataFrame | None = None) -> pl.DataFrame:
    """Scheme 2's ids (read once, when a database made by an earlier version is opened: they
    become the anchors, so no id moves at the upgrade). One row per player slot, with the id
    the registration gave: the member id, or the folded name; namesakes in one event: the
    one of the unit that name has played for elsewhere kept the name's id, the others an id
    made with their unit. `folded`: names whose person_key is known already."""
    frame = seats(teams, folded)
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
    one_unit = separated.group_by("event_id", "norm_name", "unit").agg(
        pl.col("team_no").n_unique().alias("teams")).filter(pl.col("teams") > 1)
    shared = {(e, n, u) for e, n, u, _ in one_unit.iter_rows()}
    by_unit = {(e, t, s): association_id(
                   name, None, f"{unit}|{e}/{t}" if (e, n, u) in shared
                   else unit if u else f"{e}/{t}")
               for e, t, s, name, unit, n, u in separated.select(
                   "event_id", "team_no", "slot", "name", "affiliation", "norm_name",
                   "unit").iter_rows()}
    ids = pl.when(pl.col("member_id").is_not_null()).then(pl.col("member_id")).otherwise(
        each(frame["norm_name"], _name_id))
    frame = frame.with_columns(ids.alias("player_id"))
    if by_unit:
        own = pl.DataFrame([(*k, v) for k, v in by_unit.items()], orient="row", schema={
            "event_id": pl.String, "team_no": pl.String, "slot": pl.Int64, "own": pl.String})
        frame = frame.join(own, on=["event_id", "team_no", "slot"], how="left",
                           maintain_order="left").with_columns(
            pl.coalesce("own", "player_id").alias("player_id")).drop("own")
    return frame.drop("apart", "unit")


MAP_COLUMNS = ["event_id", "team_no", "slot", "name", "affiliation", "norm_name", "player_id",
               "member_id", "base_id", "visit", "note"]
def refresh(con: duckdb.DuckDBPyConnection, everything: bool = False,
            full: bool = False, names: set[str] | None = None) -> None:
    """Bring `player_map` up to the registered teams. The seats of the names whose seats
    changed are read again as evidence (`evidence.people`); each person found takes the id
    their own evidence gives (`_give_ids`: the same whatever the import order, a renamed id
    kept as an alias); the rows of every other name stay as they are. Then the
    organizer's merges and splits (`everything`: after one of those, every row again).

    Which names: those of the events whose registration changed since the map was last
    brought up (`identity_events`' fingerprints), with their partners' (a partner's seats
    say whether a unit is explained), and those whose member-id claims changed; only those
    events' teams and the teams two partners away are read (`changed_names`). `full`: every
    name from every team, as a first build does (a test checks the two agree). `names`: read
    again too (those an organizer's decision concerns: the questions it answered, or an
    undone one asked again, come from their evidence)."""
    current = is_current(con)
    part = None
    if current and not full and not db.scalar(
            con, "select count(*) from player_map where base_id is null"):
        from pipeline.history.changed_names import changed_part

        part = changed_part(con, set(names or ()))
        if part is None and not everything:
            return  # nothing changed
        frame, claims, names, fingerprints = part or (
            None, None, pl.Series("norm_name", [], pl.String), [])
        part = part or ()
    else:
        teams = db.frame(con, TEAMS)
        folded = db.frame(con, "select distinct name, norm_name from player_map") \
            if current else None  # names folded before, by the same scheme
        frame, claims = member_claims(seats(teams, folded))
        names = pl.Series("norm_name", sorted(set(frame["norm_name"].to_list())), pl.String)
        fingerprints = None
    affected = set(names.to_list())
    found = _identities(con, with_partners(frame, names), affected) if affected else \
        pl.DataFrame(schema={c: pl.Int64 if c == "slot" else pl.Boolean if c == "visit"
                             else pl.String for c in [*MAP_COLUMNS[:6], "member_id", "base_id",
                                                      "visit", "note"]})
    if claims is not None and claims.height and found.height:  # a member id under a name it never had: noted
        found = found.join(claims, on=KEY, how="left", maintain_order="left").with_columns(
            pl.coalesce("claim", "note").alias("note")).drop("claim")
    whole = found
    if everything and part is not None:  # every other name's rows, as they are, again
        kept = db.frame(con, "select event_id, team_no, slot, name, affiliation, norm_name, "
                             "player_id, member_id, base_id, visit, note from player_map where "
                             "norm_name not in (select unnest(?))", [names.to_list()])
        whole = pl.concat([kept.select(found.columns).cast(found.schema), found]) \
            if found.height else kept.select(*MAP_COLUMNS[:6], "member_id", "base_id", "visit",
                                             "note")
        names = pl.concat([names, kept["norm_name"]]).unique().sort()
    overrides = db.rows(con, "select kind, player_id, into_id, event_id, team_no from "
                             "identity_overrides where undone_at is null order by override_id")
    aliases = dict(db.rows(con, "select alias, player_id from identity_aliases"))
    whole = whole.with_columns(pl.col("base_id").alias("player_id"))
    if whole.height:
        whole = _resolve(whole, [(k, aliases.get(p, p), aliases.get(i, i), e, t)
                                 for k, p, i, e, t in overrides])
        moved = pl.col("player_id") != pl.col("base_id")  # by the organizer's split or merge
        decided = pl.col("decided").any().over("base_id")  # a person the organizer split or
        whole = whole.with_columns(  # merged: the evidence's question answered ("two people
            pl.when(moved & pl.col("note").is_in([STAND_IN, TURNS])  # taking turns?" on all
                    | decided & (pl.col("note") == TURNS)).then(None)  # their seats, a
            .otherwise(pl.col("note")).alias("note")).drop("decided")  # stand-in's if moved
    else:
        whole = pl.DataFrame(schema={c: pl.Int64 if c == "slot" else pl.Boolean
                                     if c == "visit" else pl.String for c in MAP_COLUMNS})
    db.register(con, "new_map", whole.select(MAP_COLUMNS))
    db.register(con, "touched_names", names.to_frame())
    try:  # only the rows that differ are rewritten: a commit of a few rows, not the whole map
        if part is None:  # every name: the rows of names no team has any more go too
            con.execute("delete from player_map where norm_name not in "
                        "(select norm_name from touched_names)")
        con.execute(db.sql("player_map_changes"))
    finally:
        con.unregister("new_map")
        con.unregister("touched_names")
    now = db.frame(con, db.sql("identity_fingerprints"))
    if fingerprints is None:
        con.execute("delete from identity_events")
        insert_rows(con, "identity_events", now.rows())
    else:
        con.execute("delete from identity_events where event_id in (select unnest(?))",
                    [fingerprints])
        insert_rows(con, "identity_events", now.filter(
            pl.col("event_id").is_in(fingerprints)).rows())
    con.execute("delete from identity_scheme")
    con.execute("insert into identity_scheme values (?)", [SCHEME])


def _identities(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame,
                names: set[str]) -> pl.DataFrame:
    """The base id, visit and note of every seat of `names`, from the evidence and the
    anchors."""
    from pipeline.history.evidence import Seat, one_home, people

    if frame.is_empty():
        return frame.select(MAP_COLUMNS[:6], "member_id").with_columns(
            pl.lit(None, pl.String).alias("base_id"), pl.lit(None, pl.Boolean).alias("visit"),
            pl.lit(None, pl.String).alias("note"))
    frame = frame.sort("norm_name", "day", "event_id", "team_no", "slot").with_row_index(
        "order")
    simple = one_home(frame).select("order", pl.lit(0, pl.Int64).alias("person"), "visit",
                                    "note")  # most names: one person, all at once
    rest = frame.join(simple, on="order", how="anti")
    person, note, visit = [], [], []
    rows = rest.select("norm_name", "event_id", "day", "unit", "partners", "explained",
                       "member_id").rows()
    start = 0
    while start < len(rows):  # the others, name by name
        end = start
        while end < len(rows) and rows[end][0] == rows[start][0]:
            end += 1
        found = people([Seat(e, d.toordinal() if d else 0, u, frozenset(p), x, m)
                        for _, e, d, u, p, x, m in rows[start:end]])
        person += found[0]
        note += found[1]
        visit += found[2]
        start = end
    found = rest.select("order").with_columns(
        pl.Series("person", person, pl.Int64), pl.Series("visit", visit, pl.Boolean),
        pl.Series("note", note, pl.String).replace("", None))
    frame = frame.join(pl.concat([simple, found]), on="order")
    ids = _give_ids(con, frame, names)
    frame = frame.join(ids, on=["norm_name", "person"], how="left", maintain_order="left")
    return frame.sort("order").select(*MAP_COLUMNS[:6], "member_id", "base_id", "visit",
                                      "note")


def _give_ids(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame,
              names: set[str]) -> pl.DataFrame:
    """(norm_name, person) → base_id, from the person's own evidence only, so that two
    archives of the same events agree whatever the order they were imported in (issue 52):
    - a person with a member id is that id (the one their seats give most often);
    - else the name's persons in the order of their first seat (date, event, unit, team):
      the first takes the name's id (as scheme 2 made it), each other one the name's with
      the unit of their first seat, else with that event too, else with that seat.
    An id a person's seats showed before and nobody holds now stays as an alias of the id
    the person holds (old links and exports still find them), listed in `paisai log` as
    "ids renamed" (or "players joined": two ids found to be one person); an id now held by
    another person (an earlier event imported later) is said so in words (`_log_renames`)."""
    previous = db.frame(con, "select event_id, team_no, slot, norm_name, coalesce(base_id, "
                             "player_id) as old_id from player_map where norm_name in "
                             "(select unnest(?))", [sorted(names)])
    given = _ids_of(frame)
    seats = frame.select(*KEY, "norm_name", "person").join(
        given, on=["norm_name", "person"]).join(previous, on=[*KEY, "norm_name"])
    renamed_seats = seats.filter(pl.col("old_id").is_not_null()
                                 & (pl.col("old_id") != pl.col("base_id")))
    olds = sorted(set(renamed_seats["old_id"].to_list()))
    held = set(given["base_id"].to_list()) | {h for h, in db.rows(
        con, "select distinct coalesce(base_id, player_id) from player_map where norm_name "
             "not in (select unnest($n)) and coalesce(base_id, player_id) in "
             "(select unnest($o))", {"n": sorted(names), "o": olds})}  # only the ids that moved
    moved = renamed_seats.group_by("old_id", "base_id", "norm_name").len().sort(
        "old_id", "len", "base_id", descending=[False, True, False]).unique(
        "old_id", keep="first", maintain_order=True)
    aliases = [(old, new, name) for old, new, name, _ in moved.rows() if old not in held]
    con.execute("delete from identity_aliases where alias in (select unnest(?))",
                [sorted(set(given["base_id"].to_list()))])  # an alias that is somebody's id again
    if aliases:
        renamed = {old: new for old, new, _ in aliases}
        known = db.rows(con, "select alias, player_id, norm_name from identity_aliases")
        chained = [(a, renamed[p], n) for a, p, n in known if p in renamed and a not in renamed]
        con.execute("delete from identity_aliases where alias in (select unnest(?))",
                    [sorted(renamed) + [a for a, _, _ in chained]])
        insert_rows(con, "identity_aliases", aliases + chained)  # an alias of an alias: followed
    _log_renames(con, frame, seats, moved, given)
    return given


RENAMED = ("本人最早的证据定编号，与导入顺序无关 the id follows the person's first evidence, "
           "whatever the import order")


def _log_renames(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame, seats: pl.DataFrame,
                 moved: pl.DataFrame, given: pl.DataFrame) -> None:
    """`paisai log` says what a refresh did to ids shown before: "players joined" — one
    person whose seats showed two ids or more; "ids renamed" — a person's id now another
    string; and, in words, an id now another person's (编号改变: an earlier event imported
    later put another person first), with whom it now names and the old holder's new id."""
    shown = seats.filter(pl.col("old_id").is_not_null())
    olds = shown.group_by("base_id").agg(pl.col("old_id").unique().sort().alias("olds"))
    together = set(olds.filter(pl.col("olds").list.len() > 1)["base_id"].to_list())
    pairs = sorted((o, n) for o, n, _, _ in moved.rows())
    for kind, chosen, reason in (
            ("players joined", [(o, n) for o, n in pairs if n in together],
             "同一人（按各场证据） one person, by the evidence across events"),
            ("ids renamed", [(o, n) for o, n in pairs if n not in together], RENAMED)):
        if chosen:
            logged(con, kind, "; ".join(f"{o} → {n}" for o, n in chosen), reason)
    held_before = {n: set(o) for n, o in olds.rows()}
    first = frame.sort("day", "event_id", "team_no", "slot", nulls_last=True).join(
        given, on=["norm_name", "person"]).group_by("base_id", maintain_order=True).first()
    where = {b: (name, unit, event) for b, name, unit, event in first.select(
        "base_id", "name", "affiliation", "event_id").rows()}
    for old, new in pairs:  # the old holder's seats moved to `new`; who holds `old` now?
        if old in where and old not in held_before.get(old, set()):
            name, unit, event = where[old]
            logged(con, "ids renamed",
                   f"编号改变 {old} 现为 {name}（{unit or '无单位'}，{event} 起）的编号，原持有者改为 "
                   f"{new} · id {old} now belongs to {name} ({unit or 'no unit'}, first seen in "
                   f"{event}); the one who showed it before is now {new}", RENAMED)


def _ids_of(frame: pl.DataFrame) -> pl.DataFrame:
    """(norm_name, person, base_id): each person's id from their own seats alone."""
    members = frame.filter(pl.col("member_id").is_not_null()).group_by(
        "norm_name", "person", "member_id").len().sort(
        "len", "member_id", descending=[True, False]).unique(
        ["norm_name", "person"], keep="first").select("norm_name", "person", "member_id")
    first = frame.sort("norm_name", "day", "event_id", "unit", "team_no", "slot",
                       nulls_last=True).group_by("norm_name", "person", maintain_order=True
                                                 ).first().select(
        "norm_name", "person", "event_id", "team_no", "slot", "unit").join(
        members, on=["norm_name", "person"], how="left", maintain_order="left")
    rows = []
    taken: set[str] = set()
    for name, person, event_id, team_no, slot, unit, member in first.rows():
        if member:
            rows.append((name, person, member))
            continue
        for key in (name, f"{name}|{unit}", f"{name}|{unit}|{event_id}",
                    f"{name}|{unit}|{event_id}/{team_no}/{slot}"):
            player_id = "P" + hashlib.sha1(key.encode()).hexdigest()[:10]
            if player_id not in taken:
                break
        taken.add(player_id)
        rows.append((name, person, player_id))
    return pl.DataFrame(rows, orient="row", schema={
        "norm_name": pl.String, "person": pl.Int64, "base_id": pl.String})


def is_current(con: duckdb.DuckDBPyConnection) -> bool:
    """The player map was built by this version's rules (else `refresh` rebuilds it)."""
    return db.scalar(con, "select max(version) from identity_scheme") == SCHEME or not \
        db.scalar(con, "select count(*) from teams")


def logged(con, action: str, detail: str, reason: str | None) -> None:
    """Written in `paisai log` (the official log): the action, what it did, and why."""
    from pipeline.base import oplog
    oplog.write_on(con, None, action, detail + (f" · 原因 reason: {reason}" if reason else ""))
