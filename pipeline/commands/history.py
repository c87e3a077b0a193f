"""CLI commands: history across events: identities, profiles, ratings, units, comparisons."""

from __future__ import annotations

import argparse

from pipeline import db, output
from pipeline.cli_support import _db, _out, command
from pipeline.errors import PaisaiError, UsageError


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

    stats.keep_ranks_current(_db(args))
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

    stats.keep_ranks_current(_db(args))
    with db.reading(_db(args)) as con:
        _out(output.render(stats.units(con), args.format))
    return 0


@command("compare")
def cmd_compare(args: argparse.Namespace) -> int:
    from pipeline.history import stats

    with db.reading(_db(args)) as con:
        _out(output.render(stats.compare(con, args.first, args.second), args.format))
    return 0
