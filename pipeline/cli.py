"""The `paisai` command line. Each subcommand is a thin call into the pipeline modules.

Exit codes: 0 success; 2 invalid input (nothing stored, report on stderr); 1 any other
failure, with a message and no traceback unless `--debug`.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from pipeline import db, events, output
from pipeline.errors import PROBLEM_COLUMNS, PaisaiError, SheetErrors, UsageError

FORMATS = ["table", "csv", "json"]
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


def command(name: str):
    def register(func: Callable[[argparse.Namespace], int]):
        COMMANDS[name] = func
        return func

    return register


def _out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _err(text: str) -> None:
    sys.stderr.write(text if text.endswith("\n") else text + "\n")


def _db(args: argparse.Namespace) -> Path:
    return db.db_path(getattr(args, "db", None))


# -- events ------------------------------------------------------------------------------------


@command("event create")
def cmd_event_create(args: argparse.Namespace) -> int:
    from pipeline.ruleset import resolve

    resolve(args.ruleset)  # a bad ruleset is reported before the database is touched
    with db.writing(_db(args)) as con:
        event = events.create(con, args.id, args.name, args.ruleset, args.date)
    _out(f"已创建赛事 created event {event.event_id}: {event.name} "
         f"(规则 ruleset {event.ruleset.name})\n")
    return 0


@command("events")
def cmd_events(args: argparse.Namespace) -> int:
    with db.reading(_db(args)) as con:
        listing = events.listing(con)
    _out(output.render(listing, args.format))
    return 0


@command("rulesets")
def cmd_rulesets(args: argparse.Namespace) -> int:
    import polars as pl

    from pipeline.ruleset import load_preset, preset_names

    if args.action == "show":
        if not args.name:
            raise UsageError("请给出规则名 name the ruleset: paisai rulesets show NAME")
        _out(load_preset(args.name).source)
        return 0
    presets = [load_preset(n) for n in preset_names()]
    listing = pl.DataFrame({"name": [p.name for p in presets],
                            "description": [p.description for p in presets]})
    _out(output.render(listing, args.format))
    return 0


# -- sheets ------------------------------------------------------------------------------------


@command("ingest")
def cmd_ingest(args: argparse.Namespace) -> int:
    from pipeline.ingest import ingest_file

    failed = False
    for name in args.files:
        path = Path(name)
        try:
            report = ingest_file(_db(args), args.event, path, args.kind)
        except SheetErrors as errors:
            failed = True
            _err(f"{path.name}: 有 {len(errors.problems)} 处错误，未保存任何内容 "
                 f"{len(errors.problems)} error(s), nothing stored")
            _err(output.table(errors.frame().rename(PROBLEM_COLUMNS)))
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


KIND_LABELS = {
    "entries": "报名 entries",
    "results": "成绩 results",
    "penalties": "罚分 penalties",
    "quiz": "测试题 quiz",
    "deals": "逐副 deals (桌 tables)",
    "fouls": "犯规 fouls",
    "matches": "拖拉机对局 games",
    "tractor_deals": "拖拉机逐盘 deals (局 games)",
    "point_penalties": "拖拉机罚分 point penalties",
}


# -- rankings ----------------------------------------------------------------------------------


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
    _out(output.render(table, args.format, f"{name} — 单位总分 unit standings"))
    return 0


@command("bracket")
def cmd_bracket(args: argparse.Namespace) -> int:
    import json

    from pipeline.tractor import stages

    with db.reading(_db(args)) as con:
        event = events.load(con, args.event)
        data = stages.view(con, event)
    if args.format == "json":
        _out(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    _out(stages_text(event.name, data))
    return 0


def stages_text(name: str, data: dict) -> str:
    from pipeline.levels import format_level

    lines = [f"{name} — 赛程 bracket"]
    groups = {}
    for row in data["groups"]:
        groups.setdefault(row["stage"], []).append(row)
    for stage in data["stages"]:
        lines.append(f"\n【{stage['name']}】")
        for m in stage["matches"]:
            games = " ".join(f"{format_level(a)}:{format_level(b)}" for a, b in m["games"])
            opponent = m["team_b"] or "轮空 bye"
            won = f" → {m['winner']}" if m["winner"] else ""
            lines.append(f"  {m['match']:>2}. {m['team_a']} 对 {opponent}  {games}{won}")
        if stage["name"] in groups:
            lines.append("  名次 队号 胜 负 积分 净胜局 级差")
            for r in groups[stage["name"]]:
                lines.append(f"  {r['rank']:>4} {r['team_no']:<4} {r['wins']:>2} {r['losses']:>2} "
                             f"{r['points']:>4} {r['game_diff']:>6} {r['level_diff']:>4}")
    lines.append(f"\n仍在赛 still in: {', '.join(data['still_in'])}")
    if data["champion"]:
        lines.append(f"冠军 champion: {data['champion']}")
    return "\n".join(lines) + "\n"


@command("bracket draw")
def cmd_bracket_draw(args: argparse.Namespace) -> int:
    from pipeline.tractor import stages

    seeds = []
    if args.seeds:
        try:
            text = Path(args.seeds).read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise UsageError(f"无法读取种子文件 cannot read the seeds file: {exc.strerror}") \
                from None
        seeds = [line.split(",")[0].strip().upper() for line in text.splitlines()
                 if line.strip() and line.split(",")[0].strip() not in {"队号", "team_no"}]
    with db.writing(_db(args)) as con:
        event = events.load(con, args.event)
        seed = stages.draw(con, event, args.groups, args.advance, seeds, args.seed)
        data = stages.view(con, event)
    _out(stages_text(event.name, data))
    _out(f"抽签种子 draw seed: {seed}\n")
    return 0


@command("bracket next")
def cmd_bracket_next(args: argparse.Namespace) -> int:
    from pipeline.tractor import stages

    with db.writing(_db(args)) as con:
        event = events.load(con, args.event)
        name = stages.next_stage(con, event, args.seed)
        data = stages.view(con, event)
    _out(stages_text(event.name, data))
    _out(f"已抽出 drawn: {name}\n")
    return 0


# -- pairing and exports -----------------------------------------------------------------------


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
            pl_bye())
        if seed is not None:
            title += f"\n抽签种子 draw seed: {seed}"
    _out(output.render(shown, args.format, title))
    if seed is not None and args.format != "table":
        _err(f"抽签种子 draw seed: {seed}")
    for a, b in pairing.rematches:
        _err(f"注意：{a} 与 {b} 再次相遇（没有可避免重复的编排） rematch unavoidable: {a}–{b}")
    return 0


def pl_bye():
    import polars as pl

    return pl.col("ns_team").fill_null("轮空 bye")


@command("export pairings")
def cmd_export_pairings(args: argparse.Namespace) -> int:
    from pipeline import rounds
    from pipeline.export.pairings import export_pairings

    with db.reading(_db(args)) as con:
        event = events.load(con, args.event)
        pairs = rounds.pairings(con, event.event_id, args.round)
    out = Path(args.out)
    export_pairings(pairs, f"{event.name} 第 {args.round} 轮对阵表", out)
    _out(f"已导出 exported {out}\n")
    return 0


@command("export scoresheet")
def cmd_export_scoresheet(args: argparse.Namespace) -> int:
    from pipeline import rounds
    from pipeline.export.scoresheet import export_scoresheet

    with db.reading(_db(args)) as con:
        event = events.load(con, args.event)
        pairs = rounds.pairings(con, event.event_id, args.round)
    out = Path(args.out)
    export_scoresheet(pairs, f"{event.name} 第 {args.round} 轮成绩登记表", out)
    _out(f"已导出 exported {out}\n")
    return 0


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


@command("publish")
def cmd_publish(args: argparse.Namespace) -> int:
    from pipeline.publish import publish

    changed = publish(_db(args), args.event, Path(args.out), args.base_url)
    _out(f"已发布 published {args.out}: {len(changed)} 个文件更新 files changed\n")
    return 0


@command("simulate")
def cmd_simulate(args: argparse.Namespace) -> int:
    from pipeline.simulate import simulate

    if args.teams < 2 or args.rounds < 1:
        raise UsageError("至少 2 队 1 轮 at least 2 teams and 1 round")
    made = simulate(args.teams, args.rounds, Path(args.out), args.seed, args.ruleset)
    _out(f"已生成 wrote {made.entries} 与 and {len(made.rounds)} 轮成绩 round sheets in "
         f"{made.folder}\n")
    return 0


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
        _out("请在拖拉机罚分表中录入 enter it on the Tractor penalty sheet\n")
    return 0


# -- keeping the data safe -------------------------------------------------------------------


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

    maintenance.restore(_db(args), Path(args.file))
    _out(f"已恢复 restored {args.file} → {_db(args)}\n")
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


# -- history -----------------------------------------------------------------------------------


@command("import-event")
def cmd_import_event(args: argparse.Namespace) -> int:
    from pipeline.ingest import import_event
    from pipeline.ruleset import resolve

    resolve(args.ruleset)
    try:
        reports = import_event(_db(args), args.id, args.name, args.ruleset, args.date,
                               Path(args.source))
    except SheetErrors as errors:
        _err(f"有 {len(errors.problems)} 处错误，未导入任何内容 nothing imported")
        _err(output.table(errors.frame().rename(PROBLEM_COLUMNS)))
        return 2
    for report in reports:
        for stored in report.stored:
            _out(f"{report.file}: {KIND_LABELS[stored.kind]} 新增 new {stored.new}\n")
    _out(f"已导入赛事 imported event {args.id}\n")
    return 0


@command("players")
def cmd_players(args: argparse.Namespace) -> int:
    from pipeline.history import identity

    if args.action in ("merge", "split"):
        with db.writing(_db(args)) as con:
            if args.action == "merge":
                if len(args.ids) != 2:
                    raise UsageError("paisai players merge ID1 ID2")
                identity.merge(con, args.ids[0], args.ids[1])
                _out(f"已合并 merged {args.ids[1]} → {args.ids[0]}\n")
            else:
                if len(args.ids) != 1 or not args.event:
                    raise UsageError("paisai players split ID --event EVENT")
                identity.split(con, args.ids[0], args.event)
                _out(f"已拆分 split {args.ids[0]} in {args.event}\n")
        return 0
    with db.reading(_db(args)) as con:
        listing = identity.listing(con)
    _out(output.render(listing.select("player_id", "name", "affiliations", "events", "event_ids",
                                      "likely_duplicates"), args.format))
    return 0


@command("player")
def cmd_player(args: argparse.Namespace) -> int:
    import json

    from pipeline.history import identity, stats

    with db.reading(_db(args)) as con:
        found = identity.find(con, args.name, args.affiliation)
        if not found:
            raise PaisaiError(f"没有找到选手 no player named {args.name}")
        if len(found) > 1:
            raise UsageError(f"有 {len(found)} 位同名选手，请加 --affiliation 区分 several players "
                             f"with that name: {', '.join(found)} (see paisai players)")
        profile = stats.player_profile(con, found[0])
    if args.format == "json":
        shown = {k: (v.to_dicts() if hasattr(v, "to_dicts") else v) for k, v in profile.items()}
        _out(json.dumps(shown, ensure_ascii=False, indent=2, default=str) + "\n")
        return 0
    lines = [f"{profile['name']} ({profile['player_id']}) — {profile['affiliations'] or ''}",
             f"赛事 events {profile['events']} · 轮次 rounds {profile['rounds']} · 胜/平/负 "
             f"{profile['wins']}/{profile['draws']}/{profile['losses']} · 平均级差 avg level "
             f"difference {profile['avg_level_diff']}"]
    for label, key in (("最好名次 best", "best_finish"), ("最近名次 latest", "latest_finish")):
        f = profile[key]
        if f:
            lines.append(f"{label}: {f['rank']}/{f['field_size']} {f['event_name']}")
    _out("\n".join(lines) + "\n\n" + output.table(profile["finishes"]) + "\n\n"
         + output.table(profile["partners"]) + "\n")
    return 0


@command("ratings")
def cmd_ratings(args: argparse.Namespace) -> int:
    from pipeline.history import ratings

    with db.reading(_db(args)) as con:
        stale = ratings.is_stale(con)
    if stale:
        with db.writing(_db(args)) as con:
            ratings.recompute(con)
    with db.reading(_db(args)) as con:
        board = ratings.leaderboard(con)
    _out(output.render(board, args.format, "选手评分 ratings (OpenSkill)"))
    return 0


@command("units")
def cmd_units(args: argparse.Namespace) -> int:
    from pipeline.history import stats

    with db.reading(_db(args)) as con:
        _out(output.render(stats.units(con), args.format))
    return 0


@command("compare")
def cmd_compare(args: argparse.Namespace) -> int:
    from pipeline.history import stats

    with db.reading(_db(args)) as con:
        _out(output.render(stats.compare(con, args.first, args.second), args.format))
    return 0


# -- the dashboard and the demo ----------------------------------------------------------------


@command("dashboard")
def cmd_dashboard(args: argparse.Namespace) -> int:
    from pipeline.serve import run_dashboard

    return run_dashboard(_db(args), args.host, args.port)


@command("demo")
def cmd_demo(args: argparse.Namespace) -> int:
    from pipeline.demo import build_demo

    event_id = build_demo(_db(args))
    _out(f"演示赛事已载入 demo event loaded: {event_id} → {_db(args)}\n")
    return 0


# -- parser ------------------------------------------------------------------------------------


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=argparse.SUPPRESS,
                        help="数据库文件 database file (env PAISAI_DB, default data/paisai.duckdb)")
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="出错时显示完整堆栈 show the traceback on failure")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paisai", description="牌赛：掼蛋与拖拉机比赛的计分、排名与编排 "
        "scoring, ranking and pairing for Guandan and Tractor tournaments")
    _common(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    event = sub.add_parser("event", help="创建赛事 create an event")
    event_sub = event.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = event_sub.add_parser("create", help="创建赛事 create an event")
    _common(create)
    create.add_argument("--id", required=True, help="赛事编号 [a-z0-9-]+")
    create.add_argument("--name", required=True, help="赛事名称 event name")
    create.add_argument("--ruleset", required=True, help="规则预设名或 TOML 文件 preset or file")
    create.add_argument("--date", help="日期 YYYY-MM-DD")

    listing = sub.add_parser("events", help="列出赛事 list events")
    _common(listing)
    listing.add_argument("--format", choices=FORMATS, default="table")

    rulesets = sub.add_parser("rulesets", help="规则预设 list or show rulesets")
    _common(rulesets)
    rulesets.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    rulesets.add_argument("name", nargs="?", help="规则名 ruleset name (with show)")
    rulesets.add_argument("--format", choices=FORMATS, default="table")

    ingest = sub.add_parser("ingest", help="导入报名表、成绩表、罚分表 ingest sheets")
    _common(ingest)
    ingest.add_argument("--event", required=True, help="赛事编号 event id")
    ingest.add_argument("--kind", choices=["entries", "results", "deals", "penalties", "fouls",
                                           "quiz", "matches", "tractor_deals",
                                           "point_penalties"],
                        help="表的种类（默认按表头识别） sheet kind (default: from the header)")
    ingest.add_argument("files", nargs="+", metavar="FILE", help=".csv .xlsx .xls")

    standings = sub.add_parser("standings", help="排名 the ranking")
    _common(standings)
    standings.add_argument("--event", required=True, help="赛事编号 event id")
    standings.add_argument("--round", type=int, help="第 N 轮后（默认最新） after round N")
    standings.add_argument("--format", choices=FORMATS, default="table")

    rounds = sub.add_parser("rounds", help="各轮已报/应报桌数 tables reported per round")
    _common(rounds)
    rounds.add_argument("--event", required=True, help="赛事编号 event id")
    rounds.add_argument("--format", choices=FORMATS, default="table")

    awards = sub.add_parser("awards", help="获奖名单 the prize list")
    _common(awards)
    awards.add_argument("--event", required=True, help="赛事编号 event id")
    awards.add_argument("--format", choices=FORMATS, default="table")

    meet = sub.add_parser("meet", help="运动会：多个项目按单位计分 meets")
    meet_sub = meet.add_subparsers(dest="action", metavar="ACTION", required=True)
    meet_create = meet_sub.add_parser("create", help="创建运动会 create a meet")
    _common(meet_create)
    meet_create.add_argument("--id", required=True, help="运动会编号 [a-z0-9-]+")
    meet_create.add_argument("--name", required=True, help="名称 name")
    meet_add = meet_sub.add_parser("add", help="加入一个项目 add an event to a meet")
    _common(meet_add)
    meet_add.add_argument("meet", help="运动会编号 meet id")
    meet_add.add_argument("event", help="赛事编号 event id")
    meet_add.add_argument("--placement-points", required=True,
                          help="名次记分 points for places 1, 2, … e.g. 18,14,12,10,8,6,4,2")
    meet_add.add_argument("--forfeit-deduction", type=int, default=0,
                          help="每次弃权扣分 deduction per forfeit")
    meet_standings = meet_sub.add_parser("standings", help="单位总分 unit standings")
    _common(meet_standings)
    meet_standings.add_argument("meet", help="运动会编号 meet id")
    meet_standings.add_argument("--format", choices=FORMATS, default="table")

    bracket_p = sub.add_parser("bracket", help="拖拉机小组赛与淘汰赛 Tractor groups and knockout")
    _common(bracket_p)
    bracket_p.add_argument("--event", help="赛事编号 event id")
    bracket_p.add_argument("--format", choices=["table", "json"], default="table")
    bracket_sub = bracket_p.add_subparsers(dest="action", metavar="ACTION")
    bracket_draw = bracket_sub.add_parser("draw", help="小组抽签与循环赛程 draw the groups")
    _common(bracket_draw)
    bracket_draw.add_argument("--event", required=True, help="赛事编号 event id")
    bracket_draw.add_argument("--groups", type=int, required=True, help="组数 number of groups")
    bracket_draw.add_argument("--advance", type=int, required=True,
                              help="每组出线名额 teams advancing from each group")
    bracket_draw.add_argument("--seeds", help="种子队文件（每行一个队号）seeded teams, one a line")
    bracket_draw.add_argument("--seed", type=int, help="抽签种子 draw seed")
    bracket_next = bracket_sub.add_parser("next", help="抽下一轮淘汰赛 draw the next knockout round")
    _common(bracket_next)
    bracket_next.add_argument("--event", required=True, help="赛事编号 event id")
    bracket_next.add_argument("--seed", type=int, help="抽签种子 draw seed")

    pair = sub.add_parser("pair", help="编排下一轮 pair a round")
    _common(pair)
    pair.add_argument("--event", required=True, help="赛事编号 event id")
    pair.add_argument("--round", type=int, help="轮次（默认下一轮） round (default: the next)")
    pair.add_argument("--format", choices=FORMATS, default="table")
    pair.add_argument("--seed", type=int, help="随机抽签种子 seed of a random draw")
    pair.add_argument("--force", action="store_true",
                      help="上一轮未报完也编排 pair although tables are unreported")

    export = sub.add_parser("export", help="导出对阵表、成绩登记表 export lists and sheets")
    export_sub = export.add_subparsers(dest="action", metavar="WHAT", required=True)
    for what, text, suffixes in (
        ("pairings", "对阵表与查找座位 table list and seat index", ".xlsx .csv .html"),
        ("scoresheet", "预填的成绩登记表 pre-filled score sheet", ".xlsx"),
    ):
        one = export_sub.add_parser(what, help=text)
        _common(one)
        one.add_argument("--event", required=True, help="赛事编号 event id")
        one.add_argument("--round", type=int, required=True, help="轮次 round")
        one.add_argument("--out", required=True, help=f"输出文件 output file ({suffixes})")

    publish = sub.add_parser("publish", help="发布静态网站 publish a static site")
    _common(publish)
    publish.add_argument("--event", required=True, help="赛事编号 event id")
    publish.add_argument("--out", required=True, help="输出文件夹 output folder")
    publish.add_argument("--base-url", help="网站地址（二维码） the site's address, for the QR")
    simulate = sub.add_parser("simulate", help="生成模拟赛事的表格 write a synthetic event")
    _common(simulate)
    simulate.add_argument("--teams", type=int, required=True, help="队数 teams")
    simulate.add_argument("--rounds", type=int, required=True, help="轮数 rounds")
    simulate.add_argument("--out", required=True, help="输出文件夹 output folder")
    simulate.add_argument("--seed", type=int, default=1, help="随机种子 seed")
    simulate.add_argument("--ruleset", default="suzhou-2025", help="规则 ruleset")

    draw = sub.add_parser("draw", help="抽签编号、单人配对 number the teams by lot")
    _common(draw)
    draw.add_argument("--event", required=True, help="赛事编号 event id")
    draw.add_argument("--prefix", default="A", help="编号前缀 prefix (A → A1, A2 …)")
    draw.add_argument("--seed", type=int, help="抽签种子 seed")
    draw.add_argument("--in-order", action="store_true", help="按表中顺序编号 in sheet order")
    draw.add_argument("--separate-affiliations", action="store_true",
                      help="单人配对时尽量不同单位 partners from different units where possible")
    draw.add_argument("--format", choices=["table", "csv"], default="table")
    checkin = sub.add_parser("checkin", help="报到 check teams in")
    _common(checkin)
    checkin.add_argument("--event", required=True, help="赛事编号 event id")
    checkin.add_argument("teams", nargs="*", metavar="TEAM_NO")
    checkin.add_argument("--all", action="store_true", help="全部报到 every team")
    withdraw = sub.add_parser("withdraw", help="退赛 a team withdraws")
    _common(withdraw)
    withdraw.add_argument("--event", required=True, help="赛事编号 event id")
    withdraw.add_argument("team", metavar="TEAM_NO")
    withdraw.add_argument("--after-round", type=int, required=True, help="在第 N 轮后 after round N")
    withdraw.add_argument("--reason", help="原因 reason")
    reinstate = sub.add_parser("reinstate", help="撤销退赛 undo a withdrawal")
    _common(reinstate)
    reinstate.add_argument("--event", required=True, help="赛事编号 event id")
    reinstate.add_argument("team", metavar="TEAM_NO")

    clock = sub.add_parser("clock", help="本轮计时 the round clock")
    clock_sub = clock.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, text in (("start", "开始 start"), ("pause", "暂停 pause"),
                         ("resume", "继续 resume"), ("add-minutes", "加减时间 add minutes"),
                         ("stop", "结束 stop"), ("status", "状态 status")):
        one = clock_sub.add_parser(action, help=text)
        _common(one)
        one.add_argument("--event", required=True, help="赛事编号 event id")
        one.add_argument("--round", type=int, help="轮次（默认当前轮） round")
        if action == "add-minutes":
            one.add_argument("minutes", type=float, nargs="?", help="分钟（负数减时 use -- -5）")
        if action == "status":
            one.add_argument("--format", choices=["table", "json"], default="table")
    late = sub.add_parser("late", help="迟到处理 a late arrival")
    _common(late)
    late.add_argument("--event", required=True, help="赛事编号 event id")
    late.add_argument("--round", type=int, required=True, help="轮次 round")
    late.add_argument("team", metavar="TEAM_NO", help="队号 team")
    late.add_argument("--minutes", type=float, required=True, help="迟到分钟数 minutes late")

    uploads = sub.add_parser("uploads", help="收到的文件 files received")
    _common(uploads)
    uploads.add_argument("--event", required=True, help="赛事编号 event id")
    uploads.add_argument("--format", choices=FORMATS, default="table")
    backup = sub.add_parser("backup", help="备份数据库 back up the database")
    _common(backup)
    backup.add_argument("--out", required=True, help="备份文件 backup file")
    restore = sub.add_parser("restore", help="从备份恢复 restore a backup")
    _common(restore)
    restore.add_argument("file", metavar="FILE", help="备份文件 backup file")
    check = sub.add_parser("check", help="一致性检查 check the database")
    _common(check)

    imported = sub.add_parser("import-event", help="导入一场往届赛事 import a past event whole")
    _common(imported)
    imported.add_argument("--id", required=True, help="赛事编号 [a-z0-9-]+")
    imported.add_argument("--name", required=True, help="赛事名称 event name")
    imported.add_argument("--ruleset", required=True, help="规则预设 preset or TOML file")
    imported.add_argument("--date", help="日期 YYYY-MM-DD")
    imported.add_argument("source", metavar="FILE_OR_DIR", help="工作簿或文件夹 workbook or folder")

    players = sub.add_parser("players", help="选手身份：列出、合并、拆分 player identities")
    _common(players)
    players.add_argument("action", nargs="?", choices=["list", "merge", "split"], default="list")
    players.add_argument("ids", nargs="*", metavar="ID", help="选手编号 player ids")
    players.add_argument("--event", help="拆分所在赛事 the event of a split")
    players.add_argument("--format", choices=FORMATS, default="table")

    player = sub.add_parser("player", help="选手档案 a player's profile")
    _common(player)
    player.add_argument("name", help="姓名 name (繁体、空格均可)")
    player.add_argument("--affiliation", help="单位 affiliation")
    player.add_argument("--format", choices=["table", "json"], default="table")

    for name, text in (("ratings", "选手评分榜 rating leaderboard"),
                       ("units", "各单位历届成绩 units over time")):
        one = sub.add_parser(name, help=text)
        _common(one)
        one.add_argument("--format", choices=FORMATS, default="table")

    compare = sub.add_parser("compare", help="两场赛事对比 two events side by side")
    _common(compare)
    compare.add_argument("first", metavar="EVENT1")
    compare.add_argument("second", metavar="EVENT2")
    compare.add_argument("--format", choices=FORMATS, default="table")

    watch = sub.add_parser("watch", help="自动导入文件夹中的新表 ingest sheets saved into a folder")
    _common(watch)
    watch.add_argument("--event", required=True, help="赛事编号 event id")
    watch.add_argument("folder", metavar="DIR", help="文件夹 folder")
    watch.add_argument("--interval", type=float, default=2.0, help="扫描间隔秒数 seconds")
    watch.add_argument("--once", action="store_true",
                       help="扫描两遍后退出 scan twice, then stop (for scripts)")

    dashboard = sub.add_parser("dashboard", help="启动看板 start the dashboard")
    _common(dashboard)
    dashboard.add_argument("--host", default="127.0.0.1")
    dashboard.add_argument("--port", type=int, default=8501)

    demo = sub.add_parser("demo", help="载入演示赛事 load the demo event")
    _common(demo)

    for extend in EXTENSIONS:
        extend(sub, _common)
    return parser


EXTENSIONS: list[Callable] = []


def _name(args: argparse.Namespace) -> str:
    action = getattr(args, "action", None)
    if args.command in {"event", "export", "bracket", "meet"} and action:
        return f"{args.command} {action}"
    return args.command


def main(argv: list[str] | None = None) -> int:
    from pipeline import commands  # noqa: F401  (registers the later commands)

    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    debug = getattr(args, "debug", False) or os.environ.get("PAISAI_DEBUG") == "1"
    if args.command == "bracket" and not getattr(args, "action", None) and not args.event:
        parser.error("paisai bracket: --event is required")
    try:
        return COMMANDS[_name(args)](args)
    except PaisaiError as exc:
        if isinstance(exc, SheetErrors):
            _err(output.table(exc.frame().rename(PROBLEM_COLUMNS)))
        _err(f"错误 error: {exc}")
        if debug:
            traceback.print_exc()
        return exc.exit_code
    except KeyboardInterrupt:
        _err("已中断 interrupted")
        return 1
    except Exception as exc:  # the last guard: a message, never a traceback for the user
        _err(f"内部错误 internal error: {type(exc).__name__}: {exc}")
        if debug:
            traceback.print_exc()
        else:
            _err("（加 --debug 查看详情 add --debug for details）")
        return 1
