"""Registration as it arrives: sheets from tests/sheets/registration, the draw, check-in and
withdrawals."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SHEETS, flat, read_csv_output, write_csv

from pipeline.base import db

REG = SHEETS / "registration"
# file → (exit code, teams numbered straight away, registrations waiting, words on stderr)
EXPECTED = {
    "numbered.csv": (0, 2, 0, None),
    "unnumbered.csv": (0, 0, 3, None),             # two 性别 columns are fine: both ignored
    "one_row_per_player.csv": (0, 0, 7, None),     # two marked pairs and five singles
    "bad_markers.csv": (2, 0, 0, "出现 1 次"),
}


def _counts(database: Path) -> tuple[int, int]:
    with db.reading(database) as con:
        return (con.execute("select count(*) from teams").fetchall()[0][0],
                con.execute("select count(*) from registrations").fetchall()[0][0])


@pytest.mark.parametrize("sheet", sorted(p.name for p in REG.glob("*.csv")))
def test_each_registration_shape(cli, db_file, sheet):
    assert cli("event", "create", "--id", "r", "--name", "报名", "--ruleset",
               "suzhou-2025").code == 0
    code, numbered, waiting, words = EXPECTED[sheet]
    run = cli("ingest", "--event", "r", REG / sheet)
    assert run.code == code, run.err
    if words:
        said = flat(run.err)  # the report wraps at 100 columns
        assert flat(words) in said and "出现3次" in said and "第3、4、5行" in said
    assert _counts(db_file) == (numbered, waiting)
    again = cli("ingest", "--event", "r", REG / sheet)  # the same file again: nothing new
    assert _counts(db_file) == (numbered, waiting) and again.code == code


def _draw(cli, *extra):
    run = cli("draw", "--event", "r", "--format", "csv", *extra)
    assert run.code == 0, run.err
    return read_csv_output(run.out), run.err


def test_draw_is_reproducible_and_numbers_only_what_is_new(cli, tmp_path):
    for event in ("r", "s"):
        cli("event", "create", "--id", event, "--name", "抽签", "--ruleset", "suzhou-2025")
        cli("ingest", "--event", event, REG / "numbered.csv")
        cli("ingest", "--event", event, REG / "unnumbered.csv")
    first, _ = _draw(cli, "--seed", "11")
    run = cli("draw", "--event", "s", "--format", "csv", "--seed", "11")
    assert read_csv_output(run.out) == first and "抽签种子 draw seed: 11" in run.err
    assert sorted(r["team_no"] for r in first) == ["A3", "A4", "A5"]  # after A1, A2
    assert list(first[0]) == ["team_no", "team_name", "player1", "player2", "affiliation"]
    in_order, _ = _draw(cli)
    assert in_order == []  # nothing new
    write_csv(tmp_path / "more.csv", [["队伍名称", "选手1", "选手2"], ["新来队", "冯甲", "陈乙"]])
    cli("ingest", "--event", "r", tmp_path / "more.csv")
    more, _ = _draw(cli, "--in-order")
    assert [(r["team_no"], r["team_name"]) for r in more] == [("A6", "新来队")]
    table = {r["team_no"]: r["team_name"] for r in read_csv_output(
        cli("standings", "--event", "r", "--format", "csv").out)}
    assert table["A1"] == "老队一" and len(table) == 6  # numbered teams keep their numbers


def test_singles_paired_with_and_without_units_apart(cli):
    for seed in range(5):
        cli("event", "create", "--id", f"p{seed}", "--name", "单人", "--ruleset", "suzhou-2025")
        cli("ingest", "--event", f"p{seed}", REG / "one_row_per_player.csv")
        run = cli("draw", "--event", f"p{seed}", "--format", "csv", "--seed", str(seed),
                  "--separate-affiliations")
        teams = read_csv_output(run.out)
        assert len(teams) == 4  # two marked pairs and two pairs of singles
        assert "暂无搭档" in run.err  # five singles: one waits
        marked = {frozenset((r["player1"], r["player2"])) for r in teams}
        assert frozenset(("郑一", "王二")) in marked and frozenset(("冯三", "陈四")) in marked
        for r in teams:
            if frozenset((r["player1"], r["player2"])) not in (frozenset(("郑一", "王二")),
                                                               frozenset(("冯三", "陈四"))):
                assert "、" in r["affiliation"]  # two different units
    # without the option, partners are drawn by lot alone: some seed pairs one unit's singles
    units = {"褚五": "远航供应链", "卫六": "远航供应链", "蒋七": "金桥国际", "沈八": "金桥国际",
             "韩九": "新港货代"}
    same_unit = False
    for seed in range(12):  # the first seed that pairs one unit's singles is enough
        cli("event", "create", "--id", f"q{seed}", "--name", "单人", "--ruleset", "suzhou-2025")
        cli("ingest", "--event", f"q{seed}", REG / "one_row_per_player.csv")
        run = cli("draw", "--event", f"q{seed}", "--format", "csv", "--seed", str(seed))
        for r in read_csv_output(run.out):
            if r["player1"] in units and units[r["player1"]] == units.get(r["player2"]):
                same_unit = True
        if same_unit:
            break
    assert same_unit


def test_checkin_and_no_shows(cli, tmp_path):
    cli("event", "create", "--id", "r", "--name", "报到", "--ruleset", "suzhou-2025")
    rows = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 7)]
    cli("ingest", "--event", "r", write_csv(tmp_path / "e.csv", rows))
    assert cli("checkin", "--event", "r", "A1", "A2", "A3", "A5").code == 0
    assert cli("checkin", "--event", "r", "Z9").code == 2
    pairs = read_csv_output(cli("pair", "--event", "r", "--format", "csv").out)
    seated = {t for r in pairs for t in (r["ew_team"], r["ns_team"]) if t}
    assert seated == {"A1", "A2", "A3", "A5"}  # A4 and A6 did not show
    status = {r["team_no"]: r["status"] for r in read_csv_output(
        cli("standings", "--event", "r", "--format", "csv").out)}
    assert status["A4"] == "absent" and status["A1"] == "active"


def test_withdrawn_team_never_paired_again_and_still_ranked(cli, tmp_path):
    cli("event", "create", "--id", "r", "--name", "退赛", "--ruleset", "suzhou-2025")
    rows = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 7)]
    cli("ingest", "--event", "r", write_csv(tmp_path / "e.csv", rows))
    cli("pair", "--event", "r")
    results = [["轮次", "桌号", "东西级数", "南北级数"], [1, 1, "K", "9"], [1, 2, "10", "10"],
               [1, 3, "8", "J"]]
    cli("ingest", "--event", "r", write_csv(tmp_path / "r1.csv", results))
    assert cli("withdraw", "--event", "r", "A1", "--after-round", "1", "--reason",
               "有事").code == 0
    assert cli("reinstate", "--event", "r", "A1").code == 0
    assert cli("withdraw", "--event", "r", "A1", "--after-round", "1").code == 0
    second = read_csv_output(cli("pair", "--event", "r", "--format", "csv").out)
    assert "A1" not in {t for r in second for t in (r["ew_team"], r["ns_team"])}
    bye = [r for r in second if not r["ns_team"]]
    assert len(bye) == 1  # five teams left: one bye
    assert cli("reinstate", "--event", "r", "A1").code == 2  # round 2 is paired already
    table = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", "r", "--format", "csv").out)}
    assert table["A1"]["status"] == "withdrawn" and table["A1"]["wins"] == "1"
    assert list(table["A1"])[-1] == "status"


def test_draw_refused_once_round_one_is_paired(cli, tmp_path):
    cli("event", "create", "--id", "r", "--name", "抽签", "--ruleset", "suzhou-2025")
    cli("ingest", "--event", "r", REG / "numbered.csv")
    cli("pair", "--event", "r")
    run = cli("draw", "--event", "r")
    assert run.code == 2 and "第 1 轮已编排" in run.err


def test_a_registration_without_players_and_with_extra_columns_says_so(cli, tmp_path, db_file):
    """Issue 29: nothing is dropped without a word — the columns not read are named, and a
    registration with no player column is flagged for the organizer to confirm."""
    from pipeline.intake.ingest import preview_file

    assert cli("event", "create", "--id", "r", "--name", "报名", "--ruleset",
               "suzhou-2025").code == 0
    sheet = write_csv(tmp_path / "teams.csv", [["序号", "队号", "队名"], [1, "A1", "一队"],
                                               [2, "A2", "二队"]])
    run = cli("ingest", "--event", "r", sheet)
    assert run.code == 0 and "未读取的列 columns not read: 序号" in run.out
    assert "没有队员姓名列" in run.out
    assert preview_file(db_file, "r", "teams.csv", sheet.read_bytes()).lacks_players
    named = write_csv(tmp_path / "named.csv", [["队号", "选手一", "选手二"], ["A3", "赵", "钱"]])
    assert not preview_file(db_file, "r", "named.csv", named.read_bytes()).lacks_players


def test_a_drawn_event_enters_the_player_history(cli, tmp_path):
    """Issue 39: teams numbered by the draw (the console's or the CLI's: the same step) enter
    the history: after the event its winners are found by `paisai player` and rated."""
    assert cli("event", "create", "--id", "d", "--name", "抽签赛", "--ruleset",
               "suzhou-2025", "--date", "2025-03-01").code == 0
    rows = [["队伍名称", "选手1", "选手2", "单位"]] + [
        [f"队{i}", f"甲{i}", f"乙{i}", f"单位{i}"] for i in range(1, 5)]
    assert cli("ingest", "--event", "d", write_csv(tmp_path / "reg.csv", rows)).code == 0
    assert cli("draw", "--event", "d", "--seed", "3").code == 0
    for round_no in (1, 2, 3):
        pairs = read_csv_output(cli("pair", "--event", "d", "--format", "csv").out)
        sheet = [["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"]] + [
            [round_no, p["table"], p["ew_team"], p["ns_team"], "A", "9"] for p in pairs]
        assert cli("ingest", "--event", "d", write_csv(tmp_path / f"r{round_no}.csv",
                                                        sheet)).code == 0
    winner = read_csv_output(cli("standings", "--event", "d", "--format", "csv").out)[0]
    name = winner["team_name"].replace("队", "甲")  # 队3 → its first player 甲3
    profile = cli("player", name)
    assert profile.code == 0 and "抽签赛" in profile.out, profile.err
    rated = {r["name"] for r in read_csv_output(cli("ratings", "--min-games", "0", "--format",
                                                    "csv").out)}
    assert name in rated and len(rated) == 8


def test_a_unit_spelled_like_another_is_flagged_and_folded(cli, tmp_path, db_file):
    """Issue 39: 昆山海官 beside 昆山海关 is asked about ("是否同一单位？") — not refused, not
    silently another unit — and the organizer folds it in one step; units kept apart in
    pairing then see one unit."""
    assert cli("event", "create", "--id", "u", "--name", "单位", "--ruleset",
               "suzhou-2025").code == 0
    first = [["队号", "队员1", "队员2", "单位"], ["A1", "甲", "乙", "昆山海关"],
             ["A2", "丙", "丁", "苏州工业园区"]]
    assert cli("ingest", "--event", "u", write_csv(tmp_path / "a.csv", first)).code == 0
    more = [["队号", "队员1", "队员2", "单位"], ["A3", "戊", "己", "昆山海官"],
            ["A4", "庚", "辛", "苏州工业园去"], ["A5", "壬", "癸", "无锡"]]
    done = cli("ingest", "--event", "u", write_csv(tmp_path / "b.csv", more))
    said = done.out + done.err
    assert done.code == 0 and "昆山海官" in said and "是否同一单位" in said
    assert "苏州工业园去" in said and said.count("是否同一单位") == 2  # 无锡 is like no other
    folded = cli("units", "--event", "u", "--fold", "昆山海官=昆山海关")
    assert folded.code == 0 and "1 队" in folded.out
    from pipeline.base import db
    with db.reading(db_file) as con:
        assert db.rows(con, "select team_no from teams where affiliation = '昆山海关' "
                            "order by team_no") == [("A1",), ("A3",)]
    assert cli("units", "--event", "u", "--fold", "不存在=昆山海关").code == 2


def test_numbered_sibling_units_are_not_asked_about(cli, tmp_path):
    """Issue 51: seed 001's 炼油运行一部/二部/三部 are three units — as 1队/2队 and 甲/乙 are —
    and not one misspelt; a misspelling among them is still asked about, once."""
    assert cli("event", "create", "--id", "s", "--name", "单位", "--ruleset",
               "suzhou-2025").code == 0
    units = ["炼油运行一部", "炼油运行二部", "炼油运行三部", "机关1队", "机关2队", "仓储甲队",
             "仓储乙队", "十一车间", "十二车间", "炼油运行二布"]
    rows = [["队号", "队员1", "队员2", "单位"]] + [[f"A{i}", f"张{i}", f"李{i}", unit]
                                              for i, unit in enumerate(units, start=1)]
    done = cli("ingest", "--event", "s", write_csv(tmp_path / "s.csv", rows))
    said = done.out + done.err
    assert done.code == 0 and said.count("是否同一单位") == 1, said
    assert "炼油运行二布" in said  # 布 for 部: beside 二部 (and 一部, 三部 by two)


def test_folding_a_unit_counts_the_registrations_it_moved(cli, tmp_path):
    """Issue 51: a unit folded before the draw (the registrations wait for their numbers)
    says how many it moved — not "0 队" while it folded them."""
    assert cli("event", "create", "--id", "f", "--name", "单位", "--ruleset",
               "suzhou-2025").code == 0
    rows = [["队伍名称", "选手1", "选手2", "单位"], ["雄鹰队", "赵一", "钱二", "恒通贸易"],
            ["猛虎队", "孙三", "李四", "恒通贸义"], ["飞龙队", "周五", "吴六", "恒通贸义"]]
    assert cli("ingest", "--event", "f", write_csv(tmp_path / "f.csv", rows)).code == 0
    folded = cli("units", "--event", "f", "--fold", "恒通贸义=恒通贸易")
    assert folded.code == 0 and "（2 队 teams）" in folded.out, folded.out


def test_a_preview_heads_its_columns_in_the_organizers_words(cli, event16, tmp_path):
    """The preview's sample rows are headed by the field's own Chinese name, with the sheet's
    header after it when the sheet wrote it otherwise (东西级数 ← 东西级) — never the
    database's names (ew_level ← 东西级数, in the Chinese console)."""
    from conftest import write_csv

    from pipeline.intake.ingest import preview_file

    assert cli("pair", "--event", event16).code == 0
    sheet = write_csv(tmp_path / "r1.csv", [["轮", "桌号", "东西队号", "南北队号", "东西级", "南北级数"],
                                             [1, 1, "A1", "A2", "K", "9"]])
    report = preview_file(tmp_path / "t.duckdb", event16, "r1.csv", sheet.read_bytes())
    (_, sample), = report.samples
    assert sample.columns == ["轮次 ← 轮", "桌号", "东西队号", "南北队号", "东西级数 ← 东西级",
                              "南北级数"]
