"""What every CLI command shares: the database and debug options, output helpers, the
common option shapes. Commands are Click commands in `pipeline/commands/`, one module per
area; each declares its options beside its code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from pipeline.base import db

FORMATS = ["table", "csv", "json"]

KIND_LABELS = {
    "entries": "报名 entries",
    "players": "个人报名 players",
    "results": "成绩 results",
    "penalties": "罚分 penalties",
    "quiz": "测试题 quiz",
    "deals": "逐副 deals (桌 tables)",
    "fouls": "犯规 fouls",
    "matches": "拖拉机对局 games",
    "tractor_decisions": "拖拉机判定 decisions (弃权、取消资格、到时领先 forfeit, "
                         "disqualified, ahead at time-up)",
    "tractor_deals": "拖拉机逐盘 deals (局 games)",
    "point_penalties": "拖拉机罚分 point penalties",
    "carry": "带入成绩 carried-over totals",
}


def out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def err(text: str) -> None:
    sys.stderr.write(text if text.endswith("\n") else text + "\n")


def output_path(given: str, option: str = "--out") -> Path:
    """A file the command is to write: a file name (not a folder) in a folder that exists."""
    from pipeline.base.errors import UsageError

    path = Path(given)
    if path.is_dir():
        raise UsageError(f"{option} 是一个文件夹，请给出文件名 {option} is a folder; give a file "
                         f"name: {path}")
    if not path.parent.is_dir():
        raise UsageError(f"文件夹不存在 the folder does not exist: {path.parent}")
    return path


def database() -> Path:
    """`--db` (on the command or before it), else env `PAISAI_DB`, else data/paisai.duckdb."""
    return db.db_path(click.get_current_context().meta.get("paisai.db"))


def _remember(key: str):
    def callback(ctx: click.Context, param: click.Parameter, value):
        if value:
            ctx.meta[key] = value
        return value

    return callback


def common(f: Callable) -> Callable:
    """`--db PATH` and `--debug`, accepted by every command and by `paisai` itself."""
    f = click.option("--debug", is_flag=True, expose_value=False,
                     callback=_remember("paisai.debug"),
                     help="出错时显示完整堆栈 show the traceback on failure")(f)
    return click.option("--db", metavar="PATH", expose_value=False,
                        callback=_remember("paisai.db"),
                        help="数据库文件 database file (env PAISAI_DB, default "
                             "data/paisai.duckdb)")(f)


def event_option(required: bool = True) -> Callable:
    return click.option("--event", required=required, help="赛事编号 event id")


def format_option(choices: list[str] = FORMATS) -> Callable:
    return click.option("--format", "fmt", type=click.Choice(choices), default="table",
                        show_default=True, help="输出格式 output format")
