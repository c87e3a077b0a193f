"""What a tester broke (issue 15), each reproduced first: files that killed the process, a
restore that destroyed the database, a correction that could not be undone, and the rest."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import duckdb
import polars as pl
import pytest
import xlsxwriter
from conftest import RESULT_HEADER, entries, read_csv_output, write_csv

from pipeline.base import output
from pipeline.base.errors import REPORT_LIMIT


def _far_cell_workbook(path: Path) -> Path:
    """A 6 KB workbook: a results header, one row, and one cell at XFD1048576."""
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("成绩")
    sheet.write_row(0, 0, RESULT_HEADER)
    sheet.write_row(1, 0, [1, 1, "A1", "A2", "9", "8"])
    sheet.write(1_048_575, 16_383, "x")
    book.close()
    return path


def _ods_bomb(path: Path) -> Path:
    """An OpenDocument sheet that says 'this cell, repeated 17 billion times' in 1 KB."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        '<office:body><office:spreadsheet><table:table table:name="S"><table:table-row '
        'table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated='
        '"16000" office:value-type="string"><text:p>x</text:p></table:table-cell>'
        "</table:table-row></table:table></office:spreadsheet></office:body>"
        "</office:document-content>")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        archive.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
    return path


# 1. a tiny workbook that asked for hundreds of GB --------------------------------------

def test_a_far_away_cell_is_a_refused_file_not_a_dead_process(tmp_path, paisai):
    assert paisai("event", "create", "--id", "e", "--name", "赛", "--ruleset",
                "suzhou-2025").code == 0
    assert paisai("ingest", "--event", "e",
                write_csv(tmp_path / "e.csv", entries(4))).code == 0
    bomb = _far_cell_workbook(tmp_path / "far.xlsx")
    assert bomb.stat().st_size < 10_000
    done = paisai("ingest", "--event", "e", bomb)
    assert done.code == 2, (done.code, done.err[-500:])
    assert "1048576 行 × 16384 列" in done.err and "成绩" in done.err
    assert "Traceback" not in done.err and "panicked" not in done.err
    listed = read_csv_output(paisai("uploads", "--event", "e", "--format", "csv").out)
    assert [(r["file_name"], r["status"]) for r in listed][-1] == ("far.xlsx", "rejected")
    ods = paisai("ingest", "--event", "e", _ods_bomb(tmp_path / "bomb.ods"))
    assert ods.code == 2 and "Traceback" not in ods.err, ods.err[-500:]


def test_watch_survives_the_file_and_ingests_the_next(tmp_path, paisai):
    assert paisai("event", "create", "--id", "e", "--name", "赛", "--ruleset",
                "suzhou-2025").code == 0
    assert paisai("ingest", "--event", "e",
                write_csv(tmp_path / "e.csv", entries(4))).code == 0
    folder = tmp_path / "in"
    folder.mkdir()
    _far_cell_workbook(folder / "a-far.xlsx")
    write_csv(folder / "b-round1.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "9", "8"],
                                        [1, 2, "A3", "A4", "10", "8"]])
    done = paisai("watch", "--event", "e", folder, "--once", "--interval", "0.2")
    assert done.code == 0, done.err[-500:]
    assert "rejected a-far.xlsx" in done.out and "stored b-round1.csv" in done.out
    rows = read_csv_output(paisai("standings", "--event", "e", "--format",
                                "csv").out)
    assert {r["team_no"]: r["wins"] for r in rows} == {"A1": "1", "A3": "1", "A2": "0",
                                                       "A4": "0"}


# 2. restore ------------------------------------------------------------------------------

def test_restore_refuses_a_damaged_backup_and_keeps_the_replaced_file(
        cli, event_with_results, tmp_path, db_file):
    backup = tmp_path / "backup.duckdb"
    assert cli("backup", "--out", backup).code == 0
    before = cli("standings", "--event", "e", "--format", "csv").out
    damaged = tmp_path / "damaged.duckdb"
    data = bytearray(backup.read_bytes())
    data[20_000:20_008] = b"\xff" * 8  # 8 bytes in the first data block
    damaged.write_bytes(bytes(data))
    run = cli("restore", damaged)
    assert run.code == 2 and "未改动" in run.err and "damaged" in run.err
    assert cli("standings", "--event", "e", "--format", "csv").out == before
    assert cli("check").code == 0
    stranger = tmp_path / "v999.duckdb"
    con = duckdb.connect(str(stranger))
    con.execute("create table schema_version (version integer)")
    con.execute("insert into schema_version values (999)")
    con.close()
    run = cli("restore", stranger)
    assert run.code == 2 and "999" in run.err
    assert cli("standings", "--event", "e", "--format", "csv").out == before
    # a whole backup is restored, and the file it replaced is kept beside it
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "r2.csv", [
        RESULT_HEADER, [2, 1, "A1", "A3", "9", "8"]])).code == 0
    run = cli("restore", backup)
    assert run.code == 0
    kept = list(db_file.parent.glob(f"{db_file.name}.before-restore-*"))
    assert len(kept) == 1 and str(kept[0]) in run.out
    assert cli("standings", "--event", "e", "--format", "csv").out == before
    con = duckdb.connect(str(kept[0]), read_only=True)
    assert con.execute("select count(*) from results where round = 2").fetchone()[0] == 1
    con.close()


# 3. the original sheet sent again after a correction ------------------------------------

def test_the_original_sheet_sent_again_puts_the_original_back(cli, event16, tmp_path, db_file):
    original = write_csv(tmp_path / "r1.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"]])
    corrected = write_csv(tmp_path / "r1-fix.csv", [RESULT_HEADER,
                                                    [1, 1, "A1", "A2", "7", "8"]])
    assert cli("ingest", "--event", "e", original).code == 0
    assert "更正 replaced 1" in cli("ingest", "--event", "e", corrected).out
    again = cli("ingest", "--event", "e", original)
    assert again.code == 0 and "更正 replaced 1" in again.out
    con = duckdb.connect(str(db_file), read_only=True)
    assert con.execute("select ew_level from results").fetchone()[0] == 10
    assert con.execute("select old_ew_level, new_ew_level from result_audit order by "
                       "changed_at").fetchall() == [(10, 7), (7, 10)]
    con.close()
    same = cli("ingest", "--event", "e", original)  # now truly nothing to change
    assert "同一文件已经收到过" in same.out


# 4. a sheet full of errors ----------------------------------------------------------------

def test_a_sheet_of_errors_gets_a_capped_report(cli, event16, tmp_path):
    rows = [[1, t, "A1", "A2", "Z", "16"] for t in range(1, 3_001)]  # A1 on every table
    run = cli("ingest", "--event", "e", write_csv(tmp_path / "bad.csv", [RESULT_HEADER, *rows]))
    assert run.code == 2
    # each row: two bad levels and A1, A2 at 3,000 tables each
    assert "有 12000 处错误" in run.err
    listed = [ln for ln in run.err.splitlines() if ln.startswith("bad.csv  ")]
    assert len(listed) == REPORT_LIMIT
    assert "另有 11800 处错误未列出" in run.err and "东西级数 2" in run.err
    assert len(run.err) < 60_000


# 5. the console's upload limit ---------------------------------------------------------

def test_upload_limit_before_any_reading(monkeypatch, db_file, tmp_path):
    from pipeline.base.errors import SheetErrors
    from pipeline.intake import ingest
    from pipeline.operations.serve import dashboard_env

    monkeypatch.setenv("PAISAI_MAX_UPLOAD_MB", "3")
    assert dashboard_env()["STREAMLIT_SERVER_MAX_UPLOAD_SIZE"] == "3"

    def never(*args, **kwargs):
        raise AssertionError("an oversized file was read")

    monkeypatch.setattr(ingest, "read_file", never)
    with pytest.raises(SheetErrors) as refused:
        ingest.preview_file(db_file, "e", "big.csv", b"x" * (3 * 1024 * 1024 + 1))
    assert "MB" in refused.value.problems[0].message


# 6. the console's password ---------------------------------------------------------------

def test_guesses_are_slowed_per_address_and_the_organizer_locks_after_five(monkeypatch,
                                                                          tmp_path):
    """Issue 49 replaced "never lock the organizer out": every name, the first organizer's
    too, locks after five failures; before that an address guessing many names is slowed."""
    from dashboard.auth import ADDRESS_FAILURES, Failures, _sign_in
    from pipeline.officials import people

    monkeypatch.setenv("PAISAI_DB", str(tmp_path / "t.duckdb"))
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "right")
    failures, waited = Failures(), []
    for attempt in range(ADDRESS_FAILURES):  # an attacker: a new name and session each time
        assert _sign_in(f"名{attempt}", "wrong", f"a-{attempt}", "10.0.0.9", failures,
                        waited.append) is None
    assert waited == []
    assert _sign_in("", "right", "organizer", "10.0.0.9", failures, waited.append) \
        == people.FIRST_ORGANIZER
    assert waited  # slowed at that address, the right password still taken
    for n in range(people.FAILURES_TO_LOCK):
        _sign_in("", "wrong", f"b-{n}", f"10.1.{n}.1", failures, waited.append)
    with pytest.raises(people.LockedOut):
        _sign_in("", "right", "organizer-2", "10.2.0.1", failures, waited.append)


# 9. results for a round too far ahead, and removing results -----------------------------

def test_a_round_beyond_the_next_needs_force_and_results_can_be_removed(
        cli, event_with_results, tmp_path, db_file):
    far = write_csv(tmp_path / "r3.csv", [RESULT_HEADER, [3, 1, "A1", "A3", "9", "8"]])
    run = cli("ingest", "--event", "e", far)
    assert run.code == 2 and "既未编排也不是下一轮" in run.err and " 2 " in run.err
    assert cli("ingest", "--event", "e", "--force", far).code == 0
    assert cli("results", "delete", "--event", "e", "--round", "3").code == 0
    again = cli("results", "delete", "--event", "e", "--round", "3")
    assert again.code == 2 and "没有已保存的成绩" in again.err
    assert cli("results", "delete", "--event", "e", "--round", "1", "--table", "2").code == 0
    con = duckdb.connect(str(db_file), read_only=True)
    assert con.execute("select count(*) from results where round = 1").fetchone()[0] == 7
    assert con.execute("select round, table_no, old_ew_team, new_ew_team, reason from "
                       "result_audit where new_ew_level is null order by round").fetchall() == [
        (1, 2, "A3", None, "删除 delete"), (3, 1, "A1", None, "删除 delete")]
    con.close()
    assert cli("check").code == 0
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "t2.csv", [
        RESULT_HEADER, [1, 2, "A3", "A4", "10", "8"]])).code == 0
    assert cli("pair", "--event", "e").code == 0  # round 2 paired
    run = cli("results", "delete", "--event", "e", "--round", "1", "--table", "1")
    assert run.code == 2 and "已编排" in run.err


# 10. the static site --------------------------------------------------------------------

def test_publish_names_files_safely_and_never_leaves_half_a_site(
        cli, tmp_path, db_file, monkeypatch):
    from pipeline.publishing import publish as site
    assert cli("event", "create", "--id", "e", "--name", "赛", "--ruleset",
               "suzhou-2025").code == 0
    long_number = "长" * 30
    rows = [["队号", "队名"], ["甲1", "一队"], ["A%2", "二队"], [long_number, "三队"], ["A4", "四"]]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "e.csv", rows)).code == 0
    out = tmp_path / "site"
    assert cli("publish", "--event", "e", "--out", out).code == 0
    teams = (out / "teams.html").read_text(encoding="utf-8")
    for number in ("甲1", "A%2", long_number):
        page = site.team_file(number)
        assert f'href="{page}"' in teams and (out / page).is_file()
        assert len(Path(page).name) <= 50 and "%" not in page
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(site_, *args):
        site_.write("index.html", "half")
        raise OSError("disk full")

    monkeypatch.setattr(site, "write_pages", broken)
    assert cli("publish", "--event", "e", "--out", out).code == 1
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site")]
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    run = cli("publish", "--event", "e", "--out", a_file)
    assert run.code == 2 and "不是文件夹" in run.err


# 12. team numbers that look alike ----------------------------------------------------------

@pytest.mark.parametrize(("second", "words"), [
    ("\u0410" + "20", "队号重复"),  # Cyrillic А
    ("A\u200b20", "队号重复"),  # a zero-width space
    ("A2O", "容易混淆"),  # letter O for zero
])
def test_look_alike_team_numbers_are_refused(cli, tmp_path, second, words):
    assert cli("event", "create", "--id", "e", "--name", "赛", "--ruleset",
               "suzhou-2025").code == 0
    sheet = write_csv(tmp_path / "e.csv", [["队号", "队名"], ["A20", "甲"], [second, "乙"]])
    run = cli("ingest", "--event", "e", sheet)
    assert run.code == 2 and words in run.err
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "a.csv",
                                                   [["队号", "队名"], ["A20", "甲"]])).code == 0
    later = cli("ingest", "--event", "e", write_csv(tmp_path / "b.csv",
                                                    [["队号", "队名"], ["A2O", "乙"]]))
    assert later.code == 2 and "容易混淆" in later.err  # against the stored teams too


# 13. JSON output ---------------------------------------------------------------------------

def test_json_output_is_always_valid_json():
    frame = pl.DataFrame({"team_no": ["A1", "A2"], "quiz_score": [float("nan"), float("inf")]})
    assert json.loads(output.to_json(frame)) == [{"team_no": "A1", "quiz_score": None},
                                                 {"team_no": "A2", "quiz_score": None}]


# 14. self-report links ---------------------------------------------------------------------

def test_self_reports_one_pending_per_table_and_links_that_expire(cli, event16, db_file,
                                                                 monkeypatch):
    from pipeline.base.errors import UsageError
    from pipeline.day import selfreport

    assert cli("pair", "--event", "e").code == 0
    links = selfreport.links(db_file, "e", 1, "http://x")
    signature = links["url"][0].rsplit("sig=", 1)[1]
    selfreport.submit(db_file, "e", 1, 1, signature, "10", "8")
    selfreport.submit(db_file, "e", 1, 1, signature, "9", "8")
    waiting = selfreport.pending(db_file, "e")
    assert waiting.select("table_no", "ew_level").rows() == [(1, "9")]
    monkeypatch.setenv("PAISAI_LINK_HOURS", "0")  # the last round's links expire by time
    with pytest.raises(UsageError, match="小时"):
        selfreport.submit(db_file, "e", 1, 1, signature, "9", "8")
    monkeypatch.delenv("PAISAI_LINK_HOURS")
    assert cli("event", "close", "--event", "e").code == 0
    with pytest.raises(UsageError, match="比赛已结束"):
        selfreport.submit(db_file, "e", 1, 1, signature, "9", "8")
    with pytest.raises(UsageError, match="比赛已结束"):  # a pending report cannot count now
        selfreport.decide(db_file, "e", waiting["report_id"][0], accept=True)
    assert cli("event", "reopen", "--event", "e").code == 0
    rows = [[1, t, "", "", "10", "8"] for t in range(1, 9)]
    assert cli("ingest", "--event", "e", write_csv(db_file.parent / "r1.csv",
                                                   [RESULT_HEADER, *rows])).code == 0
    assert cli("pair", "--event", "e").code == 0  # round 2 paired: round 1 is closed
    with pytest.raises(UsageError, match="本轮已结束"):
        selfreport.decide(db_file, "e", waiting["report_id"][0], accept=True)


# 15. messages that say what is wrong --------------------------------------------------------

def test_a_workbook_named_csv_and_a_big5_sheet_are_read(cli, event16, tmp_path):
    book = tmp_path / "成绩.xlsx"
    workbook = xlsxwriter.Workbook(str(book))
    sheet = workbook.add_worksheet()
    for r, row in enumerate([RESULT_HEADER, [1, 1, "A1", "A2", "9", "8"]]):
        sheet.write_row(r, 0, row)
    workbook.close()
    named_csv = tmp_path / "成绩.csv"
    named_csv.write_bytes(book.read_bytes())
    assert cli("ingest", "--event", "e", named_csv).code == 0
    big5 = write_csv(tmp_path / "big5.csv", [["輪次", "桌號", "東西隊號", "南北隊號", "東西級數",
                                             "南北級數"], [1, 2, "A3", "A4", "10", "8"]],
                     encoding="big5")
    run = cli("ingest", "--event", "e", big5)
    assert run.code == 0, run.err
    rows = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", "e", "--format", "csv").out)}
    assert rows["A3"]["levels"] == "10"


def test_export_and_publish_say_what_is_wrong_with_out(cli, event16, tmp_path):
    assert cli("pair", "--event", "e").code == 0
    run = cli("export", "pairings", "--event", "e", "--round", "1", "--out",
              tmp_path / "missing" / "p.xlsx")
    assert run.code == 2 and "文件夹不存在" in run.err and "internal" not in run.err


@pytest.mark.parametrize(("setting", "key"), [
    ("team_size = 0", "team_size"), ("rounds = -5", "rounds"),
    ("[awards]\ncounts = [1, -1]", "awards.counts"),
    ("[clock]\nround_minutes = 0", "clock.round_minutes"),
])
def test_ruleset_values_out_of_range_are_refused(cli, tmp_path, setting, key):
    ruleset = tmp_path / "r.toml"
    ruleset.write_text(f'name = "x"\n{setting}\n', encoding="utf-8")
    run = cli("event", "create", "--id", "e", "--name", "赛", "--ruleset", ruleset)
    assert run.code == 2 and key in run.err and "超出范围" in run.err

