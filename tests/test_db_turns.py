"""Who writes first in the hall's one process (issue 53): the organizer's console never
queues behind the phones' reports, and a console write never waits for the phones' reads to
end (the shared connection's rotation), on a real DuckDB file."""

from __future__ import annotations

import threading

import pytest

from pipeline.base import db


@pytest.fixture
def sharing(monkeypatch):
    """This process's readers share a connection (as `paisai dashboard`'s do), for one test."""
    monkeypatch.setattr(db, "_SHARING", True)
    monkeypatch.setattr(db, "_SHARED", {})


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
