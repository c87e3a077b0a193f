"""The registered teams' seats as the player map reads them (issue 52): one row per player
slot with its folded name, member id and unit (`seats`); member ids' claims (`member_claims`); a
seat's team-mates and whether its unit is explained by one of them (`with_partners`). Read by
both `identity` (every name) and `changed_names` (the names a change touches)."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.names import ZERO_WIDTH, member_key, normalize_name, person_key

SLOTS = ("player1", "player2", "player3", "player4")
MEMBERS = ("member1", "member2", "member3", "member4")
KEY = ["event_id", "team_no", "slot"]


TEAMS = f"""
    select t.event_id, t.team_no, {', '.join('t.' + s for s in SLOTS)},
           {', '.join('t.' + m for m in MEMBERS)}, t.affiliation,
           coalesce(e.event_date, e.created_at::date) as day
    from teams as t join events as e using (event_id)"""



def each(values: pl.Series, fold, known: pl.DataFrame | None = None) -> pl.Series:
    """`fold` of each value, computed once per distinct value not already `known` (a frame
    of value → folded)."""
    distinct = values.unique().to_frame("value")
    if known is not None and known.height:
        known = known.rename({known.columns[0]: "value", known.columns[1]: "folded"})
        distinct = distinct.join(known, on="value", how="left")
        missing = distinct.filter(pl.col("folded").is_null())["value"].to_list()
        new = pl.DataFrame({"value": missing, "folded": [fold(v) for v in missing]},
                           schema={"value": values.dtype, "folded": pl.String})
        table = pl.concat([distinct.filter(pl.col("folded").is_not_null()), new])
    else:
        found = distinct["value"].to_list()
        table = pl.DataFrame({"value": found, "folded": [fold(v) for v in found]},
                             schema={"value": values.dtype, "folded": pl.String})
    return values.to_frame("value").join(table, on="value", how="left", nulls_equal=True,
                                         maintain_order="left")["folded"]


def seats(teams: pl.DataFrame, folded: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per player slot of the registered teams: the name as written (less what no
    one can see), its folded name, the member id and the folded unit."""
    numbered = teams.with_row_index("row")
    frame = pl.concat([
        numbered.select("row", "event_id", "team_no", pl.lit(slot).alias("slot"),
                        pl.col(column).str.replace_all(ZERO_WIDTH.pattern, "")
                        .str.strip_chars().alias("name"),  # as written, less what no one
                        pl.col("affiliation"),  # can see (a zero-width space from a chat)
                        pl.col(member).fill_null("").alias("member_id"),
                        *([pl.col("day")] if "day" in teams.columns else []))
        for slot, (column, member) in enumerate(zip(SLOTS, MEMBERS, strict=True), start=1)
    ]).filter(pl.col("name").is_not_null() & (pl.col("name") != "")).sort("row", "slot")
    return frame.with_columns(
        each(frame["name"], person_key, folded).alias("norm_name"),
        each(frame["member_id"], member_key).replace("", None).alias("member_id"),
        each(frame["affiliation"].fill_null(""), normalize_name).alias("unit")).select(
        "event_id", "team_no", pl.col("slot").cast(pl.Int64), "name", "affiliation",
        "norm_name", "member_id", "unit", *(["day"] if "day" in teams.columns else []))


def member_claims(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A member id is a strong claim, never a silent merge: it is the name's that gave it
    most often (the first in date order of those); a seat of another name giving it keeps no member id (the name
    and the evidence decide who it is) and is noted for review with both names. Returns the
    seats so read and the notes (KEY, claim)."""
    given = frame.filter(pl.col("member_id").is_not_null())
    if given.is_empty():
        return frame, pl.DataFrame(schema={"event_id": pl.String, "team_no": pl.String,
                                           "slot": pl.Int64, "claim": pl.String})
    order = [c for c in ("day", "event_id", "team_no", "slot") if c in given.columns]
    owner = given.sort(order).with_row_index("seen").group_by(
        "member_id", "norm_name", maintain_order=True).agg(
        pl.len().alias("times"), pl.col("seen").first(), pl.col("name").first().alias("owned")
    ).sort("times", "seen", descending=[True, False]).group_by(
        "member_id", maintain_order=True).agg(
        pl.col("norm_name").first().alias("owner"), pl.col("owned").first())
    wrong = given.join(owner, on="member_id").filter(pl.col("norm_name") != pl.col("owner"))
    claims = wrong.select(*KEY, pl.format(
        "会员号 {} 一向是 {}，本场写的是 {}：请核对 member id {} has always been {}'s, given "
        "here for {}: review", "member_id", "owned", "name", "member_id", "owned", "name")
        .alias("claim"))
    frame = frame.join(claims.select(*KEY, pl.lit(True).alias("wrong")), on=KEY, how="left",
                       maintain_order="left").with_columns(
        pl.when(pl.col("wrong")).then(None).otherwise(pl.col("member_id")).alias("member_id")
    ).drop("wrong")
    return frame, claims


def with_partners(everyone: pl.DataFrame, names: pl.Series) -> pl.DataFrame:
    """The seats of `names`, each with its team-mates (folded names) and whether its unit is
    explained by one of them: a team-mate who played for that unit with someone else too,
    or only ever for it (the team registered under the partner's unit). A partnership seen
    only together under two units explains neither: either may be either player's."""
    frame = everyone.join(names.to_frame(), on="norm_name", how="semi")
    teams = frame.select("event_id", "team_no").unique()
    mates = everyone.join(teams, on=["event_id", "team_no"], how="semi")
    known = everyone.join(mates.select("norm_name").unique(), on="norm_name", how="semi")
    together = known.select("event_id", "team_no", "norm_name", "unit").join(
        everyone.select("event_id", "team_no", pl.col("norm_name").alias("with")),
        on=["event_id", "team_no"]).filter(pl.col("norm_name") != pl.col("with"))
    played = together.filter(pl.col("unit") != "").group_by("norm_name", "unit").agg(
        pl.col("with").unique().alias("withs")).with_columns(
        (pl.len().over("norm_name") == 1).alias("only"))
    mates = frame.select(*KEY, "norm_name", "unit").join(
        mates.select("event_id", "team_no", pl.col("slot").alias("other"),
                     pl.col("norm_name").alias("mate")), on=["event_id", "team_no"]).filter(
        pl.col("slot") != pl.col("other")).join(
        played.rename({"norm_name": "mate"}), on=["mate", "unit"], how="left").group_by(
        KEY).agg(
        pl.col("mate").alias("partners"),
        (pl.col("withs").list.set_difference(pl.concat_list(pl.col("norm_name")))
         .list.len().gt(0) | pl.col("only")).fill_null(False).any().alias("explained"))
    return frame.join(mates, on=KEY, how="left", maintain_order="left").with_columns(
        pl.col("partners").fill_null([]), pl.col("explained").fill_null(False))


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple]) -> None:
    """Rows into a table at once (executemany goes row by row: 30 s for 50,000 anchors)."""
    if not rows:
        return
    columns = [c for c, in con.execute(f"select column_name from information_schema.columns "
                                       f"where table_name = '{table}' order by ordinal_position"
                                       ).fetchall()]
    db.register(con, "rows_in", pl.DataFrame(rows, orient="row", schema=columns))
    try:
        con.execute(f"insert into {table} select * from rows_in")
    finally:
        con.unregister("rows_in")
