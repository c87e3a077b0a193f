"""CLI commands: the officials — added with a role, listed, disabled; the teams' appeal
links; the rulings; the officials' report."""

from __future__ import annotations

import click

from pipeline.base import db, events, output
from pipeline.base.errors import UsageError
from pipeline.cli_support import common, database, event_option, format_option, out, output_path


@click.group("officials", help="裁判与仲裁：人员、角色、裁定与报告 the officials: people, roles, "
                               "rulings and their report")
def officials() -> None:
    pass


@officials.command("add", help="添加一位裁判人员（密码只显示这一次） add an official (the password "
                               "is shown this once)")
@click.argument("name")
@click.option("--role", required=True,
              type=click.Choice(["organizer", "chief", "referee", "committee", "desk", "screen"]),
              help="角色 role: 组织者 organizer, 裁判长 chief, 临场裁判 referee, 仲裁委员 "
                   "committee, 报到台 desk, 大屏 screen")
@click.option("--tables", help="临场裁判负责的桌号 a referee's tables (1-20, 1,3,5-8)")
@click.option("--password", help="密码（不给则自动生成） the password (made for you when left out)")
@common
def officials_add(name: str, role: str, tables: str | None, password: str | None) -> int:
    from pipeline.officials import people

    official, given = people.add(database(), name, role, tables, password)
    out(f"已添加 added: #{official.official_id} {official.name} "
        f"{people.ROLE_WORDS[official.role]}"
        + (f" 桌 tables {official.tables}" if official.tables else "") + "\n")
    if not password:
        out(f"密码 password（只显示这一次 shown this once）: {given}\n")
    return 0


@officials.command("list", help="列出裁判人员 list the officials")
@format_option()
@common
def officials_list(fmt: str) -> int:
    from pipeline.officials import people

    listed = people.listing(database())
    if fmt == "table":  # people read the house's words; programs keep the code names
        import polars as pl

        listed = listed.with_columns(
            pl.col("role").replace_strict(people.ROLE_WORDS, default=pl.col("role")),
            pl.when(pl.col("active")).then(pl.lit("在任 active"))
            .otherwise(pl.lit("停用 disabled")).alias("active")).rename(
            {"official_id": "编号", "name": "姓名", "role": "角色", "tables": "负责桌号",
             "active": "状态", "created_at": "添加时间"})
    out(output.render(listed, fmt, "裁判人员 officials"))
    return 0


@officials.command("disable", help="停用一位裁判人员（记录保留） disable an official (their "
                                   "records stay)")
@click.argument("name")
@common
def officials_disable(name: str) -> int:
    from pipeline.officials import people

    people.disable(database(), name)
    out(f"已停用 disabled: {name}\n")
    return 0


@officials.command("rulings", help="本赛事的裁定（含待裁定） the event's rulings, proposals "
                                   "included")
@event_option()
@format_option()
@common
def officials_rulings(event: str, fmt: str) -> int:
    from pipeline.officials import report

    with db.reading(database()) as con:
        events.load(con, event)
    name, parts = report.sections(database(), event)
    out(output.render(parts["裁定 rulings"], fmt, f"{name} — 裁定 rulings"))
    return 0


@officials.command("links", help="各队申诉的签名链接与验证码（报到台交给领队） each team's appeal "
                                 "link and code, for the team leader")
@event_option()
@click.option("--base-url", help="看板的地址（手机能打开的） the dashboard's address as phones "
                                 "reach it (default: this machine's LAN address, port 8501)")
@format_option()
@common
def officials_links(event: str, base_url: str | None, fmt: str) -> int:
    from pipeline.commands.rounds import phone_base
    from pipeline.officials import links

    with db.reading(database()) as con:
        found = events.load(con, event)
    listing = links.listing(database(), found.event_id, phone_base(base_url))
    out(output.render(listing, fmt, f"{found.name} — 申诉链接 appeal links"))
    return 0


@officials.command("report", help="裁判报告：每一次警告、违例、处罚、裁定、请假、申诉（.xlsx 或 "
                                  ".html） the officials' report")
@event_option()
@click.option("--out", "out_file", required=True, help="输出文件 .xlsx 或 .html output file")
@common
def officials_report(event: str, out_file: str) -> int:
    from pipeline.officials import report

    path = output_path(out_file)
    if path.suffix.lower() not in (".xlsx", ".html", ".htm"):
        raise UsageError("裁判报告导出为 .xlsx 或 .html the report is a .xlsx or .html file")
    with db.reading(database()) as con:
        events.load(con, event)
    rows = report.write(database(), event, path)
    out(f"已导出裁判报告 report written: {path}（{rows} 行 rows）\n")
    return 0


COMMANDS = [officials]
