"""Work done ahead (issue 52): on a second connection to the same database — its own
transaction, so the file as last committed — in a thread started with the object, while
the command's transaction does its other work. DuckDB, polars and numpy work without
Python's lock, so the two go side by side on two cores. `RanksAhead` and `FitsAhead` are
the two kinds."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Self

import duckdb


class Ahead:
    """Subclasses set their fields, then call `Ahead.__init__`; `_work` runs in the thread
    on `self._cursor` (closed when it ends). Use it as a context manager: leaving it (an
    error too) calls `stop` and waits for the thread."""

    name = "ahead"

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self._cursor = con.cursor()  # its own transaction: the committed database
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._work()
        finally:
            self._cursor.close()

    def _work(self) -> None:
        raise NotImplementedError

    def stop(self, failed: bool) -> None:
        """Ask the work to end early: the block is left (`failed`: by an error)."""

    def wait(self) -> Self:
        self._thread.join()
        return self

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop(kind is not None)
        self._thread.join()
