"""CLI commands: the dashboard, the demo, the static site and synthetic events."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.cli_support import _db, _out, command
from pipeline.errors import UsageError


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
