"""Backup, restore and the consistency check of a paisai database."""

from __future__ import annotations

import datetime as dt
import os
import shutil
from functools import cache
from pathlib import Path

import duckdb
import polars as pl

from pipeline.base import db, events, scratch
from pipeline.base.errors import PaisaiError, UsageError
from pipeline.history import stats
from pipeline.ranking import scoring


def uploads(con: duckdb.DuckDBPyConnection, event_id: str) -> pl.DataFrame:
    return db.frame(con, "select upload_id, received_at, file_name, source, status, message, "
                         "size_bytes, sha256 from uploads where event_id = $e order by upload_id",
                    {"e": event_id})


def _own_files(database: Path) -> set[Path]:
    """The database file and DuckDB's own files beside it."""
    base = database.resolve()
    return {base, base.with_name(base.name + ".wal"), base.with_name(base.name + ".tmp")}


def backup(database: Path, out: Path) -> None:
    """A consistent copy of the whole database, taken while holding the write lock, written
    under a scratch name and renamed when whole (a killed backup leaves no stub)."""
    if out.resolve() in _own_files(database) or out.name.endswith(".wal"):
        raise UsageError(f"备份不能写到数据库自己的文件上 the backup cannot be the database or its "
                         f"own .wal file: {out}; 请换一个文件名 choose another name")
    if out.exists():
        raise UsageError(f"目标文件已存在 the backup file exists already: {out}")
    out.parent.mkdir(parents=True, exist_ok=True)
    scratch_file = scratch.file_path(out.parent, out.name, "partial")
    try:
        with db.writing(database) as con:
            con.execute("commit")
            con.execute("checkpoint")
            name = db.scalar(con, "select current_database()")
            con.execute(f"attach '{_quote(scratch_file)}' as paisai_backup")
            try:
                con.execute(f'copy from database "{name}" to paisai_backup')
            finally:
                con.execute("detach paisai_backup")
            con.execute("begin transaction")
        if out.exists():
            raise UsageError(f"目标文件已存在 the backup file exists already: {out}")
        os.replace(scratch_file, out)
    finally:
        for left in (scratch_file, scratch_file.with_name(scratch_file.name + ".wal")):
            left.unlink(missing_ok=True)


def _quote(path: Path) -> str:
    return str(path.resolve()).replace("'", "''")


def restore(database: Path, source: Path) -> Path | None:
    """Replace the database with a backup once the backup is known to be whole: opened, every
    table read to its last block, the same checks as `paisai check` passed. The file it
    replaces is kept beside it (`NAME.before-restore-<time>`); that path is returned."""
    if not source.is_file():
        raise UsageError(f"找不到备份文件 no such backup file: {source}")
    database.parent.mkdir(parents=True, exist_ok=True)
    folder = scratch.make_dir(database.parent, database.name, "restoring")
    try:
        candidate = folder / "restore.duckdb"
        shutil.copyfile(source, candidate)
        _verify_backup(candidate, source)
        kept = None
        if database.exists():
            with db.writing(database) as con:  # nobody else may hold the file while it is replaced
                con.execute("checkpoint")
            stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            kept = database.with_name(f"{database.name}.before-restore-{stamp}")
            n = 1
            while kept.exists():
                n += 1
                kept = database.with_name(f"{database.name}.before-restore-{stamp}-{n}")
            shutil.copyfile(database, kept)
        wal = database.with_name(database.name + ".wal")
        if wal.exists():
            wal.unlink()
        os.replace(candidate, database)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return kept


def _verify_backup(candidate: Path, source: Path) -> None:
    """Refuse (UsageError) a file that is not a whole paisai database of a known version."""
    def refuse(zh: str, en: str) -> UsageError:
        return UsageError(f"不能恢复 {source}：{zh}，当前数据库未改动 cannot restore {source}: "
                          f"{en}; the database is unchanged")

    try:  # the file may not reach the disk or the network while it is being judged
        con = duckdb.connect(str(candidate), config={"enable_external_access": False})
    except duckdb.Error as exc:
        raise refuse("文件损坏或不是数据库", f"damaged or not a database ({exc})") from None
    try:
        version = db.scalar(con, "select max(version) from schema_version")
        if version is None or version > db.latest_version():
            raise refuse(f"数据库版本 {version} 不是本程序能读的",
                         f"schema version {version} is not one this paisai reads "
                         f"(1…{db.latest_version()})")
        foreign = _foreign_objects(con)  # before any of paisai's SQL runs on the file
        if foreign:
            raise refuse(f"含有本程序不会建立的对象 {'; '.join(foreign[:5])}",
                         f"it holds objects paisai never makes: {'; '.join(foreign[:5])}")
        db.migrate(con)
        differs = _schema_differences(con)
        if differs:
            raise refuse(f"结构与本程序的不同 {'; '.join(differs[:5])}",
                         f"its schema differs from paisai's: {'; '.join(differs[:5])}")
        present = {name for name, in db.rows(con, "select table_name from duckdb_tables()")}
        for table in sorted(present):  # every block read: a damaged one fails its checksum
            db.rows(con, f'select count(*), max(hash(columns(*))) from "{table}"')
        problems = _value_problems(con) + check(con)
        if problems:
            raise refuse(f"一致性检查发现 {len(problems)} 个问题",
                         f"the consistency check found {len(problems)} problem(s): "
                         + "; ".join(problems[:5]))
        con.execute("checkpoint")
    except duckdb.Error as exc:
        raise refuse("文件已损坏", f"the file is damaged ({type(exc).__name__}: {exc})") \
            from None
    finally:
        con.close()


# What a database may hold besides its tables: paisai makes no macro, view, type or schema,
# and a macro stored in a file overrides a built-in function in every later connection.
_FOREIGN = {
    "macro or function": "select function_name from duckdb_functions() where not internal",
    "view": "select view_name from duckdb_views() where not internal",
    "type": "select type_name from duckdb_types() where not internal",
    "schema": "select schema_name from duckdb_schemas() where not internal "
              "and schema_name <> 'main'",
}

# The catalog a paisai database has, compared whole with a fresh one's.
_INVENTORY = {
    "table": "select table_name from duckdb_tables()",
    "column": "select table_name || '.' || column_name || ' ' || data_type || ' default '"
              " || coalesce(column_default, '') || ' null ' || is_nullable::varchar "
              "from duckdb_columns() where not internal",
    "constraint": "select table_name || ' ' || constraint_type || ' ' || constraint_text "
                  "from duckdb_constraints()",
    "index": "select table_name || '.' || index_name || ' ' || coalesce(sql, '') "
             "from duckdb_indexes()",
    "sequence": "select sequence_name from duckdb_sequences()",
}


def _foreign_objects(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [f"{kind} {name}" for kind, query in _FOREIGN.items()
            for name, in db.rows(con, query)]


def _inventory(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {f"{kind} {item}" for kind, query in _INVENTORY.items()
            for item, in db.rows(con, query)}


def _schema_differences(con: duckdb.DuckDBPyConnection) -> list[str]:
    """What the file's catalog has beyond a fresh paisai database's, then what it lacks."""
    expected, found = _expected_inventory(), _inventory(con)
    return ([f"多出 extra {item}" for item in sorted(found - expected)]
            + [f"缺少 missing {item}" for item in sorted(expected - found)])


def _value_problems(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Values that reach the file system, addresses or identifiers, checked by the rules
    that govern their creation (a file edited by hand skipped those rules)."""
    from pipeline.publishing.objectstore import is_url, parse
    from pipeline.publishing.publish import check_site_folder

    problems = [f"赛事编号 event id {e!r} 不合规 is not valid"
                for e, in db.rows(con, "select event_id from events union all "
                                       "select meet_id from meets")
                if not events.valid_id(e)]
    problems += [f"赛事 {e!r} 名称为空 has no name" for e, in db.rows(
        con, "select event_id from events where trim(name) = ''")]
    for event_id, folder, base_url, endpoint in db.rows(
            con, "select event_id, out_dir, base_url, endpoint_url from publish_targets"):
        try:
            if is_url(folder):  # object storage: the address and endpoint checked as given
                parse(folder, endpoint)
            elif not Path(folder).is_absolute():
                raise UsageError("not an absolute folder")
            else:
                check_site_folder(Path(folder))
        except UsageError as exc:
            problems.append(f"{event_id} 的发布文件夹 publish folder {folder!r}: {exc}")
        try:
            if base_url:
                from pipeline.operations.serve import checked_base_url

                checked_base_url(base_url)
        except UsageError:
            problems.append(f"{event_id} 的网址 address {base_url!r} 不是完整的 http(s) 地址 "
                            "not an absolute http(s) address")
    return problems


@cache
def _expected_inventory() -> frozenset[str]:
    """The catalog of a current paisai database (a fresh one, migrated in memory)."""
    con = duckdb.connect(":memory:")
    try:
        db.migrate(con)
        return frozenset(_inventory(con))
    finally:
        con.close()


def check(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every problem found: results against registrations, tables, standings, audit, uploads."""
    problems = [f"{e} 第 {r} 轮 {t} 号桌：{team} 未报名 team not registered"
                for e, r, t, team in db.rows(con, """
        select r.event_id, r.round, r.table_no, side.team
        from results r, (select unnest([r.ew_team, r.ns_team]) as team) side
        where not exists (select 1 from teams t where t.event_id = r.event_id
                          and t.team_no = side.team)""")]
    stale = set(stats.stale_rank_events(con))  # a stale cache is refreshed when read
    for event_id, in db.rows(con, "select event_id from events order by event_id"):
        event = events.load(con, event_id)
        size = event.ruleset.team_size
        problems += [f"{event_id} 第 {r} 轮：{team} 出现在 {n} 桌 team at {n} tables"
                     for r, team, n in db.rows(con, """
            select round, team, count(*) from (
                select round, ew_team as team from results where event_id = $e
                union all select round, ns_team from results where event_id = $e)
            group by round, team having count(*) > $size""", {"e": event_id, "size": size})]
        if event.ruleset.is_swiss:
            first = scoring.standings(con, event)
            again = scoring.standings(con, event)
            if not first.equals(again):
                problems.append(f"{event_id}: 排名不可复现 standings are not reproducible")
            cached = dict(db.rows(con, "select team_no, rank from event_ranks where "
                                       "event_id = ?", [event_id]))
            fresh = dict(first.select("team_no", "rank").iter_rows())
            if event_id not in stale and cached != fresh:
                problems.append(f"{event_id}: 保存的名次与成绩不一致 stored ranks differ from "
                                "the results")
    problems += [f"{e} 第 {r} 轮 {t} 号桌：审计记录与现值不符 the audit's last change differs "
                 "from the stored result" for e, r, t in db.rows(con, """
        with last as (
            select *, row_number() over (partition by event_id, round, table_no
                                         order by changed_at desc) as n
            from result_audit)
        select l.event_id, l.round, l.table_no from last l
        join results r using (event_id, round, table_no)
        where l.n = 1 and (l.new_ew_level is distinct from r.ew_level
                           or l.new_ns_level is distinct from r.ns_level
                           or l.new_ew_team is distinct from r.ew_team
                           or l.new_ns_team is distinct from r.ns_team)""")]
    problems += [f"上传 upload {u}: 原文件缺失 the file as received is missing"
                 for u, in db.rows(con, """
        select upload_id from uploads u where status = 'stored'
        and size_bytes <= 20 * 1024 * 1024
        and not exists (select 1 from upload_blobs b where b.sha256 = u.sha256)""")]
    return problems


def require_ok(problems: list[str]) -> None:
    if problems:
        raise PaisaiError(f"发现 {len(problems)} 个问题 problems found")
