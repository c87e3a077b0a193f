"""CLI commands: Tractor groups, knockout rounds and the bracket."""

from __future__ import annotations

from pathlib import Path

import click

from pipeline.base import db, events
from pipeline.base.errors import UsageError
from pipeline.cli_support import common, database, format_option, out


@click.group("bracket", invoke_without_command=True,
             help="拖拉机小组赛与淘汰赛：不带子命令时显示赛程 Tractor groups and knockout: "
                  "without an action, show the bracket")
@click.option("--event", help="赛事编号 event id")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="输出格式 output format")
@common
@click.pass_context
def bracket(ctx: click.Context, event: str | None, fmt: str) -> int:
    import json

    from pipeline.tractor import stages

    if ctx.invoked_subcommand is not None:
        return 0
    if not event:
        raise click.UsageError("paisai bracket: --event is required")
    with db.reading(database()) as con:
        found = events.load(con, event)
        data = stages.view(con, found)
    if fmt == "json":
        out(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    out(stages_text(found.name, data))
    return 0


def stages_text(name: str, data: dict) -> str:
    from pipeline.base.levels import format_level
    from pipeline.tractor import stages

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
            if m.get("decision"):
                won += (f"（{m['decided_against']} "
                        f"{stages.DECISIONS[m['decision']]}）")
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


@bracket.command("draw", help="小组抽签与循环赛程 draw the groups")
@click.option("--event", required=True, help="赛事编号 event id")
@click.option("--groups", type=int, required=True, help="组数 number of groups")
@click.option("--advance", type=int, required=True,
              help="每组出线名额 teams advancing from each group")
@click.option("--seeds", help="种子队文件（每行一个队号）seeded teams, one a line")
@click.option("--seed", type=int, help="抽签种子 draw seed")
@common
def bracket_draw(event: str, groups: int, advance: int, seeds: str | None,
                 seed: int | None) -> int:
    from pipeline.tractor import stages

    seeded = []
    if seeds:
        try:
            text = Path(seeds).read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise UsageError(f"无法读取种子文件 cannot read the seeds file: {exc.strerror}") \
                from None
        seeded = [line.split(",")[0].strip().upper() for line in text.splitlines()
                  if line.strip() and line.split(",")[0].strip() not in {"队号", "team_no"}]
    with db.writing(database()) as con:
        found = events.load(con, event)
        used = stages.draw(con, found, groups, advance, seeded, seed)
        data = stages.view(con, found)
    out(stages_text(found.name, data))
    out(f"抽签种子 draw seed: {used}\n")
    return 0


@bracket.command("next", help="抽下一轮淘汰赛 draw the next knockout round")
@click.option("--event", required=True, help="赛事编号 event id")
@click.option("--seed", type=int, help="抽签种子 draw seed")
@common
def bracket_next(event: str, seed: int | None) -> int:
    from pipeline.tractor import stages

    with db.writing(database()) as con:
        found = events.load(con, event)
        name = stages.next_stage(con, found, seed)
        data = stages.view(con, found)
    out(stages_text(found.name, data))
    out(f"已抽出 drawn: {name}\n")
    return 0


@bracket.command("links", help="各场比赛双方逐盘记分的签名链接与验证码（打印场次卡用） each "
                                "match's links to its deal-by-deal sheet, one a side, with the "
                                "sides' codes")
@click.option("--event", required=True, help="赛事编号 event id")
@click.option("--stage", help="只列这一阶段 only this stage (e.g. A组, 半决赛)")
@click.option("--base-url", help="看板的地址（手机能打开的） the dashboard's address as phones "
                                 "reach it (default: this machine's LAN address, port 8501)")
@format_option()
@common
def bracket_links(event: str, stage: str | None, base_url: str | None, fmt: str) -> int:
    from pipeline.base import output
    from pipeline.commands.rounds import phone_base
    from pipeline.day import tractorstore
    from pipeline.tractor import stages

    with db.reading(database()) as con:
        found = events.load(con, event)
        stages.require_bracket(found)
    listing = tractorstore.links(database(), found.event_id, phone_base(base_url), stage)
    out(output.render(listing, fmt, f"{found.name} — 逐盘记分链接 match sheet links"))
    return 0


COMMANDS = [bracket]
