"""CLI commands: history across events: identities, profiles, ratings, units, comparisons."""

from __future__ import annotations

import click

from pipeline import db, output
from pipeline.cli_support import FORMATS, common, database, format_option, out
from pipeline.errors import PaisaiError, UsageError


@click.command("players", help="选手身份：列出、合并 ID1 ID2、拆分 ID --event E "
                               "player identities: list, merge, split")
@click.argument("action", required=False, default="list",
                type=click.Choice(["list", "merge", "split"]))
@click.argument("ids", nargs=-1, metavar="[ID]...")
@click.option("--event", help="拆分所在赛事 the event of a split")
@format_option()
@common
def players(action: str, ids: tuple[str, ...], event: str | None, fmt: str) -> int:
    from pipeline.history import identity

    if action in ("merge", "split"):
        with db.writing(database()) as con:
            if action == "merge":
                if len(ids) != 2:
                    raise UsageError("paisai players merge ID1 ID2")
                identity.merge(con, ids[0], ids[1])
                out(f"已合并 merged {ids[1]} → {ids[0]}\n")
            else:
                if len(ids) != 1 or not event:
                    raise UsageError("paisai players split ID --event EVENT")
                identity.split(con, ids[0], event)
                out(f"已拆分 split {ids[0]} in {event}\n")
        return 0
    with db.reading(database()) as con:
        listing = identity.listing(con)
    out(output.render(listing.select("player_id", "name", "affiliations", "events", "event_ids",
                                     "likely_duplicates"), fmt))
    return 0


@click.command("player", help="选手档案 a player's profile")
@click.argument("name")
@click.option("--affiliation", help="单位 affiliation")
@format_option(["table", "json"])
@common
def player(name: str, affiliation: str | None, fmt: str) -> int:
    import json

    from pipeline.history import identity, stats

    stats.keep_ranks_current(database())
    with db.reading(database()) as con:
        found = identity.find(con, name, affiliation)
        if not found:
            raise PaisaiError(f"没有找到选手 no player named {name}")
        if len(found) > 1:
            raise UsageError(f"有 {len(found)} 位同名选手，请加 --affiliation 区分 several players "
                             f"with that name: {', '.join(found)} (see paisai players)")
        profile = stats.player_profile(con, found[0])
    if fmt == "json":
        shown = {k: (v.to_dicts() if hasattr(v, "to_dicts") else v) for k, v in profile.items()}
        out(json.dumps(shown, ensure_ascii=False, indent=2, default=str) + "\n")
        return 0
    lines = [f"{profile['name']} ({profile['player_id']}) — {profile['affiliations'] or ''}",
             f"赛事 events {profile['events']} · 轮次 rounds {profile['rounds']} · 胜/平/负 "
             f"{profile['wins']}/{profile['draws']}/{profile['losses']} · 平均级差 avg level "
             f"difference {profile['avg_level_diff']}"]
    for label, key in (("最好名次 best", "best_finish"), ("最近名次 latest", "latest_finish")):
        f = profile[key]
        if f:
            lines.append(f"{label}: {f['rank']}/{f['field_size']} {f['event_name']}")
    out("\n".join(lines) + "\n\n" + output.table(profile["finishes"]) + "\n\n"
        + output.table(profile["partners"]) + "\n")
    return 0


@click.command("ratings", help="选手评分榜 rating leaderboard")
@format_option(FORMATS)
@common
def ratings(fmt: str) -> int:
    from pipeline.history import ratings as rating
    from pipeline.progress import progress

    with db.reading(database()) as con:
        stale = rating.is_stale(con)
    if stale:
        with progress("重算评分 recomputing ratings", total=1) as step, \
                db.writing(database()) as con:
            step("OpenSkill")
            rating.recompute(con)
    with db.reading(database()) as con:
        board = rating.leaderboard(con)
    out(output.render(board, fmt, "选手评分 ratings (OpenSkill)"))
    return 0


@click.command("units", help="各单位历届成绩 units over time")
@format_option()
@common
def units(fmt: str) -> int:
    from pipeline.history import stats

    stats.keep_ranks_current(database())
    with db.reading(database()) as con:
        out(output.render(stats.units(con), fmt))
    return 0


@click.command("compare", help="两场赛事对比 two events side by side")
@click.argument("first", metavar="EVENT1")
@click.argument("second", metavar="EVENT2")
@format_option()
@common
def compare(first: str, second: str, fmt: str) -> int:
    from pipeline.history import stats

    with db.reading(database()) as con:
        out(output.render(stats.compare(con, first, second), fmt))
    return 0


COMMANDS = [players, player, ratings, units, compare]
