"""Ingest: one file is one transaction. Read → recognise → validate → store, or nothing.

A file with any problem stores nothing (SheetErrors, exit 2); a received file is noted in
`uploads` whether it was stored or rejected.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb
import polars as pl

from pipeline.base import db, events, oplog
from pipeline.base.errors import PaisaiError, SheetErrors
from pipeline.base.events import Event
from pipeline.base.store import (
    Stored,
    store_carried,
    store_deals,
    store_fouls,
    store_penalties,
    store_quiz,
    store_results,
)
from pipeline.intake import registration
from pipeline.intake.sheets import layouts
from pipeline.intake.sheets.headers import ALIASES
from pipeline.intake.sheets.read import ROW, FileRead, RawSheet, read_file
from pipeline.intake.validate import EventContext, check_sheets
from pipeline.ranking import sums


def _tractor(name: str) -> Callable[..., object]:
    """A storing function of the Tractor sheets, imported when a Tractor sheet is stored (a
    Guandan round's ingest does not load the Tractor rules)."""

    def store(*args: object) -> object:
        from pipeline.tractor import sheets as tractor_sheets

        return getattr(tractor_sheets, name)(*args)

    return store


STORERS = {  # each kind's storing function (storage itself knows no sheet kind's domain)
    "players": registration.store_players,
    "matches": _tractor("store_matches"),
    "tractor_deals": _tractor("store_deals"),
    "point_penalties": _tractor("store_point_penalties"),
    "deals": store_deals,
    "fouls": store_fouls,
    "entries": registration.store_entry_rows,
    "results": store_results,
    "penalties": store_penalties,
    "quiz": store_quiz,
    "carry": store_carried,
}

KIND_ORDER = ["entries", "players", "carry", "results", "deals", "penalties", "fouls", "quiz", "point_penalties",
              "matches", "tractor_deals"]


@dataclass
class IngestReport:
    file: str
    stored: list[Stored] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    already_received: bool = False
    # a preview's first rows of each sheet, each column named as it will be stored
    samples: list[tuple[str, pl.DataFrame]] = field(default_factory=list)
    lacks_players: bool = False  # a registration without any player column


def max_upload_bytes() -> int:
    """The size limit of one file, checked before it is parsed (env PAISAI_MAX_UPLOAD_MB)."""
    return int(float(os.environ.get("PAISAI_MAX_UPLOAD_MB", "20")) * 1024 * 1024)


def refuse_oversized(name: str, size: int) -> None:
    """A file over the size limit is refused before anything reads it."""
    if size > max_upload_bytes():
        raise SheetErrors.single(name, f"文件超过 {max_upload_bytes() // 1024 // 1024} MB，"
                                       "未读取 the file is over the size limit; not read")


def load_context(con: duckdb.DuckDBPyConnection, event: Event, any_round: bool = False
                 ) -> EventContext:
    event_id = event.event_id
    teams = frozenset(db.frame(con, "select team_no from teams where event_id = $e",
                               {"e": event_id})["team_no"].to_list())  # no row by row
    pairings = db.frame(
        con,
        "select round, table_no, ew_team, ns_team from pairings "
        "where event_id = $e and table_no is not null",
        {"e": event_id},
    ).cast({"round": pl.Int64, "table_no": pl.Int64})
    results = db.frame(
        con,
        "select r.round, r.table_no, r.ew_team, r.ns_team, r.ew_level, r.ns_level, "
        "exists (select 1 from deals d where d.event_id = r.event_id and d.round = r.round "
        "and d.table_no = r.table_no) as has_deals from results r where r.event_id = $e",
        {"e": event_id},
    ).cast({"round": pl.Int64, "table_no": pl.Int64, "ew_level": pl.Int64, "ns_level": pl.Int64})
    tractor = None
    if event.ruleset.discipline == "tractor":
        from pipeline.tractor import sheets as tractor_sheets

        tractor = tractor_sheets.load(con, event_id)
    named = db.frame(con, "select team_no, team_name, player1, player2, player3, player4 "
                          "from teams where event_id = $e", {"e": event_id})
    units = frozenset(r[0] for r in db.rows(
        con, "select distinct affiliation from teams where event_id = ? and affiliation is not "
             "null", [event_id]))
    members = dict(db.rows(con, "select member_id, any_value(name) from player_map where "
                                "member_id is not null and event_id <> ? group by member_id",
                           [event_id]))
    return EventContext(teams, pairings, results, event.ruleset, tractor, any_round, named,
                        units, members)


def apply(
    con: duckdb.DuckDBPyConnection, event_id: str, read: FileRead, source_name: str,
    reason: str = "sheet", force: bool = False, round_no: int | None = None,
    rank: bool = False, ahead: tuple[Event, EventContext] | None = None,
) -> list[Stored]:
    """Validate every sheet of one read file against the event and store it (same transaction).
    `force` takes results for a round beyond the next one; `round_no` is the round of results
    sheets without a round column. Other tools' results layouts become results first.
    `rank`: a round's results sheet ranks the event once and keeps the ranking for the
    readers that follow (a single table reported from a phone, a preview, do not).
    `ahead`: the event and its context, read already in this transaction (`_context_ahead`)."""
    if ahead is None:
        event = events.load(con, event_id)
        context = load_context(con, event, force)
    else:
        event, context = ahead
    sheets, problems = layouts.normalise(read.sheets, round_no)
    read = FileRead(read.file, sheets, read.skipped)
    more: dict[str, int] = {}
    stored = []
    for kind in KIND_ORDER:
        sheets = [s for s in read.sheets if s.kind == kind]
        if not sheets:
            continue
        checked = check_sheets(sheets, context)
        problems += checked.problems
        for column, n in checked.more.items():
            more[column] = more.get(column, 0) + n
        if kind == "entries":
            new_teams = checked.frame["team_no"].drop_nulls().to_list()
            context = replace(context, teams=context.teams | frozenset(new_teams))
        if not problems:
            if kind == "results":
                stored.append(store_results(con, event_id, checked.frame, source_name, reason))
            else:
                done = STORERS[kind](con, event_id, checked.frame, source_name)
                stored += done if isinstance(done, list) else [done]
            if kind == "point_penalties":
                context = load_context(con, event, force)
    if problems or more:
        raise SheetErrors(problems, more)
    kinds = {s.kind for s in stored}
    if "entries" in kinds:  # the history's module: imported by a registration alone
        from pipeline.history import identity

        identity.refresh(con)
    if rank and "results" in kinds:  # ranked once for the standings, projector, pairing
        sums.remember(con, event)
    return stored


def _note_upload(
    con: duckdb.DuckDBPyConnection, event_id: str, name: str, data: bytes, source: str,
    status: str, message: str,
) -> None:
    digest = hashlib.sha256(data).hexdigest()
    con.execute(
        "insert into uploads (event_id, file_name, sha256, size_bytes, source, status, message) "
        "values (?, ?, ?, ?, ?, ?, ?)",
        [event_id, name, digest, len(data), source, status, message],
    )
    if len(data) <= max_upload_bytes():
        con.execute("insert or ignore into upload_blobs values (?, ?)", [digest, data])


def ingest_file(
    db_file: Path, event_id: str, path: Path, kind: str | None = None, source: str = "cli",
    data: bytes | None = None, force: bool = False, round_no: int | None = None,
) -> IngestReport:
    """Ingest one file. Raises SheetErrors (nothing stored) when anything in it is wrong."""
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SheetErrors.single(path.name, f"无法读取文件 cannot read file: {exc.strerror}") \
                from None
    digest = hashlib.sha256(data).hexdigest()
    try:
        refuse_oversized(path.name, len(data))
        reading = _Reading(path, kind, data)  # read beside the file's opening (issue 53)
        with db.writing(db_file) as con:  # one open of the file: the check and the change
            # a file received before is applied again all the same: a correction made since
            # may have changed what it says is stored (it is then put back, audited)
            received = db.scalar(con, "select count(*) from uploads where event_id = ? and "
                                      "sha256 = ? and status = 'stored'", [event_id, digest])
            ahead = _context_ahead(con, event_id, force)
            read = reading.result()
            stored = apply(con, event_id, read, path.name, force=force, round_no=round_no,
                           rank=True, ahead=ahead)
            if received and not any(s.new or s.replaced for s in stored):
                return IngestReport(path.name, already_received=True)
            summary = "; ".join(f"{s.kind}: +{s.new} ~{s.replaced} ={s.unchanged}"
                                for s in stored)
            _note_upload(con, event_id, path.name, data, source, "stored", summary)
        oplog.write(db_file, event_id, "stored", f"{path.name} ({source}): {summary}")
    except SheetErrors as errors:
        note_refusal(db_file, event_id, path.name, data, source, errors)
        raise
    return IngestReport(path.name, stored, read.notes())


class _Reading(threading.Thread):
    """`read_file` in a thread of its own: the sheet is read (Python's CSV reader, polars)
    while the database file opens and the event's context loads (DuckDB, which lets go of
    the interpreter meanwhile) — 100,000 teams' sheet: about 0.15 s CPU each side.
    `result()` is the read, or raises what reading raised (a file with a problem:
    SheetErrors, before anything is stored, as before)."""

    def __init__(self, path: Path, kind: str | None, data: bytes):
        super().__init__(name="paisai-read", daemon=True)
        self.source = (path, kind, data)
        self.read: FileRead | None = None
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self.read = read_file(*self.source)
        except BaseException as exc:  # raised again by result(), in the caller's thread
            self.error = exc

    def result(self) -> FileRead:
        self.join()
        if self.error is not None:
            raise self.error
        return self.read  # type: ignore[return-value]


def _context_ahead(con: duckdb.DuckDBPyConnection, event_id: str, force: bool
                   ) -> tuple[Event, EventContext] | None:
    """The event and what validation reads of it, loaded while the sheet is read; None when
    the event cannot be loaded (`apply` loads it again and says why — after the sheet's own
    problems, as before)."""
    try:
        event = events.load(con, event_id)
        return event, load_context(con, event, force)
    except PaisaiError:
        return None


def note_refusal(db_file: Path, event_id: str, name: str, data: bytes, source: str,
                 errors: SheetErrors) -> None:
    """A refused file is listed in `uploads` (kept as received when within the size limit)."""
    with db.writing(db_file) as con:
        _note_upload(con, event_id, name, data, source, "rejected",
                     f"{errors.total} problem(s)")
    oplog.write(db_file, event_id, "refused", f"{name} ({source}): {errors.total} problem(s)")


def preview_file(db_file: Path, event_id: str, name: str, data: bytes,
                 kind: str | None = None) -> IngestReport:
    """What ingesting the file would store, without storing it (raises SheetErrors)."""
    refuse_oversized(name, len(data))
    read = read_file(Path(name), kind, data)
    with db.trial(db_file) as con:
        stored = apply(con, event_id, read, name)
    return IngestReport(name, stored, read.notes(), samples=[
        (sheet.sheet or sheet.file, _sample(sheet)) for sheet in read.sheets],
        lacks_players=any(sheet.lacks_players for sheet in read.sheets))


def _sample(sheet, rows: int = 5) -> pl.DataFrame:
    """The first rows of a sheet, each column headed "as stored ← as written" in the
    organizer's words (东西级数 ← 东西级: the field's own name, never the database's
    ew_level), or as written alone when that is the field's own name."""
    from pipeline.base.output import HEADERS_ZH
    from pipeline.intake.sheets.headers import ALIASES

    def named(column: str) -> str:
        own = ALIASES.get(sheet.kind, {}).get(column, [HEADERS_ZH.get(column, column)])[0]
        written = sheet.written[column]
        return written if str(written).strip() == own else f"{own} ← {written}"

    columns = [c for c in sheet.frame.columns if c in sheet.written]
    return sheet.frame.head(rows).select(columns).rename({c: named(c) for c in columns})


def ingest_rows(
    db_file: Path, event_id: str, kind: str, rows: list[dict[str, object]], source: str,
    reason: str,
) -> IngestReport:
    """Rows typed in by the organizer (or a table's self-report), through the same checks as a
    sheet: columns are code names, the first row stands as spreadsheet row 2."""
    with db.writing(db_file) as con:
        stored = apply_rows(con, event_id, kind, rows, source, reason)
    oplog.write(db_file, event_id, "entered", f"{source}: {kind} ×{len(rows)} ({reason})")
    return IngestReport(source, stored)


def apply_rows(con: duckdb.DuckDBPyConnection, event_id: str, kind: str,
               rows: list[dict[str, object]], source: str, reason: str) -> list[Stored]:
    """`ingest_rows` inside the caller's transaction (a step that stores more with it)."""
    columns = list(ALIASES[kind])
    frame = pl.DataFrame(
        {**{c: [None if r.get(c) in (None, "") else str(r[c]) for r in rows] for c in columns},
         ROW: list(range(2, len(rows) + 2))},
        schema={**dict.fromkeys(columns, pl.String), ROW: pl.Int64})
    sheet = RawSheet(source, "", kind, 1, {c: ALIASES[kind][c][0] for c in columns}, frame)
    return apply(con, event_id, FileRead(source, [sheet]), source, reason)


def import_event(
    db_file: Path, event_id: str, name: str, ruleset: str, date: str | None, source: Path,
    on_file: Callable[[str], None] = lambda name: None,
) -> list[IngestReport]:
    """A past event as a whole (registration and every round, one workbook or a folder), in
    one transaction: all of it is stored, or nothing."""
    reads = read_sources(source, on_file)
    with db.writing(db_file) as con:
        return import_into(con, event_id, name, ruleset, date, reads)


def read_sources(source: Path, on_file: Callable[[str], None] = lambda name: None
                 ) -> list[FileRead]:
    """The sheets of a past event: one workbook, or every sheet file of a folder."""
    if source.is_dir():
        files = sorted(p for p in source.iterdir() if p.is_file() and
                       p.suffix.lower() in {".csv", ".xlsx", ".xls", ".txt"})
    elif source.is_file():
        files = [source]
    else:
        raise SheetErrors.single(source.name, "找不到文件或文件夹 no such file or folder")
    reads = []
    for path in files:
        on_file(path.name)
        reads.append(read_file(path))
    return reads


def import_into(con: duckdb.DuckDBPyConnection, event_id: str, name: str, ruleset: str,
                date: str | None, reads: list[FileRead], refresh: bool = True
                ) -> list[IngestReport]:
    """`import_event` inside the caller's transaction (`history sync` stores its record of
    the bundle with it). `refresh=False` leaves the history's ranks and ratings to the
    caller (one refresh after many events); with it, everything the history's next read
    needs is built here, in the same transaction (the player map, every stale finish, the
    ratings): nothing is left for a check after it (issue 52)."""
    entries_first = sorted(reads, key=lambda r: 0 if any(s.kind == "entries" for s in r.sheets)
                           else 1)
    from pipeline.base.progress import progress
    from pipeline.history import identity, ratings, stats
    from pipeline.history.fits_ahead import FitsAhead
    from pipeline.history.ranks_ahead import RanksAhead

    # the history reads it ready, not later (issue 52): every other event's finish whose
    # cache is stale (an archive written by other tools or an earlier version: all of
    # them) is ranked in a thread from the start, beside the sheets and the rating fit; a
    # missing rating fit is fitted ahead the same way up to this event's day
    with RanksAhead(con) if refresh else nullcontext() as ahead, \
            FitsAhead(con) if refresh else nullcontext() as fits:
        events.create(con, event_id, name, ruleset, date)
        reports = [IngestReport(read.file, apply(con, event_id, read, read.file), read.skipped)
                   for read in entries_first]
        if refresh:
            if not identity.is_current(con):  # a map of older rules, and no entries here
                identity.refresh(con)
            # this event's finish, and those ranked ahead (others: ranked now): first, as
            # the ranks ahead end before the fits ahead, which the ratings then wait for
            now = stats.rank_fingerprints(con)
            stale = stats.stale_of(con, now)
            with progress("准备历史 preparing history", total=len(stale),
                          show=len(stale) > stats.PROGRESS_AT) as step:
                stats.refresh_event_ranks(con, stale, step, now, ahead)
            ratings.refresh(con, ahead=fits)  # refitted from this event's day on
    return reports
