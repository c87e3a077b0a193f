"""Ranking rules as organizers write them (issue 18): head-to-head variants, fractional and
absent points, the added tiebreak keys, carried-over totals, and every ranking explained.
Expected values worked by hand from the rules as each test states them."""

from __future__ import annotations

import json
import random
import shutil

import pytest
from conftest import RESULT_HEADER, read_csv_output, write_csv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.base import db, events
from pipeline.ranking.explain import explain, key_slices

OTHER_TOOL = """name = "other-tool"
description = "win 3, draw 2, loss 1"
[scoring]
win = 3
draw = 2
loss = 1
[ranking]
keys = ["match_points", "head_to_head", "net_levels", "team_no"]
pairing_keys = ["match_points", "net_levels", "team_no"]
[ranking.head_to_head]
{h2h}
"""

# X lost to Y; Z met neither. All three end on 4 points (3/2/1):
#   X: L 8–9 (1), W K–5 (3): net −1 + 8 = +7
#   Y: W 9–8 (3), L 8–10 (1): net +1 − 2 = −1
#   Z: W A–5 (3), L 9–10 (1): net +9 − 1 = +8
TIED_THREE = [
    [1, 1, "X", "Y", "8", "9"], [1, 2, "Z", "F3", "A", "5"], [1, 3, "F1", "F2", "9", "9"],
    [1, 4, "F4", "F5", "10", "8"],
    [2, 1, "X", "F1", "K", "5"], [2, 2, "Y", "F2", "8", "10"], [2, 3, "Z", "F4", "9", "10"],
    [2, 4, "F3", "F5", "7", "7"],
]


def _event(cli, tmp_path, ruleset_text: str, teams: list[str], results: list[list],
           header=RESULT_HEADER, event_id="t"):
    ruleset = tmp_path / f"{event_id}.toml"
    ruleset.write_text(ruleset_text, encoding="utf-8")
    assert cli("event", "create", "--id", event_id, "--name", "赛", "--ruleset",
               ruleset).code == 0
    assert cli("ingest", "--event", event_id, write_csv(
        tmp_path / f"{event_id}-e.csv", [["队号", "队名"], *[[t, t] for t in teams]])).code == 0
    run = cli("ingest", "--event", event_id, write_csv(tmp_path / f"{event_id}-r.csv",
                                                       [header, *results]))
    assert run.code == 0, run.err


def _order(cli, event_id="t") -> list[str]:
    rows = read_csv_output(cli("standings", "--event", event_id, "--format", "csv").out)
    return [r["team_no"] for r in rows]


@pytest.mark.parametrize(("h2h", "order"), [
    # today's reading: the match points of the games among the tied: Y 3, X 1 (a loss is
    # worth 1 here), Z 0
    ('applies = "mini_league"', ["Y", "X", "Z"]),
    # wins only: Y 1, X 0, Z 0; X and Z then by net levels, Z +8 before X +7
    ('applies = "mini_league"\ncounts = "wins"', ["Y", "Z", "X"]),
    # the other tool's rule: only two tied teams that met; three are tied: net levels
    ('applies = "two_teams"', ["Z", "X", "Y"]),
    # FIDE: only when every tied team met every other; Z met neither: net levels
    ('applies = "all_met"', ["Z", "X", "Y"]),
])
def test_head_to_head_modes_on_a_three_team_tie(cli, tmp_path, h2h, order):
    teams = ["X", "Y", "Z", "F1", "F2", "F3", "F4", "F5"]
    _event(cli, tmp_path, OTHER_TOOL.format(h2h=h2h), teams, TIED_THREE)
    ranked = _order(cli)
    assert [t for t in ranked if t in "XYZ"] == order
    # F4 6 and F2 5 points lead; the three tied on 4 follow
    assert ranked[:2] == ["F4", "F2"] and ranked[2:5] == order


def test_two_tied_teams_that_met(cli, tmp_path):
    """"head-to-head only when exactly two teams are tied and one beat the other": Q beat P,
    though P has the better net levels (P −1 + 8 = +7, Q +1 − 8 = −7); both on 4 (3/2/1)."""
    rows = [[1, 1, "P", "Q", "8", "9"], [1, 2, "R", "S", "9", "9"],
            [2, 1, "P", "R", "K", "5"], [2, 2, "Q", "S", "5", "K"]]
    _event(cli, tmp_path, OTHER_TOOL.format(h2h='applies = "two_teams"'), list("PQRS"), rows)
    assert _order(cli) == ["S", "Q", "P", "R"]


REAPPLY = """name = "reapply"
description = "2/1/0, head-to-head by wins"
[scoring]
win = 2
draw = 1
loss = 0
[ranking]
keys = ["match_points", "head_to_head", "net_levels", "team_no"]
pairing_keys = ["match_points", "net_levels", "team_no"]
[ranking.head_to_head]
counts = "wins"
reapply = {reapply}
"""

# A, B, C, D each win twice (4 points); O1 and O4 win three times (6), O2 and O3 once (2).
# Among A–D: A beat B, C beat D (round 1), C beat A, B beat D (round 2).
# Net levels: A +1 −2 +1 −2 = −2; B −1 +8 +8 −1 = +14; C +2 +2 −2 −2 = 0; D −2 −8 +1 +2 = −7;
# O1 +2 +2 −1 +1 = +4; O4 +2 +2 −1 +2 = +5; O2 −2 −2 −8 +2 = −10; O3 −2 −2 +2 −2 = −4.
FOUR_TIED = [
    [1, 1, "A", "B", "9", "8"], [1, 2, "C", "D", "10", "8"], [1, 3, "O1", "O2", "10", "8"],
    [1, 4, "O3", "O4", "8", "10"],
    [2, 1, "C", "A", "10", "8"], [2, 2, "B", "D", "K", "5"], [2, 3, "O1", "O3", "10", "8"],
    [2, 4, "O2", "O4", "8", "10"],
    [3, 1, "A", "O1", "9", "8"], [3, 2, "B", "O2", "K", "5"], [3, 3, "C", "O3", "8", "10"],
    [3, 4, "D", "O4", "9", "8"],
    [4, 1, "A", "O2", "8", "10"], [4, 2, "B", "O1", "9", "10"], [4, 3, "C", "O4", "8", "10"],
    [4, 4, "D", "O3", "10", "8"],
]


@pytest.mark.parametrize(("reapply", "middle"), [
    # wins among the four tied: C 2, A 1, B 1, D 0; A and B stay tied: net levels, B +14
    ("false", ["C", "B", "A", "D"]),
    # reapplied to {A, B} alone: A beat B
    ("true", ["C", "A", "B", "D"]),
])
def test_reapply_separates_a_sub_group_still_tied(cli, tmp_path, reapply, middle):
    teams = ["A", "B", "C", "D", "O1", "O2", "O3", "O4"]
    _event(cli, tmp_path, REAPPLY.format(reapply=reapply), teams, FOUR_TIED)
    # O4 and O1 on 6 never met: net levels, O4 +5 before O1 +4; O3 −4 before O2 −10
    assert _order(cli) == ["O4", "O1", *middle, "O3", "O2"]


FRACTIONS = """name = "halves"
description = "win 1, draw 0.5, loss 0, absent −1; then opponents' points; then wins"
[scoring]
win = 1
draw = 0.5
loss = 0
absent = -1
[ranking]
keys = ["match_points", "buchholz", "wins", "levels_gained", "buchholz_cut1",
        "median_buchholz", "sonneborn_berger", "opponents_level_diff", "progressive",
        "games_won", "lot", "team_no"]
pairing_keys = ["match_points", "team_no"]
"""


def test_fractional_points_absent_and_every_added_key(cli, tmp_path):
    """R1: A beats B 10–8; D does not show against C (C wins by forfeit, D gets −1).
    R2: A and C draw 9–9; B beats D Q–6."""
    rows = [[1, 1, "A", "B", "10", "8", ""], [1, 2, "C", "D", "", "", "南北"],
            [2, 1, "A", "C", "9", "9", ""], [2, 2, "B", "D", "Q", "6", ""]]
    _event(cli, tmp_path, FRACTIONS, list("ABCD"), rows, header=[*RESULT_HEADER, "弃权"])
    run = cli("standings", "--event", "t", "--format", "csv")
    rows = {r["team_no"]: r for r in read_csv_output(run.out)}
    columns = list(next(iter(rows.values())))
    assert columns[11:-1] == ["buchholz", "levels_gained", "buchholz_cut1", "median_buchholz",
                              "sonneborn_berger", "opponents_level_diff", "progressive",
                              "games_won", "lot"]  # one column per key, in the ruleset's order
    # points: A 1 + 0.5, C 1 + 0.5, B 0 + 1, D −1 + 0
    assert {t: r["match_points"] for t, r in rows.items()} == {
        "A": "1.5", "C": "1.5", "B": "1", "D": "-1"}
    # Buchholz: A meets B (1) and C (1.5) = 2.5; C meets D (−1) and A (1.5) = 0.5
    assert (rows["A"]["buchholz"], rows["C"]["buchholz"]) == ("2.5", "0.5")
    assert [r["team_no"] for r in read_csv_output(run.out)] == ["A", "C", "B", "D"]
    a, c = rows["A"], rows["C"]
    assert a["levels_gained"] == "15"  # (10 − 2) + (9 − 2)
    assert c["levels_gained"] == "10"  # a forfeit win at 2 + 3, then 9: 3 + 7
    assert a["buchholz_cut1"] == "1.5" and a["median_buchholz"] == "0"  # two opponents only
    assert a["sonneborn_berger"] == "1.75"  # beat B (1) + half of C (1.5)
    assert c["sonneborn_berger"] == "-0.25"  # beat D (−1) + half of A (1.5)
    # level-difference scores: B 11 + 19 = 30, C 16 + 13 = 29 → A's opponents 59
    assert a["opponents_level_diff"] == "59"
    assert (a["progressive"], rows["B"]["progressive"], rows["D"]["progressive"]) == \
        ("2.5", "1", "-2")  # running totals 1, 1.5 / 0, 1 / −1, −1
    assert (a["games_won"], c["games_won"], rows["D"]["games_won"]) == ("1", "1", "0")
    shown = cli("standings", "--event", "t")
    assert "抽签种子 lot seed:" in shown.out
    listed = json.loads(cli("standings", "--event", "t", "--format", "json").out)
    assert listed[0]["match_points"] == 1.5


def test_lot_breaks_a_tie_no_key_can_and_is_stored(cli, tmp_path):
    ruleset = FRACTIONS.replace('"games_won", "lot", "team_no"]', '"lot"]')
    rows = [[1, 1, "A", "B", "9", "9", ""], [1, 2, "C", "D", "9", "9", ""]]
    _event(cli, tmp_path, ruleset, list("ABCD"), rows, header=[*RESULT_HEADER, "弃权"])
    first = _order(cli)
    assert first == _order(cli) and len(set(
        r["rank"] for r in read_csv_output(cli("standings", "--event", "t", "--format",
                                               "csv").out))) == 4


def test_carried_over_points_from_an_event_and_from_a_sheet(cli, tmp_path):
    rows = [[1, 1, "A", "B", "10", "8"], [1, 2, "C", "D", "K", "5"]]
    _event(cli, tmp_path, OTHER_TOOL.format(h2h=""), list("ABCD"), rows, event_id="q")
    # qualifying: C 3 (+8), A 3 (+2), B 1, D 1 → the final takes the top two
    run = cli("event", "create", "--id", "f", "--name", "决赛", "--ruleset", "suzhou-2025",
              "--carry-from", "q", "--top", "2")
    assert run.code == 0 and "带入 2 队" in run.out
    rows = read_csv_output(cli("standings", "--event", "f", "--format", "csv").out)
    assert [(r["team_no"], r["match_points"], r["carried_points"]) for r in rows] == [
        ("C", "3", "3"), ("A", "3", "3")]
    # another tool's final table: 当前积分, 净积小分, 累积小分 — never an entries sheet
    assert cli("event", "create", "--id", "g", "--name", "接续", "--ruleset",
               "suzhou-2025").code == 0
    assert cli("ingest", "--event", "g", write_csv(tmp_path / "g.csv", [
        ["队号", "队名"], ["A1", "甲"], ["A2", "乙"]])).code == 0
    sheet = write_csv(tmp_path / "final.csv", [["队号", "队名", "当前积分", "净积小分", "累积小分"],
                                              ["A1", "甲", "6", "5", "20"],
                                              ["A2", "乙", "9", "-5", "11"]])
    run = cli("ingest", "--event", "g", sheet)
    assert run.code == 0 and "带入成绩" in run.out, run.out + run.err
    rows = read_csv_output(cli("standings", "--event", "g", "--format", "csv").out)
    assert [(r["team_no"], r["match_points"], r["net_levels"]) for r in rows] == [
        ("A2", "9", "-5"), ("A1", "6", "5")]


def test_explain_names_the_deciding_key_and_the_games(cli, tmp_path):
    teams = ["X", "Y", "Z", "F1", "F2", "F3", "F4", "F5"]
    _event(cli, tmp_path, OTHER_TOOL.format(h2h='applies = "mini_league"'), teams, TIED_THREE)
    result = json.loads(cli("explain", "--event", "t", "Y", "X", "--format", "json").out)
    assert result["decided_by"] == "head_to_head"
    assert result["values"][0] == {"key": "match_points", "Y": 4, "X": 4}
    assert result["values"][1] == {"key": "head_to_head", "Y": 3, "X": 1}
    assert {(g["team_no"], g["opponent"], g["round"]) for g in result["games"]} == {
        ("X", "Y", 1), ("Y", "X", 1)}
    shown = cli("explain", "--event", "t", "F4", "X").out
    assert "match_points" in shown and "决定名次" in shown


@pytest.fixture(scope="module")
def six_teams(tmp_path_factory):
    """Event p (hengquan-2025-guandan) with H1..H6 registered: made once, copied for each
    example of the property."""
    from pipeline.intake.ingest import ingest_rows

    database = tmp_path_factory.mktemp("six") / "p.duckdb"
    with db.writing(database) as con:
        events.create(con, "p", "p", "hengquan-2025-guandan", None)
    ingest_rows(database, "p", "entries", [{"team_no": f"H{i}"} for i in range(1, 7)], "t", "t")
    return database


def _random_event(database, rng: random.Random, six_teams) -> events.Event:
    from pipeline.intake.ingest import ingest_rows

    shutil.copyfile(six_teams, database)
    with db.reading(database) as con:
        event = events.load(con, "p")
    rows = []
    for round_no in (1, 2, 3):
        teams = [f"H{i}" for i in range(1, 7)]
        rng.shuffle(teams)
        for table in range(3):
            ew, ns = teams[2 * table], teams[2 * table + 1]
            rows.append({"round": round_no, "table": table + 1, "ew_team": ew, "ns_team": ns,
                         "ew_level": str(rng.choice([8, 9, 10])),
                         "ns_level": str(rng.choice([8, 9, 10]))})
    ingest_rows(database, "p", "results", rows, "t", "t")
    return event


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000))
def test_explain_agrees_with_the_ranking(tmp_path, six_teams, seed):
    """For every adjacent pair of ranked teams, the key explain names separates them in the
    ranking's direction and every earlier key is equal (ties: no key, a shared rank)."""
    from pipeline.ranking import scoring
    database = tmp_path / f"p{seed}.duckdb"
    if database.exists():
        database.unlink()
    event = _random_event(database, random.Random(seed), six_teams)
    with db.reading(database) as con:
        ranking = scoring.standings(con, event)
        slices = key_slices(event.ruleset.ranking["keys"])
        rows = list(ranking.iter_rows(named=True))
        for upper, lower in zip(rows, rows[1:], strict=False):
            result = explain(con, event, upper["team_no"], lower["team_no"])
            keys = [v["key"] for v in result["values"]]
            if upper["rank"] == lower["rank"]:
                assert result["decided_by"] is None
                continue
            decided = result["decided_by"]
            assert decided == keys[-1]
            for key in keys[:-1]:
                assert upper["sort_key"][slices[key]] == lower["sort_key"][slices[key]]
            assert upper["sort_key"][slices[decided]] < lower["sort_key"][slices[decided]]


def test_the_site_and_the_dashboard_say_why_a_team_sits_where_it_does(cli, tmp_path,
                                                                      monkeypatch, db_file):
    from conftest import run_page

    teams = ["X", "Y", "Z", "F1", "F2", "F3", "F4", "F5"]
    _event(cli, tmp_path, OTHER_TOOL.format(h2h='applies = "mini_league"'), teams, TIED_THREE)
    assert cli("publish", "--event", "t", "--out", tmp_path / "site").code == 0
    page = (tmp_path / "site" / "teams" / "X.html").read_text(encoding="utf-8")
    # Y, X, Z on 4 points: head-to-head Y 3, X 1, Z 0
    assert "排在 Y 之后：相互胜负 1 对 3" in page and "排在 Z 之前：相互胜负 1 对 0" in page
    at = run_page(monkeypatch, db_file, "live", event="t")
    assert not at.exception
    at.selectbox[0].select("X").run()
    assert any("排在 Y 之后" in box.value for box in at.info)
