"""Undoing the organizer console's last stored action (a table entry, an accepted report, an
upload): exactly the tables that action stored are put back as they were just before it,
each change audited like a correction — and nothing stored after it is touched.

An action remembers (in `console_actions.before`, as JSON) the tables it changed: each one's
row before it and the row it stored, each with the time it was stored (an undo puts the
old row back as it was, time and all, so the action before it can be undone in turn). The undo is refused, with
the reason, when any of those tables has since been changed, deleted or stored again by any
path (the CLI, a phone, a sheet, an official, another console action), or when a round later
than the changed ones is paired or has results — what came after was built on the action.
An action that changed no table (an upload of registrations) is not remembered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.base import db, oplog
from pipeline.base.chinese import one_language
from pipeline.base.errors import UsageError

COLUMNS = ["round", "table_no", "ew_team", "ns_team", "ew_level", "ns_level", "deals",
           "forfeit", "first_to_level", "last_deal_side", "note", "source_file"]
KEY = ["round", "table_no"]


def _results(con, event_id: str) -> dict[tuple[int, int], list]:
    """The event's tables: (round, table) → the row's COLUMNS and its storing time."""
    found = db.rows(con, f"select {', '.join(COLUMNS)}, updated_at::varchar from results "
                         "where event_id = ?", [event_id])
    return {(row[0], row[1]): list(row) for row in found}


@contextmanager
def undoable(database: Path, event_id: str, label: str) -> Iterator[None]:
    """Run a console action; once it is stored, remember the tables it changed. The phones'
    writes wait from its start to its end (`db.first`: the console never queues behind
    them, not even between the action and what undo keeps of it)."""
    with db.first(database):
        with db.reading(database) as con:
            before = _results(con, event_id)
        yield
        with db.writing(database) as con:
            after = _results(con, event_id)
            keys = sorted(key for key in before.keys() | after.keys()
                          if (before.get(key) or [None])[:-1] != (after.get(key) or [None])[:-1])
            if not keys:
                return
            stored = {"keys": [list(key) for key in keys],
                      "before": [before[key] for key in keys if key in before],
                      "after": [after[key] for key in keys if key in after]}
            con.execute("insert into console_actions (event_id, label, before) values (?, ?, ?)",
                        [event_id, label, json.dumps(stored, ensure_ascii=False)])


def last(database: Path, event_id: str) -> tuple[int, str, str | None] | None:
    """The action an undo would take back: (id, label, why it is refused — None when it is
    not); None when there is none."""
    with db.reading(database) as con:
        found = _last_action(con, event_id)
        if found is None:
            return None
        try:
            _check(con, event_id, found)
        except UsageError as refused:
            return found[0], found[1], str(refused)
    return found[0], found[1], None


def _last_action(con, event_id: str) -> tuple[int, str, dict | None] | None:
    """The last action not undone: its id, label and what it stored (None: remembered by an
    older paisai, as the whole results before it — what it stored cannot be told)."""
    found = db.rows(con, "select action_id, label, before from console_actions where "
                         "event_id = ? and not undone order by action_id desc limit 1",
                    [event_id])
    if not found:
        return None
    action_id, label, stored = found[0]
    stored = json.loads(stored)
    return action_id, label, stored if isinstance(stored, dict) else None


def _refused(label: str, zh: str, en: str) -> UsageError:
    return UsageError(f"不能撤销“{one_language(label, 'zh')}”：{zh} "
                      f"cannot undo “{one_language(label, 'en')}”: {en}")


def _check(con, event_id: str, action: tuple[int, str, dict | None]) -> None:
    """UsageError naming why the action can no longer be undone, if it cannot."""
    _, label, stored = action
    if stored is None:
        raise _refused(label, "此操作由旧版本记录，无法核对其后的更改",
                       "it was recorded by an older version, later changes cannot be checked")
    now = _results(con, event_id)
    after = {(row[0], row[1]): row for row in stored["after"]}
    for r, t in (tuple(key) for key in stored["keys"]):
        mine, current = after.get((r, t)), now.get((r, t))
        if mine == current:
            continue
        where_zh, where_en = f"第 {r} 轮 {t} 号桌", f"round {r} table {t}"
        if current is None:
            raise _refused(label, f"{where_zh}此后已被删除", f"{where_en} was deleted since")
        if mine is not None and mine[2:10] == current[2:10]:  # the same figures
            raise _refused(label, f"{where_zh}此后已被重新录入",
                           f"{where_en} was stored again since")
        raise _refused(label, f"{where_zh}此后已被更改", f"{where_en} was changed since")
    rounds = max(key[0] for key in stored["keys"])
    paired = db.scalar(con, "select max(round) from pairings where event_id = ?",
                       [event_id]) or 0
    if paired > rounds:
        raise _refused(label, f"第 {paired} 轮已编排", f"round {paired} is paired already")
    later = max((key[0] for key in now), default=0)
    if later > rounds:
        raise _refused(label, f"第 {later} 轮已有成绩", f"round {later} has results already")


def undo_last(database: Path, event_id: str) -> str:
    """Put back the tables the last action stored as they were before it; returns its
    label. UsageError (nothing changed) when there is none or it can no longer be undone."""
    with db.writing(database) as con:
        found = _last_action(con, event_id)
        if not found:
            raise UsageError("没有可撤销的操作 nothing to undo")
        _check(con, event_id, found)
        action_id, label, stored = found
        keys = [tuple(key) for key in stored["keys"]]
        before = {(row[0], row[1]): row for row in stored["before"]}
        now = _results(con, event_id)
        for key in keys:
            old, new = now.get(key), before.get(key)
            con.execute(
                "insert into result_audit (event_id, round, table_no, source_file, reason, "
                "old_ew_team, old_ns_team, old_ew_level, old_ns_level, old_deals, old_forfeit, "
                "new_ew_team, new_ns_team, new_ew_level, new_ns_level, new_deals, new_forfeit) "
                "values (?, ?, ?, ?, 'undo', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [event_id, *key, f"撤销 undo: {label}",
                 *(old[2:8] if old else [None] * 6), *(new[2:8] if new else [None] * 6)])
            con.execute("delete from results where event_id = ? and round = ? and "
                        "table_no = ?", [event_id, *key])
            if new:
                con.execute(f"insert into results (event_id, {', '.join(COLUMNS)}, updated_at)"
                            f" values (?, {', '.join('?' * len(COLUMNS))}, ?::timestamp)",
                            [event_id, *new])  # as it was, time and all
        con.execute("update console_actions set undone = true where action_id = ?", [action_id])
    oplog.write(database, event_id, "undone", f"{label} ({len(keys)} table(s))")
    return label
