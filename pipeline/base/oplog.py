"""The operations log: one line per action (a sheet stored or refused, a pairing, results
removed, a console entry, a crash) in a file of its own beside each database — `NAME.log`
for `NAME.duckdb` (`paisai.log` for the default `paisai.duckdb`) — rotated at 5 MB (five
kept), so an organizer can answer "what happened at 14:05" without the audit tables, and
two databases in one folder never share a log.

A line: `2026-12-01 14:05:09<TAB>event<TAB>action<TAB>detail`.

Before logs were per database, every database of a folder wrote `paisai.log`: it is read
as the log of a database that is alone in its folder (its lines were all that one's);
beside other databases, nobody can tell whose lines they were, so it is left unread.

>>> log_path(Path("/a/b.duckdb")).name, log_path(Path("/a/paisai.duckdb")).name
('b.log', 'paisai.log')
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from pathlib import Path

MAX_BYTES = 5 * 1024 * 1024
KEEP = 5
_LOCK = threading.Lock()
_HANDLERS: dict[Path, logging.Handler] = {}


LEGACY = "paisai.log"  # the one log of a folder, before logs were per database


def log_path(database: Path) -> Path:
    """The log of `database`: its name with `.log` for `.duckdb`."""
    path = Path(database).resolve()
    return path.with_name((path.stem if path.suffix == ".duckdb" else path.name) + ".log")


def _legacy_path(database: Path) -> Path | None:
    """The folder's old shared log when it can only be `database`'s: no other database
    beside it (else None)."""
    path = Path(database).resolve()
    legacy = path.with_name(LEGACY)
    if legacy == log_path(path) or not legacy.exists():
        return None
    others = [p for p in path.parent.glob("*.duckdb") if p.name != path.name]
    return None if others else legacy


def _rotated(path: Path) -> list[Path]:
    """A log and its rotated files, oldest first."""
    return [path.with_name(f"{path.name}.{n}") for n in range(KEEP, 0, -1)] + [path]


def _handler(path: Path) -> logging.Handler:
    with _LOCK:
        if path not in _HANDLERS:
            import logging.handlers  # here: pickle and socket are no start-up cost of a command

            path.parent.mkdir(parents=True, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(path, maxBytes=MAX_BYTES,
                                                           backupCount=KEEP, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(message)s"))
            _HANDLERS[path] = handler
        return _HANDLERS[path]


def field(text: object) -> str:
    """A field of a log line: tabs, line breaks and other control characters written as
    escapes, so no value can split a line or forge another one.

    >>> field("ev\\n2026-12-01 10:00:00\\tev\\tpair")
    'ev\\\\n2026-12-01 10:00:00\\\\tev\\\\tpair'
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in str(text))


def write(database: Path, event_id: str | None, action: str, detail: str = "") -> None:
    """Append one line; a log that cannot be written never stops the action itself. The
    official acting (`acting`) is named at its end."""
    stamp = dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    from pipeline.base.db import ACTING

    who = ACTING.get()
    detail = f"{detail} · 由 by {who}" if who and "由 by" not in str(detail) else detail
    clean = field(" ".join(str(detail).split()))
    record = logging.LogRecord(
        "paisai", logging.INFO, "", 0,
        f"{stamp}\t{field(event_id) if event_id else '-'}\t{field(action)}\t{clean}", None, None)
    try:
        _handler(log_path(database)).emit(record)
    except OSError:
        pass


def write_on(con, event_id: str | None, action: str, detail: str = "") -> None:
    """`write` for a domain step that has only the connection: the file is the
    connection's own, and the line is written once the step's transaction is committed
    (never for a change that was rolled back)."""
    from pipeline.base import db
    found = con.execute("select path from duckdb_databases() where database_name = "
                        "current_database()").fetchall()
    if found and found[0][0]:
        db.after_commit(con, lambda: write(Path(found[0][0]), event_id, action, detail))


def since_time(text: str) -> dt.time:
    """`HH:MM` of today, 00:00 … 23:59 (ValueError otherwise).

    >>> since_time("14:05"), since_time("9:30")
    (datetime.time(14, 5), datetime.time(9, 30))
    """
    hour, minute = text.split(":")
    if not (hour.isdigit() and minute.isdigit() and len(hour) <= 2 and len(minute) == 2):
        raise ValueError(text)
    return dt.time(int(hour), int(minute))


def read(database: Path, event_id: str | None = None, since: str | None = None) -> list[str]:
    """The lines of an event (and the ones of no event, such as a crash), oldest first,
    from today's `since` (HH:MM) on: the database's own log (after the folder's old shared
    log, when it can only be this database's)."""
    legacy = _legacy_path(database)
    files = (_rotated(legacy) if legacy else []) + _rotated(log_path(database))
    start = None
    if since:
        start = dt.datetime.combine(dt.date.today(), since_time(since))
    lines = []
    for file in files:
        if not file.exists():
            continue
        for line in file.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) < 3:
                continue
            if event_id and parts[1] not in (event_id, "-"):
                continue
            if start and dt.datetime.strptime(parts[0], "%Y-%m-%d %H:%M:%S") < start:
                continue
            lines.append(line)
    return lines
