"""Tractor: deal tables at every band boundary, groups to champion, byes and redraws."""

from __future__ import annotations

import json
import random

import pytest
from conftest import write_csv

from pipeline.tractor.bracket import knockout_first_round, next_round
from pipeline.tractor.scoring import DealError, TractorDeal, deal_change, replay_game

# Seed 000 (4 decks, 400 points): 160 分上台, each 40 points a level (docs/rules/general.md §9)
BANDS = {0: ("declarer", 5), 5: ("declarer", 4), 40: ("declarer", 4), 45: ("declarer", 3),
         80: ("declarer", 3), 85: ("declarer", 2), 120: ("declarer", 2),
         125: ("declarer", 1), 155: ("declarer", 1), 160: ("attackers", 0),
         195: ("attackers", 0), 200: ("attackers", 1), 240: ("attackers", 2)}


@pytest.mark.parametrize("points", sorted(BANDS))
def test_seed_000_deal_table(points):
    assert deal_change(points, 1, takeover=160, step=40) == BANDS[points]


def test_two_trump_cards_add_two_levels_to_the_side_that_gains():
    # seed 000 (hengquan-2025-tractor sets trump_bonus): "报2张主…加2级"
    assert deal_change(0, 2, 160, 40, trump_bonus=True) == ("declarer", 7)
    assert deal_change(160, 2, 160, 40, trump_bonus=True) == ("attackers", 2)
    assert deal_change(200, 3, 160, 40, trump_bonus=True) == ("attackers", 4)
    assert deal_change(0, 2, 160, 40) == ("declarer", 5)  # a notice without it


def test_three_decks_of_seed_002():
    # takeover 120, step 40: 0 → +4, 5–40 → +3, 45–80 → +2, 85–115 → +1, 120 → take over
    assert [deal_change(p, 1, 120, 40)[1] for p in (0, 5, 40, 45, 80, 85, 115)] == \
        [4, 3, 3, 2, 2, 1, 1]
    assert deal_change(120, 1, 120, 40) == ("attackers", 0)


def test_game_replay_rotation_and_end():
    deals = [TractorDeal("A", 0),       # A declares from 3, holds: +5 → 8, A declares again
             TractorDeal("A", 170),     # B takes over, +0; B declares next
             TractorDeal("B", 20),      # B holds: +4 → 7
             TractorDeal("B", 0, 2)]    # B +5 +2 = 14 (A): seed 000's trump bonus
    state = replay_game(deals, ("A", "B"), 3, 160, 40, trump_bonus=True)
    assert state.levels == {"A": 8, "B": 14} and state.declarer == "B" and not state.finished
    state = replay_game([*deals, TractorDeal("B", 100)], ("A", "B"), 3, 160, 40,
                        trump_bonus=True)
    assert state.levels["B"] == 15 and state.finished  # +2 past A: the game is won
    with pytest.raises(DealError) as wrong_side:
        replay_game([TractorDeal("A", 170), TractorDeal("A", 0)], ("A", "B"), 3, 160, 40)
    assert wrong_side.value.index == 1


@pytest.mark.parametrize("field,byes", [(6, 2), (10, 6)])
def test_byes_go_to_the_best_qualifiers(field, byes):
    qualifiers = [f"Q{i}" for i in range(1, field + 1)]
    for redraw in (False, True):
        first = knockout_first_round(qualifiers, redraw, random.Random(5))
        given_byes = sorted(a for a, b in first if b is None)
        assert given_byes == sorted(qualifiers[:byes], key=qualifiers.index)
        seated = [t for m in first for t in m if t]
        assert sorted(seated) == sorted(qualifiers) and len(first) * 2 == field + byes


def test_redraw_on_and_off():
    winners = ["W1", "W2", "W3", "W4"]
    assert next_round(winners, redraw=False) == [("W1", "W2"), ("W3", "W4")]
    drawn = next_round(winners, redraw=True, rng=random.Random(1))
    assert drawn == next_round(winners, redraw=True, rng=random.Random(1))
    assert sorted(t for m in drawn for t in m) == winners


# -- a 12-team event in 3 groups through knockout to a champion --------------------------------

GAMES = ["阶段", "场次", "局", "甲方", "乙方", "甲方级数", "乙方级数"]


def _setup(cli, tmp_path, ruleset="hengquan-2025-tractor", event="tr"):
    assert cli("event", "create", "--id", event, "--name", "拖拉机赛", "--ruleset",
               ruleset).code == 0
    rows = [["队号", "队名", "队员1", "队员2", "单位"]] + [
        [f"T{i}", f"拖{i}队", f"甲{i}", f"乙{i}", f"商会{i % 3}"] for i in range(1, 13)]
    assert cli("ingest", "--event", event, write_csv(tmp_path / "e.csv", rows)).code == 0


def _view(cli, event="tr"):
    run = cli("bracket", "--event", event, "--format", "json")
    assert run.code == 0, run.err
    return json.loads(run.out)


def test_twelve_teams_three_groups_to_champion(cli, tmp_path):
    # union-tractor's fixed bracket (redraw = false), played best of three here
    from pipeline.base.ruleset import load_preset

    best_of_three = tmp_path / "union-best-of-three.toml"
    best_of_three.write_text(load_preset("union-tractor").source.replace(
        "games_to_win = 1", "games_to_win = 2"), encoding="utf-8")
    _setup(cli, tmp_path, str(best_of_three))
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(f"T{i}" for i in range(1, 13)), encoding="utf-8")
    assert cli("bracket", "draw", "--event", "tr", "--groups", "3", "--advance", "2",
               "--seeds", seeds, "--seed", "1").code == 0
    view = _view(cli)
    # seeds snake across the groups: 1 2 3 | 6 5 4 | 7 8 9 | 12 11 10
    members = {s["name"]: sorted({t for m in s["matches"] for t in (m["team_a"], m["team_b"])},
                                 key=lambda t: int(t[1:])) for s in view["stages"]}
    assert members == {"A组": ["T1", "T6", "T7", "T12"], "B组": ["T2", "T5", "T8", "T11"],
                       "C组": ["T3", "T4", "T9", "T10"]}
    assert all(s["kind"] == "group" and len(s["matches"]) == 6 for s in view["stages"])
    # in every group the better seed wins 2–0, 过A against 10 (A组), J (B组) or Q (C组)
    loser_level = {"A组": "10", "B组": "J", "C组": "Q"}
    rows = []
    for stage in view["stages"]:
        for m in stage["matches"]:
            a, b = m["team_a"], m["team_b"]
            better = min(a, b, key=lambda t: int(t[1:]))
            for game in (1, 2):
                la, lb = ("过A", loser_level[stage["name"]]) if better == a else \
                    (loser_level[stage["name"]], "过A")
                rows.append([stage["name"], m["match"], game, a, b, la, lb])
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "g.csv", [GAMES, *rows])).code == 0
    view = _view(cli)
    table = {(r["stage"], r["team_no"]): r for r in view["groups"]}
    assert [table[("A组", t)]["rank"] for t in ("T1", "T6", "T7", "T12")] == [1, 2, 3, 4]
    # winners: 3 wins × 2 games × (15 − loser): A 30, B 24, C 18; runners-up: 2 wins − 1 loss
    assert (table[("A组", "T1")]["level_diff"], table[("B组", "T2")]["level_diff"],
            table[("C组", "T3")]["level_diff"]) == (30, 24, 18)
    assert (table[("A组", "T6")]["level_diff"], table[("B组", "T5")]["level_diff"],
            table[("C组", "T4")]["level_diff"]) == (10, 8, 6)
    assert view["still_in"] == ["T1", "T2", "T3", "T4", "T5", "T6"]

    assert cli("bracket", "next", "--event", "tr").code == 0
    quarter = _view(cli)["stages"][-1]
    # qualifiers best first: T1 T2 T3 (winners by level diff), T6 T5 T4; eight places, two
    # byes for T1 and T2; bracket order 1–8, 4–5, 2–7, 3–6
    assert quarter["name"] == "1/4决赛"
    assert [(m["team_a"], m["team_b"]) for m in quarter["matches"]] == [
        ("T1", None), ("T6", "T5"), ("T2", None), ("T3", "T4")]
    assert cli("bracket", "next", "--event", "tr").code == 2  # two matches undecided
    knock = [["1/4决赛", 2, 1, "T6", "T5", "过A", "K"], ["1/4决赛", 2, 2, "T6", "T5", "Q", "过A"],
             ["1/4决赛", 2, 3, "T6", "T5", "A", "过A"],      # T5 wins 2–1
             ["1/4决赛", 4, 1, "T3", "T4", "过A", "9"], ["1/4决赛", 4, 2, "T3", "T4", "过A", "7"]]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "k.csv", [GAMES, *knock])).code == 0
    assert cli("bracket", "next", "--event", "tr").code == 0
    semi = _view(cli)["stages"][-1]
    assert semi["name"] == "半决赛"
    assert [(m["team_a"], m["team_b"]) for m in semi["matches"]] == [("T1", "T5"), ("T2", "T3")]
    semis = [["半决赛", 1, 1, "T1", "T5", "过A", "8"], ["半决赛", 1, 2, "T1", "T5", "过A", "8"],
             ["半决赛", 2, 1, "T2", "T3", "过A", "10"], ["半决赛", 2, 2, "T2", "T3", "9", "过A"],
             ["半决赛", 2, 3, "T2", "T3", "J", "K"]]  # the clock ends game 3: T3 ahead
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "s.csv", [GAMES, *semis])).code == 0
    assert cli("bracket", "next", "--event", "tr").code == 0
    final = [["决赛", 1, 1, "T1", "T3", "10", "过A"], ["决赛", 1, 2, "T1", "T3", "Q", "过A"]]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "f.csv", [GAMES, *final])).code == 0
    view = _view(cli)
    assert view["stages"][-1]["name"] == "决赛" and view["champion"] == "T3"
    assert view["stages"][-1]["matches"][0]["games"] == [[10, 15], [12, 15]]
    assert "冠军 champion: T3" in cli("bracket", "--event", "tr").out
    assert cli("bracket", "next", "--event", "tr").code == 2


def test_match_validation(cli, tmp_path, db_file):
    _setup(cli, tmp_path)
    cli("bracket", "draw", "--event", "tr", "--groups", "3", "--advance", "1", "--seed", "4")
    stage = _view(cli)["stages"][0]
    m = stage["matches"][0]
    a, b = m["team_a"], m["team_b"]
    other = next(t for s in _view(cli)["stages"][1:] for x in s["matches"]
                 for t in (x["team_a"], x["team_b"]))
    cases = [
        ([[stage["name"], 1, 1, a, other, "过A", "9"]], "这一场是"),
        ([[stage["name"], 1, 1, a, b, "过A", "过A"]], "双方都过A"),
        ([[stage["name"], 1, 1, a, b, "9", "9"]], "级数相同"),
        ([[stage["name"], 1, 1, a, b, "过A", "9"], [stage["name"], 1, 2, a, b, "过A", "9"],
          [stage["name"], 1, 3, a, b, "过A", "9"]], "本场已结束"),
        ([[stage["name"], 1, 1, a, b, "过A", "9"], [stage["name"], 1, 1, a, b, "9", "过A"]],
         "两次"),
        ([["1/4决赛", 1, 1, a, b, "过A", "9"]], "没有抽出"),
    ]
    for rows, words in cases:
        run = cli("ingest", "--event", "tr", write_csv(tmp_path / "bad.csv", [GAMES, *rows]))
        assert run.code == 2 and words in run.err, (words, run.err)
    assert _view(cli)["stages"][0]["matches"][0]["games"] == []


def test_deals_sheet_with_point_penalties(cli, tmp_path):
    _setup(cli, tmp_path)
    cli("bracket", "draw", "--event", "tr", "--groups", "3", "--advance", "1", "--seed", "4")
    stage = _view(cli)["stages"][0]
    a, b = stage["matches"][0]["team_a"], stage["matches"][0]["team_b"]
    header = ["阶段", "场次", "局", "盘", "庄家", "得分", "报主张数"]
    s = stage["name"]
    # a from 3: 0 → +5 (8), 0 → +5 (13), 100 → +2: passes A (15)
    deals = [[s, 1, 1, 1, a, 0, 1], [s, 1, 1, 2, a, 0, 1], [s, 1, 1, 3, a, 100, 1]]
    bad = [[s, 1, 1, 1, a, 7, 1]]
    run = cli("ingest", "--event", "tr", write_csv(tmp_path / "bad.csv", [header, *bad]))
    assert run.code == 2 and "5 的倍数" in run.err
    too_many = [*deals, [s, 1, 1, 4, a, 0, 1]]
    run = cli("ingest", "--event", "tr", write_csv(tmp_path / "tm.csv", [header, *too_many]))
    assert run.code == 2 and "打过A" in run.err
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "d.csv", [header, *deals])).code == 0
    assert _view(cli)["stages"][0]["matches"][0]["games"] == [[15, 3]]
    # a reported game that disagrees with the deals is refused
    run = cli("ingest", "--event", "tr", write_csv(tmp_path / "g.csv",
                                                    [GAMES, [s, 1, 1, a, b, "过A", "9"]]))
    assert run.code == 2 and "逐盘" in run.err
    # 甩错牌 by the attackers b in deal 1: −20 off b's captured points (0 stays 0); 藏张 by
    # the declarer a in deal 3: +60 to the attackers: 160, a takeover: b +0 and declares.
    # The game stops at a 13, b 3: the clock decides it for a.
    penalties = [["阶段", "场次", "局", "盘", "队号", "罚分", "原因"],
                 [s, 1, 1, 1, b, 20, "甩错牌"], [s, 1, 1, 3, a, 60, "藏张"]]
    run = cli("ingest", "--event", "tr", write_csv(tmp_path / "p.csv", penalties))
    assert run.code == 0, run.err
    assert _view(cli)["stages"][0]["matches"][0]["games"] == [[13, 3]]
