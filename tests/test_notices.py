"""Each seed notice's rules scored as written (issue 16): every expected value worked by hand
from the notice's own words, quoted in the test's docstring."""

from __future__ import annotations

import json

from conftest import RESULT_HEADER, read_csv_output, write_csv

from pipeline.base.ruleset import load_preset

ENTRY = ["队号", "队名", "队员1", "队员2", "单位"]
GAMES = ["阶段", "场次", "局", "甲方", "乙方", "甲方级数", "乙方级数"]
DEALS = ["轮次", "桌号", "副次", "上游方", "搭档名次", "东西队号", "南北队号"]


def _event(cli, tmp_path, event_id, ruleset, teams, units=None):
    assert cli("event", "create", "--id", event_id, "--name", event_id, "--ruleset",
               ruleset).code == 0
    rows = [ENTRY] + [[t, f"{t}队", f"{t}甲", f"{t}乙", (units or {}).get(t, "商会")]
                      for t in teams]
    run = cli("ingest", "--event", event_id, write_csv(tmp_path / f"{event_id}-e.csv", rows))
    assert run.code == 0, run.err


def _ingest(cli, tmp_path, event_id, header, rows, name):
    run = cli("ingest", "--event", event_id, write_csv(tmp_path / name, [header, *rows]))
    assert run.code == 0, run.err
    return run


def _standings(cli, event_id):
    run = cli("standings", "--event", event_id, "--format", "csv")
    assert run.code == 0, run.err
    return {r["team_no"]: r for r in read_csv_output(run.out)}


def _ruleset(tmp_path, preset, **changes) -> str:
    """A preset with some settings changed (a custom ruleset file)."""
    text = load_preset(preset).source
    for old, new in changes.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / f"{preset}-custom.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


# -- seed 000: Tractor prizes come from the bracket ------------------------------------------

def _four_team_knockout(cli, tmp_path, ruleset, units=None):
    """T1–T4 in one group, all four through: T1 3 wins, T2 2, T3 1, T4 0, each 2–0 by
    过A against 10. Then the semi-finals and the final, each won by the lower number."""
    _event(cli, tmp_path, "tr", ruleset, ["T1", "T2", "T3", "T4"], units)
    assert cli("bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "4",
               "--seed", "5").code == 0
    group = json.loads(cli("bracket", "--event", "tr", "--format", "json").out)["stages"][0]
    rows = []
    for m in group["matches"]:
        a, b = m["team_a"], m["team_b"]
        better = min(a, b, key=lambda t: int(t[1:]))
        for game in (1, 2):
            rows.append([group["name"], m["match"], game, a, b,
                         *(("过A", "10") if better == a else ("10", "过A"))])
    _ingest(cli, tmp_path, "tr", GAMES, rows, "g.csv")
    return group


def _play_stage(cli, tmp_path, name):
    view = json.loads(cli("bracket", "--event", "tr", "--format", "json").out)
    rows = []
    for stage in view["stages"]:
        if stage["name"] != name:
            continue
        for m in stage["matches"]:
            a, b = m["team_a"], m["team_b"]
            better = min(a, b, key=lambda t: int(t[1:]))
            for game in (1, 2):
                rows.append([name, m["match"], game, a, b,
                             *(("过A", "9") if better == a else ("9", "过A"))])
    _ingest(cli, tmp_path, "tr", GAMES, rows, f"{name}.csv")
    return [(m["team_a"], m["team_b"]) for s in view["stages"] if s["name"] == name
            for m in s["matches"]]


def test_tractor_prizes_follow_the_bracket_and_the_group_record_splits_third(cli, tmp_path):
    """Seed 000: "若单项报名人数不足20组，则奖项名额调整为一、二、三等奖各1名". Places come from
    the knockout: champion, losing finalist, then the losing semi-finalists share third; with
    one third prize, the group-stage record decides and the list says so."""
    _four_team_knockout(cli, tmp_path, "hengquan-2025-tractor")
    assert cli("bracket", "next", "--event", "tr", "--seed", "2").code == 0
    semis = _play_stage(cli, tmp_path, "半决赛")
    assert cli("bracket", "next", "--event", "tr").code == 0
    (final,) = _play_stage(cli, tmp_path, "决赛")
    # the lower number wins every match: the final is won by T1 when T1 is in it
    champion = min(final, key=lambda t: int(t[1:]))
    runner_up = max(final, key=lambda t: int(t[1:]))
    semi_losers = [max(m, key=lambda t: int(t[1:])) for m in semis]
    # group records: T1 3 points, T2 2, T3 1, T4 0: the semi loser with the lower number
    # has the better record and takes the one third prize
    third = min(semi_losers, key=lambda t: int(t[1:]))
    other = max(semi_losers, key=lambda t: int(t[1:]))
    run = cli("awards", "--event", "tr", "--format", "csv")
    assert run.code == 0, run.err
    awards = read_csv_output(run.out)
    assert [(r["award"], r["rank"], r["team_no"]) for r in awards] == [
        ("一等奖", "1", champion), ("二等奖", "2", runner_up), ("三等奖", "3", third)]
    assert other in awards[2]["note"] and "小组赛成绩" in awards[2]["note"]
    assert "T" not in awards[0]["note"]


def test_a_third_place_match_gives_third_and_fourth(cli, tmp_path):
    """With `third_place_match = true` the losing semi-finalists play for third."""
    ruleset = _ruleset(tmp_path, "hengquan-2025-tractor",
                       **{"third_place_match = false": "third_place_match = true"})
    _four_team_knockout(cli, tmp_path, ruleset)
    assert cli("bracket", "next", "--event", "tr", "--seed", "2").code == 0
    semis = _play_stage(cli, tmp_path, "半决赛")
    assert cli("bracket", "next", "--event", "tr").code == 0
    names = [s["name"] for s in json.loads(cli("bracket", "--event", "tr", "--format",
                                               "json").out)["stages"]]
    assert names[-2:] == ["决赛", "季军赛"]
    _play_stage(cli, tmp_path, "决赛")
    (bronze,) = _play_stage(cli, tmp_path, "季军赛")
    semi_losers = sorted(max(m, key=lambda t: int(t[1:])) for m in semis)
    assert sorted(bronze) == semi_losers
    awards = read_csv_output(cli("awards", "--event", "tr", "--format", "csv").out)
    assert awards[2]["team_no"] == min(bronze, key=lambda t: int(t[1:]))
    assert awards[2]["rank"] == "3" and awards[2]["note"] == ""


# -- seed 001: meets, seats, fouls, lateness, team matches -----------------------------------

def test_meet_forfeits_once_per_team_match_and_per_pairs_game(cli, tmp_path):
    """Seed 001: "團體賽棄權者扣15分；單項比賽棄權者扣3分". A team match of two tables forfeited
    whole costs 15 once, not once per table."""
    units = {"T1": "炼油厂", "T2": "化工厂", "P1": "炼油厂", "P2": "化工厂"}
    _event(cli, tmp_path, "team", "jinling-2023-team", ["T1", "T2"], units)
    _ingest(cli, tmp_path, "team", [*RESULT_HEADER, "弃权"], [
        [1, 1, "T1", "T2", "", "", "东西"], [1, 2, "T2", "T1", "", "", "南北"]], "t.csv")
    _event(cli, tmp_path, "pairs", "jinling-2023-pairs", ["P1", "P2"], units)
    _ingest(cli, tmp_path, "pairs", [*RESULT_HEADER, "弃权"], [
        [1, 1, "P1", "P2", "", "", "南北"]], "p.csv")
    assert cli("meet", "create", "--id", "games", "--name", "运动会").code == 0
    assert cli("meet", "add", "games", "team", "--placement-points", "18,14",
               "--forfeit-deduction", "15").code == 0
    assert cli("meet", "add", "games", "pairs", "--placement-points", "9,7",
               "--forfeit-deduction", "3").code == 0
    rows = read_csv_output(cli("meet", "standings", "games", "--format", "csv").out)
    # 化工厂: T2 first (18) + P2 second (7) − 3; 炼油厂: T1 second (14) + P1 first (9) − 15
    assert [(r["affiliation"], r["placement_points"], r["forfeit_deductions"], r["total"])
            for r in rows] == [("化工厂", "25", "3", "22"), ("炼油厂", "23", "15", "8")]
    listed = read_csv_output(cli("meet", "standings", "games", "--deductions", "--format",
                                 "csv").out)
    assert [(r["event_id"], r["round"], r["team_no"], r["tables"], r["deduction"])
            for r in listed] == [("pairs", "1", "P2", "1", "3"), ("team", "1", "T1", "2", "15")]
    table = cli("meet", "standings", "games").out
    assert "弃权扣分 forfeit deductions" in table and "T1" in table


def test_the_higher_draw_number_sits_north_south(cli, tmp_path):
    """Seed 001: "同一桌比賽，大號（指抽籤號）運動員坐南北向，小號坐東西向"."""
    teams = [f"A{i}" for i in range(1, 13)]
    _event(cli, tmp_path, "jl", "jinling-2023-pairs", teams)
    for round_no in (1, 2):
        pairs = read_csv_output(cli("pair", "--event", "jl", "--format", "csv").out)
        assert all(int(r["ew_team"][1:]) < int(r["ns_team"][1:]) for r in pairs), pairs
        _ingest(cli, tmp_path, "jl", RESULT_HEADER,
                [[round_no, r["table"], r["ew_team"], r["ns_team"], "9", "8"] for r in pairs],
                f"r{round_no}.csv")


def test_two_warnings_make_a_violation_and_three_violations_lose(cli, tmp_path):
    """Seed 001 (Jiangsu rules): "兩次警告要記違例一次" and "三次記違例判負"."""
    _event(cli, tmp_path, "jl", "jinling-2023-pairs", ["A1", "A2", "A3", "A4"])
    _ingest(cli, tmp_path, "jl", RESULT_HEADER, [[1, 1, "A1", "A2", "K", "5"],
                                                 [1, 2, "A3", "A4", "K", "5"]], "r.csv")
    # A1: 4 warnings (= 2 violations) + 1 violation = 3: loses although 13 against 5;
    # A3: 3 warnings (= 1) + 1 violation = 2: keeps its win
    _ingest(cli, tmp_path, "jl", ["轮次", "队号", "警告", "违例"],
            [[1, "A1", 4, 1], [1, "A3", 3, 1]], "f.csv")
    rows = _standings(cli, "jl")
    assert (rows["A1"]["losses"], rows["A2"]["wins"], rows["A3"]["wins"]) == ("1", "1", "1")
    assert (rows["A1"]["match_points"], rows["A2"]["match_points"]) == ("0", "2")


def test_a_late_team_forfeits_its_whole_team_match(cli, tmp_path):
    """Seed 001: "遲到15分鐘，該輪比賽棄權"; in a team event the match is forfeited whole."""
    _event(cli, tmp_path, "team", "jinling-2023-team", ["T1", "T2", "T3", "T4"])
    pairs = read_csv_output(cli("pair", "--event", "team", "--format", "csv",
                                "--seed", "1").out)
    late = pairs[0]["ew_team"]
    run = cli("late", "--event", "team", "--round", "1", late, "--minutes", "15")
    assert run.code == 0 and "本轮弃权" in run.out
    rows = read_csv_output(cli("standings", "--event", "team", "--format", "csv").out)
    team = {r["team_no"]: r for r in rows}[late]
    # both tables forfeited: one team match lost with the forfeit level difference 3
    assert (team["played"], team["losses"], team["level_diff_score"]) == ("1", "1", "10")


def test_jinling_b_division_plays_six_rounds(cli, tmp_path):
    """Seed 001: "比賽採用甲組12輪,乙組6輪積分編排"; 乙组 placement points 18,14,…"""
    ruleset = load_preset("jinling-2023-pairs-b")
    assert ruleset.rounds == 6 and load_preset("jinling-2023-pairs").rounds == 12
    assert "18,14,12,10,8,6,4,2" in ruleset.description
    shown = cli("rulesets", "show", "jinling-2023-pairs-b").out
    assert "乙组" in shown and "vp_table" in shown and "last_deal" in shown


# -- seed 001 excerpt and seed 003: equal levels from the deals ------------------------------

def test_equal_levels_from_a_deal_sheet(cli, tmp_path):
    """Seed 003: "每局比赛结束，如遇双方级数相同，以先到者为胜方"; the excerpt below seed 001:
    "如相同，则该牌上游为胜方". EW wins deal 1 with its partner second (2 → 5), NS wins deal 2
    the same way (2 → 5): equal at 5. EW reached 5 first; NS won the last deal."""
    deals = [[1, 1, 1, "东西", "二游", "A1", "A2"], [1, 1, 2, "南北", "二游", "A1", "A2"]]
    _event(cli, tmp_path, "th", "taihu-elite", ["A1", "A2"])
    _ingest(cli, tmp_path, "th", DEALS, deals, "d.csv")
    rows = _standings(cli, "th")
    assert (rows["A1"]["wins"], rows["A1"]["match_points"], rows["A2"]["losses"]) == \
        ("1", "2", "1")
    _event(cli, tmp_path, "jl", "jinling-2023-pairs", ["A1", "A2"])
    _ingest(cli, tmp_path, "jl", DEALS, deals, "d2.csv")
    rows = _standings(cli, "jl")
    assert (rows["A2"]["wins"], rows["A2"]["match_points"], rows["A1"]["losses"]) == \
        ("1", "2", "1")


def test_a_results_sheet_needs_the_last_deal_side_when_levels_are_equal(cli, tmp_path):
    _event(cli, tmp_path, "jl", "jinling-2023-pairs", ["A1", "A2"])
    run = cli("ingest", "--event", "jl", write_csv(tmp_path / "r.csv", [
        RESULT_HEADER, [1, 1, "A1", "A2", "9", "9"]]))
    assert run.code == 2 and "末副上游方" in run.err


def test_seed_003_a_side_not_seated_forfeits_the_round(cli, tmp_path):
    """Seed 003: "比赛宣布开始后，一方两位选手仍未同时到赛场就位，则本轮比赛作弃权论处"."""
    _event(cli, tmp_path, "th", "taihu-elite", ["A1", "A2"])
    assert cli("pair", "--event", "th").code == 0
    run = cli("late", "--event", "th", "--round", "1", "A2", "--minutes", "1")
    assert run.code == 0 and "本轮弃权" in run.out
    rows = _standings(cli, "th")
    assert (rows["A1"]["wins"], rows["A2"]["losses"]) == ("1", "1")


# -- seed 002: single-game rounds, Swiss Tractor, lateness, 藏张 ------------------------------

def test_union_tractor_rounds_are_one_game_and_may_be_swiss(cli, tmp_path):
    """Seed 002: "在规定的时间内一方从2已打过了A时,该轮比赛结束" — one game a round. Played as
    Swiss rounds: ranked by match points, then level difference."""
    assert load_preset("union-tractor").tractor["games_to_win"] == 1
    ruleset = _ruleset(tmp_path, "union-tractor", **{'format = "knockout"': 'format = "swiss"'})
    _event(cli, tmp_path, "ut", ruleset, ["U1", "U2", "U3", "U4"])
    assert cli("bracket", "draw", "--event", "ut", "--groups", "1", "--advance", "2").code == 2
    pairs = read_csv_output(cli("pair", "--event", "ut", "--format", "csv").out)
    assert [(r["ew_team"], r["ns_team"]) for r in pairs] == [("U1", "U2"), ("U3", "U4")]
    # U1 passes A against 7; U3 leads U4 at time-up, 9 to 6
    _ingest(cli, tmp_path, "ut", RESULT_HEADER, [[1, 1, "U1", "U2", "过A", "7"],
                                                 [1, 2, "U3", "U4", "9", "6"]], "r.csv")
    rows = read_csv_output(cli("standings", "--event", "ut", "--format", "csv").out)
    # U1 W by 8: 3 / 21; U3 W by 3: 3 / 16; U4 L by 3: 0 / 10; U2 L by 8: 0 / 5
    assert [(r["team_no"], r["match_points"], r["level_diff_score"]) for r in rows] == [
        ("U1", "3", "21"), ("U3", "3", "16"), ("U4", "0", "10"), ("U2", "0", "5")]


def _union_knockout(cli, tmp_path):
    _event(cli, tmp_path, "tr", "union-tractor", ["T1", "T2"])
    assert cli("bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
               "--seed", "1").code == 0
    group = json.loads(cli("bracket", "--event", "tr", "--format", "json").out)["stages"][0]
    (match,) = group["matches"]
    return group["name"], match["team_a"], match["team_b"]


TRACTOR_DEALS = ["阶段", "场次", "局", "盘", "庄家", "得分"]


def test_late_16_to_20_minutes_loses_the_first_deal_and_the_opponents_go_up(cli, tmp_path):
    """Seed 002: "迟到16—20分钟，首局自动放弃，对手自动升级" (opponents +1, our reading), and
    "迟到6—10分钟，首局扣20分" recorded as well."""
    stage, a, b = _union_knockout(cli, tmp_path)
    run = cli("late", "--event", "tr", "--round", "1", a, "--minutes", "18")
    assert run.code == 0 and "已记录" in run.out
    run = cli("late", "--event", "tr", "--round", "1", b, "--minutes", "8")
    assert run.code == 0 and "已记录" in run.out
    # deal 1: a declares, b's side captures 0 → a would gain 120/40 + 1 = 4; but a was 16–20
    # minutes late: the deal is lost, b goes up 1 (2 → 3) and declares. b's −20 points for
    # being 8 minutes late come off its captured points in that same (void) deal.
    # deal 2: b declares, a captures 40 → b gains 4 − 1 = 3 (3 → 6); time is up: b leads
    _ingest(cli, tmp_path, "tr", TRACTOR_DEALS, [[stage, 1, 1, 1, a, 0], [stage, 1, 1, 2, b, 40]],
            "d.csv")
    (m,) = json.loads(cli("bracket", "--event", "tr", "--format",
                          "json").out)["stages"][0]["matches"]
    assert m["games"] == [[2, 6]] and m["winner"] == b


def test_hidden_card_the_offended_side_chooses_levels_or_points(cli, tmp_path):
    """Seed 002 藏张: "庄家下台或者闲家升级" or ±60 points, as the non-offending side chooses;
    seed 000: "出错牌…犯规方本副判负，对方升3级"."""
    stage, a, b = _union_knockout(cli, tmp_path)
    # deal 1: a declares, b captures 80 → a gains 4 − 2 = 2 (2 → 4); a hid a card and b chose
    # levels: b goes up 1 (2 → 3); the 60 points on the same row are not applied
    # deal 2: a declares, b captures 0 → a would gain 4; a's wrong card: the deal is lost and
    # b goes up 3 (3 → 6), b declares next. Time up: b leads 6 to 4.
    penalties = ["阶段", "场次", "局", "盘", "犯规方", "罚分", "罚级", "本盘判负", "选择", "原因"]
    _ingest(cli, tmp_path, "tr", penalties, [[stage, 1, 1, 1, a, 60, 1, "", "级", "藏张"],
                                             [stage, 1, 1, 2, a, "", 3, "是", "", "出错牌"]],
            "p.csv")
    _ingest(cli, tmp_path, "tr", TRACTOR_DEALS, [[stage, 1, 1, 1, a, 80], [stage, 1, 1, 2, a, 0]],
            "d.csv")
    (m,) = json.loads(cli("bracket", "--event", "tr", "--format",
                          "json").out)["stages"][0]["matches"]
    assert m["games"] == [[4, 6]] and m["winner"] == b


def test_forfeit_and_disqualification_decide_a_match_and_show_in_the_bracket(cli, tmp_path):
    """Seed 000: "迟到15分钟视为弃权"; "作弊…取消比赛资格，对方获胜"."""
    stage, a, b = _union_knockout(cli, tmp_path)
    _ingest(cli, tmp_path, "tr", ["阶段", "场次", "甲方", "乙方", "取消资格"],
            [[stage, 1, a, b, a]], "m.csv")
    view = json.loads(cli("bracket", "--event", "tr", "--format", "json").out)
    (m,) = view["stages"][0]["matches"]
    assert (m["winner"], m["decision"], m["decided_against"]) == (b, "disqualified", a)
    assert "取消资格" in cli("bracket", "--event", "tr").out
    groups = {r["team_no"]: r for r in view["groups"]}
    assert (groups[b]["wins"], groups[a]["losses"]) == (1, 1)


def test_seed_000_late_fifteen_minutes_forfeits_the_match(cli, tmp_path):
    """Seed 000: "迟到15分钟视为弃权" — recorded by paisai late on the match."""
    _event(cli, tmp_path, "tr", "hengquan-2025-tractor", ["T1", "T2"])
    assert cli("bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
               "--seed", "1").code == 0
    run = cli("late", "--event", "tr", "--round", "1", "T2", "--minutes", "15")
    assert run.code == 0 and "已记录" in run.out
    (m,) = json.loads(cli("bracket", "--event", "tr", "--format",
                          "json").out)["stages"][0]["matches"]
    assert (m["winner"], m["decision"]) == ("T1", "forfeit")
