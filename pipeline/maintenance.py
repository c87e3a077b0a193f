"""Backup, restore and the consistency check of a paisai database."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from pathlib import Path

import duckdb
import polars as pl

from pipeline import db, events, scoring
from pipeline.errors import PaisaiError, UsageError
from pipeline.history import stats


def uploads(con: duckdb.DuckDBPyConnection, event_id: str) -> pl.DataFrame:
    return db.frame(con, "select upload_id, received_at, file_name, source, status, message, "
                         "size_bytes, sha256 from uploads where event_id = $e order by upload_id",
                    {"e": event_id})


def backup(database: Path, out: Path) -> None:
    """A consistent copy of the whole database, taken while holding the write lock."""
    if out.exists():
        raise UsageError(f"目标文件已存在 the backup file exists already: {out}")
    out.parent.mkdir(parents=True, exist_ok=True)
    with db.writing(database) as con:
        con.execute("commit")
        con.execute("checkpoint")
        name = db.scalar(con, "select current_database()")
        con.execute(f"attach '{_quote(out)}' as paisai_backup")
        try:
            con.execute(f'copy from database "{name}" to paisai_backup')
        finally:
            con.execute("detach paisai_backup")
        con.execute("begin transaction")


def _quote(path: Path) -> str:
    return str(path.resolve()).replace("'", "''")


def restore(database: Path, source: Path) -> Path | None:
    """Replace the database with a backup once the backup is known to be whole: opened, every
    table read to its last block, the same checks as `paisai check` passed. The file it
    replaces is kept beside it (`NAME.before-restore-<time>`); that path is returned."""
    if not source.is_file():
        raise UsageError(f"找不到备份文件 no such backup file: {source}")
    database.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=database.parent) as scratch:
        candidate = Path(scratch) / "restore.duckdb"
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
    return kept


def _verify_backup(candidate: Path, source: Path) -> None:
    """Refuse (UsageError) a file that is not a whole paisai database of a known version."""
    def refuse(zh: str, en: str) -> UsageError:
        return UsageError(f"不能恢复 {source}：{zh}，当前数据库未改动 cannot restore {source}: "
                          f"{en}; the database is unchanged")

    try:
        con = duckdb.connect(str(candidate))
    except duckdb.Error as exc:
        raise refuse("文件损坏或不是数据库", f"damaged or not a database ({exc})") from None
    try:
        version = db.scalar(con, "select max(version) from schema_version")
        if version is None or version > db.latest_version():
            raise refuse(f"数据库版本 {version} 不是本程序能读的",
                         f"schema version {version} is not one this paisai reads "
                         f"(1…{db.latest_version()})")
        db.migrate(con)
        present = {name for name, in db.rows(con, "select table_name from duckdb_tables()")}
        missing = sorted(_expected_tables() - present)
        if missing:
            raise refuse(f"缺少表 {', '.join(missing)}", f"tables missing: {', '.join(missing)}")
        for table in sorted(present):  # every block read: a damaged one fails its checksum
            db.rows(con, f'select count(*), max(hash(columns(*))) from "{table}"')
        problems = check(con)
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


def _expected_tables() -> set[str]:
    """The tables a current paisai database has (a fresh one, migrated in memory)."""
    con = duckdb.connect(":memory:")
    try:
        db.migrate(con)
        return {name for name, in db.rows(con, "select table_name from duckdb_tables()")}
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
