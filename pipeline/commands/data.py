"""CLI commands: sheets in (ingest, import, watch) and keeping them safe (uploads, backup, restore, check)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline import db, events, output
from pipeline.cli_support import KIND_LABELS, _db, _err, _out, command
from pipeline.errors import SheetErrors


@command("ingest")
def cmd_ingest(args: argparse.Namespace) -> int:
    from pipeline.ingest import ingest_file

    failed = False
    for name in args.files:
        path = Path(name)
        try:
            report = ingest_file(_db(args), args.event, path, args.kind, force=args.force)
        except SheetErrors as errors:
            failed = True
            _err(f"{path.name}: 有 {errors.total} 处错误，未保存任何内容 "
                 f"{errors.total} error(s), nothing stored")
            _err(output.problem_report(errors))
            continue
        if report.already_received:
            _out(f"{report.file}: 同一文件已经收到过，未作任何改动 the same file was received "
                 "before; nothing changed\n")
        for line in report.skipped:
            _out(f"{report.file}: {line}\n")
        for stored in report.stored:
            _out(f"{report.file}: {KIND_LABELS[stored.kind]} 新增 new {stored.new}, "
                 f"更正 replaced {stored.replaced}, 未变 unchanged {stored.unchanged}\n")
    return 2 if failed else 0


@command("watch")
def cmd_watch(args: argparse.Namespace) -> int:
    from pipeline.watch import watch

    with db.reading(_db(args)) as con:
        events.load(con, args.event)
    _out(f"监视文件夹 watching {args.folder} (Ctrl+C 停止 to stop)\n")
    try:
        watch(_db(args), args.event, Path(args.folder), args.interval,
              2 if args.once else None, log=lambda line: _out(line + "\n"))
    except KeyboardInterrupt:
        return 0
    return 0


@command("uploads")
def cmd_uploads(args: argparse.Namespace) -> int:
    from pipeline import maintenance

    with db.reading(_db(args)) as con:
        events.load(con, args.event)
        _out(output.render(maintenance.uploads(con, args.event), args.format))
    return 0


@command("backup")
def cmd_backup(args: argparse.Namespace) -> int:
    from pipeline import maintenance

    maintenance.backup(_db(args), Path(args.out))
    _out(f"已备份 backed up {_db(args)} → {args.out}\n")
    return 0


@command("restore")
def cmd_restore(args: argparse.Namespace) -> int:
    from pipeline import maintenance

    kept = maintenance.restore(_db(args), Path(args.file))
    _out(f"已恢复 restored {args.file} → {_db(args)}\n")
    if kept:
        _out(f"原数据库保存在 the replaced database is kept as {kept}\n")
    return 0


@command("check")
def cmd_check(args: argparse.Namespace) -> int:
    from pipeline import maintenance

    with db.reading(_db(args)) as con:
        problems = maintenance.check(con)
    for line in problems:
        _err(line)
    if problems:
        _err(f"发现 {len(problems)} 个问题 {len(problems)} problem(s) found")
        return 1
    _out("检查通过 all checks passed\n")
    return 0


@command("import-event")
def cmd_import_event(args: argparse.Namespace) -> int:
    from pipeline.ingest import import_event
    from pipeline.ruleset import resolve

    resolve(args.ruleset)
    try:
        reports = import_event(_db(args), args.id, args.name, args.ruleset, args.date,
                               Path(args.source))
    except SheetErrors as errors:
        _err(f"有 {errors.total} 处错误，未导入任何内容 {errors.total} error(s), nothing imported")
        _err(output.problem_report(errors))
        return 2
    for report in reports:
        for stored in report.stored:
            _out(f"{report.file}: {KIND_LABELS[stored.kind]} 新增 new {stored.new}\n")
    _out(f"已导入赛事 imported event {args.id}\n")
    return 0
