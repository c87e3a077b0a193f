"""`paisai watch`: ingest every new or changed sheet saved into a folder (a synced folder).

A file is read only once its size and modification time have stayed the same for one
interval, so a half-written file is never ingested; a file whose content was already
received (same SHA-256) is not ingested again.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path

from pipeline.base import db
from pipeline.base.errors import PaisaiError, SheetErrors
from pipeline.base.output import problem_report
from pipeline.intake.ingest import ingest_file
from pipeline.publishing.targets import republish

SUFFIXES = {".csv", ".xlsx", ".xls", ".txt"}


def _received(database: Path, event_id: str) -> set[str]:
    with db.reading(database) as con:
        return {r[0] for r in db.rows(con, "select sha256 from uploads where event_id = ?",
                                      [event_id])}


def _candidates(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES
                  and not p.name.startswith((".", "~$")))


def scan(database: Path, event_id: str, folder: Path, seen: dict[Path, tuple[int, int]],
         log: Callable[[str], None], done: dict[Path, tuple[int, int]] | None = None,
         owed: Owed | None = None) -> int:
    """One pass: ingest the files that have stayed unchanged since the last pass.

    A file is ingested when it is new or saved again (`done` keeps the state it was last
    handled in); on first sight, a file whose content was received before is passed over, so
    a restarted watch does not send the whole folder again. A file saved again with what it
    said before is applied again: a correction made since is then put back, audited."""
    done = {} if done is None else done
    owed = Owed() if owed is None else owed
    received: set[str] | None = None
    handled = 0
    for path in _candidates(folder):
        stat = path.stat()
        state = (stat.st_size, stat.st_mtime_ns)
        stable = seen.get(path) == state
        seen[path] = state
        if not stable or done.get(path) == state:
            continue
        data = path.read_bytes()
        first_sight = path not in done
        done[path] = state
        if first_sight:
            received = _received(database, event_id) if received is None else received
            if hashlib.sha256(data).hexdigest() in received:
                continue
        handled += 1
        try:
            report = ingest_file(database, event_id, path, source="watch", data=data)
        except SheetErrors as errors:
            log(f"{time.strftime('%H:%M:%S')} 有错误未导入 rejected {path.name}:\n"
                + problem_report(errors))
            continue
        except PaisaiError as exc:
            log(f"{time.strftime('%H:%M:%S')} 失败 failed {path.name}: {exc}")
            continue
        except Exception as exc:  # one file never stops the watch
            log(f"{time.strftime('%H:%M:%S')} 失败 failed {path.name}: {type(exc).__name__}: {exc}")
            continue
        summary = "; ".join(f"{s.kind} +{s.new} ~{s.replaced} ={s.unchanged}"
                            for s in report.stored) or "未变 unchanged"
        log(f"{time.strftime('%H:%M:%S')} 已导入 stored {path.name}: {summary}")
        owed.due = 0.0  # the site is owed this sheet: published now
    owed.publish(database, event_id, log)
    return handled


class Owed:
    """The site's publish a watch still owes: after a sheet is stored, and after a publish
    that failed (the sheet stays stored; the site is tried again on later scans, waiting
    `remote.retry_after` between tries — the console's policy — until it succeeds)."""

    def __init__(self) -> None:
        self.due: float | None = None  # time.monotonic() from which to try; None: owed none
        self.failures = 0

    def publish(self, database: Path, event_id: str, log: Callable[[str], None]) -> None:
        if self.due is None or time.monotonic() < self.due:
            return
        from pipeline.publishing.remote import retry_after  # the publisher only to publish
        now = time.strftime('%H:%M:%S')
        try:
            changed = republish(database, event_id)
        except Exception as exc:  # the sheets are stored; only the site is behind
            self.failures += 1
            wait = retry_after(self.failures)
            self.due = time.monotonic() + wait
            why = str(exc) if isinstance(exc, PaisaiError) else f"{type(exc).__name__}: {exc}"
            log(f"{now} 成绩已保存，但网站未更新 stored, but the site was not re-published "
                f"({why})；{wait:.0f} 秒后重试 trying again in {wait:.0f} s")
            return
        self.due, self.failures = None, 0
        if changed is not None:
            log(f"{now} 网站已更新 site re-published: {len(changed)} 个文件 files")


def watch(database: Path, event_id: str, folder: Path, interval: float = 2.0,
          passes: int | None = None, log: Callable[[str], None] = print) -> None:
    """Scan every `interval` seconds (forever, or `passes` times)."""
    if not folder.is_dir():
        raise PaisaiError(f"不是文件夹 not a folder: {folder}")
    seen: dict[Path, tuple[int, int]] = {}
    done: dict[Path, tuple[int, int]] = {}
    owed = Owed()
    count = 0
    while passes is None or count < passes:
        scan(database, event_id, folder, seen, log, done, owed)
        count += 1
        if passes is None or count < passes:
            time.sleep(interval)
