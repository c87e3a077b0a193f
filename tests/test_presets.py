"""One golden test per preset, each expected value worked by hand from the notice."""

from __future__ import annotations

import pytest
from conftest import RESULT_HEADER, read_csv_output, write_csv

ENTRY = ["队号", "队名", "队员1", "队员2", "单位"]


def _event(cli, tmp_path, event_id, ruleset, teams):
    assert cli("event", "create", "--id", event_id, "--name", event_id, "--ruleset",
               ruleset).code == 0
    rows = [ENTRY] + [[t, f"{t}队", f"{t}甲", f"{t}乙", unit] for t, unit in teams]
    assert cli("ingest", "--event", event_id, write_csv(tmp_path / f"{event_id}-e.csv",
                                                        rows)).code == 0


def _results(cli, tmp_path, event_id, rows, header=RESULT_HEADER, name="r.csv"):
    run = cli("ingest", "--event", event_id, write_csv(tmp_path / name, [header, *rows]))
    assert run.code == 0, run.err


def _standings(cli, event_id):
    run = cli("standings", "--event", event_id, "--format", "csv")
    assert run.code == 0, run.err
    return read_csv_output(run.out)


# -- seed 000, annex 2: the level reached is the score -------------------------------------


def test_hengquan_level_points_three_tied_on_head_to_head(cli, tmp_path):
    _event(cli, tmp_path, "hq", "hengquan-2025-guandan",
           [(f"H{i}", "商会") for i in range(1, 7)])
    _results(cli, tmp_path, "hq", [
        [1, 1, "H1", "H2", "10", "8"],   # "A打到10，B打到8，则A积10分，B积8分"
        [1, 2, "H3", "H4", "9", "9"],
        [1, 3, "H5", "H6", "K", "5"],
        [2, 1, "H1", "H3", "7", "Q"],
        [2, 2, "H2", "H5", "J", "6"],
        [2, 3, "H4", "H6", "10", "3"],
        [3, 1, "H1", "H4", "9", "8"],
        [3, 2, "H2", "H3", "10", "6"],
        [3, 3, "H5", "H6", "8", "9"],
    ])
    rows = _standings(cli, "hq")
    # level points: H1 10+7+9=26, H2 8+11+10=29, H3 9+12+6=27, H4 9+10+8=27, H5 13+6+8=27,
    # H6 5+3+9=17. H3, H4, H5 tied at 27: among them only H3–H4 was played, a draw: nobody
    # won or lost against another (胜负关系 as wins − losses: 0, 0, 0; issue 38: having
    # played among the tied earns nothing by itself). Net levels decide: H4 0+7-1=+6,
    # H5 +8-5-1=+2, H3 0+5-4=+1.
    assert [(r["rank"], r["team_no"], r["levels"]) for r in rows] == [
        ("1", "H2", "29"), ("2", "H4", "27"), ("3", "H5", "27"), ("4", "H3", "27"),
        ("5", "H1", "26"), ("6", "H6", "17")]


def test_hengquan_two_tied_decided_by_their_game(cli, tmp_path):
    _event(cli, tmp_path, "hq2", "hengquan-2025-guandan",
           [(f"T{i}", "商会") for i in range(1, 5)])
    _results(cli, tmp_path, "hq2", [
        [1, 1, "T1", "T2", "9", "10"],   # T2 beat T1
        [1, 2, "T3", "T4", "K", "2"],
        [2, 1, "T1", "T3", "Q", "7"],
        [2, 2, "T2", "T4", "J", "10"],
    ])
    rows = _standings(cli, "hq2")
    # T1 9+12=21, T2 10+11=21, T3 13+7=20, T4 2+10=12; T1 has more net levels (−1+5=+4
    # against T2's +1+1=+2) but T2 won their game, and head-to-head comes first
    assert [r["team_no"] for r in rows] == ["T2", "T1", "T3", "T4"]


# -- seed 001: team and pairs events of a meet, placement points -------------------------


def test_jinling_meet_unit_standings(cli, tmp_path):
    _event(cli, tmp_path, "pairs", "jinling-2023-pairs",
           [("P1", "炼油厂"), ("P2", "化工厂"), ("P3", "炼油厂"), ("P4", "机关")])
    header = [*RESULT_HEADER, "弃权", "末副上游方"]
    _results(cli, tmp_path, "pairs", [
        [1, 1, "P1", "P2", "10", "7", "", ""],    # P1 W d3: 2 / 16 / +3
        [1, 2, "P3", "P4", "", "", "南北", ""],   # P4 forfeits: P3 W d3: 2 / 16 / +3
        # equal levels: "如相同，则该牌上游为胜方" — P1 (东西) won the last deal: W d0, 2 / 13 / 0
        [2, 1, "P1", "P3", "9", "9", "", "东西"],
        [2, 2, "P2", "P4", "6", "Q", "", ""],     # P4 W d6: 2 / 19 / +6
    ], header=header)
    rows = _standings(cli, "pairs")
    # P1 4/29/+3; P3 2/29/+3 and P4 2/29/+3 equal: team number; P2 0/17/−9
    assert [(r["team_no"], r["match_points"], r["level_diff_score"], r["net_levels"])
            for r in rows] == [("P1", "4", "29", "3"), ("P3", "2", "29", "3"),
                               ("P4", "2", "29", "3"), ("P2", "0", "17", "-9")]

    _event(cli, tmp_path, "team", "jinling-2023-team", [("T1", "化工厂"), ("T2", "炼油厂")])
    _results(cli, tmp_path, "team", [[1, 1, "T1", "T2", "10", "8"],
                                     [1, 2, "T2", "T1", "Q", "7"]], name="t.csv")
    team = _standings(cli, "team")
    # T1: (10−8) + (7−12) = −3; the team match goes to T2 by 3: 2 / 16, levels 8+12 = 20
    assert [(r["team_no"], r["match_points"], r["level_diff_score"], r["levels"],
             r["net_levels"]) for r in team] == [("T2", "2", "16", "20", "3"),
                                                 ("T1", "0", "10", "17", "-3")]

    assert cli("meet", "create", "--id", "games", "--name", "职工运动会").code == 0
    assert cli("meet", "add", "games", "pairs", "--placement-points", "9,7,6,5,4,3,2,1",
               "--forfeit-deduction", "3").code == 0
    assert cli("meet", "add", "games", "team", "--placement-points",
               "18,14,12,10,8,6,4,2", "--forfeit-deduction", "15").code == 0
    run = cli("meet", "standings", "games", "--format", "csv")
    assert run.code == 0, run.err
    # 炼油厂: P1 9 + P3 7 + T2 18 = 34; 化工厂: P2 5 + T1 14 = 19; 机关: P4 6 − 3 (forfeit)
    assert [(r["rank"], r["affiliation"], r["placement_points"], r["forfeit_deductions"],
             r["total"]) for r in read_csv_output(run.out)] == [
        ("1", "炼油厂", "34", "0", "34"), ("2", "化工厂", "19", "0", "19"),
        ("3", "机关", "6", "3", "3")]


def test_team_event_a_team_plays_both_tables_against_one_opponent(cli, tmp_path):
    _event(cli, tmp_path, "team", "jinling-2023-team",
           [("T1", "甲"), ("T2", "乙"), ("T3", "丙"), ("T4", "丁")])
    pairing = read_csv_output(cli("pair", "--event", "team", "--format", "csv", "--seed",
                                  "3").out)
    tables = [(r["table"], r["ew_team"], r["ns_team"]) for r in pairing]
    # two matches of two tables; pair 2 of a match plays with seats swapped
    assert [t for t, _, _ in tables] == ["1", "2", "3", "4"]
    assert (tables[1][1], tables[1][2]) == (tables[0][2], tables[0][1])
    assert (tables[3][1], tables[3][2]) == (tables[2][2], tables[2][1])
    cli("pair", "--event", "team", "--round", "1", "--seed", "3")  # same draw again
    (_, a, b), (_, c, d) = tables[0], tables[2]
    # without a pairing, a team at two tables against two opponents is an error
    _event(cli, tmp_path, "unpaired", "jinling-2023-team",
           [("T1", "甲"), ("T2", "乙"), ("T3", "丙"), ("T4", "丁")])
    bad = [[1, 1, "T1", "T2", "10", "8"], [1, 2, "T3", "T1", "Q", "7"]]
    run = cli("ingest", "--event", "unpaired", write_csv(tmp_path / "b.csv",
                                                         [RESULT_HEADER, *bad]))
    assert run.code == 2 and "出现两次" in run.err
    fine = [[1, 1, "T1", "T2", "10", "8"], [1, 2, "T2", "T1", "Q", "7"]]
    assert cli("ingest", "--event", "unpaired", write_csv(tmp_path / "f.csv",
                                                          [RESULT_HEADER, *fine])).code == 0
    good = [[1, 1, a, b, "10", "8"], [1, 2, b, a, "Q", "7"], [1, 3, c, d, "9", "9"],
            [1, 4, d, c, "9", "9"]]
    _results(cli, tmp_path, "team", good, name="g.csv")
    rows = {r["team_no"]: r for r in _standings(cli, "team")}
    # a: (10−8) + (7−12) = −3 → b wins the match by 3; c and d draw 0
    assert (rows[b]["match_points"], rows[a]["match_points"], rows[c]["draws"]) == ("2", "0", "1")



# -- seed 003: equal levels go to who reached first; three fouls lose the round ----------


def test_taihu_first_to_reach_and_fouls(cli, tmp_path):
    _event(cli, tmp_path, "th", "taihu-elite", [(f"E{i}", "县") for i in range(1, 5)])
    fouls = [["轮次", "队号", "犯规次数"], [1, "E3", 3], [1, "E4", 2]]
    assert cli("ingest", "--event", "th", write_csv(tmp_path / "f.csv", fouls)).code == 0
    missing = cli("ingest", "--event", "th", write_csv(
        tmp_path / "m.csv", [RESULT_HEADER, [1, 1, "E1", "E2", "J", "J"]]))
    assert missing.code == 2 and "先到方" in missing.err
    _results(cli, tmp_path, "th", [[1, 1, "E1", "E2", "J", "J", "南北"],
                                   [1, 2, "E3", "E4", "10", "7", ""]],
             header=[*RESULT_HEADER, "先到方"])
    rows = _standings(cli, "th")
    # E2 reached J first: wins 2–0, net 0. E3 led 10–7 but had 3 fouls: loses the round, and
    # a ruled loss is one result (ruled_loss = "table"): E4 wins by the table's 3, E3 −3.
    # points then net levels: E4 (2, +3), E2 (2, 0), E1 (0, 0), E3 (0, −3)
    assert [(r["team_no"], r["match_points"], r["net_levels"]) for r in rows] == [
        ("E4", "2", "3"), ("E2", "2", "0"), ("E1", "0", "0"), ("E3", "0", "-3")]


# -- seed 004: the quiz decides what the levels leave equal ------------------------------


def test_suzhou_quiz_is_the_last_tiebreak(cli, tmp_path):
    _event(cli, tmp_path, "sz", "suzhou-2025", [(f"A{i}", "x") for i in range(1, 5)])
    _results(cli, tmp_path, "sz", [[1, 1, "A1", "A2", "9", "9"], [1, 2, "A3", "A4", "9", "9"],
                                   [2, 1, "A1", "A3", "9", "9"], [2, 2, "A2", "A4", "9", "9"],
                                   [3, 1, "A1", "A4", "9", "9"], [3, 2, "A2", "A3", "9", "9"]])
    quiz = [["队号", "测试题得分", "答题用时"], ["A1", 4, 100], ["A2", 5, 200], ["A3", 5, 150]]
    assert cli("ingest", "--event", "sz", write_csv(tmp_path / "q.csv", quiz)).code == 0
    # the final ranking, after round 3: all 3 / 39 / 27: score ↓ (A4 has none), then time ↑
    assert [r["team_no"] for r in _standings(cli, "sz")] == ["A3", "A2", "A1", "A4"]


# -- awards ----------------------------------------------------------------------------------


def test_suzhou_awards(cli, tmp_path):
    _event(cli, tmp_path, "aw", "suzhou-2025", [(f"A{i}", "x") for i in range(1, 21)])
    rows = read_csv_output(cli("awards", "--event", "aw", "--format", "csv").out)
    assert [r["award"] for r in rows] == ["冠军", "亚军", "季军", "季军"] + ["阳光普照奖"] * 12
    assert [r["team_no"] for r in rows[:3]] == ["A1", "A2", "A3"]


@pytest.mark.parametrize("teams,expected", [
    (12, ["一等奖", "二等奖", "三等奖"]),                      # fewer than 20: one each
    (20, ["一等奖", "二等奖", "二等奖", "三等奖", "三等奖", "三等奖"]),
])
def test_hengquan_awards_shrink_below_twenty(cli, tmp_path, teams, expected):
    _event(cli, tmp_path, "hq", "hengquan-2025-guandan",
           [(f"H{i}", "x") for i in range(1, teams + 1)])
    rows = read_csv_output(cli("awards", "--event", "hq", "--format", "csv").out)
    assert [r["award"] for r in rows] == expected


# -- rulesets ----------------------------------------------------------------------------------


def test_rulesets_listed_and_shown(cli):
    listed = cli("rulesets", "--format", "csv").out
    for name in ("suzhou-2025", "hengquan-2025-guandan", "jinling-2023-pairs",
                 "jinling-2023-team", "taihu-elite"):
        assert name in listed
    assert 'equal_levels = "first_to_reach"' in cli("rulesets", "show", "taihu-elite").out


@pytest.mark.parametrize("text,words", [
    ('name = "x"\n[scoring]\nwinn = 3\n', "scoring.winn"),
    ('name = "x"\n[scoring]\nwin = "three"\n', "scoring.win"),
    ('name = "x"\n[ranking]\nkeys = ["match_points", "luck"]\n', "luck"),
    ('name = "x"\n[pairing]\nsystem = "knockout"\n', "pairing.system"),
    ('name = "x"\nscoring = [', "TOML"),
])
def test_custom_ruleset_errors(cli, tmp_path, text, words):
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    run = cli("event", "create", "--id", "c", "--name", "c", "--ruleset", path)
    assert run.code == 2 and words in run.err
    assert "c," not in cli("events", "--format", "csv").out


def test_custom_ruleset_with_buchholz_and_vp(cli, tmp_path):
    path = tmp_path / "vp.toml"
    path.write_text('name = "vp"\n[scoring]\nvp_table = [10, 12, 14, 16, 18, 20]\n'
                    '[ranking]\nkeys = ["match_points", "buchholz", "vp", "team_no"]\n',
                    encoding="utf-8")
    assert cli("event", "create", "--id", "vp", "--name", "vp", "--ruleset", path).code == 0
    cli("ingest", "--event", "vp", write_csv(tmp_path / "e.csv", [ENTRY] + [
        [f"V{i}", "", "", "", ""] for i in range(1, 5)]))
    _results(cli, tmp_path, "vp", [[1, 1, "V1", "V2", "9", "7"], [1, 2, "V3", "V4", "Q", "2"],
                                   [2, 1, "V1", "V3", "8", "8"], [2, 2, "V2", "V4", "6", "5"]])
    run = cli("standings", "--event", "vp", "--format", "json")
    import json

    rows = {r["team_no"]: r for r in json.loads(run.out)}
    # points 3/1/0: V1 3+1=4, V3 3+1=4, V2 0+3=3, V4 0. Buchholz: V1 meets V2 (3) and V3 (4)
    # = 7; V3 meets V4 (0) and V1 (4) = 4. So V1 above V3 though V3 has more VP:
    # VP: V1 d2 → 14, draw → 10: 24; V3 d10 → 20 (capped at the table's end), 10: 30
    assert [r["team_no"] for r in json.loads(run.out)] == ["V1", "V3", "V2", "V4"]
    assert (rows["V1"]["buchholz"], rows["V3"]["buchholz"]) == (7, 4)
