"""Undo the console's last stored action (issue 22): the results as they were just before
it, audited like a correction; refused once a later round is paired."""

from __future__ import annotations

import duckdb
import pytest

from pipeline.base.errors import UsageError
from pipeline.intake import undo
from pipeline.intake.ingest import ingest_rows


def _enter(db_file, table: int, ew: str, ns: str, label: str) -> None:
    with undo.undoable(db_file, "e", label):
        ingest_rows(db_file, "e", "results", [{"round": 1, "table": table, "ew_level": ew,
                                               "ns_level": ns}], "控制台 console", "test")


def _results(db_file):
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        return con.execute("select table_no, ew_level, ns_level from results order by "
                           "table_no").fetchall()
    finally:
        con.close()


def test_undo_takes_back_the_last_entry_only(cli, event16, db_file):
    assert cli("pair", "--event", "e").code == 0
    _enter(db_file, 1, "10", "8", "table 1")
    _enter(db_file, 2, "9", "9", "table 2")
    _enter(db_file, 1, "J", "8", "table 1 corrected")
    assert _results(db_file) == [(1, 11, 8), (2, 9, 9)]
    assert undo.last(db_file, "e")[1] == "table 1 corrected"
    assert undo.undo_last(db_file, "e") == "table 1 corrected"
    assert _results(db_file) == [(1, 10, 8), (2, 9, 9)]  # the correction taken back
    assert undo.undo_last(db_file, "e") == "table 2"
    assert _results(db_file) == [(1, 10, 8)]  # table 2 as it was: not reported
    con = duckdb.connect(str(db_file), read_only=True)
    reasons = con.execute("select reason, old_ew_level, new_ew_level from result_audit "
                          "where reason = 'undo' order by changed_at").fetchall()
    con.close()
    assert reasons == [("undo", 11, 10), ("undo", 9, None)]
    assert cli("check").code == 0


def test_undo_is_refused_once_a_later_round_is_paired(cli, event16, db_file, tmp_path):
    assert cli("pair", "--event", "e").code == 0
    for table in range(1, 9):
        _enter(db_file, table, "10", "8", f"table {table}")
    assert cli("pair", "--event", "e").code == 0  # round 2
    with pytest.raises(UsageError, match="第 2 轮已编排"):
        undo.undo_last(db_file, "e")
    assert len(_results(db_file)) == 8
