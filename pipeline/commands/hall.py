"""CLI commands of the hall on the day: the desk's draw, check-in, withdrawals and
reinstatements, the round's clock and late arrivals."""

from __future__ import annotations

import click

from pipeline.base import db, events, output
from pipeline.base.errors import UsageError
from pipeline.cli_support import (
    KIND_LABELS,
    common,
    database,
    err,
    event_option,
    format_option,
    out,
)


@click.command("draw", help="抽签编号、单人配对 number the teams by lot")
@event_option()
@click.option("--prefix", default="A", show_default=True, help="编号前缀 prefix (A → A1, A2 …)")
@click.option("--seed", type=int, help="抽签种子 seed")
@click.option("--in-order", is_flag=True, help="按表中顺序编号 in sheet order")
@click.option("--separate-affiliations", is_flag=True,
              help="单人配对时尽量不同单位 partners from different units where possible")
@format_option(["table", "csv"])
@common
def draw(event: str, prefix: str, seed: int | None, in_order: bool,
         separate_affiliations: bool, fmt: str) -> int:
    from pipeline.intake import registration
    with db.writing(database()) as con:
        events.load(con, event)
        drawn, seed, unpaired = registration.draw(con, event, prefix, seed, in_order,
                                                  separate_affiliations)
    title = f"抽签结果 draw: {drawn.height} 队 teams"
    if seed is not None:  # a seed only when the lot decided something
        title += f" · 种子 seed {seed}"
    out(output.render(drawn, fmt, title))
    if fmt != "table" and seed is not None:
        err(f"抽签种子 draw seed: {seed}")
    for name in unpaired:
        err(f"单人报名 {name} 暂无搭档，未编号 single without a partner, not numbered yet")
    return 0


@click.command("checkin", help="报到 check teams in")
@event_option()
@click.argument("teams", nargs=-1, metavar="[TEAM_NO]...")
@click.option("--all", "everyone", is_flag=True, help="全部报到 every team")
@common
def checkin(event: str, teams: tuple[str, ...], everyone: bool) -> int:
    from pipeline.intake import registration
    if not everyone and not teams:
        raise UsageError("请给出队号或 --all give team numbers or --all")
    with db.writing(database()) as con:
        events.load(con, event)
        count = registration.checkin(con, event, [t.upper() for t in teams], everyone)
    out(f"已报到 checked in: {count}\n")
    return 0


@click.command("withdraw", help="退赛 a team withdraws")
@event_option()
@click.argument("team", metavar="TEAM_NO")
@click.option("--after-round", type=int, required=True, help="在第 N 轮后 after round N")
@click.option("--reason", help="原因 reason")
@common
def withdraw(event: str, team: str, after_round: int, reason: str | None) -> int:
    from pipeline.intake import registration
    with db.writing(database()) as con:
        events.load(con, event)
        registration.withdraw(con, event, team.upper(), after_round, reason)
    out(f"{team.upper()} 第 {after_round} 轮后退赛 withdrawn after round {after_round}\n")
    return 0


@click.command("reinstate", help="撤销退赛 undo a withdrawal")
@event_option()
@click.argument("team", metavar="TEAM_NO")
@common
def reinstate(event: str, team: str) -> int:
    from pipeline.intake import registration
    with db.writing(database()) as con:
        events.load(con, event)
        registration.reinstate(con, event, team.upper())
    out(f"{team.upper()} 已恢复 reinstated\n")
    return 0


@click.group("clock", help="本轮计时 the round clock")
def clock() -> None:
    pass


def _clock(event: str, action: str, round_no: int | None, minutes: float = 0,
           fmt: str = "table") -> int:
    import json

    from pipeline.day import clockstore
    if action == "status":
        with db.reading(database()) as con:
            found = events.load(con, event)
            state = clockstore.status(con, found, round_no)
    else:
        with db.writing(database()) as con:
            found = events.load(con, event)
            state = clockstore.change(con, found, action, round_no, minutes)
    if fmt == "json":
        out(json.dumps(state.as_dict(), ensure_ascii=False) + "\n")
    else:
        left, seconds = divmod(state.remaining_seconds, 60)
        out(f"第 {state.round} 轮 round {state.round}: {state.state} · 剩余 remaining "
            f"{left:02d}:{seconds:02d} · 已用 elapsed {state.elapsed_seconds // 60} 分钟\n")
    return 0


def _clock_options(f):
    f = common(f)
    f = click.option("--round", "round_no", type=int, help="轮次（默认当前轮） round")(f)
    return event_option()(f)


def _clock_action(action: str, text: str) -> None:
    @clock.command(action, help=text)
    @_clock_options
    def run(event: str, round_no: int | None) -> int:
        return _clock(event, action, round_no)


for _action, _text in (("start", "开始 start"), ("pause", "暂停 pause"), ("resume", "继续 resume"),
                       ("stop", "结束 stop")):
    _clock_action(_action, _text)


@clock.command("add-minutes", help="加减时间 add minutes (减时 take off: -5 or -- -5)",
               context_settings={"ignore_unknown_options": True})  # "-5" is a number here
@_clock_options
@click.argument("minutes", type=float, required=False)
def clock_add_minutes(event: str, round_no: int | None, minutes: float | None) -> int:
    if minutes is None:
        raise UsageError("paisai clock add-minutes --event ID N（减时：-- -5）")
    return _clock(event, "add-minutes", round_no, minutes)


@clock.command("status", help="状态 status")
@_clock_options
@format_option(["table", "json"])
def clock_status(event: str, round_no: int | None, fmt: str) -> int:
    return _clock(event, "status", round_no, fmt=fmt)


@click.command("late", help="迟到处理：按规则记为警告、罚分或弃权 a late arrival, recorded "
                            "per the ruleset's ladder")
@event_option()
@click.option("--round", "round_no", type=int, required=True,
              help="轮次 round (拖拉机小组与淘汰赛：该队的第 N 场 a Tractor bracket: the team's "
                   "N-th match)")
@click.argument("team", metavar="TEAM_NO")
@click.option("--minutes", type=float, required=True, help="迟到分钟数 minutes late")
@common
def late(event: str, round_no: int, team: str, minutes: float) -> int:
    from pipeline.day import clockstore
    from pipeline.intake.ingest import ingest_rows
    from pipeline.officials.records import checked_minutes

    team, minutes = team.strip().upper(), checked_minutes(minutes)
    with db.reading(database()) as con:
        found = events.load(con, event)
        action, kind, rows = clockstore.late_rows(con, found, round_no, team, minutes)
    out(f"{team}: {action.describe(minutes)}\n")
    if rows:
        ingest_rows(database(), event, kind, rows, source=f"迟到 late {team}",
                    reason=f"迟到 {minutes:g} 分钟")
        out(f"已记录 recorded as {KIND_LABELS[kind]}\n")
    elif action.action not in ("none", "warning", "no_sanction"):
        out("请在罚分表中录入 enter it on the penalty sheet\n")
    return 0


COMMANDS = [draw, checkin, withdraw, reinstate, clock, late]
