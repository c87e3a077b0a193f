"""The table's own sheet (issue 42): its levels, refusals and finality worked by hand from
docs/rules/general.md §2, and the same table results and ranking as the deal sheet it is stored
as (random deal sequences through the real CLI and a real DuckDB file)."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from conftest import RESULT_HEADER, entries, read_csv_output, write_csv

from pipeline.base import db
from pipeline.day.tablesheet import Entry, check_entry, deal_rows, read
from pipeline.ranking.deals import Deal

AT = dt.datetime(2026, 5, 1, 14, 0)
SUZHOU = {"max_deals": 8, "a_fail_limit": 0}  # seed 004: 8 deals, no "three times at A"
JINLING = {"max_deals": 0, "a_fail_limit": 3}  # seed 001's excerpt: A three times → 2


def _entries(deals: list[tuple[str, int]], status: str = "confirmed") -> list[Entry]:
    return [Entry(n, Deal(side, finish), status, AT) for n, (side, finish) in
            enumerate(deals, start=1)]


# EW reaches A in four deals (2 → 5 → 8 → 11 → A), fails at it with its partner last (1),
# loses at its own A (2), NS wins at its own level, EW wins at NS's level (gains nothing,
# its A is played next), NS wins at EW's A: EW's third failure
A_STORY = [("ew", 2)] * 4 + [("ew", 4), ("ns", 2), ("ns", 3), ("ew", 2), ("ns", 2)]


def test_three_failures_at_a_send_the_side_back_to_two_where_the_preset_says_so():
    sheet = read(_entries(A_STORY), JINLING, confirm_minutes=0, now=AT)
    levels = [(line.ew_level, line.ns_level) for line in sheet.lines]
    assert levels == [(5, 2), (8, 2), (11, 2), (14, 2), (14, 2), (14, 5), (14, 7), (14, 7),
                      (2, 10)]
    assert sheet.over is None and sheet.result is None  # no limit: play goes on


def test_eight_deals_end_the_round_of_seed_004_and_a_never_falls_back():
    sheet = read(_entries(A_STORY[:8]), SUZHOU, confirm_minutes=0, now=AT)
    assert (sheet.state.levels["ew"], sheet.state.levels["ns"]) == (14, 7)
    assert "8 副" in sheet.over
    assert check_entry(sheet, 9, "ns", 2) == sheet.over
    assert (sheet.result.ew_level, sheet.result.ns_level, sheet.result.deals) == (14, 7, 8)


def test_passing_a_ends_the_round_and_refuses_another_deal():
    # at its own A, 上游 with the partner second or third passes A (过A = 15)
    sheet = read(_entries([("ew", 2)] * 4 + [("ew", 3)]), JINLING, confirm_minutes=0, now=AT)
    assert (sheet.lines[-1].ew_level, sheet.lines[-1].ns_level) == (15, 2)
    assert "过A" in check_entry(sheet, 6, "ns", 2)
    assert sheet.result.ew_level == 15 and sheet.result.last_deal_side == "ew"


def test_the_clock_s_last_deal_ends_the_round():
    sheet = read(_entries([("ew", 2), ("ns", 3)]), JINLING, confirm_minutes=0, now=AT,
                 last_deal=2)
    assert "时间到" in sheet.over and sheet.result.deals == 2
    assert read(_entries([("ew", 2)]), JINLING, 0, AT, last_deal=2).over is None


def test_entries_are_refused_with_their_reason():
    sheet = read(_entries([("ew", 2)]), SUZHOU, confirm_minutes=0, now=AT)
    assert "第 2 副" in check_entry(sheet, 3, "ew", 2)  # not the next deal
    assert "二游" in check_entry(sheet, 2, "ew", 1)
    assert "上游" in check_entry(sheet, 2, "west", 2)
    assert check_entry(sheet, 2, "ns", 4) is None


def test_a_disputed_deal_freezes_the_sheet_and_keeps_the_result_back():
    entries_ = _entries([("ew", 2), ("ns", 2)])
    entries_[1] = Entry(2, Deal("ns", 2), "disputed", AT)
    sheet = read(entries_ + _entries([("ew", 2)] * 3)[2:], SUZHOU, 0, AT)
    assert sheet.disputed == 2
    assert "有异议" in check_entry(sheet, len(sheet.lines) + 1, "ew", 2)


def test_a_deal_is_final_when_confirmed_or_after_the_preset_s_minutes_without_objection():
    waiting = _entries([("ew", 2)], status="entered")
    assert not read(waiting, SUZHOU, 3, AT + dt.timedelta(minutes=2)).lines[0].final
    assert read(waiting, SUZHOU, 3, AT + dt.timedelta(minutes=3)).lines[0].final
    assert not read(waiting, SUZHOU, 0, AT + dt.timedelta(hours=1)).lines[0].final
    # over, but a deal not yet final: no result
    eight = _entries([("ew", 4)] * 7) + [Entry(8, Deal("ns", 2), "entered", AT)]
    assert read(eight, SUZHOU, 0, AT).result is None
    assert read(eight, SUZHOU, 5, AT + dt.timedelta(minutes=5)).result is not None


def _played(rng: random.Random, rules: dict, last_deal: int | None) -> list[Entry]:
    """A table entered deal by deal as a phone would, each entry checked first."""
    entered: list[Entry] = []
    while True:
        sheet = read(entered, rules, 0, AT, last_deal)
        side, finish = rng.choice(("ew", "ns")), rng.choice((2, 3, 4))
        if sheet.over or len(entered) > 40:
            return entered
        assert check_entry(sheet, len(entered) + 1, side, finish) is None
        entered.append(Entry(len(entered) + 1, Deal(side, finish), "confirmed", AT))


DEALS_HEADER = ["轮次", "桌号", "副次", "上游方", "搭档名次"]
HEADER = {"round": "轮次", "table": "桌号", "deal": "副次", "winner_side": "上游方",
          "partner_finish": "搭档名次"}


@pytest.mark.parametrize(("preset", "rules"), [("suzhou-2025", SUZHOU),
                                               ("jinling-2023-pairs", JINLING)])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_tables_stored_as_a_deal_sheet_give_the_sheet_s_results_and_ranking(
        cli, db_file, tmp_path, preset, rules, seed):
    rng = random.Random(seed)
    for event in ("deals", "plain"):
        assert cli("event", "create", "--id", event, "--name", event, "--ruleset",
                   preset).code == 0
        assert cli("ingest", "--event", event, write_csv(tmp_path / "e.csv",
                                                         entries(16))).code == 0
        assert cli("pair", "--event", event, "--seed", "1").code == 0
    with db.reading(db_file) as con:
        tables = db.rows(con, "select table_no, ew_team, ns_team from pairings where "
                              "event_id = 'deals' and round = 1 order by 1")
    rows, results, expected = [], [], {}
    for table_no, ew, ns in tables:
        played = _played(rng, rules, last_deal=rng.choice((None, 5, 9)))
        outcome = read(played, rules, 0, AT, last_deal=len(played)).result
        expected[table_no] = (outcome.ew_level, outcome.ns_level)
        rows += [[row[c] for c in HEADER] for row in deal_rows(played, 1, table_no)]
        if outcome.ew_level != outcome.ns_level or preset == "suzhou-2025":
            results.append([1, table_no, ew, ns, outcome.ew_level, outcome.ns_level])
    run = cli("ingest", "--event", "deals", write_csv(tmp_path / "d.csv", [DEALS_HEADER, *rows]))
    assert run.code == 0, run.err
    with db.reading(db_file) as con:
        stored = {t: (e, n) for t, e, n in db.rows(
            con, "select table_no, ew_level, ns_level from results where event_id = 'deals'")}
    assert stored == expected
    if preset == "suzhou-2025":  # equal levels are a draw: a results sheet says it all
        assert cli("ingest", "--event", "plain", write_csv(
            tmp_path / "r.csv", [RESULT_HEADER, *results])).code == 0
        ranking = {event: [(r["team_no"], r["match_points"], r["level_diff_score"])
                           for r in read_csv_output(cli("standings", "--event", event,
                                                        "--format", "csv").out)]
                   for event in ("deals", "plain")}
        assert ranking["deals"] == ranking["plain"]
