"""Every notice as written, third pass (issue 28): each expected value worked by hand from
the notice or docs/rules/general.md, the notice quoted where it decides."""

from __future__ import annotations

import pytest

from tests.conftest import RESULT_HEADER, read_csv_output, write_csv

FIDE = """name = "fide-example"
rounds = 2
[scoring]
win = 1
draw = 0.5
loss = 0
[ranking]
keys = ["match_points", "buchholz", "buchholz_cut1", "median_buchholz", "sonneborn_berger",
        "team_no"]
pairing_keys = ["match_points", "team_no"]
unplayed = "{unplayed}"
[pairing]
system = "monrad"
"""


def _ranking(cli, event_id: str = "t") -> dict[str, dict[str, str]]:
    return {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", event_id, "--format", "csv").out)}


def _fide_event(cli, tmp_path, unplayed: str) -> dict[str, dict[str, str]]:
    """Six teams, two rounds. R1 (the draw): A1 beats A2, A3 and A4 draw, A6 beats A5. A6
    withdraws. R2 (monrad on points, then number; five teams, the bye to the last): A1–A3
    (A3 wins), A4–A2 (A2 does not come: A4 wins by forfeit), A5 the bye (a win, 1)."""
    ruleset = tmp_path / "r.toml"
    ruleset.write_text(FIDE.format(unplayed=unplayed), encoding="utf-8")
    assert cli("event", "create", "--id", "t", "--name", "赛", "--ruleset", ruleset).code == 0
    teams = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 7)]
    assert cli("ingest", "--event", "t", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("pair", "--event", "t").code == 0
    r1 = [RESULT_HEADER + ["弃权"], [1, 1, "A1", "A2", "10", "8", ""],
          [1, 2, "A3", "A4", "9", "9", ""], [1, 3, "A5", "A6", "8", "10", ""]]
    assert cli("ingest", "--event", "t", write_csv(tmp_path / "r1.csv", r1)).code == 0
    assert cli("withdraw", "A6", "--event", "t", "--after-round", "1").code == 0
    pairs = read_csv_output(cli("pair", "--event", "t", "--format", "csv").out)
    assert [(p["table"], p["ew_team"], p["ns_team"]) for p in pairs] == [
        ("1", "A1", "A3"), ("2", "A4", "A2"), ("", "A5", "")]
    r2 = [RESULT_HEADER + ["弃权"], [2, 1, "A1", "A3", "8", "10", ""],
          [2, 2, "A4", "A2", "", "", "南北"]]
    assert cli("ingest", "--event", "t", write_csv(tmp_path / "r2.csv", r2)).code == 0
    return _ranking(cli)


def test_opponent_keys_follow_fide_c07_article_16(cli, tmp_path):
    """Points: A3 1.5, A4 1.5, A1 1, A5 1 (the bye), A6 1 (withdrawn), A2 0.
    Adjusted scores (16.3): A6's round 2 is a requested bye in the last round, a draw: 1.5;
    the others as scored. A dummy (16.4) stands at the team's own score, at most the
    scheduled opponent's adjusted score (forfeits) or a draw in each of the 2 rounds (1).
    Buchholz: A3 1.5 + 1 = 2.5; A4 1.5 + min(1.5, A2 0) = 1.5; A1 0 + 1.5 = 1.5;
    A5 A6 1.5 + bye min(1, 1) = 2.5; A6 A5 1 + min(1, 1) = 2; A2 1 + min(0, 1.5) = 1."""
    ranking = _fide_event(cli, tmp_path, "fide")
    assert {t: r["buchholz"] for t, r in ranking.items()} == {
        "A1": "1.5", "A2": "1", "A3": "2.5", "A4": "1.5", "A5": "2.5", "A6": "2"}
    # Cut-1: A5 has no voluntary unplayed round: its lowest (the bye's 1) goes → 1.5; A6
    # and A2 lose their voluntary unplayed round's value first (16.5): 1 and 1
    assert (ranking["A5"]["buchholz_cut1"], ranking["A6"]["buchholz_cut1"],
            ranking["A2"]["buchholz_cut1"], ranking["A4"]["buchholz_cut1"]) == \
        ("1.5", "1", "1", "1.5")
    assert {r["median_buchholz"] for r in ranking.values()} == {"0"}  # two values, both cut
    # Sonneborn-Berger: A3 drew A4 (1.5 × ½) and beat A1 (1) = 1.75; A5 lost to A6, won the
    # bye (1 × 1) = 1; A6 beat A5 (1) and lost its requested bye = 1; A4 .75 + 0 = .75
    assert (ranking["A3"]["sonneborn_berger"], ranking["A5"]["sonneborn_berger"],
            ranking["A6"]["sonneborn_berger"], ranking["A4"]["sonneborn_berger"]) == \
        ("1.75", "1", "1", "0.75")
    order = [r["team_no"] for r in read_csv_output(
        cli("standings", "--event", "t", "--format", "csv").out)]
    assert order == ["A3", "A4", "A5", "A6", "A1", "A2"]


def test_the_reading_before_fide_is_a_setting(cli, tmp_path):
    """unplayed = "nothing": a bye counts nothing, a forfeit counts the absent team's real
    score. Buchholz: A1 0 + 1.5 = 1.5; A5 A6's 1 = 1; A6 A5's 1 = 1; A2 1 + 1.5 = 2.5.
    A5 and A6 tie on Buchholz, cut and median (one opponent each, cut away); Sonneborn-
    Berger: A6 beat A5 (1 × 1) = 1, A5 0 → A6 first."""
    ranking = _fide_event(cli, tmp_path, "nothing")
    assert (ranking["A1"]["buchholz"], ranking["A5"]["buchholz"], ranking["A6"]["buchholz"],
            ranking["A2"]["buchholz"]) == ("1.5", "1", "1", "2.5")
    order = [r["team_no"] for r in read_csv_output(
        cli("standings", "--event", "t", "--format", "csv").out)]
    assert order[2:5] == ["A1", "A6", "A5"]


def test_hengquan_head_to_head_in_a_cycle_falls_to_net_levels(cli, tmp_path):
    """Seed 000: "若积分相同，则参考胜负关系，净胜分辅助判定"; the 积分 is the level reached
    ("打到几则积多少分"). Six teams, three rounds; A1, A3 and A5 end on 30 level points in a
    cycle: A1 beat A5 K–10, A5 beat A3 A–9, A3 beat A1 Q–10. 胜负关系 among the three (wins
    − losses, issue 38): each 1 − 1 = 0, so 净胜分 decides: A1 (13−10) + (7−2) + (10−12) =
    6; A3 (9−2) + (9−14) + (12−10) = 4; A5 (10−13) + (14−9) + (6−2) = 6; A1 and A5 still
    equal → team number: A1, A5, A3."""
    assert cli("event", "create", "--id", "h", "--name", "恒全", "--ruleset",
               "hengquan-2025-guandan").code == 0
    teams = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 7)]
    assert cli("ingest", "--event", "h", write_csv(tmp_path / "e.csv", teams)).code == 0
    rows = [RESULT_HEADER,
            # round 1: A1 13 (K) v A5 10; A3 9 v A2 2; A4 8 v A6 3
            [1, 1, "A1", "A5", "K", "10"], [1, 2, "A3", "A2", "9", "2"],
            [1, 3, "A4", "A6", "8", "3"],
            # round 2: A5 14 (A) v A3 9; A1 7 v A2 2; A4 5 v A6 4
            [2, 1, "A5", "A3", "A", "9"], [2, 2, "A1", "A2", "7", "2"],
            [2, 3, "A4", "A6", "5", "4"],
            # round 3: A3 12 (Q) v A1 10; A5 6 v A6 2; A4 6 v A2 3
            [3, 1, "A3", "A1", "Q", "10"], [3, 2, "A5", "A6", "6", "2"],
            [3, 3, "A4", "A2", "6", "3"]]
    assert cli("ingest", "--event", "h", "--force", write_csv(tmp_path / "r.csv", rows)
               ).code == 0
    ranking = _ranking(cli, "h")
    # level points: A1 13 + 7 + 10 = 30; A3 9 + 9 + 12 = 30; A5 10 + 14 + 6 = 30; A4 19
    assert {t: ranking[t]["level_points"] for t in ("A1", "A3", "A5", "A4")} == {
        "A1": "30", "A3": "30", "A5": "30", "A4": "19"}
    assert {t: ranking[t]["net_levels"] for t in ("A1", "A3", "A5")} == {
        "A1": "6", "A3": "4", "A5": "6"}
    order = [r["team_no"] for r in read_csv_output(
        cli("standings", "--event", "h", "--format", "csv").out)]
    assert order[:3] == ["A1", "A5", "A3"]


THREE_TIED = [RESULT_HEADER,
              [1, 1, "A2", "A1", "10", "9"], [1, 2, "A3", "A4", "J", "6"],
              [1, 3, "A5", "A6", "6", "4"],
              [2, 1, "A3", "A1", "10", "9"], [2, 2, "A2", "A5", "Q", "10"],
              [2, 3, "A4", "A6", "7", "5"],
              [3, 1, "A1", "A4", "Q", "8"], [3, 2, "A2", "A6", "8", "4"],
              [3, 3, "A3", "A5", "9", "3"]]


def hengquan_three_tied(cli, tmp_path) -> None:
    """The hengquan event of issue 38, case 1 (values in the test below)."""
    assert cli("event", "create", "--id", "h", "--name", "恒全", "--ruleset",
               "hengquan-2025-guandan").code == 0
    teams = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 7)]
    assert cli("ingest", "--event", "h", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("ingest", "--event", "h", "--force", write_csv(tmp_path / "r.csv", THREE_TIED)
               ).code == 0


def test_hengquan_head_to_head_among_three_who_did_not_all_meet(cli, tmp_path):
    """Issue 38, case 1. A1, A2, A3 end on 30 level points; A1 lost to A2 (9–10) and to A3
    (9–10); A2 and A3 never met. Summing level points among the tied would put A1 first
    (9 + 9 = 18 against 10 and 10); 胜负关系 (wins − losses among them): A1 −2, A2 +1,
    A3 +1 → A1 last; A2 and A3 by 净胜分: A2 (10−9) + (12−10) + (8−4) = 7, A3 (11−6) +
    (10−9) + (9−3) = 12 → A3, A2, A1; then A4 21, A5 19, A6 13. Fewer than 20 teams:
    一、二、三等奖 one each."""
    hengquan_three_tied(cli, tmp_path)
    ranking = _ranking(cli, "h")
    assert {t: (r["level_points"], r["net_levels"]) for t, r in ranking.items()} == {
        "A1": ("30", "2"), "A2": ("30", "7"), "A3": ("30", "12"), "A4": ("21", "-7"),
        "A5": ("19", "-6"), "A6": ("13", "-8")}
    order = [r["team_no"] for r in read_csv_output(
        cli("standings", "--event", "h", "--format", "csv").out)]
    assert order == ["A3", "A2", "A1", "A4", "A5", "A6"]
    prizes = read_csv_output(cli("awards", "--event", "h", "--format", "csv").out)
    assert [(p["award"], p["team_no"]) for p in prizes] == [
        ("一等奖", "A3"), ("二等奖", "A2"), ("三等奖", "A1")]


# 1, 3. a knockout ranks by the bracket; a disqualified team takes no place ------------------

MATCH_SHEET = ["阶段", "场次", "甲方", "乙方", "弃权方", "取消资格"]


def _bracket(cli, event: str = "tr") -> dict:
    import json

    return json.loads(cli("bracket", "--event", event, "--format", "json").out)


def _decide(cli, tmp_path, name: str, rows: list[list]) -> None:
    run = cli("ingest", "--event", "tr", write_csv(tmp_path / name, [MATCH_SHEET, *rows]))
    assert run.code == 0, run.err


def test_a_disqualified_team_takes_no_place_and_the_bracket_ranks_the_event(cli, tmp_path):
    """Seed 000 (hengquan-2025-tractor): "作弊…取消比赛资格". Four teams, one group, all four
    through. Group: the lower number wins every match (by forfeit of the other): T1 3 wins,
    T2 2, T3 1, T4 0. Semi-finals (drawn): T1 is disqualified, its opponent goes on; the
    other semi-final's lower number wins; the final: T1's opponent wins.
    As played: champion, finalist, then T1 and the other semi-final loser sharing third,
    T1 first on its group record. T1 takes no place: the other loser is third alone and
    takes the one 三等奖 (fewer than 20 entries: 1/1/1)."""
    assert cli("event", "create", "--id", "tr", "--name", "拖拉机", "--ruleset",
               "hengquan-2025-tractor").code == 0
    teams = [["队号", "队名", "单位"]] + [[f"T{i}", f"拖{i}", f"会{i}"] for i in range(1, 5)]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "4",
               "--seed", "7").code == 0
    (group,) = _bracket(cli)["stages"]
    _decide(cli, tmp_path, "g.csv", [
        [group["name"], m["match"], m["team_a"], m["team_b"],
         max(m["team_a"], m["team_b"]), ""] for m in group["matches"]])
    assert cli("bracket", "next", "--event", "tr").code == 0
    semis = _bracket(cli)["stages"][-1]
    (with_t1,) = [m for m in semis["matches"] if "T1" in (m["team_a"], m["team_b"])]
    (other,) = [m for m in semis["matches"] if m is not with_t1]
    champion = with_t1["team_b"] if with_t1["team_a"] == "T1" else with_t1["team_a"]
    finalist = min(other["team_a"], other["team_b"])
    third = max(other["team_a"], other["team_b"])
    _decide(cli, tmp_path, "s.csv", [
        [semis["name"], with_t1["match"], with_t1["team_a"], with_t1["team_b"], "", "T1"],
        [semis["name"], other["match"], other["team_a"], other["team_b"], third, ""]])
    assert cli("bracket", "next", "--event", "tr").code == 0
    final = _bracket(cli)["stages"][-1]
    (match,) = final["matches"]
    _decide(cli, tmp_path, "f.csv", [[final["name"], match["match"], match["team_a"],
                                      match["team_b"], finalist, ""]])
    prizes = read_csv_output(cli("awards", "--event", "tr", "--format", "csv").out)
    assert [(p["award"], p["team_no"], p["rank"]) for p in prizes] == [
        ("一等奖", champion, "1"), ("二等奖", finalist, "2"), ("三等奖", third, "3")]
    assert "T1 取消资格" in prizes[2]["note"]
    ranking = read_csv_output(cli("standings", "--event", "tr", "--format", "csv").out)
    assert [(r["team_no"], r["rank"], r["status"]) for r in ranking] == [
        (champion, "1", "active"), (finalist, "2", "active"), (third, "3", "active"),
        ("T1", "", "disqualified")]
    assert "淘汰赛名次" in cli("standings", "--event", "tr").out
    assert cli("meet", "create", "--id", "m", "--name", "运动会").code == 0
    assert cli("meet", "add", "m", "tr", "--placement-points", "18,14,12,10").code == 0
    units = read_csv_output(cli("meet", "standings", "m", "--format", "csv").out)
    points = {r["affiliation"]: r["placement_points"] for r in units}
    unit = {f"T{i}": f"会{i}" for i in range(1, 5)}
    assert (points[unit[champion]], points[unit[finalist]], points[unit[third]]) == \
        ("18", "14", "12")
    assert points.get(unit["T1"], "0") in ("0", "")


# 2, 5. late in Tractor: the round's match, and a reading past the ladder -----------------

def _union_group(cli, tmp_path, teams: int) -> dict:
    assert cli("event", "create", "--id", "tr", "--name", "工会", "--ruleset",
               "union-tractor").code == 0
    rows = [["队号", "队名"]] + [[f"T{i}", f"拖{i}"] for i in range(1, teams + 1)]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "e.csv", rows)).code == 0
    assert cli("bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
               "--seed", "1").code == 0
    (group,) = _bracket(cli)["stages"]
    return group


def _stored(db_file, query: str) -> list[tuple]:
    """Rows as the database file holds them (read as another program would)."""
    import duckdb

    con = duckdb.connect(str(db_file), read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_a_late_penalty_goes_to_the_match_of_the_round_named(cli, tmp_path, db_file):
    """Union-tractor: "迟到6—10分钟，首局扣20分". T1 is late 8 minutes in round 1: the
    penalty is on T1's first match, not on its last undecided one."""
    group = _union_group(cli, tmp_path, 3)
    mine = [m for m in group["matches"] if "T1" in (m["team_a"], m["team_b"])]
    assert len(mine) == 2
    run = cli("late", "--event", "tr", "--round", "1", "T1", "--minutes", "8")
    assert run.code == 0 and "已记录" in run.out
    found = _stored(db_file, "select stage, match_no, points from tractor_point_penalties "
                             "where event_id = 'tr' and team_no = 'T1'")
    assert found == [(group["name"], mine[0]["match"], 20)]
    run = cli("late", "--event", "tr", "--round", "3", "T1", "--minutes", "8")
    assert run.code == 2 and "没有第 3 轮" in run.err


def test_union_tractor_lateness_past_twenty_minutes_and_within_five(cli, tmp_path, db_file):
    """Seed 002's ladder ends at 16–20 minutes; the preset's reading: later still forfeits
    the match. "迟到5分钟以内，警告，违例一次": a warning and a violation recorded."""
    group = _union_group(cli, tmp_path, 2)
    (match,) = group["matches"]
    run = cli("late", "--event", "tr", "--round", "1", "T2", "--minutes", "4")
    assert run.code == 0 and "违例一次" in run.out
    fouls = _stored(db_file, "select round, team_no, warnings, violations from fouls "
                             "where event_id = 'tr'")
    assert fouls == [(1, "T2", 1, 1)]
    run = cli("late", "--event", "tr", "--round", "1", "T2", "--minutes", "25")
    assert run.code == 0 and "弃权" in run.out and "nothing" not in run.out
    (decided,) = _bracket(cli)["stages"][0]["matches"]
    other = match["team_a"] if match["team_b"] == "T2" else match["team_b"]
    assert (decided["winner"], decided["decision"]) == (other, "forfeit")
    assert "超过 20 分钟" in cli("rulesets", "show", "union-tractor").out


def test_past_the_last_rung_the_referee_is_told_to_rule(cli, tmp_path):
    ruleset = tmp_path / "r.toml"
    ruleset.write_text('name = "short"\n[clock]\nlate = [{ up_to = 5, action = "warning" }]\n',
                       encoding="utf-8")
    assert cli("event", "create", "--id", "s", "--name", "赛", "--ruleset", ruleset).code == 0
    teams = [["队号", "队名"], ["A1", "一"], ["A2", "二"]]
    assert cli("ingest", "--event", "s", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("pair", "--event", "s").code == 0
    run = cli("late", "--event", "s", "--round", "1", "A1", "--minutes", "30")
    assert run.code == 0 and "请裁判裁定" in run.out and "referee must rule" in run.out


# 4. a round lost by ruling is one result -----------------------------------------------

FOULS = ["轮次", "队号", "犯规次数"]


@pytest.mark.parametrize("preset", ["taihu-elite", "jinling-2023-pairs"])
def test_a_round_lost_by_ruling_agrees_on_every_key(cli, tmp_path, preset):
    """Taihu: "一方犯规满3次判负"; jinling: "三次违例判负". A1 leads A2 10–6 at the table but
    is ruled to lose. By the table's levels (ruled_loss = "table"): A2 wins by 4, net +4,
    credited the higher level 10; A1 loses by 4, net −4, 6. A3 beats A4 9–8 at the table.
    Ranking: A2 (win by 4), A3 (win by 1), A4 (loss by 1), A1 (loss by 4)."""
    assert cli("event", "create", "--id", "r", "--name", "赛", "--ruleset", preset).code == 0
    teams = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 5)]
    assert cli("ingest", "--event", "r", write_csv(tmp_path / "e.csv", teams)).code == 0
    header = ["轮次", "队号", "犯规次数"] if preset == "taihu-elite" else ["轮次", "队号", "违例次数"]
    assert cli("ingest", "--event", "r", write_csv(tmp_path / "f.csv", [
        header, [1, "A1", 3]])).code == 0
    rows = [RESULT_HEADER + (["先到方"] if preset == "taihu-elite" else []),
            [1, 1, "A1", "A2", "10", "6"] + ([""] if preset == "taihu-elite" else []),
            [1, 2, "A3", "A4", "9", "8"] + ([""] if preset == "taihu-elite" else [])]
    run = cli("ingest", "--event", "r", write_csv(tmp_path / "r.csv", rows))
    assert run.code == 0, run.err
    ranking = read_csv_output(cli("standings", "--event", "r", "--format", "csv").out)
    assert [r["team_no"] for r in ranking] == ["A2", "A3", "A4", "A1"]
    by_team = {r["team_no"]: r for r in ranking}
    assert (by_team["A1"]["net_levels"], by_team["A2"]["net_levels"]) == ("-4", "4")
    assert (by_team["A1"]["losses"], by_team["A2"]["wins"]) == ("1", "1")
    if preset == "jinling-2023-pairs":
        assert (by_team["A2"]["level_diff_score"], by_team["A1"]["level_diff_score"]) == \
            ("17", "9")


def test_a_second_ruled_loss_suspends_a_team(cli, tmp_path):
    """Seed 001: "兩次判負要判停賽": after a second ruled loss, standings say so."""
    assert cli("event", "create", "--id", "j", "--name", "赛", "--ruleset",
               "jinling-2023-pairs").code == 0
    teams = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 5)]
    assert cli("ingest", "--event", "j", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("ingest", "--event", "j", write_csv(tmp_path / "f.csv", [
        ["轮次", "队号", "违例次数"], [1, "A1", 3], [2, "A1", 3]])).code == 0
    rows = [RESULT_HEADER, [1, 1, "A1", "A2", "10", "6"], [1, 2, "A3", "A4", "9", "8"],
            [2, 1, "A1", "A3", "10", "6"], [2, 2, "A2", "A4", "9", "8"]]
    assert cli("ingest", "--event", "j", "--force", write_csv(tmp_path / "r.csv", rows)
               ).code == 0
    run = cli("standings", "--event", "j")
    assert "A1 已被判负 2 轮" in run.err and "停赛" in run.err


# 8. a penalty on a total the ranking does not read ----------------------------------------

def test_hengquan_refuses_a_penalty_on_points_it_does_not_rank_by(cli, tmp_path):
    assert cli("event", "create", "--id", "h", "--name", "恒全", "--ruleset",
               "hengquan-2025-guandan").code == 0
    teams = [["队号", "队名"], ["A1", "一"], ["A2", "二"]]
    assert cli("ingest", "--event", "h", write_csv(tmp_path / "e.csv", teams)).code == 0
    sheet = [["轮次", "队号", "扣分项目", "扣分", "原因"], [1, "A1", "积分", 2, "迟到"]]
    run = cli("ingest", "--event", "h", write_csv(tmp_path / "p.csv", sheet))
    assert run.code == 2 and "不看" in run.err
    sheet[1][2] = "升级数"
    assert cli("ingest", "--event", "h", write_csv(tmp_path / "p2.csv", sheet)).code == 0


@pytest.mark.parametrize(("preset", "words"), [
    ("suzhou-2025", "2+3 = 5 级"), ("hengquan-2025-guandan", "level_points"),
    ("jinling-2023-pairs", "級差為1 2…"), ("jinling-2023-team", "兩次判負要判停賽"),
    ("hengquan-2025-tractor", "A 是否必打"), ("union-tractor", "A 是否必打"),
    ("hengquan-2025-tractor", "多次警告無效"), ("taihu-elite", "ruled_loss"),
])
def test_each_preset_states_its_readings(cli, preset, words):
    assert words in cli("rulesets", "show", preset).out
