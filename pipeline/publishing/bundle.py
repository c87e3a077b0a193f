"""An event as a bundle for the association's archive (`paisai event export`): Parquet files
of its teams, players, results, penalties, final ranking and awards — and of everything else
its ranking reads (byes, fouls, the chief arbiter's confirmed rounds lost, quiz, carried
totals, the lot) — and `manifest.json` (format version, event, ruleset, each file's SHA-256,
the paisai that wrote it, and a bundle id that is the hash of all of these), in a folder
of its own — `<DIR_OR_URL>/<event id>/` — on a disk or on object storage. The manifest is
written last: a bundle whose upload broke off has none, and `history sync` does not see it.

Reading one back (`read`) checks everything before anything is stored: the manifest's
format, its bundle id against its own content (an edited event, ruleset or file list is
refused), every file present with the hash, size and rows the manifest lists (a file that
differs is named), and the columns each file must have; `history sync` then checks that the
ranking made again from the bundle is the ranking it carries.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import polars as pl

from pipeline.base import db, events
from pipeline.base.errors import PaisaiError, UsageError
from pipeline.publishing.objectstore import Location, Store
from pipeline.ranking import awards, scoring

FORMAT = "paisai-event-bundle"
FORMAT_VERSION = 2  # what this paisai writes; 1 is still read (its id covers only the
# event id and the files); a newer one is refused in words
MANIFEST = "manifest.json"
PLAYER_SLOTS = 4
# each file and the columns a reader needs (a bundle may carry more)
COLUMNS = {
    "teams.parquet": ["team_no", "team_name", "affiliation"],
    "players.parquet": ["team_no", "slot", "name", "member_id"],
    "results.parquet": ["round", "table_no", "ew_team", "ns_team", "ew_level", "ns_level",
                        "deals", "forfeit", "first_to_level", "last_deal_side"],
    "penalties.parquet": ["round", "team_no", "target", "amount", "reason"],
    "rankings.parquet": ["rank", "team_no"],
    "awards.parquet": [],
}
# what else the ranking reads (pipeline/sql/standings_fingerprint.sql), each file the rows of
# a table of the event as they are (format 2 on): (file, table, the rows' filter, columns)
CARRIED = {
    "byes.parquet": ("pairings", "ns_team is null",
                     ["round", "ew_team", "bye_kind", "bye_points"]),
    "fouls.parquet": ("fouls", "true",
                      ["round", "team_no", "table_no", "fouls", "warnings", "violations"]),
    "rulings.parquet": ("official_rulings", "kind = 'ruled_loss' and status = 'confirmed'",
                        ["round", "table_no", "team_no", "kind", "amount", "reason", "status"]),
    "quiz.parquet": ("quiz", "true", ["team_no", "quiz_score", "quiz_seconds"]),
    "carried.parquet": ("carried_totals", "true",
                        ["team_no", "match_points", "level_diff_score", "levels",
                         "net_levels", "levels_gained", "source"]),
    "lots.parquet": ("event_lots", "true", ["seed"]),
}


class BundleError(PaisaiError):
    """A bundle that cannot be read as it is: nothing of it is stored (exit code 2)."""

    exit_code = 2


def paisai_version() -> str:
    """The installed paisai's version (as `pip show paisai` says it)."""
    try:
        return metadata.version("paisai")
    except metadata.PackageNotFoundError:  # a checkout run without installing
        return "unknown"


def _parquet(frame: pl.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.write_parquet(out, statistics=False)
    return out.getvalue()


def frames(database: Path, event_id: str) -> tuple[events.Event, dict[str, pl.DataFrame]]:
    """The event's files as frames, read in one go."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        if not event.ruleset.is_swiss:
            raise UsageError(f"{event_id}: 目前只能导出积分编排（瑞士制）赛事；拖拉机淘汰赛尚不能 only "
                             "Swiss events are exported as bundles for now, not a knockout")
        teams = db.frame(con, "select * from teams where event_id = ? order by team_no",
                         [event_id])
        ids = db.frame(con, "select team_no, slot, player_id from player_map "
                            "where event_id = ?", [event_id])
        results = db.frame(con, "select round, table_no, ew_team, ns_team, ew_level, "
                                "ns_level, deals, forfeit, first_to_level, last_deal_side, "
                                "note from results where event_id = ? order by round, "
                                "table_no", [event_id])
        penalties = db.frame(con, "select round, team_no, target, amount, reason from "
                                  "penalties where event_id = ? order by all", [event_id])
        ranking = scoring.standings(con, event, scoring.latest_round(con, event_id))
        prizes = awards.award_list(con, event) if ranking.height else \
            pl.DataFrame(schema={"rank": pl.Int64, "team_no": pl.String, "award": pl.String})
        carried = {name: db.frame(con, f"select {', '.join(columns)} from {table} where "
                                       f"event_id = ? and {rows} order by all", [event_id])
                   for name, (table, rows, columns) in CARRIED.items()}
    players = pl.concat([teams.select(
        "team_no", pl.lit(slot, pl.Int32).alias("slot"),
        pl.col(f"player{slot}").alias("name"), pl.col(f"member{slot}").alias("member_id"))
        for slot in range(1, PLAYER_SLOTS + 1)]).filter(pl.col("name").is_not_null())
    players = players.join(ids.with_columns(pl.col("slot").cast(pl.Int32)),
                           on=["team_no", "slot"], how="left").sort("team_no", "slot")
    return event, {
        "teams.parquet": teams.select("team_no", "team_name", "affiliation",
                                      "withdrawn_after", "withdraw_reason"),
        "players.parquet": players,
        "results.parquet": results,
        "penalties.parquet": penalties,
        "rankings.parquet": ranking,
        "awards.parquet": prizes,
        **{name: frame for name, frame in carried.items() if frame.height},
    }


def bundle_id(event: dict, ruleset: dict, hashes: dict[str, str]) -> str:
    """The bundle's id: the hash of its event, its ruleset and its files' content (the same
    export, the same id; an edit of any of them, another id).

    >>> e, r = {"id": "e", "name": "赛", "date": None}, {"name": "x", "toml": "win = 3"}
    >>> bundle_id(e, r, {"a": "1"}) == bundle_id(e, r, {"a": "1"})
    True
    >>> len({bundle_id(e, r, {"a": "1"}), bundle_id(e, r, {"a": "2"}),
    ...      bundle_id({**e, "name": "另"}, r, {"a": "1"}),
    ...      bundle_id(e, {**r, "toml": "win = 5"}, {"a": "1"})})
    4
    """
    key = json.dumps({"format_version": FORMAT_VERSION, "event": event, "ruleset": ruleset,
                      "files": hashes}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(key.encode()).hexdigest()


def _first_bundle_id(event_id: str, hashes: dict[str, str]) -> str:
    """Format 1's id: the event's id and its files' content only."""
    key = json.dumps({"event": event_id, "files": hashes}, sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()


def _expected_id(manifest: dict) -> str:
    hashes = {name: f["sha256"] for name, f in manifest["files"].items()}
    if manifest["format_version"] == 1:
        return _first_bundle_id(manifest["event"]["id"], hashes)
    return bundle_id(manifest["event"], manifest["ruleset"], hashes)


def export(database: Path, event_id: str, to: Path | Location) -> tuple[str, str]:
    """Write the event's bundle under `to` (a folder or a store's prefix), the manifest
    last. Returns (where, bundle id)."""
    event, made = frames(database, event_id)
    files = {name: _parquet(frame) for name, frame in made.items()}
    hashes = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    about = {"id": event.event_id, "name": event.name,
             "date": event.event_date.isoformat() if event.event_date else None}
    rules = {"name": event.ruleset.name, "toml": event.ruleset.source}
    manifest = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "bundle_id": bundle_id(about, rules, hashes),
        "event": about,
        "ruleset": rules,
        "paisai_version": paisai_version(),
        "exported_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "files": {name: {"sha256": hashes[name], "bytes": len(files[name]),
                         "rows": made[name].height} for name in files},
    }
    files[MANIFEST] = json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8")
    if isinstance(to, Location):
        store = Store(to.below(event_id))
        for name, data in files.items():  # dict order: the manifest last
            store.put(name, data, "application/json; charset=utf-8" if name == MANIFEST
                      else "application/vnd.apache.parquet", "no-store")
        return store.location.url, manifest["bundle_id"]
    folder = to / event_id
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        partial = folder / f".{name}.part"
        partial.write_bytes(data)
        partial.replace(folder / name)
    return str(folder), manifest["bundle_id"]


@dataclass
class Bundle:
    where: str
    manifest: dict
    frames: dict[str, pl.DataFrame]

    @property
    def event_id(self) -> str:
        return self.manifest["event"]["id"]

    @property
    def bundle_id(self) -> str:
        return self.manifest["bundle_id"]

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.manifest["event"].get("date") or "", self.event_id)


def check_manifest(raw: bytes | None, where: str) -> dict:
    """The manifest, if this paisai can read the bundle; else BundleError in words."""
    if raw is None:
        raise BundleError(f"{where}: 没有 {MANIFEST}，不是完整的赛事包 no {MANIFEST}: not a "
                          "whole bundle (an upload that broke off?)")
    try:
        manifest = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BundleError(f"{where}/{MANIFEST}: 不是有效的 JSON not valid JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(f"{where}/{MANIFEST}: 不是 paisai 赛事包 not a paisai event bundle")
    version = manifest.get("format_version")
    written = manifest.get("paisai_version", "?")
    if not isinstance(version, int) or isinstance(version, bool):
        raise BundleError(f"{where}/{MANIFEST}: 清单的格式版本缺失或写错（应为整数）the manifest's "
                          f"format_version is missing or malformed: {version!r}")
    if version > FORMAT_VERSION:
        raise BundleError(f"{where}: 赛事包格式 {version} 由较新的 paisai {written} 写出，本版只读 "
                          f"{FORMAT_VERSION} 及以下，请先升级 paisai the bundle's format {version} "
                          f"was written by a newer paisai ({written}); this one reads format "
                          f"{FORMAT_VERSION}: upgrade paisai")
    if version < 1:
        raise BundleError(f"{where}: 赛事包格式 {version}（paisai {written}）过旧，无法读取，请用"
                          f"新版 paisai 重新导出 format {version} (paisai {written}) is too old "
                          "to read: export the event again with this paisai")
    try:
        event, files = manifest["event"], manifest["files"]
        ok = (events.valid_id(event["id"]) and isinstance(event["name"], str)
              and isinstance(manifest["ruleset"]["toml"], str) and isinstance(files, dict)
              and all(isinstance(f.get("sha256"), str) for f in files.values())
              and isinstance(manifest["bundle_id"], str))
    except (KeyError, TypeError, AttributeError):
        ok = False
    if not ok:
        raise BundleError(f"{where}/{MANIFEST}: 清单缺少或写错了赛事、规则或文件列表 the manifest's "
                          "event, ruleset or file list is missing or malformed")
    lacking = [name for name in ("teams.parquet", "players.parquet", "results.parquet")
               if name not in files]
    if lacking:
        raise BundleError(f"{where}/{MANIFEST}: 清单没有列出 the manifest lists no "
                          f"{', '.join(lacking)}")
    if manifest["bundle_id"] != _expected_id(manifest):
        raise BundleError(f"{where}/{MANIFEST}: 清单被改动过——赛事、规则或文件列表与赛事包编号不符，整个"
                          "赛事包未导入 the manifest was changed: its event, ruleset or file list "
                          "does not match its bundle id; nothing of the bundle stored")
    return manifest


def read(where: str, fetch) -> Bundle:
    """A bundle read whole and checked (`fetch(name) -> bytes | None`): BundleError naming
    the file that is missing, differs from its hash or lacks a column."""
    manifest = check_manifest(fetch(MANIFEST), where)
    frames_read: dict[str, pl.DataFrame] = {}
    for name, listed in manifest["files"].items():
        if "/" in name or "\\" in name or name.startswith("."):
            raise BundleError(f"{where}/{MANIFEST}: 文件名不合规 not a file name: {name!r}")
        data = fetch(name)
        if data is None:
            raise BundleError(f"{where}/{name}: 清单列出的文件不存在 listed in the manifest but "
                              "missing")
        if hashlib.sha256(data).hexdigest() != listed["sha256"]:
            raise BundleError(f"{where}/{name}: 内容与清单的 SHA-256 不符（被改动或损坏），整个赛事包"
                              "未导入 does not match the SHA-256 in the manifest (changed or "
                              "damaged): nothing of the bundle stored")
        try:
            frame = pl.read_parquet(io.BytesIO(data))
        except Exception:
            raise BundleError(f"{where}/{name}: 不是可读的 Parquet 文件 not a readable Parquet "
                              "file") from None
        if listed.get("bytes", len(data)) != len(data) \
                or listed.get("rows", frame.height) != frame.height:
            raise BundleError(f"{where}/{MANIFEST}: {name} 的大小或行数与清单不符 the size or "
                              f"rows of {name} differ from the manifest (the file: "
                              f"{len(data)} bytes, {frame.height} rows; the manifest: "
                              f"{listed.get('bytes')} bytes, {listed.get('rows')} rows); "
                              "nothing of the bundle stored")
        needed = COLUMNS.get(name) or CARRIED.get(name, ("", "", []))[2]
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            raise BundleError(f"{where}/{name}: 缺少列 lacks the columns {', '.join(missing)}")
        frames_read[name] = frame
    return Bundle(where, manifest, frames_read)
