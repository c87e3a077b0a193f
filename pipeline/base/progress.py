"""Progress of long work, on stderr, for people: a Rich progress bar when stderr is a
terminal (or env PAISAI_PROGRESS=1), nothing otherwise, so programs reading stdout and
scripts logging stderr see no change.

    with progress("导入 ingesting", total=len(files)) as step:
        for path in files:
            step(path.name)  # the item about to be worked on
            ...
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def shown() -> bool:
    return os.environ.get("PAISAI_PROGRESS") == "1" or sys.stderr.isatty()


FEW = 100  # items each drawn as they come; more are drawn at the bar's own pace


@contextmanager
def progress(label: str, total: int | None, show: bool = True) -> Iterator[Callable[[str], None]]:
    """A `step(item)` callable: each call finishes the previous item and names the next."""
    if not (show and shown()):
        yield lambda item: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True, force_terminal=os.environ.get("PAISAI_PROGRESS") == "1")
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("{task.fields[item]}")]
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(label, total=total, item="")
        started = False

        def step(item: str) -> None:
            nonlocal started
            if started:
                bar.advance(task)
            started = True
            bar.update(task, item=item)
            if total is None or total <= FEW:  # each of a few items (files) drawn once, even
                bar.refresh()  # when read faster than the bar's own redraw

        yield step
        if started:
            bar.advance(task)
        bar.update(task, item="✓", total=bar.tasks[0].completed)
