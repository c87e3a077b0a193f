"""CLI commands: pairing, results, exports, templates and the tables' signed links. The
registration desk, the clock and late arrivals are the hall's (`commands.hall`)."""

from __future__ import annotations

import click
import polars as pl

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


@click.command("pair", help="编排下一轮 pair a round. 第一轮按规则抽签或按队号；带入成绩的赛事"
                            "（event create --carry-from、带入成绩表）第一轮按带入的排名、以规则的"
                            "编排方式编排，不按队号 (round 1 is drawn or by team number as the "
                            "ruleset says; an event with carried-over totals pairs round 1 on the "
                            "carried ranking by the ruleset's system, never by team number)")
@event_option()
@click.option("--round", "round_no", type=int, help="轮次（默认下一轮） round (default: the next)")
@format_option()
@click.option("--seed", type=int, help="随机抽签种子 seed of a random draw")
@click.option("--force", is_flag=True, help="上一轮未报完也编排 pair although tables are unreported")
@click.option("--separate-affiliations", is_flag=True,
              help="同单位的队尽量不相遇 keep teams of one unit apart where possible")
@click.option("--bye", "byes", multiple=True, metavar="TEAM[=POINTS]",
              help="该队请求轮空（不编排；默认得平局分，即 FIDE 的半分轮空；=0 为零分轮空） a bye "
                   "the team asked for: not paired, scoring the draw points (FIDE's half-point "
                   "bye) or POINTS")
@common
def pair(event: str, round_no: int | None, fmt: str, seed: int | None, force: bool,
         separate_affiliations: bool, byes: tuple[str, ...]) -> int:
    from pipeline.pairing import event_round
    from pipeline.ranking import rounds
    requested = event_round.parse_byes(byes)
    with db.writing(database()) as con:
        found = events.load(con, event)
        round_no, pairing, seed = event_round.pair(con, found, round_no, seed, force,
                                              separate_affiliations, requested)
        listing = rounds.pairings(con, found.event_id, round_no)
        same = event_round.same_unit_tables(con, found.event_id, round_no)
    shown = listing.select(rounds.PAIRING_COLUMNS)
    title = f"{found.name} — 第 {round_no} 轮对阵 pairing of round {round_no}"
    if fmt == "table":
        shown = listing.select("table", "ew_team", "ew_name",
                               pl.col("ns_team").fill_null(pl.col("bye")), "ns_name")
        if seed is not None:
            title += f"\n抽签种子 draw seed: {seed}"
    out(output.render(shown, fmt, title))
    if seed is not None and fmt != "table":
        err(f"抽签种子 draw seed: {seed}")
    for a, b in pairing.rematches[:NOTES_SHOWN]:
        err(f"注意：{a} 与 {b} 再次相遇（没有可避免重复的编排） rematch unavoidable: {a}–{b}")
    if len(pairing.rematches) > NOTES_SHOWN:
        err(f"……另有 {len(pairing.rematches) - NOTES_SHOWN} 对再次相遇 and "
            f"{len(pairing.rematches) - NOTES_SHOWN} more rematches")
    for table, ew, ns, unit in same[:NOTES_SHOWN]:
        err(f"注意：第 {table} 桌 {ew}–{ns} 同属 {unit} both of one unit"
            + ("" if separate_affiliations else "（--separate-affiliations 可尽量避免 keeps "
               "them apart where possible）"))
    if len(same) > NOTES_SHOWN:
        err(f"……另有 {len(same) - NOTES_SHOWN} 桌同单位相遇 and {len(same) - NOTES_SHOWN} more "
            "tables of one unit")
    return 0


NOTES_SHOWN = 20  # notes of one kind printed after a pairing; the rest counted


@click.group("results", help="已保存的成绩 stored results")
def results() -> None:
    pass


@results.command("delete", help="删除一轮或一桌的成绩（留审计记录） remove a round's or a "
                                "table's results (audited)")
@event_option()
@click.option("--round", "round_no", type=int, required=True, help="轮次 round")
@click.option("--table", type=int, help="只删这一桌 only this table")
@common
def results_delete(event: str, round_no: int, table: int | None) -> int:
    from pipeline.ranking import rounds
    with db.writing(database()) as con:
        events.load(con, event)
        removed = rounds.delete_results(con, event, round_no, table)
    out(f"已删除第 {round_no} 轮 {removed} 桌的成绩（已记入审计） removed the results of "
        f"{removed} table(s) of round {round_no} (kept in the audit)\n")
    oplog.write(database(), event, "results deleted", f"round {round_no}, table "
                f"{table or 'all'}")
    return 0


@results.command("reopen", help="重新打开一桌（已裁定的桌可再由手机报成绩，记入日志） reopen a "
                                "decided table for the sides' reports (in paisai log)")
@event_option()
@click.option("--round", "round_no", type=int, required=True, help="轮次 round")
@click.option("--table", type=int, required=True, help="桌号 table")
@common
def results_reopen(event: str, round_no: int, table: int) -> int:
    from pipeline.day import selfreport
    with db.reading(database()) as con:
        found = events.load(con, event)
    selfreport.reopen(database(), found.event_id, round_no, table)
    out(f"已重新打开第 {round_no} 轮第 {table} 桌 reopened round {round_no} table {table}: "
        "双方可再报成绩 the sides may report again\n")
    return 0


@click.group("export", help="导出对阵表、成绩登记表 export lists and sheets")
def export() -> None:
    pass


def _export(event: str, round_no: int, out_file: str, exporter, what: str,
            also=None) -> int:
    """Both exports read one stored round and write one file; `also(con, event)` reads more
    in the same connection (one open of the file) for the exporter's last argument."""
    from pipeline.ranking import rounds
    with db.reading(database()) as con:
        found = events.load(con, event)
        pairs = rounds.pairings(con, found.event_id, round_no)
        extra = also(con, found) if also else None
    path = output_path(out_file)
    exporter(pairs, f"{found.name} 第 {round_no} 轮{what}", path, extra)
    out(f"已导出 exported {path}\n")
    return 0


def _export_options(suffixes: str):
    def add(f):
        f = common(f)
        f = click.option("--out", "out_file", required=True,
                         help=f"输出文件 output file ({suffixes})")(f)
        f = click.option("--round", "round_no", type=int, required=True, help="轮次 round")(f)
        return event_option()(f)

    return add


@export.command("pairings", help="对阵表与查找座位 table list and seat index")
@_export_options(".xlsx .csv .html")
@click.option("--base-url", help="看板的地址：打印件带手机页 /m/赛事/ 的二维码 the dashboard's "
                                 "address: the printout carries the QR code of its phone pages")
def export_pairings(event: str, round_no: int, out_file: str, base_url: str | None) -> int:
    from pipeline.operations.serve import checked_base_url
    from pipeline.publishing.export.pairings import export_pairings as write
    from pipeline.publishing.targets import stored_target

    hall = f"{checked_base_url(base_url).rstrip('/')}/m/{event}/" if base_url is not None \
        else None

    def phones(site) -> str | None:  # the hall's own phone pages, else the published site's
        return hall or (site[1] if site else None)

    return _export(event, round_no, out_file,
                   lambda pairs, title, path, site: write(pairs, title, path, phones(site)),
                   "对阵表", None if hall else lambda con, found: stored_target(con, event))


@export.command("scoresheet", help="预填的成绩登记表 pre-filled score sheet")
@_export_options(".xlsx")
def export_scoresheet(event: str, round_no: int, out_file: str) -> int:
    from pipeline.publishing.export.scoresheet import export_scoresheet as write

    return _export(event, round_no, out_file,  # with a level game's decider, where it has one
                   lambda pairs, title, path, equal_levels: write(pairs, title, path,
                                                                  equal_levels),
                   "成绩登记表", lambda con, found: found.ruleset.scoring["equal_levels"])


@click.command("links", help="各桌、各方报成绩的签名链接（打印桌签用） every table's and side's "
                             "signed self-report link, for slips printed elsewhere")
@event_option()
@click.option("--round", "round_no", type=int, required=True, help="轮次 round")
@click.option("--base-url", help="看板的地址（手机能打开的） the dashboard's address as phones "
                                 "reach it (default: this machine's LAN address, port 8501)")
@format_option()
@common
def links(event: str, round_no: int, base_url: str | None, fmt: str) -> int:
    from pipeline.day import selfreport
    with db.reading(database()) as con:
        found = events.load(con, event)
    base_url = phone_base(base_url)
    listing = selfreport.links(database(), found.event_id, round_no, base_url)
    out(output.render(listing.select("table", "ew_team", "ns_team", "ew_url", "ns_url", "url",
                                     "ew_code", "ns_code"),
                      fmt, f"{found.name} — 第 {round_no} 轮报成绩链接 self-report links"))
    return 0


def phone_base(base_url: str | None) -> str:
    """`--base-url`, else this machine's LAN address on the port of the dashboard running on
    this database (8501 when none runs, said so); a loopback address is said to be one
    phones cannot open."""
    from pipeline.operations.serve import (
        checked_base_url,
        is_loopback,
        lan_addresses,
        loopback_only,
        running_hall,
        running_phones_port,
    )

    if base_url is not None:
        base_url = checked_base_url(base_url)
    if not base_url:
        addresses = lan_addresses()
        if not addresses:
            raise UsageError("找不到本机的局域网地址，请用 --base-url 给出手机能打开的看板地址 no "
                             "network address found: give --base-url")
        hall = running_hall(database())
        port = running_phones_port(database()) if hall else None
        base_url = f"http://{addresses[0]}:{port or 8501}"
        if hall and loopback_only(hall[0]):
            err(f"注意 note: 正在运行的看板只监听 {hall[0]}，手机打不开 {base_url}：请用 paisai "
                f"dashboard --hall 启动看板，或用 --base-url 指定 the running dashboard listens "
                f"on {hall[0]} only: phones cannot reach {base_url}; start it with `paisai "
                "dashboard --hall`, or give --base-url")
        elif port:
            err(f"链接指向正在运行的看板 links point to the running dashboard: {base_url}"
                "（可用 --base-url 指定 set it with --base-url）")
        else:
            err(f"注意 note: 没有在本数据库上运行的看板，链接按默认端口指向 no dashboard runs on "
                f"this database: links point to the default port, {base_url}；看板用别的端口时"
                "请先启动看板或用 --base-url 指定 start the dashboard first, or give --base-url")
    if is_loopback(base_url):
        err(f"注意 note: {base_url} 只有本机能打开，手机扫码打不开 only this machine can open "
            "it: phones cannot")
    return base_url


@export.command("cards", help="桌牌 PDF：每桌一页，桌号、双方队伍与各自的报成绩二维码 table cards: "
                               "one page per table with both sides' self-report QR codes")
@_export_options(".pdf")
@click.option("--base-url", help="看板的地址（手机能打开的，如 http://192.168.1.5:8501） the "
                                 "dashboard's address as phones reach it")
def export_cards(event: str, round_no: int, out_file: str, base_url: str | None) -> int:
    from pipeline.day import selfreport
    from pipeline.publishing.export.cards import write_cards

    with db.reading(database()) as con:
        found = events.load(con, event)
    base_url = phone_base(base_url)
    path = output_path(out_file)
    if path.suffix.lower() != ".pdf":
        raise UsageError("桌牌导出为 .pdf table cards are a .pdf")
    tables = selfreport.table_cards(database(), found.event_id, round_no, base_url)
    pages = write_cards(tables, found.name, round_no, path)
    out(f"已导出桌牌 table cards written: {path}（{pages} 页 pages）\n")
    return 0


@export.command("standings", help="排名：手机尺寸的图片（发到微信群）或 Excel the ranking as a "
                                   "phone-sized picture (for WeChat groups) or a workbook")
@event_option()
@click.option("--out", "out_file", required=True, help="输出文件 output file (.png .xlsx)")
@click.option("--round", "round_no", type=int, help="第 N 轮后（默认最新） after round N")
@click.option("--top", type=int, help="只画前 N 名 only the first N teams")
@common
def export_standings(event: str, out_file: str, round_no: int | None, top: int | None) -> int:
    from pipeline.ranking import scoring

    path = output_path(out_file)
    if path.suffix.lower() not in (".png", ".xlsx"):
        raise UsageError("排名导出为 .png 图片或 .xlsx the ranking is exported as .png or .xlsx")
    if top is not None and top < 1:
        raise UsageError("--top 应为正整数 --top must be positive")
    with db.reading(database()) as con:
        found = events.load(con, event)
        after = round_no if round_no is not None else scoring.latest_round(con, found.event_id)
        ranking = scoring.standings(con, found, after).select(scoring.STANDINGS_COLUMNS)
    subtitle = (f"第 {after} 轮后排名 · ranking after round {after}" if found.ruleset.is_swiss
                else "名次 · places")
    if path.suffix.lower() == ".png":
        from pipeline.publishing.export.picture import write_picture

        drawn = write_picture(ranking, found.name, subtitle, path, top)
        out(f"已导出排名图片 picture written: {path}（{drawn} 队 teams）\n")
        return 0
    from pipeline.publishing.export.standings import export_frame

    export_frame(ranking.head(top) if top else ranking, f"{found.name} {subtitle}", "排名", path)
    out(f"已导出 exported {path}\n")
    return 0


@click.command("template", help="空白表格模板（下拉选项、示例行） a blank sheet to fill in, with "
                                "drop-down lists and an example row. KIND: entries, results, "
                                "deals, penalties, quiz, fouls, matches, tractor_deals")
@click.argument("kind", metavar="KIND", type=click.Choice(
    ["entries", "results", "deals", "penalties", "quiz", "fouls", "matches", "tractor_deals"]))
@event_option()
@click.option("--out", "out_file", required=True, help="输出文件 output file (.xlsx)")
@common
def template(kind: str, event: str, out_file: str) -> int:
    from pipeline.publishing.export.template import export_template

    with db.reading(database()) as con:
        found = events.load(con, event)
    path = output_path(out_file)
    export_template(kind, found.name, path, ruleset=found.ruleset)
    out(f"已导出模板 template written: {path}\n")
    return 0


COMMANDS = [pair, results, export, template, links]
