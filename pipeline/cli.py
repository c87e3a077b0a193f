"""The `paisai` command line. Each subcommand is a thin call into the pipeline modules.

Exit codes: 0 success; 2 invalid input (nothing stored, report on stderr); 1 any other
failure, with a message and no traceback unless `--debug`.
"""

from __future__ import annotations

import argparse
import os
import traceback

from pipeline import output
from pipeline.cli_support import COMMANDS, FORMATS, _common, _err
from pipeline.errors import PaisaiError, SheetErrors


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

    for action, text in (("close", "结束赛事：桌报链接失效 close: table links stop working"),
                         ("reopen", "重新开放赛事 open a closed event again")):
        one = event_sub.add_parser(action, help=text)
        _common(one)
        one.add_argument("--event", required=True, help="赛事编号 event id")

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
    ingest.add_argument("--force", action="store_true",
                        help="接受既未编排也不是下一轮的成绩 take results for a round beyond the "
                             "next one")
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

    results = sub.add_parser("results", help="已保存的成绩 stored results")
    results_sub = results.add_subparsers(dest="action", metavar="ACTION", required=True)
    results_delete = results_sub.add_parser(
        "delete", help="删除一轮或一桌的成绩（留审计记录） remove a round's or a table's results "
                       "(audited)")
    _common(results_delete)
    results_delete.add_argument("--event", required=True, help="赛事编号 event id")
    results_delete.add_argument("--round", type=int, required=True, help="轮次 round")
    results_delete.add_argument("--table", type=int, help="只删这一桌 only this table")

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
    meet_standings.add_argument("--deductions", action="store_true",
                                help="只列出每一次弃权扣分 list each forfeit deduction instead")

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

    return parser


def _name(args: argparse.Namespace) -> str:
    action = getattr(args, "action", None)
    if args.command in {"event", "export", "bracket", "meet", "results"} and action:
        return f"{args.command} {action}"
    return args.command


def main(argv: list[str] | None = None) -> int:
    from pipeline import commands  # noqa: F401  (importing registers every subcommand)

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
            _err(output.problem_report(exc))
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
