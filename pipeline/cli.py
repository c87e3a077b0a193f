"""The `paisai` command line: the root group and the exit codes. Each command lives, with its
options, in its area's module under `pipeline/commands/`.

Exit codes: 0 success; 2 invalid input (nothing stored, report on stderr); 1 any other
failure, with a message and no traceback unless `--debug`.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def _uncollected() -> Iterator[None]:
    """Start-up (issue 53): the cyclic garbage collector walks every object the imports make
    (polars', DuckDB's, click's), again and again while they import and once more at the
    interpreter's exit — about 45 ms of a command that reads one row, more than DuckDB's open
    of the file. Imports make no garbage to find, so the collector pauses while they run and
    what they made is frozen (never walked again); a process that turned the collector off
    keeps it off."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


with _uncollected():
    import os
    import sys

    import click

    from pipeline.base import output
    from pipeline.base.errors import PaisaiError, SheetErrors, disk_problem
    from pipeline.cli_support import common, err


class Areas(click.Group):
    """The root group: a command's area module is imported when the command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from pipeline.commands import WHERE

        return sorted(WHERE)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        from pipeline.commands import WHERE, area

        if name not in self.commands and name in WHERE:
            with _uncollected():  # the area's modules load as the CLI's own (above)
                for command in area(WHERE[name]).COMMANDS:
                    self.add_command(command)
        return self.commands.get(name)


@click.group("paisai", cls=Areas, help="牌赛：掼蛋与拖拉机比赛的计分、排名与编排 scoring, ranking and pairing "
                            "for Guandan and Tractor tournaments",
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@common
def paisai() -> None:
    pass


def build() -> click.Group:
    """The root group with every area's commands loaded."""
    from pipeline.commands import AREAS, area

    for name in AREAS:
        for command in area(name).COMMANDS:
            paisai.add_command(command)
    return paisai


def _log_crash(argv: list[str], exc: Exception) -> None:
    from pipeline.base import db, oplog
    given = argv[argv.index("--db") + 1] if "--db" in argv[:-1] else None
    event = argv[argv.index("--event") + 1] if "--event" in argv[:-1] else None
    oplog.write(db.db_path(given), event, "crash",
                f"paisai {' '.join(argv[:2])}: {type(exc).__name__}: {exc}")


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the process's own command: what it leaves is frozen at exit, not
        atexit.register(gc.freeze)  # walked once more (every connection is closed by then)
    argv = list(sys.argv[1:] if argv is None else argv)
    root = paisai  # each command's module is imported when it is called
    debug = "--debug" in argv or os.environ.get("PAISAI_DEBUG") == "1"
    if not argv:
        click.echo(root.get_help(click.Context(root, info_name="paisai")))
        return 0
    try:
        result = root.main(args=argv, prog_name="paisai", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except click.exceptions.Exit as exc:  # --help
        return exc.exit_code
    except click.ClickException as exc:  # usage errors: exit 2, as before
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        err("已中断 interrupted")
        return 1
    except PaisaiError as exc:
        if isinstance(exc, SheetErrors):
            err(output.problem_report(exc))
        err(f"错误 error: {exc}")
        if debug:
            import traceback

            traceback.print_exc()
        return exc.exit_code
    except KeyboardInterrupt:
        err("已中断 interrupted")
        return 1
    except Exception as exc:  # the last guard: a message, never a traceback for the user
        said = disk_problem(exc)
        if said:  # every write is one transaction or a swap at the end: nothing is half-done
            err(f"错误 error: {said}。已有的数据没有改动 nothing stored was changed")
            return 1
        err(f"内部错误 internal error: {type(exc).__name__}: {exc}")
        _log_crash(argv, exc)
        if debug:
            import traceback

            traceback.print_exc()
        else:
            err("（加 --debug 查看详情 add --debug for details）")
        return 1
