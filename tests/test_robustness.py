"""Nothing lost, nothing wrong: bad files, kills mid-ingest, two ingests at once, backups."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import duckdb
import pytest
import xlsxwriter
from conftest import RESULT_HEADER, entries, read_csv_output, write_csv
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.intake.sheets.headers import ALIASES, recognise

EXE = Path(sys.executable).parent / "paisai"


def _checksum(db_file: Path, cli) -> str:
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        results = con.execute("select * exclude (updated_at) from results order by all").fetchall()
        teams = con.execute("select * from teams order by all").fetchall()
    finally:
        con.close()
    standings = cli("standings", "--event", "e", "--format", "csv").out
    return hashlib.sha256(repr((results, teams, standings)).encode()).hexdigest()


def _workbook(path: Path, rows: list[list[object]], writer=None) -> Path:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("成绩")
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            sheet.write(r, c, value)
    if writer:
        writer(book, sheet)
    book.close()
    return path


def _bad_files(folder: Path) -> dict[str, tuple[Path, int | None, str | None, str]]:
    """name → (file, spreadsheet row or None, column or None, words in the message)."""
    files: dict[str, tuple[Path, int | None, str | None, str]] = {}
    (folder / "empty.csv").write_bytes(b"")
    files["empty"] = (folder / "empty.csv", None, None, "空")
    files["header only"] = (write_csv(folder / "header.csv", [RESULT_HEADER]), None, None,
                            "没有数据")
    (folder / "garbage.xlsx").write_bytes(random.Random(1).randbytes(4000))
    files["garbage named xlsx"] = (folder / "garbage.xlsx", None, None, "无法打开")
    (folder / "locked.xlsx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(2000))
    files["password-protected (OLE container)"] = (folder / "locked.xlsx", None, None, "无法打开")
    files["excel date in a level"] = (_workbook(folder / "date.xlsx", [RESULT_HEADER]), 2,
                                      "南北级数", "不是有效的级数")

    def date_cell(book, sheet):
        sheet.write_row(1, 0, [1, 1, "A1", "A2", "K"])
        sheet.write_datetime(1, 5, dt.datetime(2025, 2, 22), book.add_format(
            {"num_format": "yyyy-mm-dd"}))

    _workbook(folder / "date.xlsx", [RESULT_HEADER], date_cell)

    def error_cell(book, sheet):
        sheet.write_row(1, 0, [1, 1, "A1", "A2"])
        sheet.write_formula(1, 4, "=NA()", None, "#N/A")
        sheet.write(1, 5, "9")

    # calamine reads an error cell as having no value: the level is reported missing
    files["#N/A in a level"] = (_workbook(folder / "na.xlsx", [RESULT_HEADER], error_cell), 2,
                                "东西级数", "须填写级数")
    long_name = [["队号", "队名"], ["A1", "名" * 100_000]]
    files["100,000-character name"] = (write_csv(folder / "long.csv", long_name), 2, "队名",
                                       "过长")
    files["duplicate header"] = (write_csv(folder / "dup.csv", [[*RESULT_HEADER, "南北级数"],
                                                                [1, 1, "A1", "A2", "9", "8", "8"]]),
                                 1, "南北级数", "重复")
    files["second header row"] = (write_csv(folder / "twice.csv", [
        RESULT_HEADER, [1, 1, "A1", "A2", "9", "8"], RESULT_HEADER,
        [1, 2, "A3", "A4", "9", "8"]]), 3, None, "表头")  # header again on row 3

    def stray_cell(book, sheet):
        sheet.write_row(1, 0, [2, 1, "A1", "A3", "9", "8"])
        sheet.write(199_999, 199, "x")  # GR200000: 40 million cells from a 6 KB file

    files["a stray cell at GR200000"] = (_workbook(folder / "stray.xlsx", [RESULT_HEADER],
                                                   stray_cell), None, None, "5,000,000")
    files["a two-row merged header"] = (write_csv(folder / "merged.csv", [
        ["轮次", "桌号", "东西", "", "南北", ""], ["", "", "队号", "级数", "队号", "级数"],
        [2, 1, "A1", "9", "A3", "8"]]), 2, "队号", "表头占了两行")
    files["a formula Excel never calculated"] = (_uncalculated(folder / "formula.xlsx"), 2,
                                                 "东西级数", "尚未计算的公式")
    too_big = 3_000_000_000  # past the database's integer range
    files["round past the integer range"] = (write_csv(folder / "round.csv", [
        RESULT_HEADER, [too_big, 1, "A1", "A3", "9", "8"]]), 2, "轮次", "1 到 1,000")
    files["deals past the integer range"] = (write_csv(folder / "deals.csv", [
        [*RESULT_HEADER, "副数"], [2, 1, "A1", "A3", "9", "8", too_big]]), 2, "副数", "0 到 1,000")
    files["penalty past the integer range"] = (write_csv(folder / "pen.csv", [
        PENALTY_HEADER, [1, "A1", "积分", too_big, "x"]]), 2, "扣分", "1 到 10,000")
    files["a negative penalty (a bonus)"] = (write_csv(folder / "bonus.csv", [
        PENALTY_HEADER, [1, "A1", "积分", -5, "x"]]), 2, "扣分", "正整数")
    for value in ("nan", "inf", "1e308", "-3"):
        files[f"quiz score {value}"] = (write_csv(folder / f"quiz-{value}.csv", [
            ["队号", "测试题得分", "答题用时"], ["A1", value, "30"]]), 2, "测试题得分", "之间的数")
    files["quiz seconds nan"] = (write_csv(folder / "quiz-sec.csv", [
        ["队号", "测试题得分", "答题用时"], ["A1", "9", "NaN"]]), 2, "答题用时", "之间的数")
    return files


PENALTY_HEADER = ["轮次", "队号", "扣分项目", "扣分", "原因"]


def _uncalculated(path: Path) -> Path:
    """A workbook written by a program (openpyxl): formulas stored without a value."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "成绩"
    sheet.append(RESULT_HEADER)
    sheet.append([2, 1, "A1", "A3", "=\"K\"", "8"])
    book.save(path)
    return path


def test_bad_file_corpus(cli, event_with_results, tmp_path, db_file):
    folder = tmp_path / "bad"
    folder.mkdir()
    before = _checksum(db_file, cli)
    for name, (path, row, column, words) in _bad_files(folder).items():
        run = cli("ingest", "--event", "e", path)
        assert run.code == 2, (name, run.out, run.err)
        assert words in run.err, (name, run.err)
        assert "Traceback" not in run.err
        if row is not None:
            lines = [ln for ln in run.err.splitlines() if path.name in ln and f" {row} " in ln
                     and (column is None or column in ln)]
            assert lines, (name, run.err)
        assert _checksum(db_file, cli) == before, name


def test_size_limit_and_zip_bomb(cli, event_with_results, tmp_path, db_file):
    before = _checksum(db_file, cli)
    sheet = write_csv(tmp_path / "big.csv", [RESULT_HEADER] + [[2, 1, "A1", "A3", "9", "8"]])
    os.environ["PAISAI_MAX_UPLOAD_MB"] = "0.00001"
    try:
        run = cli("ingest", "--event", "e", sheet)
    finally:
        del os.environ["PAISAI_MAX_UPLOAD_MB"]
    assert run.code == 2 and "MB" in run.err
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", b"0" * (250 * 1024 * 1024))
    assert bomb.stat().st_size < 2 * 1024 * 1024
    run = cli("ingest", "--event", "e", bomb)
    assert run.code == 2 and "解压后超过" in run.err
    assert _checksum(db_file, cli) == before


def test_odd_but_valid_inputs(cli, event16, tmp_path):
    wide = [RESULT_HEADER + [f"x{i}" for i in range(9_994)],
            [1, 1, "A1", "A2", "9", "8"] + [""] * 9_994]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "wide.csv", wide)).code == 0
    odd = [["队号", "队名", "队员1", "队员2"], ["A1", "<script>alert(1)</script>", "=1+1", "@x"]]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "odd.csv", odd)).code == 0
    out = cli("standings", "--event", "e", "--format", "csv").out
    assert "<script>alert(1)</script>" in out  # text, as given
    assert cli("pair", "--event", "e", "--round", "2", "--force").code == 0
    pairs = tmp_path / "p.csv"
    cli("export", "pairings", "--event", "e", "--round", "2", "--out", pairs)
    text = pairs.read_text(encoding="utf-8-sig")
    assert "'=1+1" not in text  # players are not in this export; team names are
    html = tmp_path / "p.html"
    cli("export", "pairings", "--event", "e", "--round", "2", "--out", html)
    page = html.read_text(encoding="utf-8")
    assert "<script>alert" not in page and "&lt;script&gt;" in page and "'=1+1" not in page

    def cached(book, sheet):
        sheet.write_row(1, 0, [1, 3, "A5", "A6"])
        sheet.write_formula(1, 4, '="K"', None, "K")  # a formula: its cached value is used
        sheet.write(1, 5, 9)

    assert cli("ingest", "--event", "e", _workbook(tmp_path / "f.xlsx", [RESULT_HEADER],
                                                    cached)).code == 0
    rows = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", "e", "--round", "1", "--format", "csv").out)}
    assert rows["A5"]["levels"] == "13"


BIG = 2000  # teams of the big event


@pytest.fixture(scope="module")
def big_event_file(tmp_path_factory) -> Path:
    """2,000 teams registered by the installed command: made once, copied for each test."""
    folder = tmp_path_factory.mktemp("big")
    database = folder / "big.duckdb"
    env = {**os.environ, "PAISAI_DB": str(database)}
    subprocess.run([EXE, "event", "create", "--id", "e", "--name", "大赛", "--ruleset",
                    "suzhou-2025"], check=True, env=env, capture_output=True)
    subprocess.run([EXE, "ingest", "--event", "e", write_csv(folder / "e.csv",
                                                             entries(BIG))],
                   check=True, env=env, capture_output=True)
    return database


def _big_event(big_event_file: Path, db_file: Path):
    """The big event in this test's own file; the environment that names it; round 1's
    rows (every table 10 to 8)."""
    assert not db_file.exists()
    shutil.copyfile(big_event_file, db_file)
    shutil.copyfile(big_event_file.with_suffix(".log"), db_file.with_suffix(".log"))
    env = {**os.environ, "PAISAI_DB": str(db_file)}
    rows = [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"] for t in range(1, BIG // 2 + 1)]
    return env, rows


def _results(db_file: Path) -> int:
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        return con.execute("select count(*) from results").fetchone()[0]
    finally:
        con.close()


def test_kill_during_ingest_leaves_before_or_after(tmp_path, db_file, big_event_file):
    env, rows = _big_event(big_event_file, db_file)
    sheet = write_csv(tmp_path / "r1.csv", [RESULT_HEADER, *rows])
    seen = set()
    for delay in (0.05, 0.3, 0.6, 0.9, 1.2, 1.6, 2.2):
        process = subprocess.Popen([EXE, "ingest", "--event", "e", sheet], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        count = _results(db_file)
        assert count in (0, len(rows))
        seen.add(count)
        check = subprocess.run([EXE, "check"], env=env, capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        if count:
            break
    final = subprocess.run([EXE, "ingest", "--event", "e", sheet], env=env, capture_output=True,
                           text=True)
    assert final.returncode == 0 and _results(db_file) == len(rows)


def test_two_ingests_at_once_both_land(tmp_path, db_file, big_event_file):
    env, rows = _big_event(big_event_file, db_file)
    half = len(rows) // 2
    first = write_csv(tmp_path / "a.csv", [RESULT_HEADER, *rows[:half]])
    second = write_csv(tmp_path / "b.csv", [RESULT_HEADER, *rows[half:]])
    processes = [subprocess.Popen([EXE, "ingest", "--event", "e", f], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for f in (first, second)]
    codes = [p.wait(timeout=300) for p in processes]
    assert codes == [0, 0], [p.stderr.read() for p in processes]
    assert _results(db_file) == len(rows)


def test_backup_restore_and_check(cli, event_with_results, tmp_path, db_file):
    out = tmp_path / "backup.duckdb"
    assert cli("backup", "--out", out).code == 0
    before = cli("standings", "--event", "e", "--format", "csv").out
    rows = [[2, 1, "A1", "A3", "9", "8"]]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "r2.csv",
                                                   [RESULT_HEADER, *rows])).code == 0
    assert cli("standings", "--event", "e", "--format", "csv").out != before
    assert cli("restore", out).code == 0
    assert cli("standings", "--event", "e", "--format", "csv").out == before
    assert cli("check").code == 0
    listed = read_csv_output(cli("uploads", "--event", "e", "--format", "csv").out)
    assert [r["status"] for r in listed][-1] == "stored"
    con = duckdb.connect(str(db_file))
    con.execute("insert into results (event_id, round, table_no, ew_team, ns_team, ew_level, "
                "ns_level) values ('e', 5, 1, 'A1', 'Z99', 9, 8)")
    con.close()
    broken = cli("check")
    assert broken.code == 1 and "Z99" in broken.err
    assert cli("restore", tmp_path / "r2.csv").code == 2


HEADER_WORDS = sorted({a for kind in ALIASES.values() for aliases in kind.values()
                       for a in aliases})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=8), st.sampled_from(HEADER_WORDS), st.none(),
                          st.integers()), max_size=15))
def test_header_recogniser_never_raises(cells):
    found = recognise(cells)
    assert found is None or found.kind in ALIASES


@settings(max_examples=100, deadline=None)
@given(st.permutations(RESULT_HEADER), st.lists(st.text(max_size=5), max_size=4),
       st.booleans())
def test_results_header_found_in_any_order_with_noise(order, noise, full_width):
    cells = [*order, *noise]
    if full_width:
        cells = [c.replace("1", "１") for c in cells]
    found = recognise(cells)
    assert found is not None and found.kind == "results"
