"""Sheets as other tools and other halls write them (issue 19): results keyed by team or
player names, no round or table column, one row per table by side, one row per team, a final
table, and messages that say what is missing. Samples in tests/sheets/other_tool/."""

from __future__ import annotations

from conftest import SHEETS, flat, read_csv_output, write_csv

SAMPLES = SHEETS / "other_tool"


def _standings(cli, event="o"):
    run = cli("standings", "--event", event, "--format", "csv")
    assert run.code == 0, run.err
    return read_csv_output(run.out)


def test_an_event_from_another_tool_comes_in_without_editing_a_file(cli):
    assert cli("event", "create", "--id", "o", "--name", "外来赛事", "--ruleset",
               "suzhou-2025").code == 0
    assert cli("ingest", "--event", "o", SAMPLES / "entries_without_numbers.csv").code == 0
    # no team numbers yet: standings and pair say so and how to go on
    run = cli("standings", "--event", "o")
    assert "4 条报名还没有队号" in run.err and "paisai draw" in run.err
    run = cli("pair", "--event", "o")
    assert run.code == 2 and "--in-order" in run.err
    run = cli("draw", "--event", "o", "--in-order")
    assert run.code == 0 and "种子" not in run.out + run.err  # nothing was drawn by lot
    # 红队 A1, 蓝队 A2, 绿队 A3, 黄队 A4 in sheet order
    # round 1: names, no round and no table column; the round is not paired: tables in order
    run = cli("ingest", "--event", "o", "--round", "1", SAMPLES / "round1_by_side_names.csv")
    assert run.code == 0, run.err
    # A1 beats A2 10–8: 3 / 15; A4 beats A3 J–7: 3 / 17
    assert [(r["team_no"], r["match_points"], r["level_diff_score"])
            for r in _standings(cli)] == [("A4", "3", "17"), ("A1", "3", "15"),
                                          ("A2", "0", "11"), ("A3", "0", "9")]
    # round 2 paired (snake: A4–A2, A1–A3); one row per team, a player's name as the team,
    # no table column: the tables are found in the pairing
    assert cli("pair", "--event", "o").code == 0
    run = cli("ingest", "--event", "o", SAMPLES / "round2_one_row_per_team.csv")
    assert run.code == 0, run.err
    # A2 beats A4 Q–9: A2 3 + 3 / 11 + 16 = 27; A4 3 / 17 + 10 = 27; A1 beats A3 K–5:
    # 6 / 15 + 21 = 36; A2 and A4 equal on points and level differences; levels 20 each;
    # no quiz: team number
    assert [(r["team_no"], r["match_points"], r["level_diff_score"])
            for r in _standings(cli)] == [("A1", "6", "36"), ("A2", "3", "27"),
                                          ("A4", "3", "27"), ("A3", "0", "14")]


def test_results_by_side_in_w_l_and_a_final_table(cli):
    assert cli("event", "create", "--id", "o", "--name", "外来", "--ruleset",
               "suzhou-2025").code == 0
    assert cli("ingest", "--event", "o", SAMPLES / "entries_without_numbers.csv").code == 0
    assert cli("draw", "--event", "o", "--in-order").code == 0
    run = cli("ingest", "--event", "o", "--round", "1", SAMPLES / "by_side_w_l.csv")
    assert run.code == 0, run.err
    rows = {r["team_no"]: r for r in _standings(cli)}
    assert (rows["A2"]["wins"], rows["A1"]["losses"]) == ("1", "1")
    run = cli("ingest", "--event", "o", SAMPLES / "final_table.csv")
    assert run.code == 0 and "带入成绩" in run.out and "报名" not in run.out


def test_a_result_that_contradicts_the_levels_and_halves_that_disagree(cli, event16, tmp_path):
    sides = write_csv(tmp_path / "s.csv", [["队伍A", "队伍B", "结果A", "级数A", "结果B", "级数B"],
                                           ["A1", "A2", "负", "10", "胜", "8"]])
    run = cli("ingest", "--event", "e", "--round", "1", sides)
    assert run.code == 2 and "结果与级数不符" in run.err and "结果A" in run.err
    halves = write_csv(tmp_path / "h.csv", [["轮次", "队号", "对手", "本方级数", "对方级数"],
                                            [1, "A1", "A3", "K", "5"], [1, "A3", "A1", "5", "Q"]])
    run = cli("ingest", "--event", "e", halves)
    assert run.code == 2 and "与第 2 行" in run.err and " 3 " in run.err
    results = write_csv(tmp_path / "t.csv", [["轮次", "队号", "对手", "本方级数", "对方级数", "结果"],
                                             [1, "A1", "A3", "9", "9", "胜"],
                                             [1, "A3", "A1", "9", "9", "胜"]])
    run = cli("ingest", "--event", "e", results)
    assert run.code == 2 and "与第 2 行的结果矛盾" in run.err  # both halves say they won
    both_win = write_csv(tmp_path / "w.csv", [["队伍A", "队伍B", "结果A", "级数A", "结果B", "级数B"],
                                              ["A1", "A2", "胜", "10", "胜", "8"]])
    assert "两方结果矛盾" in cli("ingest", "--event", "e", "--round", "1", both_win).err


def test_a_name_on_two_teams_and_an_unknown_name_are_named(cli, tmp_path):
    assert cli("event", "create", "--id", "o", "--name", "同名", "--ruleset",
               "suzhou-2025").code == 0
    assert cli("ingest", "--event", "o", write_csv(tmp_path / "e.csv", [
        ["队号", "队名", "队员1", "队员2"], ["A1", "红队", "张伟", "李娜"],
        ["A2", "蓝队", "张伟", "王芳"], ["A3", "绿队", "刘洋", "陈静"],
        ["A4", "黄队", "杨帆", "赵磊"]])).code == 0
    sheet = write_csv(tmp_path / "r.csv", [["轮次", "桌号", "东西队号", "南北队号", "东西级数",
                                            "南北级数"],
                                           [1, 1, "张伟", "刘洋", "9", "8"],
                                           [1, 2, "无名队", "黄队", "9", "8"]])
    run = cli("ingest", "--event", "o", sheet)
    assert run.code == 2
    assert "对应多支队伍：A1、A2" in run.err  # 张伟 plays in two teams
    assert "也不是已报名的队名或队员名" in run.err  # 无名队 is nobody
    assert "刘洋" not in run.err and "黄队" not in run.err  # unique names are resolved


def test_no_header_row_says_what_came_closest(cli, event16, tmp_path):
    sheet = write_csv(tmp_path / "x.csv", [["轮次", "桌号", "东西队号", "南北队号", "东西级数"],
                                           [1, 1, "A1", "A2", "9"]])
    run = cli("ingest", "--event", "e", "--kind", "results", sheet)
    assert run.code == 2
    said = flat(run.err)  # the report wraps at 100 columns
    assert "最接近的是第1行" in said and "认出轮次、桌号、东西队号、南北队号、东西级数" in said
    assert "南北级数(ns_level" in said


def test_tables_for_people_speak_chinese(cli, event16):
    shown = cli("standings", "--event", "e").out
    assert "测试题得分" in shown and "答题用时" in shown and "正常" in shown
    assert "quiz_score" not in shown and "active" not in shown
    assert "quiz_score" in cli("standings", "--event", "e", "--format", "csv").out
