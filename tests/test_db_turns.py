"""Who writes first in the hall's one process (issue 53): the organizer's console never
queues behind the phones' reports, and a console write never waits for the phones' reads to
end (the shared connection's rotation), on a real DuckDB file."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pipeline.base import db


@pytest.fixture
def sharing(monkeypatch):
    """This process's readers share a connection (as `paisai dashboard`'s do), for one test."""
    monkeypatch.setattr(db, "_SHARING", True)
    monkeypatch.setattr(db, "_SHARED", {})


def _count_opens(monkeypatch) -> list[bool]:
    """Every opening of the file from now on, read-only or not, in order."""
    opened: list[bool] = []
    original = db._open

    def counting(path, read_only, wait=None):
        opened.append(read_only)
        return original(path, read_only, wait)

    monkeypatch.setattr(db, "_open", counting)
    return opened


def _rename(db_file, team: str, name: str) -> None:
    with db.writing(db_file) as con:
        con.execute("update teams set team_name = ? where team_no = ?", [name, team])


def _until(check, what: str) -> None:
    """Wait (bounded) until `check()` holds: a thread has reached its point."""
    stop = threading.Event()
    for _ in range(500):
        if check():
            return
        stop.wait(0.01)
    raise AssertionError(f"never: {what}")


def test_the_console_writes_before_a_phones_batch_waiting_for_the_file(sharing, event16, db_file):
    """While a write holds the file, a batch of the phones' reports (background) and the
    console's store (foreground) both wait: the console's goes first when the file is free,
    the phones' after it — not in the order they arrived."""
    order: list[str] = []
    release = threading.Event()

    def first() -> None:
        with db.writing(db_file):
            order.append("first")
            release.wait(20)

    def phones() -> None:
        with db.background():
            _rename(db_file, "A1", "phones")
        order.append("phones")

    def console() -> None:
        _rename(db_file, "A2", "console")
        order.append("console")

    threads = [threading.Thread(target=first)]
    threads[0].start()
    _until(lambda: order == ["first"], "the first write holds the file")
    threads.append(threading.Thread(target=phones))  # arrives first, waits
    threads[1].start()
    threads.append(threading.Thread(target=console))  # arrives after it
    threads[2].start()
    _until(lambda: db.foreground_writers(db_file) == 2, "the console waits for the file")
    release.set()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads), "deadlocked"
    assert order == ["first", "console", "phones"]
    assert db.foreground_writers(db_file) == 0
    with db.reading(db_file) as con:  # both stored
        assert db.rows(
            con,
            "select team_no, team_name from teams where team_no in ('A1', 'A2') order by team_no",
        ) == [("A1", "phones"), ("A2", "console")]


def test_a_background_write_goes_at_once_when_nobody_else_writes(sharing, event16, db_file):
    with db.background():
        _rename(db_file, "A3", "alone")
        with db.writing(db_file) as con:  # nested in its own transaction: never waits
            con.execute("update teams set team_name = 'nested' where team_no = 'A4'")
    with db.writing(db_file), db.background():  # inside a foreground write of this thread
        _rename(db_file, "A5", "inside")
    with db.reading(db_file) as con:
        assert db.rows(
            con, "select team_name from teams where team_no in ('A3', 'A4', 'A5') order by team_no"
        ) == [("alone",), ("nested",), ("inside",)]


def test_the_console_s_write_joins_an_old_connection_the_phones_still_read(
    sharing, monkeypatch, event16, db_file
):
    """The shared connection is turned over once it is old (another process's turn), which
    waits for every reader to leave; the console's write does not wait for that: it is
    stored while a phone's read is still under way."""
    monkeypatch.setattr(db._Shared, "OPEN_SECONDS", 0.0)  # every connection is old
    entered, written, seen = threading.Event(), threading.Event(), []

    def phone() -> None:
        with db.reading(db_file):
            entered.set()
            seen.append(written.wait(10))  # the write is stored while this read goes on

    reader = threading.Thread(target=phone)
    reader.start()
    assert entered.wait(10)
    _rename(db_file, "A6", "while reading")
    written.set()
    reader.join(20)
    assert seen == [True]
    with db.reading(db_file) as con:
        assert db.scalar(con, "select team_name from teams where team_no = 'A6'") == "while reading"


def test_a_phones_batch_never_slips_between_the_writes_of_one_console_action(
    sharing, event16, db_file
):
    """The console's store is several transactions (the sheet, then what undo keeps of it):
    a batch of the phones' reports arriving after the first waits until the last is done."""
    order: list[str] = []
    waiting, release = threading.Event(), threading.Event()

    def console() -> None:
        with db.first(db_file):
            _rename(db_file, "A7", "sheet")
            order.append("sheet")
            release.wait(20)
            _rename(db_file, "A8", "undo")
            order.append("undo")

    def phones() -> None:
        waiting.set()
        with db.background():
            _rename(db_file, "A9", "phones")
        order.append("phones")

    threads = [threading.Thread(target=console), threading.Thread(target=phones)]
    threads[0].start()
    _until(lambda: order == ["sheet"], "the console's first write is stored")
    threads[1].start()
    assert waiting.wait(10)
    threading.Event().wait(0.3)  # (the batch reaches the file's turn meanwhile)
    release.set()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads), "deadlocked"
    assert order == ["sheet", "undo", "phones"]
    assert db.foreground_writers(db_file) == 0


def test_a_phones_batch_under_way_gives_way_to_the_console(sharing, event16, db_file):
    """A batch of the phones' work that holds the file when the console comes gives way at
    its next point (`db.give_way`): rolled back, nothing of it kept, and the console's write
    stored without waiting for the batch's end."""
    holding, outcome = threading.Event(), []
    with db.reading(db_file) as con:
        before = db.scalar(con, "select team_name from teams where team_no = 'A1'")

    def phones() -> None:
        try:
            with db.background(), db.writing(db_file) as con:
                con.execute("update teams set team_name = 'phones' where team_no = 'A1'")
                holding.set()
                _until(lambda: db.foreground_writers(db_file) == 1, "the console comes")
                db.give_way(db_file)
                outcome.append("went on")
        except db.GaveWay:
            outcome.append("gave way")

    batch = threading.Thread(target=phones)
    batch.start()
    assert holding.wait(10)
    _rename(db_file, "A2", "console")  # waits only until the batch's next point
    batch.join(30)
    assert outcome == ["gave way"] and db.foreground_writers(db_file) == 0
    with db.reading(db_file) as con:
        assert db.rows(
            con,
            "select team_no, team_name from teams where team_no in ('A1', 'A2') order by team_no",
        ) == [("A1", before), ("A2", "console")]


def test_give_way_only_in_a_background_transaction_of_its_own(sharing, event16, db_file):
    """A foreground transaction, and a background one inside this thread's own foreground
    transaction (the console counts itself), never give way."""
    with db.writing(db_file):
        db.give_way(db_file)  # foreground: counted itself, goes on
        with db.background(), db.writing(db_file):
            db.give_way(db_file)
    with db.background(), db.writing(db_file):
        db.give_way(db_file)  # nobody else writes: goes on


def test_a_reader_never_waits_for_a_write_on_an_old_connection(
    sharing, monkeypatch, event16, db_file
):
    """While this process writes (a phones' batch: seconds under load), a page's read joins
    the shared connection even when it is old, instead of waiting for the write to end
    (the console's redraw waited for the phones' batch)."""
    monkeypatch.setattr(db._Shared, "OPEN_SECONDS", 0.0)  # every connection is old
    writing, release, read = threading.Event(), threading.Event(), []
    with db.reading(db_file):  # the shared connection made (the server's first page)
        pass

    def phones() -> None:
        with db.background(), db.writing(db_file) as con:
            con.execute("update teams set team_name = 'later' where team_no = 'A3'")
            writing.set()
            release.wait(20)

    def page() -> None:
        with db.reading(db_file) as con:  # during the write: what was committed before it
            read.append(db.scalar(con, "select team_name from teams where team_no = 'A3'"))

    batch = threading.Thread(target=phones)
    batch.start()
    reader = threading.Thread(target=page, daemon=True)
    try:
        assert writing.wait(10)
        reader.start()
        reader.join(10)  # (the write goes on meanwhile)
        assert read and read[0] != "later", "the read waited for the write"
    finally:
        release.set()
        batch.join(30)
        reader.join(30)
    with db.reading(db_file) as con:
        assert db.scalar(con, "select team_name from teams where team_no = 'A3'") == "later"


def test_the_console_writes_on_the_connection_a_phones_batch_leaves(
    sharing, monkeypatch, event16, db_file
):
    """A shared connection old enough to be turned over is kept when the phones' batch
    leaves it while the console waits for its turn: the console writes on it at once,
    without opening the file again (0.2–0.8 s in a busy hall)."""
    monkeypatch.setattr(db._Shared, "OPEN_SECONDS", 0.0)  # every connection is old
    opened = _count_opens(monkeypatch)
    with db.reading(db_file):  # the shared connection made (the server's first page)
        pass
    db.knock(db_file)  # another process asks for the file: the connection is due
    holding = threading.Event()

    def phones() -> None:
        with db.background(), db.writing(db_file) as con:
            con.execute("update teams set team_name = 'phones' where team_no = 'A4'")
            holding.set()
            _until(lambda: db.foreground_writers(db_file) == 1, "the console waits")

    batch = threading.Thread(target=phones)
    batch.start()
    assert holding.wait(10)
    before = len(opened)  # (the batch's own opening among them)
    _rename(db_file, "A5", "console")
    batch.join(30)
    assert len(opened) == before, opened  # the console opened nothing
    with db.reading(db_file) as con:
        assert db.rows(
            con, "select team_name from teams where team_no in ('A4', 'A5') order by team_no"
        ) == [("phones",), ("console",)]


def test_a_phones_batch_gets_an_old_connection_while_pages_keep_reading(
    sharing, monkeypatch, event16, db_file
):
    """The phones' batch, the file's turn in hand, waits for the readers of an old
    connection to leave; while the console waits for its turn behind it, pages that keep
    reading never keep the connection from being turned over (the hall's console once
    waited for ever: the preview not within 60 s)."""
    monkeypatch.setattr(db._Shared, "OPEN_SECONDS", 0.0)  # every connection is old
    monkeypatch.setattr(db, "BACKGROUND_WAIT", 0.0)  # (the batch goes on at once)
    stop, done, console_waits = threading.Event(), [], threading.Event()

    def pages() -> None:  # readers overlapping one another without a pause
        while not stop.is_set():
            with db.reading(db_file) as con:
                db.scalar(con, "select count(*) from teams")
                stop.wait(0.05)

    def console() -> None:
        with db.first(db_file):  # counted: the console waits for its turn
            console_waits.set()
            stop.wait(20)

    def phones() -> None:
        with db.background():
            _rename(db_file, "A6", "batch")
        done.append("batch")

    db.knock(db_file)  # another process asks for the file: the connection is due
    readers = [threading.Thread(target=pages) for _ in range(3)]
    helper = threading.Thread(target=console)
    try:
        helper.start()
        assert console_waits.wait(10)
        for reader in readers:
            reader.start()
            threading.Event().wait(0.02)
        batch = threading.Thread(target=phones)
        batch.start()
        batch.join(15)
        assert done == ["batch"], "the batch never got the connection"
    finally:
        stop.set()
        for thread in [*readers, helper]:
            thread.join(30)


def test_the_organizer_s_reads_join_an_old_connection_the_phones_still_read(
    sharing, monkeypatch, event16, db_file
):
    """A read of the organizer's action under way (`db.first`: the console's run making a
    file's preview) joins the shared connection however old, as the console's writes do,
    while a phone's read is still under way; a page's read outside such an action waits for
    the phones' reads to end (the connection turned over)."""
    monkeypatch.setattr(db._Shared, "OPEN_SECONDS", 0.0)  # every connection is old
    db.knock(db_file)  # and another process asks for the file: it is due
    entered, done, seen = threading.Event(), threading.Event(), []

    def phone() -> None:
        with db.reading(db_file):
            entered.set()
            seen.append(done.wait(10))  # the organizer's read ends while this one goes on

    def organizer() -> None:
        with db.first(db_file), db.reading(db_file) as con:
            seen.append(db.scalar(con, "select count(*) from teams"))
        done.set()

    reader = threading.Thread(target=phone)
    reader.start()
    assert entered.wait(10)
    console = threading.Thread(target=organizer, daemon=True)
    console.start()
    console.join(20)
    reader.join(20)
    assert seen == [16, True]
    assert db.foreground_writers(db_file) == 0

    entered.clear()
    db.knock(db_file)  # (asked again: the first half's connection may have been turned over)
    order: list[str] = []
    leave = threading.Event()

    def slow_phone() -> None:
        with db.reading(db_file):
            entered.set()
            leave.wait(10)
            order.append("phone left")

    def page() -> None:
        with db.reading(db_file):
            order.append("page read")

    reader = threading.Thread(target=slow_phone)
    reader.start()
    assert entered.wait(10)
    other = threading.Thread(target=page, daemon=True)
    other.start()
    other.join(0.5)  # a page's read waits for the turnover
    leave.set()
    other.join(20)
    reader.join(20)
    assert order == ["phone left", "page read"]


def test_an_old_connection_is_kept_while_no_other_process_asks_for_the_file(
    sharing, monkeypatch, event16, db_file
):
    """Nobody else asking for the file, a page's read joins the shared connection however
    old, while a phone's read goes on (turning it over stalled every reader of a busy hall
    0.2–0.6 s every 3 s): the file is opened once."""
    monkeypatch.setattr(db._Shared, "OPEN_SECONDS", 0.0)  # every connection is old
    opened = _count_opens(monkeypatch)
    db.knock_path(db_file).unlink(missing_ok=True)
    entered, leave, order = threading.Event(), threading.Event(), []

    def phone() -> None:
        with db.reading(db_file):
            entered.set()
            leave.wait(10)
            order.append("phone left")

    reader = threading.Thread(target=phone)
    reader.start()
    assert entered.wait(10)
    with db.reading(db_file) as con:  # joins at once: the phone is still reading
        order.append(db.scalar(con, "select count(*) from teams"))
    leave.set()
    reader.join(20)
    _rename(db_file, "A7", "kept")
    assert order == [16, "phone left"]
    assert len(opened) == 1, opened


def test_a_command_that_finds_the_file_held_gets_it_from_a_busy_server(
    sharing, monkeypatch, event16, db_file, tmp_path
):
    """A command run while a server's threads keep reading (a hall): it finds the file held,
    knocks (`<file>.wait`), the server turns its connection over at its next read and the
    command gets the file within the gap; the server then reads what it wrote."""
    import os
    import subprocess
    import sys

    monkeypatch.setattr(db._Shared, "OPEN_SECONDS", 0.2)
    stop = threading.Event()

    def pages() -> None:  # readers overlapping one another without a pause
        while not stop.is_set():
            with db.reading(db_file) as con:
                db.scalar(con, "select count(*) from teams")
                stop.wait(0.03)

    readers = [threading.Thread(target=pages) for _ in range(3)]
    for reader in readers:
        reader.start()
    try:
        exe = Path(sys.executable).parent / "paisai"
        done = subprocess.run(
            [str(exe), "pair", "--event", "e", "--seed", "1", "--db", str(db_file)],
            env={**os.environ, "PAISAI_LOCK_TIMEOUT": "20"},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        stop.set()
        for reader in readers:
            reader.join(30)
    assert done.returncode == 0, done.stderr
    assert not db.knock_path(db_file).exists()  # answered: no note left behind
    with db.reading(db_file) as con:
        assert db.scalar(con, "select count(*) from pairings where round = 1") == 8
