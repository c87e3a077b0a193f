"""Pairing through the CLI on a real database: seed 004's three rounds, worked by hand."""

from __future__ import annotations

import pytest
from conftest import RESULT_HEADER, entries, read_csv_output, write_csv
from python_calamine import CalamineWorkbook
from test_golden_suzhou import ROUND_1

# Round 1, seed 004: "A1、A2为1号桌，A3、A4为2号桌……", odd numbers East-West.
DRAW = [("1", f"A{2 * t - 1}", f"A{2 * t}") for t in range(1, 9)]

# Ranking after ROUND_1 (worked in test_golden_suzhou): A8 A15 A1 A9 | A3 A12 A5 A6 |
# A13 A14 A10 A4 | A11 A2 A7 A16. Snake in blocks of four, 1–3 and 2–4, higher rank East-West;
# no pair has met in round 1.
ROUND_2_PAIRS = [("A8", "A1"), ("A15", "A9"), ("A3", "A5"), ("A12", "A6"),
                 ("A13", "A10"), ("A14", "A4"), ("A11", "A7"), ("A2", "A16")]
ROUND_2_LEVELS = [("10", "8"), ("5", "5"), ("9", "Q"), ("K", "6"),
                  ("7", "7"), ("3", "8"), ("J", "10"), ("过A", "2")]
# After round 2 (points / level_diff_score / levels):
#   A12 6/37/24, A8 6/34/22 | A15 4/32/14, A9 4/30/19, A5 4/29/20 |
#   A2 3/34/25, A1 3/29/23, A3 3/27/22, A4 3/27/17, A11 3/23/18 | A13 2/26/12 |
#   A10 1/22/17, A14 1/21/8, A6 1/19/14 | A7 0/19/16, A16 0/7/5
# → A12 A8 A15 A9 | A5 A2 A1 A3 | A4 A11 A13 A10 | A14 A6 A7 A16; no plain pair has met.
ROUND_3_PAIRS = [("A12", "A15"), ("A8", "A9"), ("A5", "A1"), ("A2", "A3"),
                 ("A4", "A13"), ("A11", "A10"), ("A14", "A7"), ("A6", "A16")]


def _pairing(cli, event, *extra):
    run = cli("pair", "--event", event, "--format", "csv", *extra)
    assert run.code == 0, run.err
    return run, [(r["table"], r["ew_team"], r["ns_team"]) for r in read_csv_output(run.out)]


def test_seed_004_three_rounds(cli, event16, tmp_path):
    run, tables = _pairing(cli, event16)
    assert [(t, e, n) for t, e, n in tables] == [(str(i), e, n) for i, (_, e, n)
                                                  in enumerate(DRAW, start=1)]
    assert read_csv_output(run.out)[0]["round"] == "1"
    assert list(read_csv_output(run.out)[0]) == ["round", "table", "ew_team", "ns_team"]
    assert cli("ingest", "--event", event16,
               write_csv(tmp_path / "r1.csv", [RESULT_HEADER, *ROUND_1])).code == 0

    _, tables = _pairing(cli, event16)
    assert [(e, n) for _, e, n in tables] == ROUND_2_PAIRS
    assert [t for t, _, _ in tables] == [str(i) for i in range(1, 9)]
    # a results sheet without team columns: the table number finds them
    rows = [["轮次", "桌号", "东西级数", "南北级数"]] + [
        [2, i, ew, ns] for i, (ew, ns) in enumerate(ROUND_2_LEVELS, start=1)]
    assert cli("ingest", "--event", event16, write_csv(tmp_path / "r2.csv", rows)).code == 0

    _, tables = _pairing(cli, event16)
    assert [(e, n) for _, e, n in tables] == ROUND_3_PAIRS


def test_refused_while_tables_are_missing_unless_forced(cli, event16, tmp_path):
    _pairing(cli, event16)
    part = [RESULT_HEADER, *ROUND_1[:5]]
    assert cli("ingest", "--event", event16, write_csv(tmp_path / "p.csv", part)).code == 0
    refused = cli("pair", "--event", event16)
    assert refused.code == 2 and "5/8" in refused.err and "（未报：第 6、7、8 桌）" in refused.err
    assert "(missing: tables 6, 7, 8); use --force" in refused.err
    forced, tables = _pairing(cli, event16, "--force")
    assert len(tables) == 8 and read_csv_output(forced.out)[0]["round"] == "2"


def test_repairing_replaces_only_without_results(cli, event16, tmp_path):
    _pairing(cli, event16)
    again, tables = _pairing(cli, event16, "--round", "1")
    assert len(tables) == 8
    assert cli("ingest", "--event", event16,
               write_csv(tmp_path / "r1.csv", [RESULT_HEADER, *ROUND_1])).code == 0
    refused = cli("pair", "--event", event16, "--round", "1")
    assert refused.code == 2 and "已有成绩" in refused.err


def test_results_must_match_the_pairing(cli, event16, tmp_path):
    _pairing(cli, event16)
    wrong = write_csv(tmp_path / "w.csv", [RESULT_HEADER, [1, 1, "A1", "A3", "9", "8"]])
    run = cli("ingest", "--event", event16, wrong)
    assert run.code == 2
    line = next(ln for ln in run.err.splitlines() if "与编排不符" in ln)
    assert " 2 " in line and "南北队号" in line and "A3" in line
    missing_table = write_csv(tmp_path / "m.csv", [["轮次", "桌号", "东西级数", "南北级数"],
                                                   [1, 9, "9", "8"]])
    run = cli("ingest", "--event", event16, missing_table)
    assert run.code == 2 and "没有这个桌号" in run.err


def test_random_draw_is_repeatable_from_its_seed(cli, tmp_path, db_file):
    ruleset = tmp_path / "random.toml"
    ruleset.write_text('name = "random-draw"\n[pairing]\ndraw = "random"\n', encoding="utf-8")
    for event in ("r1", "r2"):
        assert cli("event", "create", "--id", event, "--name", "随机", "--ruleset",
                   ruleset).code == 0
        cli("ingest", "--event", event, write_csv(tmp_path / "e.csv", entries(16)))
    first, a = _pairing(cli, "r1", "--seed", "7")
    _, b = _pairing(cli, "r2", "--seed", "7")
    assert a == b and a != [(str(i), e, n) for i, (_, e, n) in enumerate(DRAW, start=1)]
    table = cli("pair", "--event", "r1", "--round", "1")
    assert "抽签种子" in table.out


def test_odd_field_bye_is_scored_and_never_repeats(cli, tmp_path):
    cli("event", "create", "--id", "odd", "--name", "单数", "--ruleset", "suzhou-2025")
    cli("ingest", "--event", "odd", write_csv(tmp_path / "e.csv", entries(5)))
    byes = []
    for round_no in (1, 2, 3):
        run = cli("pair", "--event", "odd", "--format", "csv")
        rows = read_csv_output(run.out)
        bye = [r for r in rows if r["ns_team"] == ""]
        assert len(bye) == 1 and bye[0]["table"] == ""
        byes.append(bye[0]["ew_team"])
        sheet = [["轮次", "桌号", "东西级数", "南北级数"]] + [
            [round_no, r["table"], "10", "8"] for r in rows if r["table"]]
        assert cli("ingest", "--event", "odd",
                   write_csv(tmp_path / f"r{round_no}.csv", sheet)).code == 0
    assert len(set(byes)) == 3
    assert byes[0] == "A5"  # the draw's last team
    standings = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", "odd", "--format", "csv").out)}
    # a bye is a win by 3 levels (docs/rules/general.md §3): 3 points, 13 + 3 = 16, levels 2 + 3 = 5
    after_1 = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", "odd", "--round", "1", "--format", "csv").out)}
    assert (after_1["A5"]["match_points"], after_1["A5"]["level_diff_score"],
            after_1["A5"]["levels"]) == ("3", "16", "5")
    assert all(int(r["played"]) == 3 for r in standings.values())


@pytest.mark.parametrize("suffix", [".xlsx", ".csv", ".html"])
def test_export_pairings(cli, event16, tmp_path, suffix):
    cli("ingest", "--event", event16, write_csv(
        tmp_path / "e.csv", [["队号", "队名", "队员1", "队员2"],
                             ["A1", "<script>alert(1)</script>", "=HYPERLINK(1)", "周"]]))
    _pairing(cli, event16)
    out = tmp_path / f"pairings{suffix}"
    assert cli("export", "pairings", "--event", event16, "--round", "1", "--out", out).code == 0
    if suffix == ".xlsx":
        book = CalamineWorkbook.from_path(str(out))
        assert book.sheet_names == ["对阵表", "查找座位"]
        rows = book.get_sheet_by_name("对阵表").to_python()
        assert rows[1][:2] == ["桌号", "东西队号"] and rows[2][1] == "A1"
        index = book.get_sheet_by_name("查找座位").to_python()
        assert any(r[0] == "=HYPERLINK(1)" and r[3] == 1 for r in index)
    elif suffix == ".html":
        text = out.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "&lt;script&gt;" in text
        assert "@page" in text and "A4" in text
    else:
        text = out.read_text(encoding="utf-8-sig")
        assert text.splitlines()[0] == "round,table,ew_team,ew_name,ns_team,ns_name"
        assert "'<script>" not in text and "A1,<script>" in text


def test_export_scoresheet_round_trip(cli, event16, tmp_path):
    _pairing(cli, event16)
    out = tmp_path / "sheet.xlsx"
    assert cli("export", "scoresheet", "--event", event16, "--round", "1", "--out", out).code == 0
    rows = CalamineWorkbook.from_path(str(out)).get_sheet_by_name("成绩登记").to_python()
    assert rows[1][:6] == RESULT_HEADER and len(rows) == 10
    # fill in the levels as a referee would, then ingest the same file
    from openpyxl import load_workbook

    book = load_workbook(out)
    sheet = book["成绩登记"]
    for r in range(3, 11):
        sheet.cell(r, 5, "K")
        sheet.cell(r, 6, "9")
    book.save(out)
    run = cli("ingest", "--event", event16, out)
    assert run.code == 0, run.err
    # the instructions sheet is passed over in silence, and so are the columns the score
    # sheet writes for the people at the table (names, signatures)
    assert "填写说明" not in run.out and "未读取" not in run.out
    rounds = read_csv_output(cli("rounds", "--event", event16, "--format", "csv").out)
    assert rounds == [{"round": "1", "reported": "8", "expected": "8", "missing": ""}]


def test_seat_index_lists_each_name_once_in_order():
    """Every team number, team name and player name once per team, sorted for the eye: a
    team named as its number and a player named twice are one line each (issue 53's
    sort-then-drop-repeats gives what `unique().sort()` gave)."""
    import polars as pl

    from pipeline.publishing.export.pairings import seat_index

    pairs = pl.DataFrame({
        "round": [1, 1, 1], "table": [1, 2, None], "ew_team": ["A1", "A3", "A5"],
        "ew_name": ["A1", "丙队", "戊队"], "ew_player1": ["张三", "李四", None],
        "ew_player2": ["张三", None, None], "ns_team": ["A2", "A4", None],
        "ns_name": ["乙队", None, None], "ns_player1": ["王五", None, None],
        "ns_player2": [None, None, None], "bye": [None, None, "轮空"]},
        schema_overrides={"ns_player2": pl.String, "table": pl.Int64})
    rows = seat_index(pairs).rows()
    assert rows == [
        ("A1", "A1", "A1", 1, "东西 EW"), ("A2", "A2", "乙队", 1, "南北 NS"),
        ("A3", "A3", "丙队", 2, "东西 EW"), ("A4", "A4", None, 2, "南北 NS"),
        ("A5", "A5", "戊队", None, "轮空"), ("丙队", "A3", "丙队", 2, "东西 EW"),
        ("乙队", "A2", "乙队", 1, "南北 NS"), ("张三", "A1", "A1", 1, "东西 EW"),
        ("戊队", "A5", "戊队", None, "轮空"), ("李四", "A3", "丙队", 2, "东西 EW"),
        ("王五", "A2", "乙队", 1, "南北 NS")]


def test_many_missing_tables_are_said_as_ranges(cli, tmp_path):
    """A 30-table round with one table reported: the refusal names the others as ranges (a
    500-table round's refusal was 2,500 characters of numbers)."""
    assert cli("event", "create", "--id", "big", "--name", "大赛", "--ruleset",
               "suzhou-2025").code == 0
    assert cli("ingest", "--event", "big", write_csv(tmp_path / "e.csv", entries(60))).code == 0
    _, tables = _pairing(cli, "big")
    first = [RESULT_HEADER, [1, 5, *next((e, n) for t, e, n in tables if t == "5"), "A", "9"]]
    assert cli("ingest", "--event", "big", write_csv(tmp_path / "r.csv", first)).code == 0
    refused = cli("pair", "--event", "big")
    assert refused.code == 2
    assert "第 1 轮只报了 1/30 桌（未报：第 1–4、6–30 桌），加 --force 仍可编排" in refused.err
    assert "(missing: tables 1–4, 6–30)" in refused.err
