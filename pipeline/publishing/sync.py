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
from pipeline.base.errors import PaisaiError, SheetErrors
from pipeline.base.ruleset import load_preset, preset_names
from pipeline.intake.ingest import import_into, read_sources
from pipeline.publishing.bundle import MANIFEST, PLAYER_SLOTS, Bundle, BundleError, read
from pipeline.publishing.objectstore import Location, Store


@dataclass
class Synced:
    imported: list[str] = field(default_factory=list)  # event ids
    known: list[str] = field(default_factory=list)  # passed over: imported before
    refused: list[str] = field(default_factory=list)  # messages, each naming its bundle


def _candidates(source: Path | Location, skip: set[str]
                ) -> tuple[list[tuple[str, Callable]], list[str]]:
    """(where, fetch) of every bundle folder under the source, and the names passed over
    (the folders of events in `skip`: never downloaded)."""
    if isinstance(source, Location):
        store = Store(source)
        names = sorted(store.folders())
        return ([(Store(source.below(n), store.s3).location.url,
                  Store(source.below(n), store.s3).get) for n in names if n not in skip],
                [n for n in names if n in skip])
    if not source.is_dir():
        raise PaisaiError(f"找不到文件夹 no such folder: {source}")
    folders = [source] if (source / MANIFEST).is_file() else sorted(
        p for p in source.iterdir() if p.is_dir() and (p / MANIFEST).is_file())

    def fetcher(folder: Path) -> Callable[[str], bytes | None]:
        return lambda name: (folder / name).read_bytes() if (folder / name).is_file() else None

    return ([(str(f), fetcher(f)) for f in folders if f.name not in skip],
            [f.name for f in folders if f.name in skip])


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
            con.execute("update events set ruleset_name = ? where event_id = ?",
                        [bundle.manifest["ruleset"].get("name") or "bundle", event["id"]])
            con.execute("insert into synced_bundles (bundle_id, event_id, source, "
                        "format_version, paisai_version) values (?, ?, ?, ?, ?)",
                        [bundle.bundle_id, event["id"], bundle.where,
                         bundle.manifest["format_version"],
                         bundle.manifest.get("paisai_version")])


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

    def fetched(candidate: tuple[str, Callable]) -> Bundle | BundleError:
        try:
            return read(*candidate)
        except BundleError as exc:
            return exc

    with ThreadPoolExecutor(READERS) as pool:  # a store answers several requests at once
        for bundle in pool.map(fetched, found):
            if isinstance(bundle, BundleError):
                done.refused.append(str(bundle))
                continue
            on_bundle(bundle.where)
            if bundle.bundle_id in bundles or bundle.event_id in held:
                done.known.append(bundle.event_id)
                continue
            ready.append(bundle)
    from pipeline.history import ratings, stats

    _import(database, ready, done, on_bundle)
    if done.imported:
        with db.writing(database) as con:  # the history's ranks and ratings, once
            stats.refresh_event_ranks(con, done.imported)
            ratings.refresh(con)
    return done
