"""Golden test: a 16-team, 3-round suzhou-2025 event (seed 004 rules).

Expected values were worked out by hand from docs/rules/general.md §3–5 (win 3 / draw 1 / loss 0,
level_diff_score 13 ± level difference, levels reached, team_no natural order; a forfeit
scores as a win by 3 levels: present side 2+3 = 5 levels, forfeiting side 2), one table at a
time, not produced by the code under test. The working is in the comments.
"""

from __future__ import annotations

from conftest import RESULT_HEADER, read_csv_output, write_csv

ROUND_1 = [  # draw order: odd numbers East-West
    [1, 1, "A1", "A2", "过A", "10"],   # A1 W d5: 3/18/15  A2 L: 0/8/10
    [1, 2, "A3", "A4", "K", "9"],      # A3 W d4: 3/17/13  A4 L: 0/9/9
    [1, 3, "A5", "A6", "8", "8"],      # draw: 1/13/8 each
    [1, 4, "A7", "A8", "6", "Q"],      # A8 W d6: 3/19/12  A7 L: 0/7/6
    [1, 5, "A9", "A10", "A", "10"],    # A9 W d4: 3/17/14  A10 L: 0/9/10
    [1, 6, "A11", "A12", "7", "J"],    # A12 W d4: 3/17/11 A11 L: 0/9/7
    [1, 7, "A13", "A14", "5", "5"],    # draw: 1/13/5 each
    [1, 8, "A15", "A16", "9", "3"],    # A15 W d6: 3/19/9  A16 L: 0/7/3
]
ROUND_2 = [
    [2, 1, "A1", "A3", "10", "J"],     # A3 W d1: 3/14/11  A1 L: 0/12/10
    [2, 2, "A8", "A9", "A", "A"],      # draw: 1/13/14 each
    [2, 3, "A12", "A15", "Q", "4"],    # A12 W d8: 3/21/12 A15 L: 0/5/4
    [2, 4, "A5", "A13", "9", "7"],     # A5 W d2: 3/15/9   A13 L: 0/11/7
    [2, 5, "A6", "A14", "6", "6"],     # draw: 1/13/6 each
    [2, 6, "A2", "A4", "K", "2"],      # A2 W d11: 3/24/13 A4 L: 0/2/2
    [2, 8, "A7", "A16", "8", "10"],    # A16 W d2: 3/15/10 A7 L: 0/11/8
]
ROUND_2_FORFEIT = [["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数", "弃权"],
                   [2, 7, "A10", "A11", "", "", "南北"]]  # A10 W d3: 3/16/5, A11: 0/10/2
ROUND_3 = [
    [3, 1, "A3", "A12", "9", "9"],     # draw: 1/13/9 each (A12 then −1 point penalty)
    [3, 2, "A9", "A2", "J", "过A"],    # A2 W d4: 3/17/15  A9 L: 0/9/11
    [3, 3, "A8", "A1", "7", "K"],      # A1 W d6: 3/19/13  A8 L: 0/7/7
    [3, 4, "A5", "A10", "10", "10"],   # draw: 1/13/10 each
    [3, 5, "A15", "A6", "8", "5"],     # A15 W d3: 3/16/8  A6 L: 0/10/5
    [3, 6, "A16", "A13", "4", "7"],    # A13 W d3: 3/16/7  A16 L: 0/10/4
    [3, 7, "A14", "A4", "J", "9"],     # A14 W d2: 3/15/11 A4 L: 0/11/9
    [3, 8, "A7", "A11", "3", "3"],     # draw: 1/13/3 each
]

# rank, team, played, W, D, L, match_points, level_diff_score, levels, net_levels
AFTER_ROUND_3 = [
    (1, "A3", 3, 2, 1, 0, 7, 44, 33, 5),
    (2, "A12", 3, 2, 1, 0, 6, 51, 32, 12),   # 7 points less the penalty of 1
    (3, "A1", 3, 2, 0, 1, 6, 49, 38, 10),    # equal with A2 on all three: team_no decides
    (4, "A2", 3, 2, 0, 1, 6, 49, 38, 10),
    (5, "A15", 3, 2, 0, 1, 6, 40, 21, 1),
    (6, "A5", 3, 1, 2, 0, 5, 41, 27, 2),     # equal with A14 on points and 41: levels
    (7, "A14", 3, 1, 2, 0, 5, 41, 22, 2),
    (8, "A13", 3, 1, 1, 1, 4, 40, 19, 1),
    (9, "A9", 3, 1, 1, 1, 4, 39, 39, 0),     # equal with A8 on 4 and 39: levels 39 > 33
    (10, "A8", 3, 1, 1, 1, 4, 39, 33, 0),
    (11, "A10", 3, 1, 1, 1, 4, 38, 25, -1),
    (12, "A16", 3, 1, 0, 2, 3, 32, 17, -7),
    (13, "A6", 3, 0, 2, 1, 2, 36, 19, -3),
    (14, "A11", 3, 0, 1, 2, 1, 32, 12, -7),
    (15, "A7", 3, 0, 1, 2, 1, 31, 17, -8),
    (16, "A4", 3, 0, 0, 3, 0, 22, 20, -17),
]

AFTER_ROUND_1 = ["A8", "A15", "A1", "A9", "A3", "A12", "A5", "A6", "A13", "A14",
                 "A10", "A4", "A11", "A2", "A7", "A16"]


def _load(cli, tmp_path, event):
    for name, rows in (("r1.csv", ROUND_1), ("r2.csv", ROUND_2), ("r3.csv", ROUND_3)):
        assert cli("ingest", "--event", event,
                   write_csv(tmp_path / name, [RESULT_HEADER, *rows])).code == 0
    assert cli("ingest", "--event", event,
               write_csv(tmp_path / "r2b.csv", ROUND_2_FORFEIT)).code == 0
    penalty = write_csv(tmp_path / "pen.csv", [["轮次", "队号", "扣分项目", "扣分", "原因"],
                                               [3, "A12", "积分", 1, "违规 foul"]])
    assert cli("ingest", "--event", event, penalty).code == 0


def test_ranking_after_three_rounds(cli, event16, tmp_path):
    _load(cli, tmp_path, event16)
    run = cli("standings", "--event", event16, "--format", "csv")
    assert run.code == 0
    got = [(int(r["rank"]), r["team_no"], int(r["played"]), int(r["wins"]), int(r["draws"]),
            int(r["losses"]), int(r["match_points"]), int(r["level_diff_score"]),
            int(r["levels"]), int(r["net_levels"])) for r in read_csv_output(run.out)]
    assert got == AFTER_ROUND_3


def test_ranking_after_round_one(cli, event16, tmp_path):
    _load(cli, tmp_path, event16)
    run = cli("standings", "--event", event16, "--round", "1", "--format", "json")
    import json

    assert [r["team_no"] for r in json.loads(run.out)] == AFTER_ROUND_1


def test_wins_draws_losses_add_up(cli, event16, tmp_path):
    _load(cli, tmp_path, event16)
    rows = read_csv_output(cli("standings", "--event", event16, "--format", "csv").out)
    for r in rows:
        assert int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["played"])
    # every decided game gives 3 points, every drawn game 1 to each side; one penalty point
    # 24 tables: 7 drawn (R1 t3 t7, R2 t2 t5, R3 t1 t4 t8), 17 decided
    assert sum(int(r["match_points"]) for r in rows) == 3 * 17 + 2 * 7 - 1


def test_penalty_of_a_round_without_a_game_counts(cli, event16, tmp_path):
    """A penalty of a round in which the team has no game (yet) still counts (team_totals'
    orphan penalties): A15's table is not reported, its penalty point is taken all the same."""
    reported = [row for row in ROUND_1 if row[1] != 8 and "A15" not in row[2:4]]
    assert cli("ingest", "--event", event16,
               write_csv(tmp_path / "r1.csv", [RESULT_HEADER, *reported])).code == 0

    def standings() -> dict[str, dict]:
        run = cli("standings", "--event", event16, "--format", "csv")
        return {r["team_no"]: r for r in read_csv_output(run.out)}

    before = standings()
    penalty = write_csv(tmp_path / "pen.csv", [["轮次", "队号", "扣分项目", "扣分", "原因"],
                                               [1, "A15", "积分", 1, "迟到 late"],
                                               [1, "A1", "积分", 1, "违规 foul"]])
    assert cli("ingest", "--event", event16, penalty).code == 0
    after = standings()
    assert (before["A15"]["played"], before["A15"]["match_points"]) == ("0", "0")
    assert (after["A15"]["played"], after["A15"]["match_points"]) == ("0", "-1")
    assert after["A1"]["played"] == "1"  # a penalty beside a game: taken from its round
    assert int(after["A1"]["match_points"]) == int(before["A1"]["match_points"]) - 1
