"""CLI commands: history across events: identities, profiles, ratings, units, comparisons."""

from __future__ import annotations

import click
import polars as pl

from pipeline.base import db, output
from pipeline.base.errors import PaisaiError, UsageError
from pipeline.cli_support import FORMATS, common, database, format_option, out


@click.command("players", help="选手身份：列出、合并 KEEP ID…、撤销合并 ID（也撤销拆分出的编号）、"
                               "拆分 ID --event E [--team T] 或 --partner 搭档 player identities: "
                               "list, merge, unmerge (a merge, or the split that made the id), "
                               "split (one event, several, or those with one partner)")
@click.argument("action", required=False, default="list",
                type=click.Choice(["list", "merge", "unmerge", "split"]))
@click.argument("ids", nargs=-1, metavar="[ID]...")
@click.option("--event", "events", multiple=True,
              help="拆分所在赛事（可重复，或逗号分隔）the event of a split (repeat it, or a "
                   "comma list: one new id for all)")
@click.option("--team", "team_no", help="拆分所在队（同场同名的两人）the team of a split (two "
                                        "namesakes in one event)")
@click.option("--from", "sheet", type=click.Path(dir_okay=False),
              help="合并表：每行 保留编号,合并编号 a sheet of merges: keep,merge per row")
@click.option("--partner", help="拆分与此搭档同队的各场为一个新编号 split off the events with "
                                "this partner, as one new id")
@click.option("--reason", help="记入操作日志的原因 the reason, kept in paisai log")
@format_option()
@common
def players(action: str, ids: tuple[str, ...], events: tuple[str, ...], team_no: str | None,
            sheet: str | None, partner: str | None, reason: str | None, fmt: str) -> int:
    from pipeline.history import identity, people

    if action in ("merge", "unmerge", "split"):
        said: list[str] = []  # printed once the whole change is committed
        with db.writing(database()) as con:
            if not identity.is_current(con):
                identity.refresh(con)
            if action == "merge":
                pairs = _merge_sheet(sheet) if sheet else [(ids[0], list(ids[1:]))] if ids \
                    else []
                if not pairs or not all(others for _, others in pairs):
                    raise UsageError("paisai players merge KEEP OTHER [OTHER …] | --from FILE")
                for keep, others in pairs:
                    people.merge(con, keep, others, reason)
                    said.append(f"已合并 merged {', '.join(others)} → {keep}\n")
            elif action == "unmerge":
                if len(ids) != 1:
                    raise UsageError("paisai players unmerge ID")
                into = people.unmerge(con, ids[0], reason)
                said.append(f"已撤销合并 unmerged {ids[0]} (from {into})\n")
            else:
                wanted = [e.strip() for given in events
                          for e in given.replace("，", ",").split(",") if e.strip()]
                if len(ids) != 1 or not (wanted or partner):
                    raise UsageError("paisai players split ID --event EVENT [--team TEAM] | "
                                     "--partner NAME")
                made = people.split(con, ids[0], None, team_no, reason, events=wanted,
                                    partner=partner)
                said.append(f"已拆分 split {ids[0]}"
                            + (f" in {', '.join(wanted)}" if wanted else "")
                            + (f" {team_no}" if team_no else "")
                            + (f"（与 {partner} 同队 with {partner}）" if partner else "")
                            + f" → {made}\n")
        for line in said:
            out(line)
        return 0
    _identities_current()
    with db.reading(database()) as con:
        listing = people.listing(con)
    out(output.render(listing.select("player_id", "name", "current_unit", "affiliations",
                                     "events", "event_ids", "likely_duplicates", "review"),
                      fmt))
    return 0


def _merge_sheet(path: str) -> list[tuple[str, list[str]]]:
    """A sheet of merges (CSV or Excel): the id to keep and the id to merge into it, a row
    each (headers 保留/keep and 合并/merge, or the first two columns)."""
    import polars as pl

    from pipeline.base.errors import SheetErrors

    try:
        frame = (pl.read_excel(path, engine="calamine") if path.lower().endswith((".xlsx",
                 ".xls")) else pl.read_csv(path, infer_schema=False))
    except Exception as exc:
        raise SheetErrors.single(path, f"读不了这张合并表 cannot read the sheet: {exc}") from None
    if frame.width < 2:
        raise SheetErrors.single(path, "合并表需要两列：保留编号、合并编号 two columns: keep, merge")
    keep, merge = frame.columns[:2]
    for column in frame.columns:
        if column.strip().lower() in ("保留", "保留编号", "keep"):
            keep = column
        if column.strip().lower() in ("合并", "合并编号", "merge"):
            merge = column
    grouped: dict[str, list[str]] = {}
    for a, b in frame.select(pl.col(keep).cast(pl.String), pl.col(merge).cast(pl.String)
                             ).iter_rows():
        if a and b:
            grouped.setdefault(a.strip(), []).append(b.strip())
    return list(grouped.items())


def _ranks_current(ratings_too: bool = False) -> None:
    """The history's rank cache brought up to date, with a progress bar when it is long (a
    database written by other tools, or by an earlier version). `ratings_too`: the rating
    list as well, in the same write when it is stale too (one opening of the file for both,
    not one per batch of finishes and one more for the ratings: issue 52)."""
    from pipeline.base.progress import progress
    from pipeline.history import ratings, stats

    with db.reading(database()) as con:  # looked for once: each batch checks its own
        stale = stats.stale_rank_events(con)
        refit = ratings_too and ratings.is_stale(con)
    if not refit:
        if stale:
            with progress("准备历史 preparing history", total=len(stale),
                          show=len(stale) > stats.PROGRESS_AT) as step:
                stats.keep_ranks_current(database(), step, stale)
        return
    from pipeline.history.ranks_ahead import RanksAhead

    # the finishes ranked in a thread on a second connection while this one refits the
    # ratings: DuckDB and numpy side by side on two cores (issue 52)
    with db.writing(database()) as con, RanksAhead(con) as ahead:
        ratings.refresh(con)  # its own bar, before the finishes'
        with progress("准备历史 preparing history", total=len(stale),
                      show=len(stale) > stats.PROGRESS_AT) as step:
            now = stats.rank_fingerprints(con, stale)
            stats.refresh_event_ranks(con, stats.stale_of(con, now), step, now, ahead)


def _identities_current() -> None:
    """A database whose player map was built by older rules is rebuilt once (a short write)."""
    from pipeline.history import identity

    with db.reading(database()) as con:
        current = identity.is_current(con)
    if not current:
        with db.writing(database()) as con:
            identity.refresh(con)


@click.command("player", help="选手档案 a player's profile")
@click.argument("name")
@click.option("--affiliation", help="单位 affiliation")
@format_option(["table", "json"])
@common
def player(name: str, affiliation: str | None, fmt: str) -> int:
    import json

    from pipeline.history import people, stats
    from pipeline.history.ratings import MIN_EVENTS, MIN_GAMES

    _identities_current()
    _ranks_current(ratings_too=True)
    with db.reading(database()) as con:
        found = people.find(con, name, affiliation)
        if not found:
            raise PaisaiError(f"没有找到选手 no player named {name}")
        if len(found) > 1:
            who = db.rows(con, db.sql("namesake_candidates"), {"ids": found})
            zh = "；".join(f"{i}（{u or '无单位'}，搭档 {p or '—'}）" for i, u, p in who)
            en = "; ".join(f"{i} ({u or 'no unit'}, with {p or '—'})" for i, u, p in who)
            apart = len({u for _, u, _ in who}) > 1 and not affiliation  # units tell them
            raise UsageError(f"有 {len(found)} 位同名选手：{zh}。请用 paisai player 编号"
                             f"{'，或加 --affiliation 区分' if apart else ''} several players "
                             f"with that name: {en}. Use paisai player ID"
                             f"{', or --affiliation (see paisai players)' if apart else ''}")
        profile = stats.player_profile(con, found[0])
    if fmt == "json":
        shown = {k: (v.to_dicts() if hasattr(v, "to_dicts") else v) for k, v in profile.items()}
        out(json.dumps(shown, ensure_ascii=False, indent=2, default=str) + "\n")
        return 0
    lines = [f"{profile['name']} ({profile['player_id']}) — {profile['affiliations'] or ''}",
             f"赛事 events {profile['events']} · 轮次 rounds {profile['rounds']} · 胜/平/负 "
             f"{profile['wins']}/{profile['draws']}/{profile['losses']} · 平均级差 avg level "
             f"difference {profile['avg_level_diff']}"]
    steps = profile["rating_history"]
    if steps.height:
        shown = [int(v) for v in steps["ordinal"].to_list()]
        changes = [b - a for a, b in zip([1500, *shown], shown, strict=False)]
        now = profile["rating"] if profile["rating"] is not None else shown[-1]
        lines.append(f"评分 rating {now}" + (" 暂定 provisional" if profile["games_rated"]
                                            < MIN_GAMES or profile["events"] < MIN_EVENTS
                                            else "") + " · 各场变化 per event: "
                     + ", ".join(f"{e} {c:+d}" for e, c in zip(steps["event_id"].to_list(),
                                                              changes, strict=True)))
    for label, key in (("最好名次 best", "best_finish"), ("最近名次 latest", "latest_finish")):
        f = profile[key]
        if f:
            lines.append(f"{label}: {f['rank']}/{f['field_size']} {f['event_name']}")
    lines += [f"待核对 review {event_id} {team_no}: {note}"
              for event_id, team_no, note in profile["review"].iter_rows()]
    out("\n".join(lines) + "\n\n" + output.table(profile["finishes"]) + "\n\n"
        + output.table(profile["partners"]) + "\n")
    return 0


@click.command("ratings", help="选手评分榜 rating list")
@click.option("--min-games", type=click.IntRange(0), default=0,
              help="至少多少局 at least this many games")
@click.option("--unit", help="只列此单位（现单位）only players of this unit (their current one)")
@click.option("--as-of", "as_of", type=click.DateTime(["%Y-%m-%d"]),
              help="截至某日的评分 the list as of a date (YYYY-MM-DD)")
@click.option("--top", type=click.IntRange(1), help="前几名 the first N")
@click.option("--inactive-months", type=click.IntRange(1), default=12, show_default=True,
              help="多少个月没有参赛记为不活跃 months without an event before a player is "
                   "marked inactive")
@click.option("--out", "out_file", help="写成文件发布：.xlsx，或 Excel 能直接打开的 .csv（带 BOM） "
                                        "a file to publish: .xlsx, or .csv with a BOM for Excel")
@format_option(FORMATS)
@common
def ratings(min_games: int, unit: str | None, as_of, top: int | None, inactive_months: int,
            out_file: str | None, fmt: str) -> int:
    from pipeline.history import ratings as rating

    _identities_current()
    if as_of is None:
        rating.keep_current(database())  # the stored list serves it
    with db.reading(database()) as con:
        board = rating.leaderboard(con, top, as_of.date() if as_of else None, min_games, unit,
                                   inactive_months)
        title = f"选手评分 ratings ({settings_line(rating.settings(con))}; see README)"
    if out_file:
        return _publish_list(board, out_file, title)
    if fmt == "table":
        board = board.with_columns(
            pl.col("provisional").replace_strict({True: "暂定", False: ""},
                                                 return_dtype=pl.String),
            pl.col("inactive").replace_strict({True: "不活跃", False: ""},
                                              return_dtype=pl.String))
    out(output.render(board, fmt, title))
    return 0


def _publish_list(board: pl.DataFrame, out_file: str, title: str) -> int:
    """The rating list as a secretary publishes it: an Excel workbook, or a CSV that Excel on
    Windows opens with its Chinese names intact (UTF-8 with a BOM)."""
    from pathlib import Path

    from pipeline.cli_support import output_path
    from pipeline.publishing.export.standings import export_frame

    path = Path(output_path(out_file))
    if path.suffix.lower() == ".xlsx":
        export_frame(board, title, "评分 ratings", path)
    elif path.suffix.lower() == ".csv":
        path.write_text(output.to_csv(board), encoding="utf-8-sig")
    else:
        raise UsageError("评分榜导出为 .xlsx 或 .csv the list is written as .xlsx or .csv")
    out(f"已导出评分榜 rating list written: {path}（{board.height} 人 players）\n")
    return 0


@click.command("units", help="各单位历届成绩；--fold 合并一场赛事里写法不同的同一单位 units over "
                             "time; --fold: one unit written two ways in an event")
@click.option("--totals", is_flag=True, help="各单位历届合计（写法不同的同一单位合并）each unit's "
                                             "totals across events, spellings folded")
@click.option("--event", "event_id", help="--fold 所在赛事 the event of --fold")
@click.option("--fold", "folds", multiple=True, metavar="ALIAS=UNIT",
              help="把写错的单位并入正确的（如 昆山海官=昆山海关） fold a misspelt unit into the "
                   "right one")
@format_option()
@common
def units(totals: bool, event_id: str | None, folds: tuple[str, ...], fmt: str) -> int:
    from pipeline.history import stats

    if folds:
        from pipeline.base import events
        from pipeline.intake import registration
        if not event_id:
            raise UsageError("--fold 须同时给 --event the event of the fold: --event ID")
        said = []
        with db.writing(database()) as con:
            found = events.load(con, event_id)
            for fold in folds:
                alias, _, unit = fold.partition("=")
                changed = registration.fold_unit(con, found.event_id, alias, unit)
                said.append(f"已合并单位 folded {alias.strip()} → {unit.strip()}（{changed} 队 "
                            "teams）\n")
        for line in said:
            out(line)
        return 0

    _ranks_current()
    with db.reading(database()) as con:
        out(output.render(stats.unit_totals(con) if totals else stats.units(con), fmt))
    return 0


@click.command("compare", help="两场赛事对比；或 EVENT --round N：每桌按评分的胜率 two events "
                               "side by side; or EVENT --round N: each table's win probability "
                               "from the rating list")
@click.argument("first", metavar="EVENT1")
@click.argument("second", metavar="EVENT2", required=False)
@click.option("--round", "round_no", type=int,
              help="EVENT1 这一轮的每桌：东西方按评分榜的胜率 the round's tables with East-West's "
                   "win probability from the rating list")
@format_option()
@common
def compare(first: str, second: str | None, round_no: int | None, fmt: str) -> int:
    from pipeline.history import stats

    if (second is None) == (round_no is None):
        raise UsageError("paisai compare EVENT1 EVENT2 | paisai compare EVENT --round N")
    _identities_current()
    _ranks_current(ratings_too=True)
    with db.reading(database()) as con:
        if round_no is not None:
            if not db.scalar(con, "select count(*) from events where event_id = ?", [first]):
                raise UsageError(f"没有这个赛事 no such event: {first}")
            tables = stats.round_chances(con, first, round_no)
            if not tables.height:
                raise UsageError(f"{first} 第 {round_no} 轮没有对阵 round {round_no} has no "
                                 "tables")
            out(output.render(tables, fmt))
        else:
            out(output.render(stats.compare(con, first, second), fmt))
    return 0


def settings_line(chosen) -> str:
    """The settings as the list's header says them."""
    return (f"级差模型 level-margin model: 每局至多 margin cap {chosen.margin_cap} 级 levels · "
            f"半衰期 half-life {chosen.half_life_days} 天 days · 先验 prior "
            f"{chosen.prior_games:g} 局 games")


@click.command("rating-settings", help="评分设置：每局级差上限、半衰期、先验局数；不给选项则显示 "
                                       "the rating settings: margin cap, half-life, prior games; "
                                       "shown when no option is given")
@click.option("--margin-cap", type=click.IntRange(1, 13),
              help="一局至多算多少级 the levels a game counts at most (1–13; 13: no cap)")
@click.option("--half-life-days", type=click.IntRange(1),
              help="多少天前的一局算一半 a game this many days old counts half")
@click.option("--prior-games", type=click.FloatRange(0, min_open=True),
              help="新选手按这么多局平均水平算起 a newcomer counts as this many average games")
@common
def rating_settings(margin_cap: int | None, half_life_days: int | None,
                    prior_games: float | None) -> int:
    from dataclasses import replace

    from pipeline.base.progress import progress
    from pipeline.history import ratings as rating

    with db.reading(database()) as con:
        before = rating.settings(con)
    chosen = replace(before, **{k: v for k, v in (
        ("margin_cap", margin_cap), ("half_life_days", half_life_days),
        ("prior_games", prior_games)) if v is not None})
    if chosen != before:
        with db.writing(database()) as con, progress("重算评分 refitting the ratings", 1) as step:
            rating.store_settings(con, chosen)
            step("ratings")
            rating.recompute(con)  # the list follows the settings at once, never on a read
        out(f"已保存并重算 saved and refitted: {settings_line(chosen)}\n")
    else:
        out(f"评分设置 rating settings: {settings_line(chosen)}\n")
    return 0


COMMANDS = [players, player, ratings, rating_settings, units, compare]
