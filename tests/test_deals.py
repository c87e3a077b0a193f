"""Deal-by-deal replay (docs/rules/general.md §2), worked by hand deal by deal."""

from __future__ import annotations

from conftest import RESULT_HEADER, read_csv_output, write_csv

from pipeline.ranking.deals import Deal, RoundState, play, replay

EW2, EW3, EW4 = Deal("ew", 2), Deal("ew", 3), Deal("ew", 4)
NS2, NS3, NS4 = Deal("ns", 2), Deal("ns", 3), Deal("ns", 4)


def test_gains_by_partner_finish():
    # 二游 +3, 三游 +2, 下游 +1; only the winner moves
    assert replay([EW2]).levels == {"ew": 5, "ns": 2}
    assert replay([EW3]).levels == {"ew": 4, "ns": 2}
    assert replay([EW4, NS4]).levels == {"ew": 3, "ns": 3}


def test_a_is_compulsory():
    # 2 → 5 → 8 → 11 → 14 (A); K (13) + 3 would be 16, but gains stop at A
    state = replay([EW2, EW2, EW2, EW3, EW2])  # 5, 8, 11, 13, then +3 stops at 14
    assert state.levels["ew"] == 14 and not state.finished


def test_passing_a_needs_partner_not_last():
    at_a = [EW2, EW2, EW2, EW2]  # 5, 8, 11, 14
    assert replay([*at_a, EW3]).levels["ew"] == 15  # 上游, partner 三游: passed A
    assert replay([*at_a, EW3]).finished
    failed = replay([*at_a, EW4])  # partner 下游: not passed
    assert failed.levels["ew"] == 14 and failed.failed_a["ew"] == 1 and not failed.finished


def test_three_failed_attempts_with_the_limit_on_and_off():
    at_a = [EW2, EW2, EW2, EW2]
    three = [*at_a, EW4, EW4, EW4]
    assert replay(three, a_fail_limit=3).levels["ew"] == 2  # "A打三次不过回2"
    assert replay(three, a_fail_limit=0).levels["ew"] == 14  # "无三次不过A重打2"
    assert replay([*at_a, EW4, EW4], a_fail_limit=3).levels["ew"] == 14


def test_losing_a_deal_at_ones_own_a_is_a_failed_attempt():
    # ew reaches A; ns wins the next deal, played at ew's A: ew's attempt fails, ns gains
    state = replay([EW2, EW2, EW2, EW2, NS2, NS2, NS2], a_fail_limit=3)
    # deal 5 at ew's A (fail 1); deals 6 and 7 are played at ns's level: no attempt for ew
    assert state.levels == {"ew": 14, "ns": 11} and state.failed_a["ew"] == 1
    state = replay([EW2, EW2, EW2, EW2, NS2, EW4, NS2, EW4, NS2], a_fail_limit=3)
    # ew at A: deal 5 lost at its A (1); deal 6 won at ns's level: nothing gained, no attempt;
    # deal 7 lost at its A (2); deal 8 won at ns's level; deal 9 lost at its A (3): back to 2.
    # ns gained +3 in deals 5, 7 and 9: 2 → 5 → 8 → 11
    assert state.levels["ew"] == 2 and state.levels["ns"] == 11


def test_at_a_winning_at_the_other_side_level_gains_nothing():
    state = RoundState(levels={"ew": 14, "ns": 6}, played_at="ns")
    play(state, EW2)
    assert state.levels == {"ew": 14, "ns": 6} and state.played_at == "ew"
    play(state, EW2)  # now at its own A: passes
    assert state.levels["ew"] == 15 and state.finished


DEALS_HEADER = ["轮次", "桌号", "副次", "上游方", "搭档名次"]


def test_deal_sheet_drives_the_ranking(cli, event16, tmp_path):
    rows = [DEALS_HEADER, [1, 1, 1, "东西", "二游"], [1, 1, 2, "东西", "三游"],
            [1, 1, 3, "南北", "二游"], [1, 1, 4, "东西", "下游"]]
    cli("pair", "--event", event16)
    run = cli("ingest", "--event", event16, write_csv(tmp_path / "d.csv", rows))
    assert run.code == 0, run.err
    # ew: 2 → 5 → 7, ns → 5, ew → 8: A1 8, A2 5 after 4 deals; A1 wins by 3: 3 / 16 / 8
    table = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", event16, "--format", "csv").out)}
    assert (table["A1"]["match_points"], table["A1"]["level_diff_score"],
            table["A1"]["levels"]) == ("3", "16", "8")
    assert (table["A2"]["level_diff_score"], table["A2"]["levels"]) == ("10", "5")
    wrong = write_csv(tmp_path / "r.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "9", "5"]])
    run = cli("ingest", "--event", event16, wrong)
    assert run.code == 2 and "8 / 5" in run.err and "逐副" in run.err


def test_deal_sheet_errors_name_the_deal(cli, event16, tmp_path):
    cli("pair", "--event", event16)
    passed = [DEALS_HEADER] + [[1, 2, d, "东西", "二游"] for d in range(1, 7)]
    run = cli("ingest", "--event", event16, write_csv(tmp_path / "p.csv", passed))
    assert run.code == 2
    line = next(ln for ln in run.err.splitlines() if "过A" in ln)
    assert " 7 " in line and "副次" in line  # deal 6 stands on spreadsheet row 7
    assert cli("ingest", "--event", event16, write_csv(
        tmp_path / "r.csv", [RESULT_HEADER, [1, 3, "A5", "A6", "10", "8"]])).code == 0
    other = [DEALS_HEADER, [1, 3, 1, "东西", "二游"]]
    run = cli("ingest", "--event", event16, write_csv(tmp_path / "o.csv", other))
    assert run.code == 2 and "5 / 2" in run.err and "10 / 8" in run.err
    gap = [DEALS_HEADER, [1, 4, 1, "东西", "二游"], [1, 4, 3, "东西", "二游"]]
    run = cli("ingest", "--event", event16, write_csv(tmp_path / "g.csv", gap))
    assert run.code == 2 and "连续" in run.err
    limit = [DEALS_HEADER] + [[1, 5, d, "东西" if d % 2 else "南北", "下游"] for d in range(1, 10)]
    run = cli("ingest", "--event", event16, write_csv(tmp_path / "l.csv", limit))
    assert run.code == 2 and "最多 8 副" in run.err
