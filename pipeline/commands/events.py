"""CLI commands: events and rulesets."""

from __future__ import annotations

import argparse

from pipeline import db, events, output
from pipeline.cli_support import _db, _out, command
from pipeline.errors import UsageError


@command("event create")
def cmd_event_create(args: argparse.Namespace) -> int:
    from pipeline.ruleset import resolve

    resolve(args.ruleset)  # a bad ruleset is reported before the database is touched
    with db.writing(_db(args)) as con:
        event = events.create(con, args.id, args.name, args.ruleset, args.date)
    _out(f"已创建赛事 created event {event.event_id}: {event.name} "
         f"(规则 ruleset {event.ruleset.name})\n")
    return 0


@command("event close")
def cmd_event_close(args: argparse.Namespace) -> int:
    with db.writing(_db(args)) as con:
        events.close(con, args.event)
    _out(f"赛事已结束，桌报链接已失效 event {args.event} closed; its table links no longer work\n")
    return 0


@command("event reopen")
def cmd_event_reopen(args: argparse.Namespace) -> int:
    with db.writing(_db(args)) as con:
        events.close(con, args.event, closed=False)
    _out(f"赛事已重新开放 event {args.event} open again\n")
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
