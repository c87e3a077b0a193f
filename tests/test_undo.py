"""Undo the console's last stored action (issue 22): the results as they were just before
it, audited like a correction; refused once a later round is paired."""

from __future__ import annotations

import duckdb
import pytest

from pipeline.base.errors import UsageError
from pipeline.intake import undo
from pipeline.intake.ingest import ingest_rows
from tests.conftest import RESULT_HEADER, write_csv


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


# Issue 51 (blocker): undo takes back exactly what the action stored, nothing stored after it.

def _all(db_file):
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        return con.execute("select round, table_no, ew_team, ns_team, ew_level, ns_level "
                           "from results order by round, table_no").fetchall()
    finally:
        con.close()


def _cli_rows(cli, tmp_path, name, rows):
    assert cli("ingest", "--event", "e",
               write_csv(tmp_path / name, [RESULT_HEADER, *rows])).code == 0


def _round1_by_cli(cli, tmp_path, skip=4):
    """The round's other tables, reported through the CLI (A1–A2 at table 1, …)."""
    _cli_rows(cli, tmp_path, "r1.csv", [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"]
                                        for t in range(1, 9) if t != skip])


def test_undo_after_later_cli_rounds_is_refused_and_keeps_them(cli, event16, db_file,
                                                                tmp_path):
    """The report: the console enters round 1 table 4; the CLI stores the rest, deletes
    table 4, the chief's decision is stored again, round 2 is paired and stored; the undo
    still offered wiped 22 tables. Now it is refused, naming why, and nothing changes."""
    assert cli("pair", "--event", "e").code == 0
    _enter(db_file, 4, "10", "8", "录入 第 1 轮 4 号桌 entry: round 1 table 4")
    _round1_by_cli(cli, tmp_path)
    assert cli("results", "delete", "--event", "e", "--round", "1", "--table", "4").code == 0
    _cli_rows(cli, tmp_path, "t4.csv", [[1, 4, "A7", "A8", "9", "10"]])  # re-decided
    assert cli("pair", "--event", "e").code == 0
    con = duckdb.connect(str(db_file), read_only=True)
    pairs = con.execute("select table_no, ew_team, ns_team from pairings where round = 2 "
                        "order by table_no").fetchall()
    con.close()
    _cli_rows(cli, tmp_path, "r2.csv", [[2, t, ew, ns, "A", "5"] for t, ew, ns in pairs])
    stored = _all(db_file)
    assert len(stored) == 16
    offer = undo.last(db_file, "e")
    assert offer[1] == "录入 第 1 轮 4 号桌 entry: round 1 table 4"
    assert offer[2] == ("不能撤销“录入 第 1 轮 4 号桌”：第 1 轮 4 号桌此后已被更改 "
                        "cannot undo “entry: round 1 table 4”: round 1 table 4 was changed "
                        "since")
    with pytest.raises(UsageError, match="第 1 轮 4 号桌此后已被更改"):
        undo.undo_last(db_file, "e")
    assert _all(db_file) == stored
    run = cli("rounds", "--event", "e")
    assert run.code == 0


def test_undo_with_its_own_table_untouched_removes_only_that_table(cli, event16, db_file,
                                                                  tmp_path):
    assert cli("pair", "--event", "e").code == 0
    _enter(db_file, 4, "10", "8", "table 4")
    _round1_by_cli(cli, tmp_path)
    assert undo.last(db_file, "e")[2] is None
    assert undo.undo_last(db_file, "e") == "table 4"
    assert [row[1] for row in _all(db_file)] == [1, 2, 3, 5, 6, 7, 8]  # the CLI's intact


@pytest.mark.parametrize(("later", "why"), [
    ("delete", "第 1 轮 4 号桌此后已被删除"),
    ("same", "第 1 轮 4 号桌此后已被重新录入"),
    ("round2", "第 2 轮已编排"),
])
def test_undo_is_refused_when_its_table_was_superseded(cli, event16, db_file, tmp_path,
                                                      later, why):
    assert cli("pair", "--event", "e").code == 0
    _enter(db_file, 4, "10", "8", "table 4")
    if later in ("delete", "same"):
        assert cli("results", "delete", "--event", "e", "--round", "1", "--table",
                   "4").code == 0
    if later == "same":  # stored again, the same figures: still a later change
        _cli_rows(cli, tmp_path, "t4.csv", [[1, 4, "A7", "A8", "10", "8"]])
    if later == "round2":
        _round1_by_cli(cli, tmp_path)
        assert cli("pair", "--event", "e").code == 0
    stored = _all(db_file)
    assert why in undo.last(db_file, "e")[2]
    with pytest.raises(UsageError, match=why):
        undo.undo_last(db_file, "e")
    assert _all(db_file) == stored


def test_undo_in_turn_of_one_table_twice(cli, event16, db_file):
    """Each undo puts the table back as it was, time and all: the earlier entry of the same
    table can be undone next."""
    assert cli("pair", "--event", "e").code == 0
    _enter(db_file, 1, "10", "8", "table 1")
    _enter(db_file, 1, "J", "8", "table 1 corrected")
    assert undo.undo_last(db_file, "e") == "table 1 corrected"
    assert _results(db_file) == [(1, 10, 8)]
    assert undo.last(db_file, "e")[1:] == ("table 1", None)
    assert undo.undo_last(db_file, "e") == "table 1"
    assert _results(db_file) == []
    with pytest.raises(UsageError, match="没有可撤销的操作"):
        undo.undo_last(db_file, "e")


def test_an_action_recorded_by_an_older_version_is_refused(cli, event16, db_file):
    assert cli("pair", "--event", "e").code == 0
    con = duckdb.connect(str(db_file))
    con.execute("insert into console_actions (event_id, label, before) values "
                "('e', '录入 entry', '[]')")
    con.close()
    _, label, why = undo.last(db_file, "e")
    assert "旧版本" in why and "older version" in why
    with pytest.raises(UsageError, match="旧版本"):
        undo.undo_last(db_file, "e")
