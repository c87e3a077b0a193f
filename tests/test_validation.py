"""Every validation error of the foundation: exit code 2, where it is, and nothing stored."""

from __future__ import annotations

import duckdb
import pytest
from conftest import RESULT_HEADER, entries, write_csv


def _state(db_file):
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        return (con.execute("select * from results order by all").fetchall(),
                con.execute("select * from teams order by all").fetchall(),
                con.execute("select * from penalties order by all").fetchall())
    finally:
        con.close()


@pytest.fixture
def with_round_one(cli, event16, tmp_path):
    rows = [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"] for t in range(1, 9)]
    assert cli("ingest", "--event", event16, write_csv(tmp_path / "r1.csv",
                                                        [RESULT_HEADER, *rows])).code == 0
    return event16


CASES = {
    # name: (rows under the results header, spreadsheet row, column, words in the message)
    "unknown level spelling": ([[2, 1, "A1", "A3", "B", "9"]], 2, "东西级数", "不是有效的级数"),
    "level 16": ([[2, 1, "A1", "A3", "16", "9"]], 2, "东西级数", "不是有效的级数"),
    "missing level": ([[2, 1, "A1", "A3", "9", ""]], 2, "南北级数", "必填"),
    "missing round": ([["", 1, "A1", "A3", "9", "8"]], 2, "轮次", "必填"),
    "team not registered": ([[2, 1, "A1", "Z9", "9", "8"]], 2, "南北队号", "未报名"),
    "team twice in the file": ([[2, 1, "A1", "A3", "9", "8"], [2, 2, "A5", "A1", "9", "8"]],
                               3, "南北队号", "出现两次"),
    "both sides the same team": ([[2, 1, "A1", "A1", "9", "8"]], 2, "南北队号", "同一队"),
    "table twice with other teams": ([[2, 1, "A1", "A3", "9", "8"],
                                      [2, 1, "A5", "A7", "9", "8"]], 3, "桌号", "两次"),
    "round not a positive integer": ([["0", 1, "A1", "A3", "9", "8"]], 2, "轮次", "正整数"),
    "round is text": ([["二", 1, "A1", "A3", "9", "8"]], 2, "轮次", "正整数"),
    "both at passed A": ([[2, 1, "A1", "A3", "过A", "过A"]], 2, "南北级数", "过A"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_result_sheet_errors(name, cli, with_round_one, tmp_path, db_file):
    rows, row, column, words = CASES[name]
    before = _state(db_file)
    path = write_csv(tmp_path / "bad.csv", [RESULT_HEADER, *rows])
    run = cli("ingest", "--event", with_round_one, path)
    assert run.code == 2
    lines = [ln for ln in run.err.splitlines()
             if words in ln and "bad.csv" in ln and column in ln and f" {row} " in ln]
    assert lines, run.err
    assert _state(db_file) == before


def test_levels_impossible_for_deals(cli, with_round_one, tmp_path, db_file):
    before = _state(db_file)
    header = [*RESULT_HEADER, "副数"]
    # 2 deals gain at most 6 levels between both sides: K (13) and 2 is 11 levels
    path = write_csv(tmp_path / "deals.csv", [header, [2, 1, "A1", "A3", "K", "2", 2],
                                              [2, 2, "A5", "A7", "5", "5", 2]])
    run = cli("ingest", "--event", with_round_one, path)
    assert run.code == 2 and "副数" in run.err and "最多共升 6 级" in run.err
    assert "5 / 5" not in run.err  # (5-2)+(5-2) = 6 is possible in two deals
    assert _state(db_file) == before


def test_team_twice_across_sheets_sent_apart(cli, with_round_one, tmp_path, db_file):
    first = write_csv(tmp_path / "a.csv", [RESULT_HEADER, [2, 1, "A1", "A3", "9", "8"]])
    assert cli("ingest", "--event", with_round_one, first).code == 0
    before = _state(db_file)
    second = write_csv(tmp_path / "b.csv", [RESULT_HEADER, [2, 2, "A1", "A5", "9", "8"]])
    run = cli("ingest", "--event", with_round_one, second)
    assert run.code == 2 and "1 号桌" in run.err
    assert _state(db_file) == before


def test_all_errors_of_a_file_come_together(cli, with_round_one, tmp_path):
    path = write_csv(tmp_path / "many.csv", [RESULT_HEADER, [2, 1, "A1", "A3", "B", "9"],
                                             [2, 2, "A5", "Z1", "9", "8"],
                                             ["x", 3, "A7", "A9", "9", "9"]])
    run = cli("ingest", "--event", with_round_one, path)
    assert run.code == 2
    assert "不是有效的级数" in run.err and "未报名" in run.err and "正整数" in run.err


def test_duplicate_team_no_in_registration(cli, tmp_path, db_file):
    cli("event", "create", "--id", "d", "--name", "重复", "--ruleset", "suzhou-2025")
    rows = entries(3) + [["A2", "又一个", "王", "赵", "单位"]]
    run = cli("ingest", "--event", "d", write_csv(tmp_path / "e.csv", rows))
    assert run.code == 2 and "队号重复" in run.err and " 5 " in run.err and "第 3 行" in run.err
    assert _state(db_file)[1] == []


def test_registration_row_with_nobody(cli, tmp_path, db_file):
    cli("event", "create", "--id", "d", "--name", "缺号", "--ruleset", "suzhou-2025")
    rows = entries(2) + [["", "", "", "", "单位"]]  # no number, no name, no player
    run = cli("ingest", "--event", "d", write_csv(tmp_path / "e.csv", rows))
    assert run.code == 2 and "须有队员或队名" in run.err and " 4 " in run.err
    assert _state(db_file)[1] == []


def test_file_without_a_recognised_sheet(cli, event16, tmp_path, db_file):
    path = write_csv(tmp_path / "notes.csv", [["说明"], ["请按时到场"]])
    run = cli("ingest", "--event", event16, path)
    assert run.code == 2 and "表头" in run.err and "notes.csv" in run.err


def test_unknown_penalty_target(cli, event16, tmp_path, db_file):
    path = write_csv(tmp_path / "p.csv", [["轮次", "队号", "扣分项目", "扣分", "原因"],
                                          [1, "A1", "奖金", 1, "迟到"]])
    run = cli("ingest", "--event", event16, path)
    assert run.code == 2 and "扣分项目" in run.err
