"""The DuckDB file: where it is, its schema migrations, and the locking design.

DuckDB lets one process hold a file read-write, and then no other process may open it at
all. So nothing here keeps a connection: a writer (an ingest, a pairing) opens the file
read-write for the duration of one transaction; readers (standings, the dashboard) open it
read-only for one query. Either kind waits, retrying, while another process holds the file
(`PAISAI_LOCK_TIMEOUT` seconds, default 30), then fails with a clear message.

A server of many threads (the dashboard: the console, the projector, a hall of phones) calls
`share_readers()`: its readers and writers then share one connection (a cursor each:
queries running side by side, a write one transaction on its own cursor, the readers going
on meanwhile with what was committed before it) instead of opening the file for every
query (about 50 ms each on an event of 1,000 teams). The shared connection is closed when
it has been idle for 1.5 s, or — once open for 3 s — when another process asks for the file:
a command that finds the file held says so beside it (`knock`: `<file>.wait`), the server
turns its connection over for it, and then reads what it wrote. Nobody asking, a busy hall
keeps its connection (turning it over cost every reader 0.2–0.6 s: closing, a gap, opening).

The module is kept whole: the locks, the shared connection and the transactions are one design;
every reader and writer of the project goes through the few helpers at its end.
"""

from __future__ import annotations

import contextvars
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pipeline.base.errors import BusyError, PaisaiError, disk_problem

DEFAULT_DB = Path("data/paisai.duckdb")
# the package's SQL: a plain folder beside the code (importlib.resources costs every command
# its import and gives nothing more here: the package is never zipped)
SQL_FOLDER = Path(__file__).resolve().parent.parent / "sql"


def db_path(given: str | os.PathLike | None = None) -> Path:
    """`--db`, else env `PAISAI_DB`, else `data/paisai.duckdb`."""
    return Path(given or os.environ.get("PAISAI_DB") or DEFAULT_DB)


@cache
def sql(name: str) -> str:
    """The text of `pipeline/sql/NAME.sql`, its comments left out: DuckDB's Python layer
    finds a query's parameters by walking a text that is not all ASCII character by
    character (0.1 s for the ranking's layers, whose comments quote 累进分, 对手分…)."""
    text = (SQL_FOLDER / f"{name}.sql").read_text(encoding="utf-8")
    return without_comments(text)


_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.S)


def without_comments(text: str) -> str:
    r"""SQL text without its comments; quoted strings and names kept as written.

    >>> without_comments("select '--x', \"a--b\" -- 注释\nfrom t /* 说明 */ where 1")
    'select \'--x\', "a--b" \nfrom t   where 1'
    """
    return _TOKENS.sub(lambda m: m[0] if m[0][0] in "'\"" else " " if m[0][0] == "/" else "",
                       text)


@cache
def _migration_files() -> list[str]:
    return sorted(n for n in os.listdir(SQL_FOLDER / "migrations") if n.endswith(".sql"))


@cache
def migrations() -> list[tuple[int, str]]:
    folder = SQL_FOLDER / "migrations"
    return [(int(name.split("_", 1)[0]), (folder / name).read_text(encoding="utf-8"))
            for name in _migration_files()]


def latest_version() -> int:
    """The newest migration's number, from the files' names (every command asks: none of
    the migrations is read unless the file needs it)."""
    return max(int(name.split("_", 1)[0]) for name in _migration_files())


ACTING: contextvars.ContextVar[str | None] = contextvars.ContextVar("acting", default=None)


@contextmanager
def acting(official: str | None) -> Iterator[None]:
    """Who acts (an official's name and role, issue 43): every line written meanwhile, and
    every result audited, names them."""
    token = ACTING.set(official)
    try:
        yield
    finally:
        ACTING.reset(token)


def signed(text: str | None) -> str | None:
    """`text` naming the official acting, if any (the audit tables' reason)."""
    who = ACTING.get()
    return f"{text or ''} · 由 by {who}".strip(" ·") if who else text


_PROCESS_LOCKS: dict[str, threading.RLock] = {}
_GUARD = threading.Lock()


def _key(path: Path) -> str:
    """The file's key in this process's tables (its resolved path: asked of the file system,
    so once per transaction or read, never again inside it)."""
    return str(path.resolve())


def _process_lock(key: str) -> threading.RLock:
    """Within one process (the dashboard serves many sessions on threads) a file cannot be
    open read-write and read-only at once, so connections to one file take turns (`key`:
    the file's `_key`)."""
    with _GUARD:
        return _PROCESS_LOCKS.setdefault(key, threading.RLock())


def _lock_timeout() -> float:
    return float(os.environ.get("PAISAI_LOCK_TIMEOUT", "30"))


def knock_path(path: Path) -> Path:
    """The note beside the file that another process waits for it (`knock`)."""
    return path.with_name(path.name + ".wait")


def knock(path: Path) -> None:
    """Say beside the file that this process waits for it: a server sharing its connection
    to it (`share_readers`) turns the connection over at its next read, instead of keeping it
    while nobody else asks. Removed by the server as it closes the file."""
    try:
        knock_path(path).touch()
    except OSError:  # a folder this process cannot write to: the server's idle close only
        pass


def _open(path: Path, read_only: bool, wait: float | None = None) -> duckdb.DuckDBPyConnection:
    """The file opened, retried while another process holds it for `wait` seconds (default
    the lock timeout; 0: one try), then BusyError."""
    deadline = time.monotonic() + (_lock_timeout() if wait is None else wait)
    pause = 0.02
    knocked = False
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            said = disk_problem(exc)
            if said:
                raise PaisaiError(f"打不开数据库 cannot open the database {path}: {said}") \
                    from None
            if "lock" in str(exc).lower() and not _SHARING:
                knock(path)  # (a server's own reopening never asks itself to close)
                knocked = True
            if "lock" in str(exc).lower() and time.monotonic() > deadline:
                raise BusyError(
                    f"数据库正被另一个程序使用，请稍后再试 the database {path} is in use by "
                    f"another process; try again shortly ({exc})"
                ) from None
            if "lock" not in str(exc).lower():
                raise PaisaiError(
                    f"数据库正被另一个程序使用，请稍后再试 the database {path} is in use by "
                    f"another process; try again shortly ({exc})"
                ) from None
            time.sleep(pause)  # short: a server's shared reader leaves gaps of 0.15 s
            pause = min(pause * 2, 0.05)
            continue
        if knocked:  # answered: the note is not left behind (another waiting says so again)
            try:
                knock_path(path).unlink(missing_ok=True)
            except OSError:
                pass
        return con


def _schema_version(con: duckdb.DuckDBPyConnection) -> int:
    try:
        return scalar(con, "select coalesce(max(version), 0) from schema_version")
    except duckdb.CatalogException:  # a new file
        return 0


def migrate(con: duckdb.DuckDBPyConnection) -> None:
    """Apply the migrations newer than the file's schema version, each in one transaction."""
    current = _schema_version(con)
    if current >= latest_version():
        return
    con.execute("create table if not exists schema_version (version integer primary key, "
                "applied_at timestamp default current_timestamp)")
    for version, text in migrations():
        if version <= current:
            continue
        con.execute("begin")
        try:
            con.execute(text)
            con.execute("insert into schema_version (version) values (?)", [version])
            con.execute("commit")
        except Exception:
            con.execute("rollback")
            raise


# Who writes first (issue 53): the organizer never queues behind the phones. A thread that
# stores the phones' work (their reports, a batch at a time) marks it `background()`: its
# transactions wait while a foreground writer of the same file (the console, a command)
# waits for the file or writes — BACKGROUND_WAIT seconds at most, so they are never starved.
# One under way gives way (`give_way`) when a foreground writer comes: it is rolled back and
# done again after it, so the console never waits for a batch either.
BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("background", default=False)
BACKGROUND_WAIT = 5.0
_FIRST = threading.Condition()
_FOREGROUND: dict[str, int] = {}  # file → foreground writers waiting for it or writing
_HOLDING = threading.local()  # file → how deep this thread is in its transactions


@contextmanager
def background() -> Iterator[None]:
    """The writes made meanwhile let a foreground writer of the same file go first."""
    token = BACKGROUND.set(True)
    try:
        yield
    finally:
        BACKGROUND.reset(token)


class GaveWay(Exception):  # noqa: N818 (not an error: the work is done again later)
    """A background transaction rolled back at `give_way`: a foreground writer of its file
    goes first; the work is to be done again (nothing of it was kept)."""


def give_way(path: Path) -> None:
    """In a background transaction, at a point where its work may be dropped: GaveWay (the
    transaction is then rolled back) when a foreground writer of the file waits or writes.
    Elsewhere — a foreground transaction, a background one inside this thread's own
    foreground transaction — it does nothing."""
    if not BACKGROUND.get():
        return
    key = _key(path)
    if getattr(_HOLDING, "outer", {}).get(key) != "background":
        return
    with _FIRST:
        if _FOREGROUND.get(key):
            raise GaveWay(key)


@contextmanager
def first(path: Path) -> Iterator[None]:
    """One foreground action of several transactions (the console's store: the change, then
    what undo keeps of it; a page run making a file's preview): background writers wait from
    its start to its end, never slipping in between its transactions (BACKGROUND_WAIT seconds
    at most), and its own reads join the shared connection however old (`_Shared.cursor`)."""
    if BACKGROUND.get():
        yield
        return
    key = _key(path)
    _count(key, 1)
    mine = getattr(_HOLDING, "first", {})  # file → this thread's actions under way
    _HOLDING.first = mine
    mine[key] = mine.get(key, 0) + 1
    try:
        yield
    finally:
        mine[key] -= 1
        if not mine[key]:
            del mine[key]
        _count(key, -1)


def _count(key: str, change: int) -> None:
    with _FIRST:
        now = _FOREGROUND.get(key, 0) + change
        if now:
            _FOREGROUND[key] = now
        else:  # none left: the file is forgotten (the hall's server sees many over a day)
            del _FOREGROUND[key]
        if change < 0:
            _FIRST.notify_all()


def foreground_writers(path: Path) -> int:
    """How many foreground writers wait for the file or write to it now."""
    with _FIRST:
        return _FOREGROUND.get(_key(path), 0)


@contextmanager
def _turn(key: str) -> Iterator[None]:
    """The file's turn for one transaction of this thread (`key`: the file's `_key`): a
    foreground one is counted while it waits and writes; a background one waits until none
    is (never inside this thread's own transaction: it holds the file already)."""
    held = getattr(_HOLDING, "depth", {})
    _HOLDING.depth = held
    outer = getattr(_HOLDING, "outer", {})  # file → the kind of this thread's outermost one
    _HOLDING.outer = outer
    counted = not BACKGROUND.get()
    if counted:
        _count(key, 1)
    elif not held.get(key):
        with _FIRST:
            _FIRST.wait_for(lambda: not _FOREGROUND.get(key), BACKGROUND_WAIT)
    if not held.get(key):
        outer[key] = "foreground" if counted else "background"
    held[key] = held.get(key, 0) + 1
    try:
        with _process_lock(key):
            yield
    finally:
        held[key] -= 1
        if not held[key]:
            outer.pop(key, None)
        if counted:
            _count(key, -1)


@contextmanager
def _transaction(path: Path, keep: bool) -> Iterator[duckdb.DuckDBPyConnection]:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PaisaiError(f"建不了数据库的文件夹 cannot make the database's folder "
                          f"{path.parent}: {disk_problem(exc) or exc.strerror}") from None
    key = _key(path)  # the file's path resolved once for the transaction
    with _turn(key):
        shared = _SHARED.get(key) if _SHARING else None
        if shared is None:
            yield from _transaction_locked(path, keep)
            return
        cursor = shared.cursor(writer=True)  # the readers' shared connection: no reopening
        try:
            yield from _transaction_on(cursor, keep)
        finally:
            shared.release(cursor, writer=True)


_AFTER_COMMIT: dict[int, list] = {}  # id(connection) → what to do once its work is kept


def after_commit(con: duckdb.DuckDBPyConnection, action) -> None:
    """Run `action()` once the transaction `con` belongs to is committed; never when it is
    rolled back (a log line or a message about a change that did not happen). Outside a
    `writing` transaction it runs at once."""
    waiting = _AFTER_COMMIT.get(id(con))
    if waiting is None:
        action()
    else:
        waiting.append(action)


def _transaction_locked(path: Path, keep: bool) -> Iterator[duckdb.DuckDBPyConnection]:
    con = _open(path, read_only=False)
    try:
        migrate(con)
        yield from _transaction_on(con, keep)
    finally:
        con.close()


def _transaction_on(con: duckdb.DuckDBPyConnection,
                    keep: bool) -> Iterator[duckdb.DuckDBPyConnection]:
    """One transaction on an open connection (or cursor): committed when `keep` and the
    work succeeded, else rolled back; `after_commit` actions run once it is kept."""
    waiting: list = []
    _AFTER_COMMIT[id(con)] = waiting
    try:
        con.execute("begin transaction")
        try:
            yield con
        except BaseException:
            con.execute("rollback")
            raise
        con.execute("commit" if keep else "rollback")
    finally:
        _AFTER_COMMIT.pop(id(con), None)
    for action in waiting if keep else ():
        action()


def writing(path: Path):
    """A read-write connection inside one transaction: committed on success, else rolled back."""
    return _transaction(path, keep=True)


def trial(path: Path):
    """A read-write transaction that is always rolled back: what a change would do."""
    return _transaction(path, keep=False)


class _Shared:
    """The one connection to a file that this process's threads share (read-write: a
    writer's transaction is a cursor of it, the readers' cursors go on beside it)."""

    IDLE_SECONDS = 1.5  # closed when no thread has read for this long
    OPEN_SECONDS = 3.0  # or, once open this long, when another process asks for the file
    # (`knock`: no new reader joins it then)
    GAP_SECONDS = 0.15  # and left closed this long: another process's writer gets its turn

    def __init__(self, path: Path):
        self.path = path
        self.key = _key(path)
        self.knock = knock_path(path)
        self.turn = threading.Condition()
        self.con: duckdb.DuckDBPyConnection | None = None
        self.opened = self.closed = self.last = 0.0
        self.users = 0
        self.current = False  # the file's schema is the latest (checked at each open)
        self.writer: int | None = None  # the thread writing now
        self.timer: threading.Timer | None = None
        self.held = threading.local()  # how many cursors this thread holds

    def cursor(self, wait: float | None = None,
               writer: bool = False) -> duckdb.DuckDBPyConnection:
        """A cursor on the shared connection, opening it when it is closed. While another
        process holds the file each reader waits on its own, side by side (never one behind
        another, each waiting out its own timeout), for `wait` seconds at most (default the
        lock timeout), then BusyError."""
        if self.writer == threading.get_ident() and not writer:
            raise RuntimeError("a thread cannot read the file it is writing: use its connection")
        nested = getattr(self.held, "count", 0) > 0  # this thread reads already: it joins
        # a foreground writer joins the connection however long it has been open (no other
        # process can have written meanwhile): it never waits for the phones' reads to end
        # — and so does a read of the organizer's own action under way (`first`: the page
        # run making a file's preview would otherwise wait for the phones' pages to leave,
        # then for the file to be opened again, 0.2–0.6 s in a busy hall, between its reads)
        organizer = getattr(_HOLDING, "first", {}).get(self.key, 0) > 0
        joins = nested or (not BACKGROUND.get() and (writer or organizer))
        deadline = time.monotonic() + (_lock_timeout() if wait is None else wait)
        with self.turn:
            while True:
                now = time.monotonic()
                if joins and self.con is not None:
                    break  # (the file's turn would otherwise wait for this thread for ever)
                if self.con is not None and self.writer is not None and not writer:
                    break  # a reader joins while this process writes: the connection is
                    # turned over only after the write all the same, and a reader kept out
                    # would wait for the whole write (a phones' batch: seconds under load).
                    # Only while a writer holds it: a writer waiting for the readers to leave
                    # (the phones' batch, the file's turn in hand) would wait for ever
                if self.con is not None and self._due(now):
                    if self.users == 0:
                        self._close()
                    else:
                        self.turn.wait(0.05)
                elif self.con is None and now < self.closed + self.GAP_SECONDS:
                    self.turn.wait(self.closed + self.GAP_SECONDS - now)
                else:
                    break
            while self.con is None:
                try:  # one try at a time, holding the turn only for the try itself
                    self.con = _open(self.path, read_only=False, wait=0)
                except BusyError:
                    if time.monotonic() >= deadline:
                        raise
                    self.turn.wait(0.05)  # others may try or read meanwhile
                    continue
                self.opened = time.monotonic()
                migrate(self.con)  # an older file: brought up to date as it opens
                self.current = True
            self.users += 1
            try:
                cursor = self.con.cursor()
            except BaseException:
                self.users -= 1
                raise
            self.held.count = getattr(self.held, "count", 0) + 1
            if writer:
                self.writer = threading.get_ident()
            return cursor

    def release(self, cursor: duckdb.DuckDBPyConnection, writer: bool = False) -> None:
        self.held.count -= 1
        with self.turn:  # cursors are made and closed one at a time (the parent lists them)
            cursor.close()
            if writer:
                self.writer = None
            self.users -= 1
            self.last = time.monotonic()
            if self.users == 0:
                mine = writer and not BACKGROUND.get()  # (this writer is counted still)
                if self._due(self.last) and not self._writing(mine):
                    self._close()
                elif self.timer is None:
                    self.timer = threading.Timer(self.IDLE_SECONDS, self._close_if_idle)
                    self.timer.daemon = True
                    self.timer.start()
            self.turn.notify_all()

    def _due(self, now: float) -> bool:
        """The connection is to be turned over: open OPEN_SECONDS, and another process asks
        for the file (its note beside it: one look at the file system, only once it is old)."""
        return now - self.opened > self.OPEN_SECONDS and self.knock.exists()

    def _writing(self, mine: bool = False) -> bool:
        """A writer of this process holds the connection, or a foreground one (the console)
        waits for its turn (`mine`: one of them is the foreground writer leaving): the
        connection is not closed as its last user leaves — the console would open the file
        again right after (0.2–0.8 s in a busy hall) — but by the next user or when idle."""
        return self.writer is not None or _FOREGROUND.get(self.key, 0) > int(mine)

    def _close_if_idle(self) -> None:
        with self.turn:
            self.timer = None
            if self.users == 0 and self.con is not None:
                if time.monotonic() - self.last >= self.IDLE_SECONDS * 0.9:
                    self._close()
                else:
                    self.timer = threading.Timer(self.IDLE_SECONDS, self._close_if_idle)
                    self.timer.daemon = True
                    self.timer.start()
            self.turn.notify_all()

    def _close(self) -> None:  # holding `turn`, no users
        if self.con is not None:
            self.con.close()
            self.con = None
            self.closed = time.monotonic()
            try:  # the file is free: whoever asked gets it within the gap
                self.knock.unlink(missing_ok=True)
            except OSError:
                pass



_SHARING = False
_SHARED: dict[str, _Shared] = {}


def share_readers() -> None:
    """From now on this process's readers share one read-only connection per file (a
    server's threads), and its writers join it, one transaction at a time."""
    global _SHARING
    _SHARING = True


def sharing() -> bool:
    """Whether this process's threads share their connections (a server: `share_readers`)."""
    return _SHARING


def _shared(path: Path) -> _Shared:
    key = _key(path)
    with _GUARD:
        found = _SHARED.get(key)
        if found is None:
            found = _SHARED[key] = _Shared(path)
        return found


@contextmanager
def reading(path: Path, wait: float | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short read-only connection; creates or migrates the file first when it needs it.
    While another process holds the file it waits `wait` seconds at most (default the lock
    timeout; a page that can answer from memory gives up sooner), then BusyError."""
    if not path.exists():
        with writing(path):
            pass
    if _SHARING:
        shared = _shared(path)
        cursor = shared.cursor(wait)
        try:
            if shared.current:
                yield cursor
                return
        finally:
            shared.release(cursor)
        with writing(path):  # an older file: migrated first, then read as usual
            pass
        with reading(path) as con:
            yield con
        return
    with _process_lock(_key(path)):
        con = _open(path, read_only=True, wait=wait)
        try:
            if _schema_version(con) < latest_version():
                con.close()
                with writing(path):
                    pass
                con = _open(path, read_only=True)
            yield con
        finally:
            con.close()


def frame(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> pl.DataFrame:
    """Run a query and return every row as a polars frame."""
    # through the Arrow C stream: the same frame as .pl(), without importing pyarrow (0.4 s)
    return pl.DataFrame(con.sql(query, params=params))


class _ArrowStream:  # a polars frame as DuckDB scans it through polars' Arrow C stream
    __slots__ = ("frame",)

    def __init__(self, frame: pl.DataFrame):
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self.frame.__arrow_c_stream__(requested_schema)


def register(con: duckdb.DuckDBPyConnection, name: str, data: pl.DataFrame) -> None:
    """`con.register` of a polars frame without `to_arrow()`, which imports pyarrow (0.1–0.4
    s of a command); DuckDB refuses polars' export of a Null column: that goes as before."""
    con.register(name, data if pl.Null in data.schema.dtypes() else _ArrowStream(data))


def rows(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> list[tuple]:
    """Run a query and read every row (a result left unread blocks the connection)."""
    return con.execute(query, params).fetchall()


def scalar(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> Any:
    """The first column of the first row, or None."""
    found = rows(con, query, params)
    return found[0][0] if found else None
