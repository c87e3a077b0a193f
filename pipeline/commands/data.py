"""CLI commands: sheets in (ingest, import, watch) and keeping them safe (uploads, backup,
restore, check)."""

from __future__ import annotations

from pathlib import Path

import click

from pipeline.base import db, events, output
from pipeline.base.errors import PaisaiError, SheetErrors
from pipeline.base.progress import progress
from pipeline.cli_support import (
    KIND_LABELS,
    common,
    database,
    err,
    event_option,
    format_option,
    out,
)

SHEET_KINDS = ["entries", "results", "results_sides", "results_by_team", "deals", "penalties",
               "fouls", "quiz", "matches", "tractor_deals", "point_penalties", "carry"]


@click.command("ingest", help="导入报名表、成绩表、罚分表 ingest sheets")
@event_option()
@click.option("--kind", type=click.Choice(SHEET_KINDS),
              help="表的种类（默认按表头识别） sheet kind (default: from the header)")
@click.option("--force", is_flag=True,
              help="接受既未编排也不是下一轮的成绩 take results for a round beyond the next one")
@click.option("--round", "round_no", type=int,
              help="没有轮次列的成绩表属于第 N 轮 the round of results sheets without a round "
                   "column")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@common
def ingest(event: str, kind: str | None, force: bool, round_no: int | None,
           files: tuple[str, ...]) -> int:
    from pipeline.intake.ingest import ingest_file

    failed = False
    with progress("导入 ingesting", total=len(files), show=len(files) > 1) as step:
        for name in files:
            path = Path(name)
            step(path.name)
            try:
                report = ingest_file(database(), event, path, kind, force=force,
                                     round_no=round_no)
            except SheetErrors as errors:
                failed = True
                err(f"{path.name}: 有 {errors.total} 处错误，未保存任何内容 "
                    f"{errors.total} error(s), nothing stored")
                err(output.problem_report(errors))
                continue
            if report.already_received:
                out(f"{report.file}: 同一文件已经收到过，未作任何改动 the same file was received "
                    "before; nothing changed\n")
            for line in report.skipped:
                out(f"{report.file}: {line}\n")
            for stored in report.stored:
                out(f"{report.file}: {KIND_LABELS[stored.kind]} 新增 new {stored.new}, "
                    f"更正 replaced {stored.replaced}, 未变 unchanged {stored.unchanged}\n")
    return 2 if failed else 0


@click.command("watch", help="自动导入文件夹中的新表 ingest sheets saved into a folder")
@event_option()
@click.argument("folder", metavar="DIR")
@click.option("--interval", type=float, default=2.0, show_default=True,
              help="扫描间隔秒数 seconds between scans")
@click.option("--once", is_flag=True, help="扫描两遍后退出 scan twice, then stop (for scripts)")
@common
def watch(event: str, folder: str, interval: float, once: bool) -> int:
    from pipeline.operations.watch import watch as run_watch

    with db.reading(database()) as con:
        events.load(con, event)
    out(f"监视文件夹 watching {folder} (Ctrl+C 停止 to stop)\n")
    try:
        run_watch(database(), event, Path(folder), interval, 2 if once else None,
                  log=lambda line: out(line + "\n"))
    except KeyboardInterrupt:
        return 0
    return 0


@click.command("uploads", help="收到的文件（保存的与拒收的） files received")
@event_option()
@format_option()
@common
def uploads(event: str, fmt: str) -> int:
    from pipeline.operations import maintenance
    with db.reading(database()) as con:
        events.load(con, event)
        out(output.render(maintenance.uploads(con, event), fmt))
    return 0


@click.command("backup", help="备份数据库 back up the database")
@click.option("--out", "out_file", required=True, help="备份文件 backup file")
@common
def backup(out_file: str) -> int:
    from pipeline.operations import maintenance
    with progress("备份 backing up", total=1) as step:
        step(out_file)
        maintenance.backup(database(), Path(out_file))
    out(f"已备份 backed up {database()} → {out_file}\n")
    return 0


@click.command("restore", help="从备份恢复（先完整检查备份） restore a backup, checked first")
@click.argument("file", metavar="FILE")
@common
def restore(file: str) -> int:
    from pipeline.operations import maintenance
    with progress("检查并恢复 checking and restoring", total=1) as step:
        step(file)
        kept = maintenance.restore(database(), Path(file))
    out(f"已恢复 restored {file} → {database()}\n")
    if kept:
        out(f"原数据库保存在 the replaced database is kept as {kept}\n")
    return 0


@click.command("check", help="一致性检查 check the database")
@common
def check() -> int:
    from pipeline.operations import maintenance
    with db.reading(database()) as con:
        problems = maintenance.check(con)
    for line in problems:
        err(line)
    if problems:
        err(f"发现 {len(problems)} 个问题 {len(problems)} problem(s) found")
        return 1
    out("检查通过 all checks passed\n")
    return 0


@click.command("import-event", help="导入一场往届赛事 import a past event whole")
@click.option("--id", "event_id", required=True, help="赛事编号 [a-z0-9-]+")
@click.option("--name", required=True, help="赛事名称 event name")
@click.option("--ruleset", required=True, help="规则预设 preset or TOML file")
@click.option("--date", help="日期 YYYY-MM-DD")
@click.argument("source", metavar="FILE_OR_DIR")
@common
def import_event(event_id: str, name: str, ruleset: str, date: str | None, source: str) -> int:
    from pipeline.base.ruleset import resolve
    from pipeline.intake.ingest import import_into, read_sources

    resolve(ruleset)
    try:
        with progress("读取 reading", total=None) as step:
            reads = read_sources(Path(source), on_file=step)
        # one transaction: all of it stored, or nothing; the history's preparation in it
        # (a stale archive's finishes, the ratings) shows its own bars after the reading's:
        # the next read finds everything ready, with no check of its own (issue 52)
        with db.writing(database()) as con:
            reports = import_into(con, event_id, name, ruleset, date, reads)
    except SheetErrors as errors:
        err(f"有 {errors.total} 处错误，未导入任何内容 {errors.total} error(s), nothing imported")
        err(output.problem_report(errors))
        first = errors.problems[0] if errors.problems else None
        where = f"{first.file} row {first.row}: " if first and first.row else \
            f"{first.file}: " if first and first.file else ""
        _import_refused(event_id, name, source, f"{errors.total} problem(s)", (
            f"{where}{first.message}" if first else None))
        return 2
    except PaisaiError as refused:  # an event already there, a date misspelt…
        _import_refused(event_id, name, source, "refused", str(refused))
        raise
    for report in reports:
        for stored in report.stored:
            out(f"{report.file}: {KIND_LABELS[stored.kind]} 新增 new {stored.new}\n")
    from pipeline.base import oplog
    oplog.write(database(), event_id, "imported", f"{name} ({ruleset}) from {Path(source).name}: "
                + "; ".join(f"{s.kind} +{s.new}" for r in reports for s in r.stored))
    out(f"已导入赛事 imported event {event_id}\n")
    return 0


def _import_refused(event_id: str, name: str, source: str, what: str,
                    reason: str | None) -> None:
    """A refused `import-event` in `paisai log`, with its (first) reason, as sync logs a
    refused bundle."""
    from pipeline.base import oplog

    oplog.write(database(), event_id, "import refused",
                f"{name} from {Path(source).name}: {what}, nothing imported"
                + (f" · 原因 reason: {reason}" if reason else ""))


@click.command("log", help="操作日志：某时以来发生了什么 the operations log: what happened since")
@event_option(required=False)
@click.option("--since", metavar="HH:MM", help="今天几点以来 since HH:MM today")
@common
def log(event: str | None, since: str | None) -> int:
    from pipeline.base import oplog
    from pipeline.base.errors import UsageError

    if since:
        try:
            oplog.since_time(since)
        except ValueError:
            raise UsageError(f"--since 应为今天的时刻 HH:MM（00:00–23:59）expected a time of "
                             f"today as HH:MM, e.g. 14:05: {since!r}") from None
    for line in oplog.read(database(), event, since):
        out(line.replace("\t", "  ") + "\n")
    return 0


COMMANDS = [ingest, watch, uploads, backup, restore, check, import_event, log]
