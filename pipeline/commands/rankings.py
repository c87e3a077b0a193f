"""CLI commands: standings, rounds, awards and meets."""

from __future__ import annotations

import click

from pipeline.base import db, events, oplog, output
from pipeline.base.errors import UsageError
from pipeline.cli_support import (
    common,
    database,
    err,
    event_option,
    format_option,
    out,
    output_path,
)


@click.command("standings", help="排名 the ranking")
@event_option()
@click.option("--round", "round_no", type=int, help="第 N 轮后（默认最新） after round N")
@format_option()
@common
def standings(event: str, round_no: int | None, fmt: str) -> int:
    from pipeline.intake import registration
    from pipeline.ranking import scoring
    from pipeline.tractor import stages

    with db.reading(database()) as con:
        found = events.load(con, event)
        after = round_no if round_no is not None else scoring.latest_round(con, found.event_id)
        if after < 0:
            raise UsageError("轮次不能为负 round must not be negative")
        ranking = scoring.standings(con, found, after)
        bracket = None if found.ruleset.is_swiss else stages.places(con, found)
        seed = events.lot_seed(con, found.event_id)
        waiting = registration.unnumbered(con, found.event_id)
        suspended = scoring.suspension_note(scoring.suspended(con, found))
    if suspended:
        err(f"注意 note: {suspended}")
    if waiting:
        err(registration.unnumbered_hint(waiting, found.event_id))
    keys = found.ruleset.ranking["keys"]
    title = f"{found.name} — 第 {after} 轮后排名 ranking after round {after}"
    if bracket is not None:  # a knockout: the bracket's places (docs/rules/general.md §8)
        title = (f"{found.name} — 淘汰赛名次 bracket places" if bracket else
                 f"{found.name} — 决赛前，按小组赛成绩 before the final: the group-stage record")
    if "lot" in keys:
        title += f"\n抽签种子 lot seed: {seed}"
    styles = ["dim" if status != "active" else "bold green" if rank == 1 else None
              for rank, status in ranking.select("rank", "status").iter_rows()]
    shown = scoring.published(ranking, found)
    if fmt == "table" and not found.ruleset.is_swiss:  # the group record, not Guandan's
        shown = shown.select(scoring.TRACTOR_COLUMNS)
    out(output.render(shown, fmt, title, styles))
    return 0


@click.command("explain", help="两队名次先后的原因：哪一项排名依据分出高下 why one team ranks "
                              "above another")
@event_option()
@click.argument("team_a", metavar="TEAM_A")
@click.argument("team_b", metavar="TEAM_B")
@click.option("--round", "round_no", type=int, help="第 N 轮后（默认最新） after round N")
@format_option(["table", "json"])
@common
def explain(event: str, team_a: str, team_b: str, round_no: int | None, fmt: str) -> int:
    import json

    from pipeline.ranking import explain as why
    with db.reading(database()) as con:
        found = events.load(con, event)
        result = why.explain(con, found, team_a.strip().upper(), team_b.strip().upper(),
                             round_no)
    if fmt == "json":
        out(json.dumps(result, ensure_ascii=False, indent=2, default=str) + "\n")
    else:
        out(why.text(result))
    return 0


@click.command("rounds", help="各轮已报/应报桌数 tables reported per round")
@event_option()
@format_option()
@common
def rounds(event: str, fmt: str) -> int:
    with db.reading(database()) as con:
        summary = db.frame(con, db.sql("rounds"), {"event_id": events.known(con, event)})
    out(output.render(summary.select("round", "reported", "expected", "missing"), fmt))
    return 0


@click.group("awards", invoke_without_command=True,
             help="获奖名单 the prize list; 名次相同且成绩相同而奖项名额只够一队时标明待定，由组织者"
                  "加赛或抽签后用 awards decide 录入 (teams equal on every record that one "
                  "prize splits are marked undecided until the organizer enters a play-off "
                  "or a lot with awards decide; awards.equal_split = \"shared\" gives each "
                  "the prize)")
@event_option(required=False)
@format_option()
@click.option("--certificates", "certificates", type=click.Path(),
              help="获奖证书 PDF：每个奖项一页 A4 award certificates, one A4 page per prize")
@click.option("--force", is_flag=True,
              help="比赛未结束也印证书（按当前名次） print certificates before the last round")
@click.option("--organizer", default="", help="证书落款（主办单位） the organizer signing the "
                                              "certificates")
@common
@click.pass_context
def awards(ctx: click.Context, event: str | None, fmt: str, certificates: str | None,
           force: bool, organizer: str) -> int:
    from pipeline.ranking.awards import award_list, unfinished, with_member_ids

    if ctx.invoked_subcommand is not None:
        return 0
    if not event:
        raise click.UsageError("paisai awards: --event is required")

    with db.reading(database()) as con:
        found = events.load(con, event)
        prizes = award_list(con, found)
        not_over = unfinished(con, found)
        if certificates is not None:
            prizes = with_member_ids(con, event, prizes)
    if certificates is None:
        if not_over:
            err(f"注意 note: {not_over}")  # the list as the ranking stands now
        _print_awards(prizes, fmt, f"{found.name} — 获奖名单 awards")
        return 0
    from pipeline.publishing.export.certificates import write_certificates

    if not_over and not force:
        raise UsageError(f"{not_over}；确需提前打印请加 --force add --force to print anyway")
    if prizes["award"].str.contains("待定").any():
        raise UsageError("有奖项待加赛或抽签决定（paisai awards decide），证书未生成 a prize "
                         "waits for a play-off or a lot (paisai awards decide): no certificates")
    path = output_path(certificates, "--certificates")
    pages = write_certificates(prizes, found.name, found.event_date, path,
                               organizer=organizer, warn=lambda text: err(f"注意 note: {text}"))
    out(f"已生成获奖证书 certificates written: {path}（{pages} 页 pages）\n")
    return 0


@awards.command("decide", help="录入加赛或抽签结果：名次相同、成绩也相同而奖项只够一队时，"
                                "由哪一队获奖 enter the play-off or lot that gives a prize "
                                "to one of the teams sharing a place on equal records")
@event_option()
@click.option("--rank", type=int, required=True, help="名次 the shared place (e.g. 3)")
@click.option("--team", "teams", required=True, multiple=True,
              help="获奖的队号，可重复，按名次先后 the team that takes the prize; repeated when "
                   "the prizes split more teams (in order)")
@click.option("--by", "decided_by", type=click.Choice(["playoff", "lot"]), required=True,
              help="加赛 playoff 或抽签 lot")
@common
def awards_decide(event: str, rank: int, teams: tuple[str, ...], decided_by: str) -> int:
    from pipeline.ranking.awards import award_list, decide

    with db.writing(database()) as con:
        found = events.load(con, event)
        given = [team.strip().upper() for team in teams]
        replaced = decide(con, found, rank, given, decided_by)
        prizes = award_list(con, found)
    named = "、".join(given)
    detail = f"place {rank} to {named} by {decided_by}"
    if replaced:
        before = "、".join(replaced[0])
        detail += f", replacing {before} by {replaced[1]}"
        err(f"注意 note: 第 {rank} 名原录入的 {before}（{replaced[1]}）已改为 {named} the "
            f"earlier decision for place {rank} ({before} by {replaced[1]}) is replaced\n")
    oplog.write(database(), event, "award decided", detail)
    _print_awards(prizes, "table", f"{found.name} — 获奖名单 awards")
    return 0


def _print_awards(prizes, fmt: str, title: str) -> None:
    """The prize list; as a table its long notes (备注) go below it, numbered, so that no
    line runs hundreds of columns wide (CSV and JSON keep each note whole in its row)."""
    if fmt != "table" or "note" not in prizes.columns:
        out(output.render(prizes, fmt, title))
        return
    shown, notes = output.footnotes(prizes, "note")
    out(output.render(shown, fmt, title) + (f"\n{notes}\n" if notes else ""))


@click.group("meet", help="运动会：多个项目按单位计分 meets")
def meet() -> None:
    pass


@meet.command("create", help="创建运动会 create a meet")
@click.option("--id", "meet_id", required=True, help="运动会编号 [a-z0-9-]+")
@click.option("--name", required=True, help="名称 name")
@common
def meet_create(meet_id: str, name: str) -> int:
    from pipeline.ranking import meets
    with db.writing(database()) as con:
        meets.create(con, meet_id, name)
    out(f"已创建运动会 created meet {meet_id}: {name}\n")
    return 0


@meet.command("add", help="加入一个项目 add an event to a meet. 名次分按该项目的名次给：拖拉机淘汰赛"
                           "两个半决赛负者并列第三时，与奖项同序——先看小组赛成绩，成绩相同时按"
                           "组织者录入的加赛或抽签（paisai awards decide）分第 3、第 4 名的名次分，"
                           "录入前两队的名次分待定、暂不计；awards.equal_split = \"shared\" 时两队"
                           "各得第 3 名的名次分；其余并列且小组赛成绩相同的队各得所并列名次的名次分，"
                           "不按队号；还没有成绩的项目不计名次分 "
                           "(placement points follow the event's places; a Tractor knockout's "
                           "two semi-final losers sharing third take the 3rd and 4th points in "
                           "the prizes' order: the group record, then the organizer's play-off "
                           "or lot — until it is entered neither gets any, with "
                           "equal_split = \"shared\" each gets the 3rd place's points; other "
                           "teams sharing a place on an equal group record each get that "
                           "place's points, never split by team number; an event without "
                           "results gives none)")
@click.argument("meet_id", metavar="MEET")
@click.argument("event_id", metavar="EVENT")
@click.option("--placement-points", required=True,
              help="名次记分 points for places 1, 2, … e.g. 18,14,12,10,8,6,4,2")
@click.option("--forfeit-deduction", type=int, default=0, show_default=True,
              help="每次弃权扣分 deduction per forfeited match")
@common
def meet_add(meet_id: str, event_id: str, placement_points: str, forfeit_deduction: int) -> int:
    from pipeline.ranking import meets
    points = meets.parse_points(placement_points)
    with db.writing(database()) as con:
        meets.add(con, meet_id, event_id, points, forfeit_deduction)
    out(f"{event_id} 已加入运动会 added to meet {meet_id}: 名次记分 placement points "
        f"{','.join(map(str, points))}, 弃权扣分 forfeit deduction {forfeit_deduction}\n")
    return 0


@meet.command("standings", help="单位总分 unit standings")
@click.argument("meet_id", metavar="MEET")
@format_option()
@click.option("--deductions", is_flag=True,
              help="只列出每一次弃权扣分 list each forfeit deduction instead")
@common
def meet_standings(meet_id: str, fmt: str, deductions: bool) -> int:
    from pipeline.ranking import meets
    with db.reading(database()) as con:
        name, table = meets.standings(con, meet_id)
        deducted = meets.deductions(con, meet_id)
        pending = meets.notes(con, meet_id)
    for note in pending:
        err(f"注意 note: {note}")
    if deductions:
        out(output.render(deducted, fmt, f"{name} — 弃权扣分 forfeit deductions"))
        return 0
    out(output.render(table, fmt, f"{name} — 单位总分 unit standings"))
    if fmt == "table" and deducted.height:
        out("\n" + output.render(deducted, "table", "弃权扣分 forfeit deductions "
                                                      "(每场一次 once per forfeited match)"))
    return 0


COMMANDS = [standings, explain, rounds, awards, meet]
