"""The arbiter's acceptance check of issue 50 (findings A–I): each expected value worked by
hand from the notices' words and docs/rules/general.md, never from the code's output."""

from __future__ import annotations

from tests.conftest import bracket_json, read_csv_output, two_tractor_teams, write_csv
from tests.test_notices_fifth import _equal_semi_losers


def _units(cli, meet: str) -> dict[str, int]:
    run = cli("meet", "standings", meet, "--format", "csv")
    assert run.code == 0, run.err
    return {r["affiliation"]: int(r["placement_points"]) for r in read_csv_output(run.out)}


def _finalists(cli) -> tuple[str, str]:
    (final,) = [m for s in bracket_json(cli, "tr")["stages"] if s["name"] == "决赛"
                for m in s["matches"]]
    loser = final["team_b"] if final["winner"] == final["team_a"] else final["team_a"]
    return final["winner"], loser


def _unit(team: str) -> str:
    return f"会{team[1:]}"


# A. a decided prize switched to the other team ---------------------------------------------

def test_a_decided_prize_can_be_given_to_the_other_team(cli, tmp_path, db_file):
    """Two semi-final losers equal on the whole group record, one 三等奖 (seed 000, under 20
    entries). The lot is entered for the higher number, then corrected to the lower one —
    the team that stands first by team number, which used to end in a traceback. Deciding
    again replaces the earlier decision, says so, and the log keeps both."""
    losers, _ = _equal_semi_losers(cli, tmp_path, "hengquan-2025-tractor")
    low, high = losers
    first = cli("awards", "decide", "--event", "tr", "--rank", "3", "--team", high, "--by", "lot")
    assert first.code == 0, first.err
    again = cli("awards", "decide", "--event", "tr", "--rank", "3", "--team", low,
                "--by", "playoff")
    assert again.code == 0, again.err
    assert "内部错误" not in again.err and f"原录入的 {high}" in again.err
    prizes = read_csv_output(cli("awards", "--event", "tr", "--format", "csv").out)
    assert [(p["award"], p["team_no"]) for p in prizes][2:] == [("三等奖", low)]
    assert "加赛决定" in prizes[2]["note"]
    log = cli("log", "--event", "tr").out
    assert f"place 3 to {high} by lot" in log
    assert f"place 3 to {low} by playoff, replacing {high} by lot" in log
    # and back again: still no traceback, the first team takes the prize
    back = cli("awards", "decide", "--event", "tr", "--rank", "3", "--team", high, "--by", "lot")
    assert back.code == 0, back.err
    prizes = read_csv_output(cli("awards", "--event", "tr", "--format", "csv").out)
    assert [(p["award"], p["team_no"]) for p in prizes][2:] == [("三等奖", high)]


# B. a meet follows the prize decision -------------------------------------------------------

def test_a_meet_waits_for_the_play_off_then_follows_it(cli, tmp_path):
    """Placement points 18, 14, 12, 10, 8, 6 (places 1–6). Six teams, every group record
    1 point, 0 games, 0 levels. Champion 18, runner-up 14. The two semi-final losers contend
    for one 三等奖 with nothing separating them: before the organizer's decision neither
    gets 12 or 10 (待定, said on stderr); the two group-stage losers share 5th, 8 each (C:
    not 8 and 6 by team number). After a lot for the higher number: it gets 12, the lower 10."""
    losers, _ = _equal_semi_losers(cli, tmp_path, "hengquan-2025-tractor")
    champion, runner_up = _finalists(cli)
    assert cli("meet", "create", "--id", "m", "--name", "运动会").code == 0
    assert cli("meet", "add", "m", "tr", "--placement-points", "18,14,12,10,8,6").code == 0
    out = {f"T{i}" for i in range(1, 7)} - {champion, runner_up, *losers}
    run = cli("meet", "standings", "m", "--format", "csv")
    assert "待" in run.err and all(t in run.err for t in losers)
    units = _units(cli, "m")
    assert units[_unit(champion)] == 18 and units[_unit(runner_up)] == 14
    assert all(units.get(_unit(t), 0) == 0 for t in losers)
    assert {units[_unit(t)] for t in out} == {8}
    assert cli("awards", "decide", "--event", "tr", "--rank", "3", "--team", losers[1],
               "--by", "lot").code == 0
    units = _units(cli, "m")
    assert units[_unit(losers[1])] == 12 and units[_unit(losers[0])] == 10
    assert "待" not in cli("meet", "standings", "m").err


def test_a_meet_under_shared_gives_each_the_shared_place_s_points(cli, tmp_path):
    """`awards.equal_split = "shared"`: both semi-final losers take the 三等奖, and in the meet
    each takes place 3's points (12), as stated in the preset and `meet add --help`."""
    from pipeline.base.ruleset import load_preset

    text = load_preset("hengquan-2025-tractor").source.replace(
        'equal_split = "organizer"', 'equal_split = "shared"')
    custom = tmp_path / "shared.toml"
    custom.write_text(text, encoding="utf-8")
    losers, _ = _equal_semi_losers(cli, tmp_path, str(custom))
    assert cli("meet", "create", "--id", "m", "--name", "运动会").code == 0
    assert cli("meet", "add", "m", "tr", "--placement-points", "18,14,12,10,8,6").code == 0
    units = _units(cli, "m")
    assert [units[_unit(t)] for t in losers] == [12, 12]
    assert "待" not in cli("meet", "standings", "m").err


def test_an_event_without_results_gives_no_placement_points(cli, tmp_path):
    """A Tractor event drawn but not played, added to a meet with points 9, 7, 5: nobody has
    placed, so no unit gets any (before: 9, 7, 5 to T1, T2, T3 by team number)."""
    assert cli("event", "create", "--id", "tr", "--name", "拖拉机", "--ruleset",
               "hengquan-2025-tractor").code == 0
    teams = [["队号", "队名", "单位"]] + [[f"T{i}", f"队{i}", f"会{i}"] for i in range(1, 4)]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
               "--seed", "1").code == 0
    assert cli("meet", "create", "--id", "m", "--name", "运动会").code == 0
    assert cli("meet", "add", "m", "tr", "--placement-points", "9,7,5").code == 0
    run = cli("meet", "standings", "m", "--format", "csv")
    assert run.code == 0 and "还没有成绩" in run.err
    assert all(int(r["placement_points"]) == 0 for r in read_csv_output(run.out))


# C. equal teams shown as equal ---------------------------------------------------------------

def test_equal_group_records_share_a_place_in_the_standings(cli, tmp_path):
    """The two teams out in the group stage (one of each group), both 1 point, 0 games,
    0 levels: places 1 champion, 2 runner-up, 3 and 3 the semi-final losers, then both 5th
    (never 5th and 6th by team number)."""
    losers, _ = _equal_semi_losers(cli, tmp_path, "hengquan-2025-tractor")
    champion, runner_up = _finalists(cli)
    out = {f"T{i}" for i in range(1, 7)} - {champion, runner_up, *losers}
    ranks = {r["team_no"]: int(r["rank"]) for r in read_csv_output(
        cli("standings", "--event", "tr", "--format", "csv").out)}
    assert ranks[champion] == 1 and ranks[runner_up] == 2
    assert [ranks[t] for t in losers] == [3, 3]
    assert [ranks[t] for t in sorted(out)] == [5, 5]


# F. an unplayed win rounds down ---------------------------------------------------------------

def test_a_bye_never_outscores_the_average_it_stands_for(cli, tmp_path):
    """Seed 000 "打到几则积多少分"; a bye scores the round's played winners' average
    (scoring.unplayed_win = "round_winners_average"), rounded DOWN. Five teams, round 1 by
    team number: H1–H2, H3–H4, H5 the bye. H1 beats H2 K (13) to 8, H3 beats H4 Q (12) to 5.
    (13 + 12) / 2 = 12.5 → 12 (half up would give 13, as much as the best game won). H5: 12
    level points with the bye's level difference 3; H3: 12 with 12 − 5 = 7: on equal points
    (they never met) the net levels put H3, who won with Q, above the bye."""
    assert cli("event", "create", "--id", "h", "--name", "恒全", "--ruleset",
               "hengquan-2025-guandan").code == 0
    teams = [["队号", "队名"]] + [[f"H{i}", f"队{i}"] for i in range(1, 6)]
    assert cli("ingest", "--event", "h", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("pair", "--event", "h").code == 0
    header = ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"]
    rows = [header, [1, 1, "H1", "H2", "K", "8"], [1, 2, "H3", "H4", "Q", "5"]]
    run = cli("ingest", "--event", "h", write_csv(tmp_path / "r.csv", rows))
    assert run.code == 0, run.err
    ranking = read_csv_output(cli("standings", "--event", "h", "--format", "csv").out)
    assert {r["team_no"]: r["level_points"] for r in ranking} == {
        "H1": "13", "H3": "12", "H5": "12", "H2": "8", "H4": "5"}
    assert [r["team_no"] for r in ranking][:3] == ["H1", "H3", "H5"]


# D. a clock decision is no game ------------------------------------------------------------------

MATCH_SHEET = ["阶段", "场次", "局", "甲方", "乙方", "甲方级数", "乙方级数", "到时领先方"]
DEAL_SHEET = ["阶段", "场次", "局", "盘", "庄家", "得分"]


def test_a_clock_decision_is_counted_as_a_decision_not_a_game(cli, tmp_path):
    """Seed 000 "1.5小時結束時領先隊獲勝": three teams in one group; T1–T2 plays game 1 (过A
    against 9) and T1 leads when the clock ends game 2 (one 到时领先方 row, no game); T1–T3
    plays two games. The sheet holds 3 games and 1 decision: the summary says so (before:
    games new 4)."""
    assert cli("event", "create", "--id", "tr", "--name", "tr", "--ruleset",
               "hengquan-2025-tractor").code == 0
    teams = [["队号", "队名"], ["T1", "一队"], ["T2", "二队"], ["T3", "三队"]]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
               "--seed", "1").code == 0
    (group,) = bracket_json(cli, "tr")["stages"]
    rows = []
    for m in group["matches"]:
        a, b = m["team_a"], m["team_b"]
        if {a, b} == {"T1", "T2"}:
            rows += [[group["name"], m["match"], 1, a, b, *(("过A", "9") if a == "T1"
                                                          else ("9", "过A")), ""],
                     [group["name"], m["match"], "", a, b, "", "", "T1"]]
        elif {a, b} == {"T1", "T3"}:
            rows += [[group["name"], m["match"], g, a, b, *(("过A", "5") if a == "T1"
                                                          else ("5", "过A")), ""]
                     for g in (1, 2)]
    run = cli("ingest", "--event", "tr", write_csv(tmp_path / "m.csv", [MATCH_SHEET, *rows]))
    assert run.code == 0, run.err
    assert "拖拉机对局 games 新增 new 3," in run.out
    assert "拖拉机判定 decisions" in run.out and "新增 new 1," in run.out.split("拖拉机判定")[1]


# E. a corrected deal sheet whose levels stay -------------------------------------------------------

def _deal_points(db_file) -> list[int]:
    import duckdb

    with duckdb.connect(str(db_file), read_only=True) as con:
        return [p for p, in con.execute("select points from tractor_deals order by deal")
                .fetchall()]


def test_a_corrected_deal_sheet_says_it_replaced_the_game(cli, tmp_path, db_file):
    """Seed 002 (3 decks, 120 to take over, a level per 40, from 2): T1 declares three deals,
    the defenders take 0, 0 and then 310 (抠底: 250 and the bottom's 30 doubled). 310 and a
    corrected 300 both give T2 floor((p − 120) / 40) = 4 levels: the game stays 10 : 6 but
    its third deal changed — 更正 replaced 1, never 未变 unchanged. The first sheet sent again
    puts 310 back: again a correction, not "the same file, nothing changed"."""
    stage, a, b = two_tractor_teams(cli, tmp_path, "u", "union-tractor")

    def sheet(name: str, third: int):
        return write_csv(tmp_path / name, [DEAL_SHEET, [stage, 1, 1, 1, "T1", 0],
                                           [stage, 1, 1, 2, "T1", 0],
                                           [stage, 1, 1, 3, "T1", third]])

    first = cli("ingest", "--event", "u", sheet("d1.csv", 310))
    assert first.code == 0 and "新增 new 1, 更正 replaced 0" in first.out, first.out
    second = cli("ingest", "--event", "u", sheet("d2.csv", 300))
    assert second.code == 0 and "新增 new 0, 更正 replaced 1, 未变 unchanged 0" in second.out
    assert _deal_points(db_file) == [0, 0, 300]
    again = cli("ingest", "--event", "u", tmp_path / "d1.csv")
    assert again.code == 0 and "同一文件已经收到过" not in again.out
    assert "更正 replaced 1" in again.out
    assert _deal_points(db_file) == [0, 0, 310]
    same = cli("ingest", "--event", "u", tmp_path / "d1.csv")
    assert "同一文件已经收到过" in same.out  # now true: nothing changed
    (match,) = bracket_json(cli, "u")["stages"][0]["matches"]
    assert sorted(match["games"][0]) == [6, 10]


# G. vp_table = [0] is no table -----------------------------------------------------------------------

def test_rulesets_show_says_no_victory_point_table_is_set(cli):
    """`vp_table = [0]` means no victory points (a one-entry table [0] reads like one): shown
    as unset like `absent`, and the text read back is the same ruleset. Seed 000's Guandan
    preset scores levels, not victory points."""
    import dataclasses

    from pipeline.base.ruleset import load_preset, parse_ruleset

    shown = cli("rulesets", "show", "hengquan-2025-guandan").out
    assert "# vp_table = (未设 unset: 不计胜利分 no victory points)  # 默认 default" in shown
    assert "\nvp_table = " not in shown
    again = parse_ruleset(shown, "hengquan-2025-guandan")
    assert again.scoring["vp_table"] == [0]
    assert {k: v for k, v in dataclasses.asdict(again).items() if k != "source"} == \
        {k: v for k, v in dataclasses.asdict(load_preset("hengquan-2025-guandan")).items()
         if k != "source"}


# I. the zero-point bye named on the printout -------------------------------------------------------

def test_the_pairing_printout_names_the_requested_zero_point_bye(cli, tmp_path):
    """Seed 004 (suzhou-2025): A6 asks for a zero-point bye in round 1 (`pair --bye A6=0`);
    five teams are left, so one of them gets the pairing's ordinary bye. The organizer's
    list and the printed table list say which is which: A6 零分轮空, the other 轮空 bye."""
    assert cli("event", "create", "--id", "s", "--name", "苏州", "--ruleset",
               "suzhou-2025").code == 0
    rows = [["队号", "队名"]] + [[f"A{i}", f"队{i}"] for i in range(1, 7)]
    assert cli("ingest", "--event", "s", write_csv(tmp_path / "e.csv", rows)).code == 0
    run = cli("pair", "--event", "s", "--bye", "A6=0")
    assert run.code == 0, run.err
    byes = [line for line in run.out.splitlines() if "轮空" in line]
    assert len(byes) == 2
    (zero,) = [line for line in byes if "零分轮空" in line]
    assert "A6" in zero
    (other,) = [line for line in byes if "零分" not in line]
    assert "A6" not in other and "轮空 bye" in other
    printed = tmp_path / "p.html"
    assert cli("export", "pairings", "--event", "s", "--round", "1", "--out", printed).code == 0
    page = printed.read_text(encoding="utf-8")
    # the table list's row, and the seat index's two (found by team number and by name)
    assert page.count("零分轮空") == 3


# H. a Tractor event's own columns, a sensible title, notes that do not run off the page -----

GAMES = ["阶段", "场次", "局", "甲方", "乙方", "甲方级数", "乙方级数"]


def test_tractor_standings_and_phone_page_show_the_group_record(cli, tmp_path, db_file,
                                                                monkeypatch):
    """Seed 000: T1 beats T2 in the group, 2–0, each game 过A (15) against 5. By hand: T1
    1 point (a win is 1), games 2 − 0 = +2, levels (15 − 5) × 2 = +20; T2 0, −2, −20. The
    table view and the phone page show points, game and level difference, not Guandan's
    级差分 and 升级数; the phone page's title speaks of places, not "第 0 轮后排名"."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dashboard.hall import cache, routes

    stage, a, b = two_tractor_teams(cli, tmp_path, "tr", "hengquan-2025-tractor")
    rows = [[stage, 1, g, a, b, *(("过A", "5") if a == "T1" else ("5", "过A"))] for g in (1, 2)]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "g.csv", [GAMES, *rows])
               ).code == 0
    shown = cli("standings", "--event", "tr").out
    header = shown.splitlines()[1]
    assert "净胜局" in header and "级差" in header
    assert "级差分" not in header and "升级数" not in header
    got = {r["team_no"]: (r["rank"], r["match_points"], r["game_diff"], r["level_diff"])
           for r in read_csv_output(cli("standings", "--event", "tr", "--format", "csv").out)}
    assert got == {"T1": ("1", "1", "2", "20"), "T2": ("2", "0", "-2", "-20")}
    cache.forget_versions()
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    with TestClient(Starlette(routes=routes())) as client:
        page = client.get("/m/tr/").text
        english = client.get("/m/tr/?lang=en").text
    assert "第 0 轮后排名" not in page and "名次" in page
    assert "净胜局" in page and "<th>级差分</th>" not in page
    assert '<td class="n">20</td>' in page
    assert "Ranking after round 0" not in english and "Game diff." in english


def test_the_awards_notes_go_below_the_table(cli, tmp_path):
    """The prize list's long 备注 (the play-off or lot still to come) made lines ~300
    columns wide: as a table each note is numbered (注 1) and written below it, no line
    wider than 100 columns; CSV keeps the note whole."""
    _equal_semi_losers(cli, tmp_path, "hengquan-2025-tractor")
    shown = cli("awards", "--event", "tr").out
    from pipeline.base.output import display_width

    assert max(display_width(line) for line in shown.splitlines()) <= 100
    assert "注 1" in shown and "加赛或抽签" in shown
    prizes = read_csv_output(cli("awards", "--event", "tr", "--format", "csv").out)
    assert "加赛或抽签" in prizes[2]["note"]


def test_a_swiss_event_without_results_gives_no_placement_points_either(cli, tmp_path):
    """The same for a Swiss event registered and paired but not played: points 9, 7, 5 go
    to nobody (before: to A1, A2, A3 in team order)."""
    assert cli("event", "create", "--id", "s", "--name", "苏州", "--ruleset",
               "suzhou-2025").code == 0
    rows = [["队号", "队名", "单位"]] + [[f"A{i}", f"队{i}", f"会{i}"] for i in range(1, 5)]
    assert cli("ingest", "--event", "s", write_csv(tmp_path / "e.csv", rows)).code == 0
    assert cli("pair", "--event", "s").code == 0
    assert cli("meet", "create", "--id", "m", "--name", "运动会").code == 0
    assert cli("meet", "add", "m", "s", "--placement-points", "9,7,5").code == 0
    run = cli("meet", "standings", "m", "--format", "csv")
    assert run.code == 0 and "s 还没有成绩" in run.err
    assert all(int(r["placement_points"]) == 0 for r in read_csv_output(run.out))
