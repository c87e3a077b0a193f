"""CLI commands: events and rulesets."""

from __future__ import annotations

import click

from pipeline.base import db, events, output
from pipeline.base.errors import UsageError
from pipeline.cli_support import common, database, err, event_option, format_option, out


@click.group("event", help="创建、结束赛事 create or close an event")
def event() -> None:
    pass


@event.command("create", help="创建赛事 create an event")
@click.option("--id", "event_id", required=True, help="赛事编号 [a-z0-9-]+")
@click.option("--name", required=True, help="赛事名称 event name")
@click.option("--ruleset", required=True, help="规则预设名或 TOML 文件 preset or file")
@click.option("--date", help="日期 YYYY-MM-DD")
@click.option("--carry-from", metavar="EVENT",
              help="从另一赛事带入队伍与累计成绩 start from another event's teams and totals")
@click.option("--top", type=int, help="只带入前 N 名 only its top N (with --carry-from)")
@common
def create(event_id: str, name: str, ruleset: str, date: str | None, carry_from: str | None,
           top: int | None) -> int:
    from pipeline.base.ruleset import resolve
    from pipeline.intake.carry import carry_from as carry

    if top is not None and not carry_from:
        raise UsageError("--top 需与 --carry-from 同用 --top goes with --carry-from")
    resolve(ruleset)  # a bad ruleset is reported before the database is touched
    with db.writing(database()) as con:
        made = events.create(con, event_id, name, ruleset, date)
        carried = carry(con, made.event_id, carry_from, top) if carry_from else 0
    out(f"已创建赛事 created event {made.event_id}: {made.name} "
        f"(规则 ruleset {made.ruleset.name})\n")
    if carried:
        out(f"已从 {carry_from} 带入 {carried} 队及其累计成绩 carried {carried} teams and their "
            "totals\n")
    return 0


@event.command("close", help="结束赛事：桌报链接失效 close: table links stop working")
@event_option()
@common
def close(event: str) -> int:
    with db.writing(database()) as con:
        events.close(con, event)
    out(f"赛事已结束，桌报链接已失效 event {event} closed; its table links no longer work\n")
    return 0


@event.command("reopen", help="重新开放赛事 open a closed event again")
@event_option()
@common
def reopen(event: str) -> int:
    with db.writing(database()) as con:
        events.close(con, event, closed=False)
    out(f"赛事已重新开放 event {event} open again\n")
    return 0


@event.command("export", help="导出赛事包（协会档案）export the event as a bundle for the "
                              "association's archive")
@event_option()
@click.option("--to", "to", required=True, metavar="DIR_OR_URL",
              help="档案文件夹或 s3://存储桶/前缀（每赛季一个前缀）；赛事包写在其下的 <赛事编号>/ the "
                   "archive's folder or s3://bucket/prefix (one per season); the bundle goes "
                   "into <event id>/ below it")
@click.option("--endpoint-url", metavar="URL",
              help="兼容 S3 的对象存储地址 the endpoint of an S3-compatible store")
@common
def export(event: str, to: str, endpoint_url: str | None) -> int:
    from pipeline.publishing.bundle import export as write_bundle
    from pipeline.publishing.targets import place_of
    from pipeline.ranking import scoring

    where, bundle_id = write_bundle(database(), event, place_of(to, endpoint_url))
    out(f"已导出赛事包 exported the bundle {bundle_id[:12]} of {event} → {where}\n")
    with db.reading(database()) as con:
        played = scoring.latest_round(con, event)
        planned = events.load(con, event).ruleset.rounds
    if planned and played < planned:  # a synced event is not updated by a later bundle
        err(f"注意 note: {event} 只有 {played}/{planned} 轮的成绩；协会同步后不会再更新此赛事，比赛"
            f"结束后再导出 only {played} of {planned} rounds have results, and an archive "
            "that syncs this bundle keeps it as it is: export when the event has ended\n")
    return 0


@click.command("events", help="列出赛事 list events")
@format_option()
@common
def events_list(fmt: str) -> int:
    with db.reading(database()) as con:
        listing = events.listing(con)
    out(output.render(listing, fmt))
    return 0


@click.command("rulesets", help="规则预设：列出（每个一行：名称、项目、标题），或 show NAME 打印一个的全部设置"
                            "（未在预设中写明的标“默认”，仍是可用的 TOML） list the presets, one "
                            "a line (name, discipline, title), or show NAME: every setting with "
                            "its value, defaults marked, still valid TOML")
@click.argument("action", required=False, default="list", type=click.Choice(["list", "show"]))
@click.argument("name", required=False)
@format_option()
@common
def rulesets(action: str, name: str | None, fmt: str) -> int:
    import polars as pl

    from pipeline.base.ruleset import load_preset, preset_names
    from pipeline.base.rulesettext import complete, title

    if action == "show":
        if not name:
            raise UsageError("请给出规则名 name the ruleset: paisai rulesets show NAME")
        out(complete(load_preset(name)))
        return 0
    presets = [load_preset(n) for n in preset_names()]
    listing = pl.DataFrame({"name": [p.name for p in presets],
                            "discipline": [p.discipline for p in presets],
                            "title": [title(p.description) for p in presets]})
    out(output.render(listing, fmt))
    return 0


COMMANDS = [event, events_list, rulesets]
