"""What the table's sheet (Guandan, `tablestore`) and a Tractor match's (`tractorstore`) do
alike with a deal once it is entered: the other side confirms or disputes it, and a
disputed deal is decided — kept as entered, or taken off with every deal after it. A `Place`
says where one sheet's deals are kept."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipeline.base import db, oplog
from pipeline.base.errors import UsageError
from pipeline.day.tablesheet import ANSWER_STALE, deal_stamp


def utc_now() -> dt.datetime:
    """Times of the sheets: naive UTC, as stored."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class Place:
    """One sheet: its deals' table and its sides' words on the result, the key that names
    it (`round, table_no` or `stage, match_no`) and its values, how the log names it, and
    the word for a deal (副 for Guandan, 盘 for Tractor)."""

    deals: str
    results: str
    keys: tuple[str, ...]
    values: tuple
    event_id: str
    label: str
    unit: str

    def where(self) -> tuple[str, list]:
        return ("event_id = ? and " + " and ".join(f"{k} = ?" for k in self.keys),
                [self.event_id, *self.values])


def answer(con: duckdb.DuckDBPyConnection, place: Place, side: str, side_name: str,
           number: int, confirm: bool, seen: str | None = None) -> None:
    """The other side confirms a deal or disputes it (a dispute freezes the sheet until it is
    decided, in `paisai log`); an answer sent again after the deal was entered anew
    (`seen`, the deal's mark as the form was drawn) is refused."""
    where, params = place.where()
    row = db.rows(con, f"select status, entered_at from {place.deals} where {where} and "
                       "deal = ?", [*params, number])
    if seen and row and seen != deal_stamp(number, row[0][1]):
        raise UsageError(ANSWER_STALE.format(unit=place.unit))
    found = row[0][0] if row else None
    if found is None:
        raise UsageError(f"没有第 {number} {place.unit} no deal {number}")
    if found != "entered":
        raise UsageError(f"第 {number} {place.unit}已{'确认' if found == 'confirmed' else '提出异议'} "
                         f"deal {number} is {found} already")
    con.execute(f"update {place.deals} set status = ?, answered_side = ?, answered_at = ? "
                f"where {where} and deal = ?",
                ["confirmed" if confirm else "disputed", side, utc_now(), *params, number])
    if not confirm:
        oplog.write_on(con, place.event_id, "deal disputed",
                       f"{place.label} deal {number}, by {side_name}")


def takeoffs(con: duckdb.DuckDBPyConnection, place: Place) -> int:
    """How many times deals were taken off this sheet (the next deal's mark counts them)."""
    return db.scalar(con, "select count(*) from sheet_takeoffs where event_id = ? and sheet = ? "
                          "and sheet_key = ?", [place.event_id, place.deals, place.label])


def decide(database: Path, place: Place, number: int, keep: bool, by: str) -> None:
    """A disputed deal decided: kept as entered (confirmed), or taken off with every deal
    after it (the recorder enters them again); the sides confirm the result anew. In
    `paisai log` with who decided."""
    where, params = place.where()
    with db.writing(database) as con:
        status = db.scalar(con, f"select status from {place.deals} where {where} and deal = ?",
                           [*params, number])
        if status != "disputed":
            raise UsageError(f"第 {number} {place.unit}没有异议 deal {number} is not disputed")
        if keep:  # answered now: the sheet's phones and the projector see the change
            con.execute(f"update {place.deals} set status = 'confirmed', answered_at = ? "
                        f"where {where} and deal = ?", [utc_now(), *params, number])
        else:
            con.execute(f"delete from {place.deals} where {where} and deal >= ?",
                        [*params, number])
            con.execute("insert into sheet_takeoffs values (?, ?, ?, ?, ?, ?)",
                        [place.event_id, place.deals, place.label, number, utc_now(), by])
        con.execute(f"delete from {place.results} where {where}", params)
        oplog.write_on(con, place.event_id, "deal decided",
                       f"{place.label} deal {number}: "
                       f"{'kept as entered' if keep else 'taken off, entered again'} · 由 by {by}")
