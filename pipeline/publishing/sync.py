"""`paisai history sync --from DIR_OR_URL`: every event bundle of an archive (a folder, or a
store's prefix: one folder per event below it) that this database has not imported yet,
each through `import-event`'s own path — its sheets checked as any sheet is, the event
stored in one transaction together with the record of its bundle (`synced_bundles`), or
nothing of it.

Each bundle once: a bundle already recorded, or an event this database already holds, is
passed over without being downloaded. In any order: the new bundles are read first, then
imported oldest event first (date, then id), so a sync finds the same people under the same
ids whatever order the archive lists its bundles in. A bundle whose files do not match its
manifest is refused, naming the file, and nothing of it is stored; the others are imported.
"""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.base import db
from pipeline.base.errors import PaisaiError, SheetErrors, UsageError
from pipeline.base.ruleset import load_preset, preset_names
from pipeline.intake.ingest import import_into, read_sources
from pipeline.publishing.bundle import (
    CARRIED,
    MANIFEST,
    PLAYER_SLOTS,
    Bundle,
    BundleError,
    read,
)
from pipeline.publishing.objectstore import Location, Store


@dataclass
class Synced:
    imported: list[str] = field(default_factory=list)  # event ids
    known: list[str] = field(default_factory=list)  # passed over: imported before
    refused: list[str] = field(default_factory=list)  # messages, each naming its bundle
    waiting: list[str] = field(default_factory=list)  # folders without a manifest yet


def _candidates(source: Path | Location, skip: set[str]
                ) -> tuple[list[tuple[str, Callable]], list[str]]:
    """(where, fetch) of every bundle folder under the source — or of the source itself when
    it is one bundle — and the names passed over (the folders of events in `skip`: never
    downloaded). A source with nothing at all is refused in words (a mistyped prefix)."""
    if isinstance(source, Location):
        store = Store(source)
        names = sorted(store.folders())
        if not names:
            if store.get(MANIFEST) is not None:  # the address of one bundle
                return [(store.location.url, store.get)], []
            raise UsageError(f"{store.location.url}: 这里没有任何赛事包（地址写错了？）no bundles "
                              "at this address (a mistyped bucket or prefix?)")
        return ([(Store(source.below(n), store.s3).location.url,
                  Store(source.below(n), store.s3).get) for n in names if n not in skip],
                [n for n in names if n in skip])
    if not source.is_dir():
        raise PaisaiError(f"找不到文件夹 no such folder: {source}")
    folders = [source] if (source / MANIFEST).is_file() else sorted(
        p for p in source.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise UsageError(f"{source}: 这里没有任何赛事包 no bundles in this folder")

    def fetcher(folder: Path) -> Callable[[str], bytes | None]:
        return lambda name: (folder / name).read_bytes() if (folder / name).is_file() else None

    return ([(str(f), fetcher(f)) for f in folders if f.name not in skip],
            [f.name for f in folders if f.name in skip])


def _refuse_seasons(source: Path | Location, first: str) -> None:
    """No folder under the source has a manifest, but they hold folders: the source is one
    level too high (the bucket, or a folder of seasons), refused in words — never a sync that
    imports nothing, forever, blaming an upload."""
    if isinstance(source, Location):
        name = first.rstrip("/").rsplit("/", 1)[-1]
        deeper = Store(source.below(name)).folders()
    else:
        deeper = [p.name for p in Path(first).iterdir() if p.is_dir()]
    if deeper:
        where = source.url if isinstance(source, Location) else str(source)
        raise UsageError(f"{where}: 这里是赛季的上一级（其下是文件夹的文件夹，不是赛事包），请同步一个赛季，"
                         f"例如 {first} it holds folders of folders, not bundles — a bucket "
                         f"or a folder of seasons? Sync one season, e.g. {first}")


def _known(database: Path) -> tuple[set[str], set[str]]:
    """(bundle ids recorded, event ids held) of the database."""
    with db.reading(database) as con:
        bundles = {b for b, in db.rows(con, "select bundle_id from synced_bundles")}
        held = {e for e, in db.rows(con, "select event_id from events")}
    return bundles, held


def _sheets(bundle: Bundle, folder: Path) -> str:
    """The bundle as the sheets `import-event` reads (registration, results, penalties) and
    its ruleset; returns the ruleset to create the event with (a preset's name when the
    bundle's TOML is the preset's, else the TOML written beside the sheets)."""
    teams, players = bundle.frames["teams.parquet"], bundle.frames["players.parquet"]
    wide = teams.select("team_no", "team_name", "affiliation")
    for slot in range(1, PLAYER_SLOTS + 1):
        seat = players.filter(pl.col("slot") == slot).select(
            "team_no", pl.col("name").alias(f"player{slot}"),
            pl.col("member_id").alias(f"member{slot}"))
        wide = wide.join(seat, on="team_no", how="left")
    wide = wide.select([c for c in wide.columns if wide[c].null_count() < wide.height
                        or c in ("team_no", "player1")])
    _write(folder / "1-entries.csv", wide)
    results = bundle.frames["results.parquet"].rename({"table_no": "table"})
    if results.height:
        _write(folder / "2-results.csv", results.drop("note", strict=False))
    penalties = bundle.frames.get("penalties.parquet")
    if penalties is not None and penalties.height:
        _write(folder / "3-penalties.csv", penalties)
    ruleset = bundle.manifest["ruleset"]
    name = str(ruleset.get("name") or "")
    if name in preset_names() and load_preset(name).source == ruleset["toml"]:
        return name
    path = folder / "ruleset.toml"
    path.write_text(ruleset["toml"], encoding="utf-8")
    return str(path)


def _write(path: Path, frame: pl.DataFrame) -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(frame.columns)
    writer.writerows([["" if v is None else v for v in row] for row in frame.iter_rows()])
    path.write_text(out.getvalue(), encoding="utf-8")


READERS = 8  # bundles downloaded at once
BATCH = 25  # bundles stored in one transaction (a refused one: each of them alone again)


def _prepared(bundle: Bundle, folder: Path) -> tuple[str, list]:
    """The bundle's ruleset and sheets, read as `import-event` reads them."""
    folder.mkdir()
    ruleset = _sheets(bundle, folder)
    return ruleset, read_sources(folder)


def _store(database: Path, batch: list[Bundle], scratch: Path) -> None:
    """Bundles into the database with their records, in one transaction (or nothing)."""
    prepared = [(b, *_prepared(b, scratch / b.event_id)) for b in batch]
    with db.writing(database) as con:
        for bundle, ruleset, reads in prepared:
            event = bundle.manifest["event"]
            try:
                import_into(con, event["id"], event["name"], ruleset, event.get("date"),
                            reads, refresh=False)
            except SheetErrors as errors:
                raise BundleError(f"{bundle.where}: {_first_problem(errors)} ({errors.total} "
                                  "处错误 problem(s)) — 未导入任何内容 nothing stored") from None
            _carry(con, bundle)
            _same_ranking(con, bundle)
            con.execute("update events set ruleset_name = ? where event_id = ?",
                        [bundle.manifest["ruleset"].get("name") or "bundle", event["id"]])
            con.execute("insert into synced_bundles (bundle_id, event_id, source, "
                        "format_version, paisai_version) values (?, ?, ?, ?, ?)",
                        [bundle.bundle_id, event["id"], bundle.where,
                         bundle.manifest["format_version"],
                         bundle.manifest.get("paisai_version")])


def _carry(con, bundle: Bundle) -> None:
    """What the sheets do not say and the ranking reads: the withdrawals, and the rows of
    the bundle's other files (byes, fouls, rounds lost by ruling, quiz, carried totals, the
    lot) as the event held them."""
    event_id = bundle.event_id
    teams = bundle.frames["teams.parquet"]
    if "withdrawn_after" in teams.columns:
        gone = teams.filter(pl.col("withdrawn_after").is_not_null())
        reason = gone["withdraw_reason"] if "withdraw_reason" in gone.columns else None
        for i, (team_no, after) in enumerate(gone.select("team_no", "withdrawn_after").rows()):
            con.execute("update teams set withdrawn_after = ?, withdraw_reason = ? "
                        "where event_id = ? and team_no = ?",
                        [after, None if reason is None else reason[i], event_id, team_no])
    for name, (table, rows, columns) in CARRIED.items():
        frame = bundle.frames.get(name)
        if frame is None or not frame.height:
            continue  # (the event's own lot, drawn when it was created, replaced)
        con.execute(f"delete from {table} where event_id = ? and {rows}", [event_id])
        db.register(con, "carried_rows", frame.select(columns))
        con.execute(f"insert into {table} by name select ? as event_id, * from carried_rows",
                    [event_id])
        con.unregister("carried_rows")


def _same_ranking(con, bundle: Bundle) -> None:
    """The ranking made again from the bundle under its ruleset is the one it carries
    (else a file or the ruleset was changed since the export: refused, naming the first
    team whose place differs)."""
    carried = bundle.frames.get("rankings.parquet")
    if carried is None or not carried.height:
        return
    from pipeline.base import events
    from pipeline.ranking import scoring

    event = events.load(con, bundle.event_id)
    made = scoring.standings(con, event, scoring.latest_round(con, bundle.event_id))
    theirs = dict(carried.select("team_no", "rank").rows())
    ours = dict(made.select("team_no", "rank").rows())
    for team_no in sorted(set(theirs) | set(ours), key=lambda t: (theirs.get(t) or 0, t)):
        if theirs.get(team_no) != ours.get(team_no):
            raise BundleError(
                f"{bundle.where}/rankings.parquet: 按赛事包的成绩和规则重算的名次与包内名次不符"
                f"（{team_no}：包内 {theirs.get(team_no)}，重算 {ours.get(team_no)}），整个赛事包"
                f"未导入 the ranking made again from the bundle's results under its ruleset "
                f"differs from the one it carries ({team_no}: {theirs.get(team_no)} in the "
                f"bundle, {ours.get(team_no)} made again); nothing of the bundle stored")


SHEET_FILES = {"1-entries.csv": "teams.parquet, players.parquet",
               "2-results.csv": "results.parquet", "3-penalties.csv": "penalties.parquet"}


def _first_problem(errors: SheetErrors) -> str:
    """The first problem, in the bundle's own file names."""
    if not errors.problems:
        return ""
    first = errors.problems[0]
    where = SHEET_FILES.get(first.file, first.file)
    row = f" row {first.row - 1}" if first.row else ""  # the sheet's header is row 1
    column = f" {first.column}" if first.column else ""
    value = f" {first.value!r}" if first.value not in (None, "") else ""
    return f"{where}{row}{column}{value}: {first.message}"


def _import(database: Path, ready: list[Bundle], done: Synced,
            on_bundle: Callable[[str], None]) -> None:
    """Oldest event first, BATCH bundles a transaction; a batch with a refused bundle is
    stored again bundle by bundle, so that only the refused one is left out."""
    ordered = sorted(ready, key=lambda b: b.sort_key)
    with tempfile.TemporaryDirectory(prefix="paisai-bundles-") as scratch:
        for start in range(0, len(ordered), BATCH):
            batch = ordered[start:start + BATCH]
            on_bundle(f"{start + len(batch)}/{len(ordered)}")
            tries = [batch] if len(batch) > 1 else []
            tries += [[b] for b in batch]
            for group in tries:
                folder = Path(tempfile.mkdtemp(dir=scratch))
                try:
                    _store(database, group, folder)
                except PaisaiError as exc:
                    if len(group) == 1:
                        done.refused.append(str(exc) if group[0].where in str(exc)
                                            else f"{group[0].where}: {exc}")
                    continue
                done.imported += [b.event_id for b in group]
                if len(group) > 1:
                    break  # the whole batch stored: no need to go one by one


def sync(database: Path, source: Path | Location,
         on_bundle: Callable[[str], None] = lambda where: None) -> Synced:
    """Import every bundle of the source this database lacks (see the module's words)."""
    bundles, held = _known(database)
    done = Synced()
    ready: list[Bundle] = []
    found, done.known = _candidates(source, held)

    def fetched(candidate: tuple[str, Callable]) -> Bundle | BundleError | None:
        if candidate[1](MANIFEST) is None:
            return None  # its manifest not written yet (an upload going on): next time
        try:
            found = read(*candidate)
        except BundleError as exc:
            return exc
        folder = candidate[0].rstrip("/").rsplit("/", 1)[-1]
        if found.event_id != folder:
            return BundleError(f"{found.where}/{MANIFEST}: 清单写的赛事是 {found.event_id}，赛事包的"
                               f"文件夹却是 {folder}，整个赛事包未导入 the manifest names the event "
                               f"{found.event_id} but the bundle's folder is {folder}; nothing "
                               "of the bundle stored")
        return found

    with ThreadPoolExecutor(READERS) as pool:  # a store answers several requests at once
        for (where, _), bundle in zip(found, pool.map(fetched, found), strict=True):
            if bundle is None:
                done.waiting.append(where)
                continue
            if isinstance(bundle, BundleError):
                done.refused.append(str(bundle))
                continue
            on_bundle(bundle.where)
            if bundle.bundle_id in bundles or bundle.event_id in held:
                done.known.append(bundle.event_id)
                continue
            ready.append(bundle)
    if done.waiting and not (ready or done.known or done.refused):
        _refuse_seasons(source, done.waiting[0])
    from pipeline.history import ratings, stats

    _import(database, ready, done, on_bundle)
    if done.imported:
        with db.writing(database) as con:  # the history's ranks and ratings, once
            stats.refresh_event_ranks(con, done.imported)
            ratings.refresh(con)
    return done
