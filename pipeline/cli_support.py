"""What every CLI command shares: the registry, output helpers, the database option."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from pipeline import db

FORMATS = ["table", "csv", "json"]


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


def command(name: str):
    def register(func: Callable[[argparse.Namespace], int]):
        COMMANDS[name] = func
        return func

    return register


def _out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _err(text: str) -> None:
    sys.stderr.write(text if text.endswith("\n") else text + "\n")


def _db(args: argparse.Namespace) -> Path:
    return db.db_path(getattr(args, "db", None))


KIND_LABELS = {
    "entries": "报名 entries",
    "results": "成绩 results",
    "penalties": "罚分 penalties",
    "quiz": "测试题 quiz",
    "deals": "逐副 deals (桌 tables)",
    "fouls": "犯规 fouls",
    "matches": "拖拉机对局 games",
    "tractor_deals": "拖拉机逐盘 deals (局 games)",
    "point_penalties": "拖拉机罚分 point penalties",
}


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=argparse.SUPPRESS,
                        help="数据库文件 database file (env PAISAI_DB, default data/paisai.duckdb)")
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="出错时显示完整堆栈 show the traceback on failure")
