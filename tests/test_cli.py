"""The command-line contract of the foundation, through the real entry point."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import duckdb
import pytest
import xlsxwriter
from conftest import ENTRY_HEADER, RESULT_HEADER, entries, read_csv_output, write_csv

STANDINGS_COLUMNS = ["rank", "team_no", "team_name", "played", "wins", "draws", "losses",
                     "match_points", "level_diff_score", "levels", "net_levels"]


def test_end_to_end_in_a_subprocess(paisai, tmp_path):
    assert paisai("event", "create", "--id", "city-2025", "--name", "城市联赛",
                  "--ruleset", "suzhou-2025", "--date", "2025-02-22").code == 0
    again = paisai("event", "create", "--id", "city-2025", "--name", "x", "--ruleset",
                   "suzhou-2025")
    assert again.code == 2 and "已存在" in again.err
    assert paisai("ingest", "--event", "city-2025",
                  write_csv(tmp_path / "e.csv", entries(4))).code == 0
    sheet = write_csv(tmp_path / "r1.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "过A", "9"],
                                            [1, 2, "A3", "A4", "J", "J"]], encoding="gbk")
    assert paisai("ingest", "--event", "city-2025", sheet).code == 0
    run = paisai("standings", "--event", "city-2025", "--format", "csv")
    rows = read_csv_output(run.out)
    assert list(rows[0])[:11] == STANDINGS_COLUMNS
    assert [(r["team_no"], r["match_points"], r["level_diff_score"]) for r in rows] == [
        ("A1", "3", "19"), ("A3", "1", "13"), ("A4", "1", "13"), ("A2", "0", "7")]
    table = paisai("standings", "--event", "city-2025")
    assert table.code == 0 and "级差分" in table.out and "名次" in table.out
    listed = paisai("events", "--format", "csv")
    assert "city-2025" in listed.out and "城市联赛" in listed.out


def test_failures_have_messages_not_tracebacks(paisai):
    run = paisai("standings", "--event", "nope")
    assert run.code == 1 and "没有这个赛事" in run.err and "Traceback" not in run.err
    # `rounds` looks the event up without its ruleset (issue 53): the same message and code
    rounds = paisai("rounds", "--event", "nope")
    assert (rounds.code, rounds.err) == (run.code, run.err)
    bad_id = paisai("event", "create", "--id", "Bad_ID", "--name", "x", "--ruleset",
                    "suzhou-2025")
    assert bad_id.code == 2 and "[a-z0-9-]+" in bad_id.err
    unknown = paisai("event", "create", "--id", "x", "--name", "x", "--ruleset", "nosuch")
    assert unknown.code == 2 and "suzhou-2025" in unknown.err


def test_python_dash_m(db_file):
    done = subprocess.run([sys.executable, "-m", "pipeline", "events", "--db", str(db_file)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "赛事编号" in done.stdout


def test_db_option_env_and_default(paisai, tmp_path):
    other = tmp_path / "other.duckdb"
    assert paisai("event", "create", "--id", "a", "--name", "甲", "--ruleset", "suzhou-2025",
                  "--db", str(other)).code == 0
    assert "a" in paisai("events", "--format", "csv", "--db", str(other)).out.split()[1]
    assert paisai("events", "--format", "csv").out.strip() == \
        "event_id,name,ruleset,event_date,teams,rounds"
    default = subprocess.run([sys.executable, "-m", "pipeline", "events"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
    assert default.returncode == 0 and (tmp_path / "data" / "paisai.duckdb").exists()


def test_xlsx_with_title_row_notes_and_hidden_sheet(cli, event16, tmp_path):
    path = tmp_path / "第一轮.xlsx"
    book = xlsxwriter.Workbook(str(path))
    notes = book.add_worksheet("填写说明")
    notes.write(0, 0, "请用 J Q K A 过A 填写级数")
    sheet = book.add_worksheet("成绩")
    sheet.merge_range(0, 0, 0, 5, "第一轮成绩登记表")
    sheet.write_row(1, 0, ["桌号", "东西 级数", "南北级数", "东西队号", "南北队号", "轮次"])
    sheet.write_row(2, 0, [1, "Q", 9, "A1", "A2", 1])
    sheet.write_row(3, 0, [2, "过A", "A", "A3", "A4", 1])
    sheet.write_row(4, 0, [3, 10, 10, "A5", "A6", 1])
    hidden = book.add_worksheet("旧数据")
    hidden.write_row(0, 0, RESULT_HEADER)
    hidden.write_row(1, 0, [1, 4, "A7", "A8", "K", "2"])
    hidden.hide()
    book.close()
    run = cli("ingest", "--event", event16, path)
    assert run.code == 0, run.err
    # the instructions sheet beside a form is passed over in silence (issue 29); a hidden
    # sheet is still named
    assert "填写说明" not in run.out and "隐藏" in run.out
    rows = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", event16, "--format", "csv").out)}
    assert (rows["A1"]["match_points"], rows["A1"]["level_diff_score"]) == ("3", "16")
    assert (rows["A3"]["levels"], rows["A4"]["levels"]) == ("15", "14")
    assert rows["A5"]["draws"] == "1"
    assert rows["A7"]["played"] == "0"  # the hidden sheet was not read


def test_xlsx_error_names_sheet_and_row(cli, event16, tmp_path, db_file):
    path = tmp_path / "bad.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("第二轮")
    sheet.write(0, 0, "第二轮成绩")
    sheet.write(1, 0, "（裁判填写）")
    sheet.write_row(2, 0, RESULT_HEADER)
    sheet.write_row(3, 0, [2, 1, "A1", "A2", "K", 9])
    sheet.write_row(4, 0, [2, 2, "A3", "A4", "1", 9])
    book.close()
    run = cli("ingest", "--event", event16, path)
    assert run.code == 2
    line = next(ln for ln in run.err.splitlines() if "不是有效的级数" in ln)
    assert "第二轮" in line and " 5 " in line and "东西级数" in line


@pytest.mark.parametrize("encoding,separator", [
    ("utf-8-sig", ","), ("gbk", ","), ("gb18030", ";"), ("utf-16", "\t"), ("utf-8", "\t"),
])
def test_csv_encodings_and_separators(cli, event16, tmp_path, encoding, separator):
    text = "\n".join(separator.join(map(str, r)) for r in [
        ["第一轮 成绩"], RESULT_HEADER, [1, 1, "A1", "A2", "Ｋ", "９"], [1, 2, "A3", "A4", "过A", "q"]])
    path = tmp_path / "r.csv"
    path.write_bytes(text.encode(encoding))
    run = cli("ingest", "--event", event16, path)
    assert run.code == 0, run.err
    rows = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", event16, "--format", "csv").out)}
    assert rows["A1"]["level_diff_score"] == "17" and rows["A3"]["levels"] == "15"


def test_english_headers_in_any_order_and_kind_override(cli, event16, tmp_path):
    path = write_csv(tmp_path / "r.csv", [
        ["note", "ns_level", "ew_level", "ns_team", "ew_team", "table", "round", "extra"],
        ["", "9", "10", "A2", "A1", "1", "1", "x"]])
    wrong = cli("ingest", "--event", event16, "--kind", "penalties", path)
    assert wrong.code == 2 and "罚分表" in wrong.err
    assert cli("ingest", "--event", event16, "--kind", "results", path).code == 0
    again = cli("ingest", "--event", event16, path)
    assert again.code == 0 and "已经收到过" in again.out


def test_round_in_two_parts_and_rounds_command(cli, event16, tmp_path):
    first = [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"] for t in range(1, 5)]
    rest = [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "8", "10"] for t in range(5, 9)]
    assert cli("ingest", "--event", event16, write_csv(tmp_path / "a.csv",
                                                        [RESULT_HEADER, *first])).code == 0
    half = read_csv_output(cli("rounds", "--event", event16, "--format", "csv").out)
    assert half == [{"round": "1", "reported": "4", "expected": "8", "missing": ""}]
    assert cli("ingest", "--event", event16, write_csv(tmp_path / "b.csv",
                                                        [RESULT_HEADER, *rest])).code == 0
    full = read_csv_output(cli("rounds", "--event", event16, "--format", "csv").out)
    assert full == [{"round": "1", "reported": "8", "expected": "8", "missing": ""}]
    rows = read_csv_output(cli("standings", "--event", event16, "--format", "csv").out)
    assert sum(int(r["played"]) for r in rows) == 16


def test_corrected_table_is_replaced_and_audited(cli, event16, tmp_path, db_file):
    sheet = [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"]]
    assert cli("ingest", "--event", event16, write_csv(tmp_path / "a.csv", sheet)).code == 0
    same_file = cli("ingest", "--event", event16, write_csv(tmp_path / "a2.csv", sheet))
    assert "已经收到过" in same_file.out  # the very same file: a no-op that says so
    same_values = [[*RESULT_HEADER, "备注"], [1, 1, "A1", "A2", "10", "8", "复核"]]
    same = cli("ingest", "--event", event16, write_csv(tmp_path / "a3.csv", same_values))
    assert "未变 unchanged 1" in same.out
    fixed = [RESULT_HEADER, [1, 1, "A1", "A2", "8", "10"]]
    run = cli("ingest", "--event", event16, write_csv(tmp_path / "fix.csv", fixed))
    assert "更正 replaced 1" in run.out
    rows = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", event16, "--format", "csv").out)}
    assert rows["A2"]["wins"] == "1" and rows["A1"]["losses"] == "1"
    con = duckdb.connect(str(db_file), read_only=True)
    audit = con.execute("select source_file, old_ew_level, old_ns_level, new_ew_level, "
                        "new_ns_level from result_audit").fetchall()
    con.close()
    assert audit == [("fix.csv", 10, 8, 8, 10)]


def test_writer_waits_for_a_reader(paisai, cli, event16, tmp_path, db_file):
    """The dashboard's short read-only connections never make an ingest fail."""
    reader = duckdb.connect(str(db_file), read_only=True)
    release = threading.Timer(1.5, reader.close)
    release.start()
    started = time.monotonic()
    sheet = write_csv(tmp_path / "r.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"]])
    run = paisai("ingest", "--event", event16, sheet)
    assert run.code == 0, run.err
    assert time.monotonic() - started >= 1.0
    release.join()


def test_writer_gives_up_with_a_clear_message(paisai, event16, tmp_path, db_file):
    holder = duckdb.connect(str(db_file))  # another process holding the file read-write
    try:
        sheet = write_csv(tmp_path / "r.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"]])
        run = paisai("ingest", "--event", "e", sheet, env={"PAISAI_LOCK_TIMEOUT": "1"})
    finally:
        holder.close()
    assert run.code in (1, 2) and "另一个程序" in run.err and "Traceback" not in run.err


def test_entries_sent_again_change_nothing(cli, event16, tmp_path):
    again = cli("ingest", "--event", event16, write_csv(tmp_path / "e2.csv", entries(16),
                                                         encoding="utf-8-sig"))
    assert "未变 unchanged 16" in again.out
    renamed = [ENTRY_HEADER, ["A1", "新队名", "张1", "李1", "单位1"]]
    run = cli("ingest", "--event", event16, write_csv(tmp_path / "e3.csv", renamed))
    assert "更正 replaced 1" in run.out
    rows = read_csv_output(cli("standings", "--event", event16, "--format", "csv").out)
    assert {r["team_no"]: r["team_name"] for r in rows}["A1"] == "新队名"


def test_threads_of_one_process_take_turns(event16, db_file):
    """The dashboard serves sessions on threads: a read and a write to one file never clash."""
    from pipeline.base import db
    opened = threading.Event()
    errors = []

    def reader():
        with db.reading(db_file) as con:
            opened.set()
            time.sleep(0.5)
            con.execute("select count(*) from teams").fetchall()

    thread = threading.Thread(target=reader)
    thread.start()
    opened.wait(5)
    try:
        with db.writing(db_file) as con:
            con.execute("update teams set team_name = '改名' where team_no = 'A1'")
    except Exception as exc:  # noqa: BLE001 - the failure is what the test looks for
        errors.append(exc)
    thread.join()
    assert errors == []


def test_rounds_lists_the_tables_not_reported(cli, event16, tmp_path):
    """The question asked most in a hall: which tables have not reported?"""
    assert cli("pair", "--event", event16).code == 0  # A1–A2 at table 1 … A15–A16 at 8
    reported = [[1, t, "", "", "10", "8"] for t in (1, 2, 3, 4, 6, 7)]
    assert cli("ingest", "--event", event16, write_csv(tmp_path / "r.csv",
                                                        [RESULT_HEADER, *reported])).code == 0
    rows = read_csv_output(cli("rounds", "--event", event16, "--format", "csv").out)
    assert rows == [{"round": "1", "reported": "6", "expected": "8", "missing": "5,8"}]
    assert "未报桌号" in cli("rounds", "--event", event16).out
    assert '"missing": "5,8"' in cli("rounds", "--event", event16, "--format", "json").out
