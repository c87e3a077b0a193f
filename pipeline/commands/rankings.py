"""CLI commands: standings, rounds, awards and meets."""

from __future__ import annotations

import argparse

from pipeline import db, events, output
from pipeline.cli_support import _db, _out, command
from pipeline.errors import UsageError


@command("standings")
def cmd_standings(args: argparse.Namespace) -> int:
    from pipeline import scoring

    with db.reading(_db(args)) as con:
        event = events.load(con, args.event)
        after = args.round if args.round is not None else scoring.latest_round(con, event.event_id)
        if after < 0:
            raise UsageError("轮次不能为负 round must not be negative")
        ranking = scoring.standings(con, event, after)
    keys = event.ruleset.ranking["keys"]
    columns = scoring.STANDINGS_COLUMNS + [k for k in scoring.EXTRA_COLUMNS if k in keys] + \
        ["status"]
    title = f"{event.name} — 第 {after} 轮后排名 ranking after round {after}"
    _out(output.render(ranking.select(columns), args.format, title))
    return 0


@command("rounds")
def cmd_rounds(args: argparse.Namespace) -> int:
    with db.reading(_db(args)) as con:
        event = events.load(con, args.event)
        summary = db.frame(con, db.sql("rounds"), {"event_id": event.event_id})
    _out(output.render(summary.select("round", "reported", "expected"), args.format))
    return 0


@command("awards")
def cmd_awards(args: argparse.Namespace) -> int:
    from pipeline.awards import award_list

    with db.reading(_db(args)) as con:
        event = events.load(con, args.event)
        awards = award_list(con, event)
    _out(output.render(awards, args.format, f"{event.name} — 获奖名单 awards"))
    return 0


@command("meet create")
def cmd_meet_create(args: argparse.Namespace) -> int:
    from pipeline import meets

    with db.writing(_db(args)) as con:
        meets.create(con, args.id, args.name)
    _out(f"已创建运动会 created meet {args.id}: {args.name}\n")
    return 0


@command("meet add")
def cmd_meet_add(args: argparse.Namespace) -> int:
    from pipeline import meets

    points = meets.parse_points(args.placement_points)
    with db.writing(_db(args)) as con:
        meets.add(con, args.meet, args.event, points, args.forfeit_deduction)
    _out(f"{args.event} 已加入运动会 added to meet {args.meet}: 名次记分 placement points "
         f"{','.join(map(str, points))}, 弃权扣分 forfeit deduction {args.forfeit_deduction}\n")
    return 0


@command("meet standings")
def cmd_meet_standings(args: argparse.Namespace) -> int:
    from pipeline import meets

    with db.reading(_db(args)) as con:
        name, table = meets.standings(con, args.meet)
        deducted = meets.deductions(con, args.meet)
    if args.deductions:
        _out(output.render(deducted, args.format, f"{name} — 弃权扣分 forfeit deductions"))
        return 0
    _out(output.render(table, args.format, f"{name} — 单位总分 unit standings"))
    if args.format == "table" and deducted.height:
        _out("\n" + output.render(deducted, "table", "弃权扣分 forfeit deductions "
                                                       "(每场一次 once per forfeited match)"))
    return 0
