"""Hardening, third pass (issue 27): each test reproduces one finding with a file or a
command it makes itself, then checks the fix."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.conftest import RESULT_HEADER, read_csv_output, run_page, write_csv


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@contextlib.contextmanager
def _mounted(folder: Path, options: str):
    """A tmpfs mounted on `folder` (root only: the tests that need a read-only or full disk
    skip where mounting is not allowed)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


# 1. publish never deletes a folder it did not publish ---------------------------------

def test_publish_refuses_a_folder_of_other_files_and_makes_a_readable_site(
        cli, event16, tmp_path, monkeypatch):
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "合同.docx").write_bytes(b"precious")
    run = cli("publish", "--event", "e", "--out", documents)
    assert run.code == 2 and "合同.docx" in run.err and "replaces the whole folder" in run.err
    assert (documents / "合同.docx").read_bytes() == b"precious"
    assert sorted(p.name for p in documents.iterdir()) == ["合同.docx"]

    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("publish", "--event", "e", "--out", empty).code == 0
    assert (empty / ".paisai-site").is_file() and (empty / "index.html").is_file()
    assert cli("publish", "--event", "e", "--out", empty).code == 0  # its own site again

    old_mask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh-site"
        assert cli("publish", "--event", "e", "--out", fresh).code == 0
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o755  # a web server of another user reads it

    here = tmp_path / "here"
    here.mkdir()
    (here / "notes.txt").write_text("x")
    monkeypatch.chdir(here)
    run = cli("publish", "--event", "e", "--out", ".")
    assert run.code == 2 and "internal" not in run.err
    assert sorted(p.name for p in here.iterdir()) == ["notes.txt"]
    assert not [p for p in tmp_path.iterdir() if ".building-" in p.name]


def test_a_site_published_before_the_marker_is_still_paisai_s(cli, event16, tmp_path):
    site = tmp_path / "old-site"
    (site / "teams").mkdir(parents=True)
    for name in ("index.html", "pairings.html", "teams.html", "standings.json", "style.css"):
        (site / name).write_text("old")
    assert cli("publish", "--event", "e", "--out", site).code == 0
    assert (site / "index.html").read_text(encoding="utf-8") != "old"


# 2. a restored file holds paisai's schema and nothing else ------------------------------

def _edited_backup(cli, tmp_path: Path, name: str, *statements: str) -> Path:
    backup = tmp_path / f"{name}.duckdb"
    assert cli("backup", "--out", backup).code == 0
    con = duckdb.connect(str(backup))
    for statement in statements:
        con.execute(statement)
    con.close()
    return backup


@pytest.mark.parametrize(("statements", "named"), [
    (["create macro epoch(x) as 0"], "epoch"),
    (["create macro lower(x) as (select content from read_text('/etc/hostname'))"], "lower"),
    (["create view teams_view as select * from teams"], "teams_view"),
    (["create table extra (a integer)"], "extra"),
    (["create sequence extra_seq"], "extra_seq"),
    (["alter table teams add column secret varchar"], "secret"),
])
def test_restore_refuses_objects_paisai_never_makes(cli, event_with_results, tmp_path,
                                                    statements, named):
    before = cli("standings", "--event", "e", "--format", "csv").out
    forged = _edited_backup(cli, tmp_path, "forged", *statements)
    run = cli("restore", forged)
    assert run.code == 2 and named in run.err and "未改动" in run.err
    assert cli("standings", "--event", "e", "--format", "csv").out == before
    assert cli("check").code == 0


def test_restore_checks_what_reaches_the_disk_like_creation_does(cli, event_with_results,
                                                                 tmp_path):
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "keep.txt").write_text("keep")
    forged = _edited_backup(
        cli, tmp_path, "target",
        f"insert into publish_targets (event_id, out_dir, base_url) values ('e', '{documents}', null)")
    run = cli("restore", forged)
    assert run.code == 2 and "publish folder" in run.err
    renamed = _edited_backup(
        cli, tmp_path, "id", "insert into events (event_id, name, ruleset_name, ruleset_toml) "
                             "select 'ev\n', name, ruleset_name, ruleset_toml from events")
    run = cli("restore", renamed)
    assert run.code == 2 and "event id" in run.err
    assert (documents / "keep.txt").read_text() == "keep"
    clean = _edited_backup(cli, tmp_path, "clean")
    assert cli("restore", clean).code == 0


# 3, 4, 6, 13. rulesets are refused at `event create`, never broken later -----------------

@pytest.mark.parametrize(("text", "named"), [
    ('name = "x"\n[ranking]\nkeys = []\n', "ranking.keys"),
    ('name = "x"\n[ranking]\npairing_keys = []\n', "ranking.pairing_keys"),
    ('name = "x"\n[scoring]\nvp_table = [1.5, 2.5, 3.5]\n', "scoring.vp_table"),
    ('name = "x"\n[scoring]\nvp_table = ["a", "b"]\n', "scoring.vp_table"),
    ('name = "x"\n[awards]\ncounts = ["one"]\n', "awards.counts"),
    ('name = "x"\n[awards]\nnames = [1, 2]\n', "awards.names"),
    ('name = "x"\n[awards]\nsmall_field_counts = [1.5]\n', "awards.small_field_counts"),
    ('name = "x"\nformat = "knockout"\n', "knockout"),
    ('name = "x"\n[ranking]\nkeys = [{a = 1}]\n', "ranking.keys"),
    ('name = "x"\n[clock]\nlate = [{up_to = 5, action = "penalty", target = "x", amount = 2}]\n',
     "clock.late"),
    ('name = "x"\n[clock]\nlate = [{up_to = -5, action = "warning"}]\n', "clock.late"),
    ('name = "x"\n[clock]\nlate = [{up_to = nan, action = "warning"}]\n', "clock.late"),
    ('name = "x"\n[scoring]\nwin = 0\nloss = 2\n', "win ≥ draw ≥ loss"),
    ('name = "x\\ny"\n', "name"),
    ("x = " + "[" * 50_000, "nested"),
])
def test_a_broken_ruleset_is_refused_at_create(cli, tmp_path, text, named):
    ruleset = tmp_path / "r.toml"
    ruleset.write_text(text, encoding="utf-8")
    run = cli("event", "create", "--id", "e", "--name", "赛", "--ruleset", ruleset)
    assert run.code == 2 and named in run.err and "internal" not in run.err
    assert str(ruleset) in run.err  # the file named with the key
    assert "e" not in cli("events", "--format", "csv").out.split()


def test_a_utf16_ruleset_is_named_not_a_crash(cli, tmp_path):
    ruleset = tmp_path / "r.toml"
    ruleset.write_text('name = "x"\n', encoding="utf-16")
    run = cli("event", "create", "--id", "e", "--name", "赛", "--ruleset", ruleset)
    assert run.code == 2 and "UTF-8" in run.err and str(ruleset) in run.err


# 5. teams the ranking does not separate -----------------------------------------------

def test_awards_say_when_the_ranking_does_not_separate_prize_winners(cli, tmp_path):
    ruleset = tmp_path / "points-only.toml"
    ruleset.write_text('name = "points-only"\n[ranking]\nkeys = ["match_points"]\n'
                       'pairing_keys = ["match_points", "team_no"]\n', encoding="utf-8")
    assert cli("event", "create", "--id", "e", "--name", "赛", "--ruleset", ruleset).code == 0
    teams = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 7)]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "t.csv", teams)).code == 0
    # A1, A3 and A5 win; their level differences 2, 4 and 6 are not in the chain
    results = [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"], [1, 2, "A3", "A4", "12", "8"],
               [1, 3, "A5", "A6", "14", "8"]]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "r.csv", results)).code == 0
    prizes = read_csv_output(cli("awards", "--event", "e", "--format", "csv").out)
    first = {row["team_no"]: row for row in prizes}
    assert [first[t]["rank"] for t in ("A1", "A3", "A5")] == ["1", "1", "1"]
    for team in ("A1", "A3", "A5"):
        note = first[team]["note"]
        assert "未能区分" in note and "level_diff_score" in note, note
    assert {first[t]["award"] for t in ("A1", "A3", "A5")} == {"冠军", "亚军", "季军"}


# 7. identifiers are whole matches -----------------------------------------------------

def test_an_id_with_a_trailing_newline_is_refused(cli):
    run = cli("event", "create", "--id", "ev\n", "--name", "赛", "--ruleset", "suzhou-2025")
    assert run.code == 2
    run = cli("meet", "create", "--id", "m\n", "--name", "运动会")
    assert run.code == 2
    assert cli("events", "--format", "csv").out.count("\n") == 1  # the header alone


# 8, 15, 16. sheets read or refused in words -------------------------------------------

def test_a_mac_csv_with_cr_line_ends_is_read(cli, event16, tmp_path):
    sheet = tmp_path / "mac.csv"
    lines = [",".join(RESULT_HEADER)] + [f"1,{t},A{2 * t - 1},A{2 * t},10,8" for t in range(1, 9)]
    sheet.write_bytes("\r".join(lines).encode("utf-8") + b"\r")
    run = cli("ingest", "--event", "e", sheet)
    assert run.code == 0, run.err
    ranking = read_csv_output(cli("standings", "--event", "e", "--format", "csv").out)
    assert ranking[0]["team_no"] == "A1" and ranking[0]["match_points"] == "3"


def test_a_megabyte_cell_is_a_cell_error(cli, event16, tmp_path):
    sheet = write_csv(tmp_path / "long.csv", [["队号", "队名"], ["A20", "x" * 1_000_000]])
    run = cli("ingest", "--event", "e", sheet)
    assert run.code == 2 and "internal" not in run.err and "过长" in run.err and "队名" in run.err


@pytest.mark.parametrize(("content", "words"), [
    ("nul", "NUL"),
    ("gbk_body", "编码在第 2 行变了"),
    ("missing_ns", "南北级数"),
])
def test_refusals_say_what_is_wrong(cli, event16, tmp_path, content, words):
    sheet = tmp_path / "s.csv"
    if content == "nul":
        sheet.write_bytes(b"\xe9\x98\x9f\xe5\x8f\xb7,x\n" + b"A1\x00,\x00\x00\n" * 50)
    elif content == "gbk_body":
        sheet.write_bytes("队号,队名\n".encode() + "A20,第二十队\n".encode("gbk"))
    else:
        write_csv(sheet, [RESULT_HEADER[:5], [1, 1, "A1", "A2", "10"]])
    run = cli("ingest", "--event", "e", sheet)
    assert run.code == 2 and words in run.err and "internal" not in run.err
    if content == "missing_ns":  # the closest kind is the one lacking the fewest columns
        said = "".join(run.err.split())  # the report wraps at 100 columns
        assert "按成绩表results还缺" in said and "按逐副" not in said


def test_data_on_a_hidden_sheet_is_named(cli, event16, tmp_path):
    import xlsxwriter

    path = tmp_path / "hidden.xlsx"
    book = xlsxwriter.Workbook(str(path))
    front = book.add_worksheet("说明")
    front.write(0, 0, "请看第二页")
    data = book.add_worksheet("成绩")
    for r, row in enumerate([RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"]]):
        data.write_row(r, 0, row)
    data.hide()
    book.close()
    run = cli("ingest", "--event", "e", path)
    assert run.code == 2 and "隐藏" in run.err and "成绩" in run.err and "hidden" in run.err


# 9, 14. a read-only or full disk says so ------------------------------------------------

def test_a_read_only_disk_is_named(tmp_path, paisai):
    writable = tmp_path / "w.duckdb"
    assert paisai("event", "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025",
                  "--db", writable).code == 0
    with _mounted(tmp_path / "ro", "ro,size=1m") as folder:
        run = paisai("event", "create", "--id", "e", "--name", "赛", "--ruleset",
                     "suzhou-2025", "--db", folder / "x.duckdb")
    assert run.code == 1 and "只读" in run.err and "read-only" in run.err
    assert "in use" not in run.err and "internal" not in run.err


def _others_can_reach(path: Path) -> bool:
    """Every folder above `path` lets other users through (a clone in a private folder,
    such as mktemp -d's, does not)."""
    return all(stat.S_IMODE(p.stat().st_mode) & 0o001 for p in path.parents)


def test_a_forbidden_disk_is_named_by_the_database_open(tmp_path, monkeypatch):
    """The words for a folder paisai may not write, as DuckDB reports it (root can write
    anywhere, so the refusal is the one DuckDB gives another user)."""
    import duckdb as real

    from pipeline.base import db
    def refused(*args, **kwargs):
        raise real.IOException(f'IO Error: Cannot open file "{tmp_path}/x.duckdb": '
                               "Permission denied")

    monkeypatch.setattr(db.duckdb, "connect", refused)
    with pytest.raises(Exception) as said:
        db._open(tmp_path / "x.duckdb", read_only=False)
    assert "没有写入权限" in str(said.value) and "in use" not in str(said.value)


def test_a_forbidden_folder_is_named(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to act as another user")
    exe = Path(sys.executable).parent / "paisai"
    if not _others_can_reach(exe):  # e.g. a clone in mktemp -d's private folder
        pytest.skip("the program lies in a folder other users cannot enter")
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    tmp_path.chmod(0o755)
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(exe), "event",
         "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025", "--db",
         str(folder / "x.duckdb")], capture_output=True, text=True, timeout=120,
        env={**os.environ, "HOME": str(tmp_path)}, cwd=tmp_path)
    assert done.returncode == 1 and "没有写入权限" in done.stderr and "in use" not in done.stderr


def test_a_full_disk_is_named_and_nothing_is_lost(tmp_path, paisai):
    with _mounted(tmp_path / "small", "size=3m") as folder:
        database = folder / "p.duckdb"
        assert paisai("event", "create", "--id", "a", "--name", "甲", "--ruleset",
                      "suzhou-2025", "--db", database).code == 0
        filler = folder / "filler"
        with open(filler, "wb") as out:
            with contextlib.suppress(OSError):
                while True:
                    out.write(b"\0" * 65536)
                    out.flush()
        run = paisai("event", "create", "--id", "b", "--name", "乙", "--ruleset",
                     "suzhou-2025", "--db", database)
        published = paisai("publish", "--event", "a", "--out", folder / "site", "--db",
                           database)
        filler.unlink()
        listed = paisai("events", "--format", "csv", "--db", database)
        checked = paisai("check", "--db", database)
    for failed in (run, published):
        assert failed.code == 1 and "磁盘已满" in failed.err and "internal" not in failed.err
    ids = [row["event_id"] for row in read_csv_output(listed.out)]
    assert ids == ["a"] and checked.code == 0


# 10, 11. backups never overwrite the database, and never leave a stub --------------------

def test_backup_refuses_the_database_s_own_files(cli, event16, db_file):
    for target in (db_file, db_file.with_name(db_file.name + ".wal")):
        run = cli("backup", "--out", target)
        assert run.code == 2 and "own" in run.err
    assert cli("check").code == 0


def test_scratch_left_by_a_dead_run_is_cleared(cli, event16, tmp_path, db_file):
    dead = _dead_pid()
    stub = tmp_path / f".b.duckdb.partial-{dead}-0000"
    stub.write_bytes(b"\0" * 12_288)
    restoring = db_file.parent / f".{db_file.name}.restoring-{dead}-x"
    restoring.mkdir()
    (restoring / "restore.duckdb").write_bytes(b"copy")
    building = tmp_path / f".site.building-{dead}-y"
    building.mkdir()
    assert cli("backup", "--out", tmp_path / "b.duckdb").code == 0
    assert not stub.exists()
    assert cli("restore", tmp_path / "b.duckdb").code == 0
    assert not restoring.exists()
    assert cli("publish", "--event", "e", "--out", tmp_path / "site").code == 0
    assert not building.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".") and "-" in p.name]


def test_a_killed_backup_leaves_no_file_under_the_final_name(paisai, tmp_path, db_file):
    sheets = tmp_path / "sim"
    assert paisai("simulate", "--teams", "2000", "--rounds", "2", "--out", sheets).code == 0
    assert paisai("event", "create", "--id", "big", "--name", "大赛", "--ruleset",
                  "suzhou-2025").code == 0
    assert paisai("ingest", "--event", "big", sheets / "entries.csv", sheets / "round-1.csv",
                  sheets / "round-2.csv").code == 0
    for delay in (0.05, 0.3, 0.6, 0.9):
        out = tmp_path / f"b{delay}.duckdb"
        exe = Path(sys.executable).parent / "paisai"
        child = subprocess.Popen([str(exe), "backup", "--out", str(out)],
                                 env={**os.environ, "PAISAI_DB": str(db_file)},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        if out.exists():  # finished before the kill: then it is whole
            assert paisai("restore", out).code == 0
    assert paisai("backup", "--out", tmp_path / "after.duckdb").code == 0
    assert paisai("check").code == 0


# 12. the operations log cannot be forged ------------------------------------------------

def test_log_fields_are_escaped_and_since_is_checked(cli, event16, db_file, monkeypatch):
    from pipeline.base import events, oplog
    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(events, "load", boom)
    forged = "e\n2026-12-01 10:00:00\te\tpair\tforged"
    assert cli("standings", "--event", forged).code == 1
    monkeypatch.undo()
    lines = oplog.log_path(db_file).read_text(encoding="utf-8").splitlines()
    assert lines and all(line[:4].isdigit() and line.count("\t") >= 3 for line in lines)
    assert not [line for line in cli("log", "--event", "e").out.splitlines()
                if "forged" in line and "crash" not in line]
    for since in ("99:99", "24:00", "1:5", "x"):
        run = cli("log", "--since", since)
        assert run.code == 2 and "HH:MM" in run.err and "internal" not in run.err


# 17. certificates fit what they print ----------------------------------------------------

def test_certificates_fit_long_text_and_name_missing_characters(cli, tmp_path):
    import pypdfium2 as pdfium

    name = "第一届" + "长三角地区商会联合会暨城市职工" * 8 + "掼蛋大赛"
    assert cli("event", "create", "--id", "e", "--name", name, "--ruleset",
               "suzhou-2025").code == 0
    long_team = "长" * 200
    rows = [["队号", "队名", "队员1"], ["A1", long_team, "张三"], ["A2", "笑脸😀队", "李四"],
            ["A3", "三队", "王五"], ["A4", "שלום", "赵六"]]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "t.csv", rows)).code == 0
    results = [RESULT_HEADER, [1, 1, "A1", "A2", "12", "8"], [1, 2, "A3", "A4", "10", "8"]]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "r.csv", results)).code == 0
    out = tmp_path / "c.pdf"
    run = cli("awards", "--event", "e", "--certificates", out, "--force")
    assert run.code == 0 and "😀" in run.err and "U+1F600" in run.err and "U+05E9" in run.err
    document = pdfium.PdfDocument(str(out))
    for page in document:
        width, height = page.get_size()
        text = page.get_textpage()
        boxes = [text.get_charbox(i) for i in range(text.count_chars())]
        margin = 15 / 25.4 * 72  # the inner frame, 15 mm from the edge
        for left, bottom, right, top in boxes:
            if right - left > 0:
                assert margin - 1 <= left and right <= width - margin + 1
                assert margin - 1 <= bottom and top <= height - margin + 1
        rects = [text.get_rect(i) for i in range(text.count_rects(0, -1))]
        for n, (l1, b1, r1, t1) in enumerate(rects):  # no two runs of text overlap
            for l2, b2, r2, t2 in rects[n + 1:]:
                across = min(r1, r2) - max(l1, l2)
                down = min(t1, t2) - max(b1, b2)
                assert across <= 1 or down <= 2, ((l1, b1, r1, t1), (l2, b2, r2, t2))


# 18. placeholders speak the page's language -----------------------------------------------

def test_the_event_picker_has_no_english_placeholder(monkeypatch, cli, event16, db_file):
    at = run_page(monkeypatch, db_file, "live")
    pickers = [box for box in at.sidebar.selectbox if box.label == "赛事"]
    assert pickers and pickers[0].proto.placeholder == "请选择"


# 19. reports on stderr fit the terminal ---------------------------------------------------

def test_a_long_problem_wraps_at_a_hundred_columns(monkeypatch):
    from pipeline.base.errors import Problem, SheetErrors
    from pipeline.base.output import display_width, problem_report

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    report = problem_report(SheetErrors([Problem("f.csv", "", 3, "队号", "A1", "很长 " * 200)]))
    assert max(display_width(line) for line in report.splitlines()) <= 100
    assert report.count("很长") == 200
