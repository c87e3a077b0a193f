"""A stale archive's finishes ranked ahead (issue 52): on a second connection to the same
database, in a thread, while the command's own transaction does its other work (an import's
sheets and identities, the rating fit). DuckDB ranks without holding Python's lock, so the
two go side by side on two cores instead of one after the other.

The second connection reads the database as last committed. What the transaction changes
meanwhile (the imported event) is not in it: `stats.refresh_event_ranks` takes an event's
ranks from here only when its fingerprint there is the one it has in the transaction, and
ranks the others itself."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import events
from pipeline.history.ahead import Ahead
from pipeline.ranking.finishes import FINAL_RANK_SCHEMA, final_rank_frame


class RanksAhead(Ahead):
    """The stale finishes of the committed database, ranked in a thread from its creation:
    `fingerprints` (event → what its ranks were computed from) and `ranks` (event_id,
    team_no, rank), read once `wait` returns. Use it as a context manager: leaving it
    (an error too) stops the ranking and closes its connection."""

    name = "ranks-ahead"

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.fingerprints: dict[str, str] = {}
        self.ranks = pl.DataFrame(schema=FINAL_RANK_SCHEMA)
        super().__init__(con)

    def _work(self) -> None:
        from pipeline.history import stats

        try:
            now = stats.rank_fingerprints(self._cursor)
            stale = stats.stale_of(self._cursor, now)
            if not stale:
                return
            latest = stats.latest_rounds(self._cursor, stale)
            swiss = [
                (e, latest.get(e.event_id, 0))
                for e in events.load_many(self._cursor, stale)
                if e.ruleset.is_swiss
            ]
            ranks = final_rank_frame(self._cursor, swiss)
            self.ranks, self.fingerprints = ranks, {e: now[e] for e in stale}
        except Exception:  # nothing ranked ahead: the transaction ranks them all itself
            self.fingerprints = {}

    def stop(self, failed: bool) -> None:
        if failed and self._thread.is_alive():
            try:
                self._cursor.interrupt()
            except duckdb.Error:
                pass
