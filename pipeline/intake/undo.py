"""Undoing the organizer console's last stored action (a table entry, an accepted report, an
upload): the event's results are put back as they were just before it, each change audited
like a correction. Refused once a round later than the changed ones is paired."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from pipeline.base import db, oplog
from pipeline.base.errors import UsageError

COLUMNS = ["round", "table_no", "ew_team", "ns_team", "ew_level", "ns_level", "deals",
           "forfeit", "first_to_level", "last_deal_side", "note", "source_file"]
KEY = ["round", "table_no"]


def _results(con, event_id: str) -> pl.DataFrame:
    return db.frame(con, f"select {', '.join(COLUMNS)} from results where event_id = $e",
                    {"e": event_id})


@contextmanager
def undoable(database: Path, event_id: str, label: str) -> Iterator[None]:
    """Run a console action; once it is stored, remember the results from before it."""
    with db.reading(database) as con:
        before = _results(con, event_id).write_json()
    yield
    with db.writing(database) as con:
        con.execute("insert into console_actions (event_id, label, before) values (?, ?, ?)",
                    [event_id, label, before])


def last(database: Path, event_id: str) -> tuple[int, str] | None:
    """The action an undo would take back: (id, label); None when there is none, or when
    undoing it would change nothing (an upload of registrations: undo puts results back,
    not teams) or is refused (a later round is paired)."""
    with db.reading(database) as con:
        try:
            found = _plan(con, event_id)
        except UsageError:
            return None
    return (found[0], found[1]) if found and found[3].height else None


def _plan(con, event_id: str) -> tuple[int, str, pl.DataFrame, pl.DataFrame] | None:
    """The last action not undone: its id, label, the results before it and the tables an
    undo would change; UsageError when a later round is paired."""
    found = db.rows(con, "select action_id, label, before from console_actions where "
                         "event_id = ? and not undone order by action_id desc limit 1",
                    [event_id])
    if not found:
        return None
    action_id, label, before_json = found[0]
    now = _results(con, event_id)
    before = pl.read_json(before_json.encode(), schema=now.schema) \
        if before_json.strip() != "[]" else now.head(0)
    changed = now.join(before, on=COLUMNS, how="anti", nulls_equal=True).select(KEY).vstack(
        before.join(now, on=COLUMNS, how="anti", nulls_equal=True).select(KEY)).unique()
    if changed.height:
        latest = db.scalar(con, "select max(round) from pairings where event_id = ?",
                           [event_id]) or 0
        if latest > changed["round"].max():
            raise UsageError(f"第 {latest} 轮已编排，不能再撤销 round {latest} is paired "
                             f"already: “{label}” can no longer be undone")
    return action_id, label, before, changed


def undo_last(database: Path, event_id: str) -> str:
    """Put the results back as they were before the last action; returns its label."""
    with db.writing(database) as con:
        found = _plan(con, event_id)
        if not found:
            raise UsageError("没有可撤销的操作 nothing to undo")
        action_id, label, before, changed = found
        db.register(con, "undo_keys", changed)
        db.register(con, "undo_rows", before.join(changed, on=KEY, how="semi"))
        try:
            con.execute(
                "insert into result_audit (event_id, round, table_no, source_file, reason, "
                "old_ew_team, old_ns_team, old_ew_level, old_ns_level, old_deals, old_forfeit, "
                "new_ew_team, new_ns_team, new_ew_level, new_ns_level, new_deals, new_forfeit) "
                "select ?, k.round, k.table_no, ?, 'undo', r.ew_team, r.ns_team, r.ew_level, "
                "r.ns_level, r.deals, r.forfeit, b.ew_team, b.ns_team, b.ew_level, b.ns_level, "
                "b.deals, b.forfeit from undo_keys k "
                "left join results r on r.event_id = ? and r.round = k.round "
                "and r.table_no = k.table_no "
                "left join undo_rows b on b.round = k.round and b.table_no = k.table_no",
                [event_id, f"撤销 undo: {label}", event_id])
            con.execute("delete from results where event_id = ? and (round, table_no) in "
                        "(select (round, table_no) from undo_keys)", [event_id])
            con.execute(f"insert into results (event_id, {', '.join(COLUMNS)}, updated_at) "
                        f"select ?, {', '.join(COLUMNS)}, current_timestamp from undo_rows",
                        [event_id])
        finally:
            con.unregister("undo_keys")
            con.unregister("undo_rows")
        con.execute("update console_actions set undone = true where action_id = ?", [action_id])
    oplog.write(database, event_id, "undone", f"{label} ({changed.height} table(s))")
    return label
