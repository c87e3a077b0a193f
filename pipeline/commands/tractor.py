"""CLI commands: Tractor groups, knockout rounds and the bracket."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline import db, events
from pipeline.cli_support import _db, _out, command
from pipeline.errors import UsageError


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
