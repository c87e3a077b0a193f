"""CLI commands: pairing, exports, the draw, check-in, withdrawals, the clock, late arrivals."""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

from pipeline import db, events, output
from pipeline.cli_support import KIND_LABELS, _db, _err, _out, command
from pipeline.errors import UsageError


@command("pair")
def cmd_pair(args: argparse.Namespace) -> int:
    from pipeline import rounds

    with db.writing(_db(args)) as con:
        event = events.load(con, args.event)
        round_no, pairing, seed = rounds.pair(con, event, args.round, args.seed, args.force)
        listing = rounds.pairings(con, event.event_id, round_no)
    shown = listing.select(rounds.PAIRING_COLUMNS)
    title = f"{event.name} — 第 {round_no} 轮对阵 pairing of round {round_no}"
    if args.format == "table":
        shown = listing.select("table", "ew_team", "ew_name", "ns_team", "ns_name").with_columns(
            pl.col("ns_team").fill_null("轮空 bye"))
        if seed is not None:
            title += f"\n抽签种子 draw seed: {seed}"
    _out(output.render(shown, args.format, title))
    if seed is not None and args.format != "table":
        _err(f"抽签种子 draw seed: {seed}")
    for a, b in pairing.rematches:
        _err(f"注意：{a} 与 {b} 再次相遇（没有可避免重复的编排） rematch unavoidable: {a}–{b}")
    return 0


@command("results delete")
def cmd_results_delete(args: argparse.Namespace) -> int:
    from pipeline import rounds

    with db.writing(_db(args)) as con:
        events.load(con, args.event)
        removed = rounds.delete_results(con, args.event, args.round, args.table)
    _out(f"已删除第 {args.round} 轮 {removed} 桌的成绩（已记入审计） removed the results of "
         f"{removed} table(s) of round {args.round} (kept in the audit)\n")
    return 0


def _export(args: argparse.Namespace, exporter, what: str) -> int:
    """Both exports read one stored round and write one file."""
    from pipeline import rounds

    with db.reading(_db(args)) as con:
        event = events.load(con, args.event)
        pairs = rounds.pairings(con, event.event_id, args.round)
    out = Path(args.out)
    if out.is_dir():
        raise UsageError(f"--out 是一个文件夹，请给出文件名 --out is a folder; give a file name: {out}")
    if not out.parent.is_dir():
        raise UsageError(f"文件夹不存在 the folder does not exist: {out.parent}")
    exporter(pairs, f"{event.name} 第 {args.round} 轮{what}", out)
    _out(f"已导出 exported {out}\n")
    return 0


@command("export pairings")
def cmd_export_pairings(args: argparse.Namespace) -> int:
    from pipeline.export.pairings import export_pairings

    return _export(args, export_pairings, "对阵表")


@command("export scoresheet")
def cmd_export_scoresheet(args: argparse.Namespace) -> int:
    from pipeline.export.scoresheet import export_scoresheet

    return _export(args, export_scoresheet, "成绩登记表")


@command("draw")
def cmd_draw(args: argparse.Namespace) -> int:
    from pipeline import registration

    with db.writing(_db(args)) as con:
        events.load(con, args.event)
        drawn, seed, unpaired = registration.draw(con, args.event, args.prefix, args.seed,
                                                  args.in_order, args.separate_affiliations)
    title = f"抽签结果 draw: {drawn.height} 队 teams · 种子 seed {seed}"
    _out(output.render(drawn, args.format, title))
    if args.format != "table":
        _err(f"抽签种子 draw seed: {seed}")
    for name in unpaired:
        _err(f"单人报名 {name} 暂无搭档，未编号 single without a partner, not numbered yet")
    return 0


@command("checkin")
def cmd_checkin(args: argparse.Namespace) -> int:
    from pipeline import registration

    if not args.all and not args.teams:
        raise UsageError("请给出队号或 --all give team numbers or --all")
    with db.writing(_db(args)) as con:
        events.load(con, args.event)
        count = registration.checkin(con, args.event, [t.upper() for t in args.teams],
                                     args.all)
    _out(f"已报到 checked in: {count}\n")
    return 0


@command("withdraw")
def cmd_withdraw(args: argparse.Namespace) -> int:
    from pipeline import registration

    with db.writing(_db(args)) as con:
        events.load(con, args.event)
        registration.withdraw(con, args.event, args.team.upper(), args.after_round, args.reason)
    _out(f"{args.team.upper()} 第 {args.after_round} 轮后退赛 withdrawn after round "
         f"{args.after_round}\n")
    return 0


@command("reinstate")
def cmd_reinstate(args: argparse.Namespace) -> int:
    from pipeline import registration

    with db.writing(_db(args)) as con:
        events.load(con, args.event)
        registration.reinstate(con, args.event, args.team.upper())
    _out(f"{args.team.upper()} 已恢复 reinstated\n")
    return 0


@command("clock")
def cmd_clock(args: argparse.Namespace) -> int:
    import json

    from pipeline import clockstore

    if args.action == "status":
        with db.reading(_db(args)) as con:
            event = events.load(con, args.event)
            state = clockstore.status(con, event, args.round)
    else:
        minutes = getattr(args, "minutes", None)
        if args.action == "add-minutes" and minutes is None:
            raise UsageError("paisai clock add-minutes --event ID N（减时：-- -5）")
        with db.writing(_db(args)) as con:
            event = events.load(con, args.event)
            state = clockstore.change(con, event, args.action, args.round, minutes or 0)
    if getattr(args, "format", "table") == "json":
        _out(json.dumps(state.as_dict(), ensure_ascii=False) + "\n")
    else:
        minutes, seconds = divmod(state.remaining_seconds, 60)
        _out(f"第 {state.round} 轮 round {state.round}: {state.state} · 剩余 remaining "
             f"{minutes:02d}:{seconds:02d} · 已用 elapsed {state.elapsed_seconds // 60} 分钟\n")
    return 0


@command("late")
def cmd_late(args: argparse.Namespace) -> int:
    from pipeline import clockstore
    from pipeline.ingest import ingest_rows

    team = args.team.strip().upper()
    with db.reading(_db(args)) as con:
        event = events.load(con, args.event)
        action, kind, rows = clockstore.late_rows(con, event, args.round, team, args.minutes)
    _out(f"{team}: {action.describe(args.minutes)}\n")
    if rows:
        ingest_rows(_db(args), args.event, kind, rows, source=f"迟到 late {team}",
                    reason=f"迟到 {args.minutes:g} 分钟")
        _out(f"已记录 recorded as {KIND_LABELS[kind]}\n")
    elif action.action not in ("none", "warning"):
        _out("请在罚分表中录入 enter it on the penalty sheet\n")
    return 0
