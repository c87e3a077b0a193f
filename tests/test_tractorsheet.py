"""A Tractor match's own sheet (issue 42): levels, games, the clock's end and refusals worked
by hand from docs/rules/general.md §9 for both Tractor presets, and the match stored through the
Tractor sheets' own path (a real DuckDB file, the real CLI reading it back)."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from conftest import sheet_outcome, sheet_post, write_csv

from pipeline.base import db
from pipeline.base.ruleset import load_preset
from pipeline.day.tractorsheet import TractorEntry, check_entry, read

AT = dt.datetime(2026, 5, 1, 14, 0)
HENGQUAN = load_preset("hengquan-2025-tractor").tractor  # seed 000: 4 decks, 160, 40, from 3
UNION = load_preset("union-tractor").tractor  # seed 002 (our table): 3 decks, 120, 40, from 2


def _deals(*deals, status="confirmed"):
    """(declarer, points[, trump cards]) or (declarer, "ruled", loser, levels)."""
    out = []
    for n, d in enumerate(deals, start=1):
        if d[1] == "ruled":
            out.append(TractorEntry(n, d[0], 0, 1, d[2], d[3], status, AT))
        else:
            out.append(TractorEntry(n, d[0], d[1], d[2] if len(d) > 2 else 1, None, 0, status,
                                    AT))
    return out


# Seed 000's game 1, by hand (takeover 160, step 40: 0 → +5, 5–40 → +4, 45–80 → +3, 85–120
# → +2, 125–155 → +1; 160 → take over; trump shown with n ≥ 2 cards adds n):
#  1. A declares, 30 points: A +4, 3 → 7          2. A, 170: B takes over, +0
#  3. B, 0 points, 2 trump cards: B +5 +2, 3 → 10  4. B, 45: B +3 → K
#  5. B, 100: B +2, K → 过A: game 1 to B
GAME_1 = [("a", 30), ("a", 170), ("b", 0, 2), ("b", 45), ("b", 100)]


def test_seed_000_game_by_hand():
    sheet = read(_deals(*GAME_1), HENGQUAN, 0, AT)
    assert [(line.gainer, line.gain, line.a_level, line.b_level) for line in sheet.lines] == [
        ("a", 4, 7, 3), ("b", 0, 7, 3), ("b", 7, 7, 10), ("b", 3, 7, 13), ("b", 2, 7, 15)]
    assert [(g.number, g.a_level, g.b_level, g.winner) for g in sheet.games] == [(1, 7, 15, "b")]
    assert sheet.wins == {"a": 0, "b": 1} and sheet.over is None and sheet.game == 2
    assert sheet.next_declarer is None  # a new game: the recorder says who declares


def test_a_ruled_deal_and_the_second_game_win_the_match():
    # game 2 from 3 again: 6. A's card found wrong after its trick (seed 000): A loses the
    # deal, B up 3 → 6, B declares; 7.–9. B holds with 0 points three times: +5 → J, +5 → 过A
    deals = _deals(*GAME_1, ("a", "ruled", "a", 3), ("b", 0), ("b", 0))
    sheet = read(deals, HENGQUAN, 0, AT)
    assert [(line.game, line.deal_in_game, line.a_level, line.b_level)
            for line in sheet.lines[5:]] == [(2, 1, 3, 6), (2, 2, 3, 11), (2, 3, 3, 15)]
    assert sheet.winner == "b" and "本场已结束" in sheet.over
    assert [(g.a_level, g.b_level) for g in sheet.result.games] == [(7, 15), (3, 15)]
    assert sheet.result.time_winner is None
    assert check_entry(sheet, HENGQUAN, 9, "b", 0) == sheet.over


def test_refusals_say_why():
    sheet = read(_deals(("a", 30)), HENGQUAN, 0, AT)
    assert "第 2 盘" in check_entry(sheet, HENGQUAN, 3, "a", 0)
    assert "A 方坐庄" in check_entry(sheet, HENGQUAN, 2, "b", 0)  # A held: A declares again
    assert "5 的倍数" in check_entry(sheet, HENGQUAN, 2, "a", 33)
    assert "不超过 400" in check_entry(sheet, HENGQUAN, 2, "a", 405)
    assert "1–4" in check_entry(sheet, HENGQUAN, 2, "a", 0, trump_cards=5)
    assert check_entry(sheet, HENGQUAN, 2, "a", 400) is None
    disputed = read(_deals(("a", 30), status="disputed"), HENGQUAN, 0, AT)
    assert "有异议" in check_entry(disputed, HENGQUAN, 2, "a", 0)


def test_seed_000_time_up_the_side_ahead_in_games_or_in_the_game_in_play():
    # 1–0 in games at time-up: B wins the match, the game in play not counted
    sheet = read(_deals(*GAME_1, ("a", 0)), HENGQUAN, 0, AT, last_deal=6)
    assert sheet.winner == "b" and sheet.time_winner == "b"
    assert [g.number for g in sheet.result.games] == [1]
    # 0–0 in games: the side ahead in the game in play (A at 8 against 3)
    sheet = read(_deals(("a", 0)), HENGQUAN, 0, AT, last_deal=1)
    assert sheet.time_winner == "a" and sheet.result.games == ()
    # level: play goes on until one side leads ("打平的則繼續進行，直到一方領先")
    level = read(_deals(("a", 170), ("b", 170)), HENGQUAN, 0, AT, last_deal=2)
    assert level.levels == {"a": 3, "b": 3} and level.over is None
    assert check_entry(level, HENGQUAN, 3, "a", 0) is None
    level = read(_deals(("a", 170), ("b", 170), ("a", 80)), HENGQUAN, 0, AT, last_deal=2)
    assert level.time_winner == "a" and level.result is not None


def test_seed_002_time_up_ends_the_game_and_the_last_deal_s_winner_takes_a_tie():
    # union-tractor (3 decks, 120, step 40: 0 → +4, 5–40 → +3, 45–80 → +2, 85–115 → +1):
    # 1. A, 50: +2 → 4   2. A, 130: B takes over +0   3. B, 0: +4 → 6   4. B, 125: A takes
    # over +0 → levels 4 / 6: B ahead when the round's last deal is played
    sheet = read(_deals(("a", 50), ("a", 130), ("b", 0), ("b", 125)), UNION, 0, AT,
                 last_deal=4)
    assert sheet.winner == "b" and sheet.time_winner is None  # the game in play counts
    assert [(g.a_level, g.b_level, g.winner) for g in sheet.result.games] == [(4, 6, "b")]
    # equal levels: 1. A, 50: A 4   2. A, 120: B takes over +0   3. B, 50: B 4 → the last
    # deal's winner (B) wins (tractor.level_at_time = "last_deal")
    tie = read(_deals(("a", 50), ("a", 120), ("b", 50)), UNION, 0, AT, last_deal=3)
    assert tie.levels == {"a": 4, "b": 4} and tie.winner == "b"


def test_a_deal_is_final_once_confirmed_or_after_the_preset_s_minutes():
    entered = _deals(("a", 0), status="entered")
    assert read(entered, UNION, 0, AT + dt.timedelta(hours=1)).lines[0].final is False
    assert read(entered, UNION, 3, AT + dt.timedelta(minutes=3)).lines[0].final is True


# -- stored: links, codes, both sides, the bracket -------------------------------------------

def _event(cli, tmp_path):
    assert cli("event", "create", "--id", "tr", "--name", "拖拉机赛", "--ruleset",
               "hengquan-2025-tractor").code == 0
    rows = [["队号", "队名", "队员1", "队员2"]] + [[f"T{i}", f"拖{i}队", f"甲{i}", f"乙{i}"]
                                              for i in range(1, 5)]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "e.csv", rows)).code == 0
    assert cli("bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
               "--seed", "1").code == 0


def _link(cli, side: str):
    run = cli("bracket", "links", "--event", "tr", "--base-url", "http://127.0.0.1:8600",
              "--format", "json")
    assert run.code == 0, run.err
    first = json.loads(run.out)[0]
    sig = first[f"{side}_url"].split("sig=")[1]
    return first, sig, first[f"{side}_code"]


def test_both_sides_store_the_match_through_the_tractor_sheets(cli, tmp_path, db_file):
    from pipeline.day import tractorstore

    _event(cli, tmp_path)
    match, a_sig, a_code = _link(cli, "a")
    _, b_sig, b_code = _link(cli, "b")
    stage, number = match["stage"], match["match"]
    a = (stage, number, a_sig, "a", a_code)
    b = (stage, number, b_sig, "b", b_code)
    deals = [*GAME_1, ("a", "ruled", "a", 3), ("b", 0), ("b", 0)]
    for n, deal in enumerate(deals, start=1):
        with db.writing(db_file) as con:
            if deal[1] == "ruled":
                tractorstore.enter(con, "tr", *a, n, deal[0], 0, lost_by=deal[2],
                                   ruled_levels=deal[3])
            else:  # deal 4's 45 points entered as 25 in play and the bottom's 10 × 2
                in_play, bottom = (25, 10) if n == 4 else (deal[1], 0)
                tractorstore.enter(con, "tr", *a, n, deal[0], in_play, bottom, 2,
                                   deal[2] if len(deal) > 2 else 1)
            tractorstore.answer(con, "tr", *b, n, True)
    with db.writing(db_file) as con, pytest.raises(Exception, match="复查"):
        tractorstore.enter(con, "tr", *b, 9, "b", 0)  # a side never enters for the other
    with db.writing(db_file) as con:
        assert tractorstore.confirm_result(con, "tr", *a) == "waiting"
        assert tractorstore.confirm_result(con, "tr", *b) == "stored"
    view = json.loads(cli("bracket", "--event", "tr", "--format", "json").out)
    stored = next(m for s in view["stages"] for m in s["matches"] if m["match"] == number)
    assert stored["games"] == [[7, 15], [3, 15]]
    assert stored["winner"] == match["team_b"]
    with db.reading(db_file) as con:
        penalties = db.rows(con, "select game, deal, team_no, levels, deal_lost from "
                                 "tractor_point_penalties where event_id = 'tr'")
        assert penalties == [(2, 1, match["team_a"], 3, True)]
        with pytest.raises(Exception, match="已裁定"):
            tractorstore.enter(con, "tr", *a, 10, "a", 0)  # read-only once stored
    log = cli("log", "--event", "tr").out
    assert "match sheet stored" in log


def test_a_wrong_code_or_another_match_s_link_is_refused(cli, tmp_path, db_file):
    from pipeline.day import selfreport, tractorstore

    _event(cli, tmp_path)
    match, a_sig, a_code = _link(cli, "a")
    with db.writing(db_file) as con:
        with pytest.raises(selfreport.WrongCode):
            tractorstore.enter(con, "tr", match["stage"], match["match"], a_sig, "a",
                               "0000" if a_code != "0000" else "1111", 1, "a", 0)
        with pytest.raises(Exception, match="链接无效"):
            tractorstore.enter(con, "tr", match["stage"], match["match"] + 1, a_sig, "a",
                               a_code, 1, "a", 0)


# -- on the phones: /k through the hall's routes ---------------------------------------------

@pytest.fixture
def match(cli, tmp_path, db_file, monkeypatch):
    """A drawn hengquan match's two side links and codes, served by the hall's routes."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dashboard.hall import cache, limits, routes, sheetdoor

    cache.forget_versions()
    monkeypatch.setattr(sheetdoor, "LIMITS", limits.Limits())
    _event(cli, tmp_path)
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    run = cli("bracket", "links", "--event", "tr", "--base-url", "http://testserver",
              "--format", "json")
    row = json.loads(run.out)[0]
    with TestClient(Starlette(routes=routes())) as client:
        yield client, {s: (row[f"{s}_url"], row[f"{s}_code"]) for s in "ab"}, row






def test_the_match_sheet_on_two_phones(match, cli, db_file):
    client, sheet, row = match
    shown = client.get(sheet["a"][0])
    assert shown.status_code == 200 and 'data-testid="unlock"' in shown.text
    assert shown.headers["referrer-policy"] == "no-referrer"
    unlocked = sheet_post(client, sheet["a"], action="unlock")
    assert "记录第 1 盘" in unlocked.text and 'data-testid="start"' in unlocked.text
    assert "本场剩余 90 分钟" in sheet_post(client, sheet["a"], action="start").text
    # deal 1: A declares, the defenders take 20 in play and the bottom's 5 × 2: 30 → A +4
    first = sheet_post(client, sheet["a"], action="enter", number="1", declarer="a", points="20",
                  bottom="5", multiplier="2", trump="1")
    assert sheet_outcome(first) == "已记录", first.text
    levels = re.search(r'data-testid="levels">(.*?)</div>', first.text).group(1)
    assert "<strong>7</strong>" in levels and "<strong>3</strong>" in levels
    # the declarer follows from the sheet: B may not declare deal 2
    wrong = sheet_post(client, sheet["a"], action="enter", number="2", declarer="b", points="0")
    assert "本盘应由 A 方坐庄" in sheet_outcome(wrong)
    # B checks: it may not enter; it disputes deal 1, which freezes the sheet
    assert "本方负责复查" in sheet_outcome(sheet_post(client, sheet["b"], action="enter", number="2",
                                        declarer="a", points="0"))
    disputed = sheet_post(client, sheet["b"], action="dispute", number="1")
    assert "第 1 盘有异议" in disputed.text
    frozen = sheet_post(client, sheet["a"], action="enter", number="2", declarer="a", points="0")
    assert "有异议" in sheet_outcome(frozen)
    from pipeline.day import tractorstore
    with db.reading(db_file) as con:
        assert tractorstore.disputed(con, "tr") == [(row["stage"], row["match"], 1)]
    tractorstore.decide(db_file, "tr", row["stage"], row["match"], 1, keep=True)
    assert "deal decided" in cli("log", "--event", "tr").out
    # a ruled deal: B's card found wrong after its trick — B loses deal 2, A up 3 → 10
    ruled = sheet_post(client, sheet["a"], action="ruled", number="2", declarer="a",
                  lost_by="b", ruled_levels="3")
    assert sheet_outcome(ruled) == "已记录", ruled.text
    assert "<strong>10</strong>" in re.search(r'data-testid="levels">(.*?)</div>',
                                              ruled.text).group(1)
    # a bad link is refused whole
    assert client.get(sheet["a"][0].replace("sig=", "sig=0")).status_code == 403


def test_the_bracket_page_shows_the_matches_in_play(match, db_file, monkeypatch):
    from conftest import run_page

    client, sheet, row = match
    sheet_post(client, sheet["a"], action="enter", number="1", declarer="a", points="0")
    sheet_post(client, sheet["b"], action="dispute", number="1")
    at = run_page(monkeypatch, db_file, "bracket", event="tr")
    shown = " ".join(h.proto.body for h in at.get("html"))
    assert "场上实况：1 场逐盘记分，已记 1 盘" in shown
    assert 'data-testid="matches-in-play"' in shown
    played = re.search(r'data-testid="matches-in-play">(.*?)</table>', shown).group(1)
    assert row["team_a"] in played and ">8<" in played and "有异议" in played



def test_a_swiss_tractor_table_is_not_given_guandan_s_sheet(cli, tmp_path, db_file):
    from pipeline.day import selfreport, tablestore

    swiss = tmp_path / "union-swiss.toml"
    swiss.write_text(load_preset("union-tractor").source.replace(
        'format = "knockout"', 'format = "swiss"\nrounds = 3'), encoding="utf-8")
    assert cli("event", "create", "--id", "us", "--name", "工会赛", "--ruleset", swiss).code == 0
    rows = [["队号", "队名", "队员1", "队员2"]] + [[f"T{i}", f"拖{i}队", f"甲{i}", f"乙{i}"]
                                              for i in range(1, 5)]
    assert cli("ingest", "--event", "us", write_csv(tmp_path / "e.csv", rows)).code == 0
    assert cli("pair", "--event", "us").code == 0
    row = selfreport.links(db_file, "us", 1, "http://x").row(0, named=True)
    with db.writing(db_file) as con, pytest.raises(Exception, match="拖拉机按场记分"):
        tablestore.enter(con, "us", 1, row["table"], row["ns_url"].split("sig=")[1], "ns",
                         row["ns_code"], 1, "ew", 2)


@pytest.mark.parametrize("preset", ["hengquan-2025-tractor", "union-tractor"])
def test_random_matches_read_as_the_deal_sheet_replays_them(preset):
    """Property: any match entered deal by deal reads, game by game, as the Tractor deal
    sheet's replay of the same deals (the rows `game_rows` stores), whatever the preset."""
    import random

    from pipeline.day.tractorsheet import game_rows
    from pipeline.tractor.checks import level_winner
    from pipeline.tractor.scoring import TractorDeal, replay_game

    rules = load_preset(preset).tractor
    rng = random.Random(42)
    checked = 0
    for _ in range(200):
        entries: list[TractorEntry] = []
        while True:
            sheet = read(entries, rules, 0, AT)
            if sheet.over or len(entries) > 60:
                break
            declarer = sheet.next_declarer or rng.choice("ab")
            n = len(entries) + 1
            if rng.random() < 0.1:
                entries.append(TractorEntry(n, declarer, 0, 1, rng.choice("ab"),
                                            rng.randint(0, 3), "confirmed", AT))
            else:
                entries.append(TractorEntry(n, declarer, 5 * rng.randint(0, rules["decks"] * 20),
                                            rng.randint(1, rules["decks"]), None, 0,
                                            "confirmed", AT))
        if sheet.result is None:
            continue
        deals, ruled, _ = game_rows(entries, sheet.result, "G", 1, ("A", "B"))
        for game in sheet.result.games:
            rows = [d for d in deals if d["game"] == game.number]
            lost = {r["deal"]: r for r in ruled if r["game"] == game.number}
            replayed = replay_game(
                [TractorDeal(r["declarer_team"], r["points"] if r["deal"] not in lost else 0,
                             r["trump_cards"], lost[r["deal"]]["team_no"] if r["deal"] in lost
                             else None, ((lost[r["deal"]]["team_no"], lost[r["deal"]]["levels"]),)
                             if r["deal"] in lost and lost[r["deal"]]["levels"] else ())
                 for r in rows], ("A", "B"), rules["start_level"], rules["takeover"],
                rules["step"], rules["trump_bonus"])
            assert (replayed.levels["A"], replayed.levels["B"]) == (game.a_level, game.b_level)
            winner = level_winner(game.a_level, game.b_level, rules, replayed, teams=("A", "B"))
            assert winner == game.winner
            checked += 1
    assert checked >= 200  # every match played to its end, each game replayed


def test_an_old_match_form_never_brings_back_a_deal_taken_off(match, db_file):
    """Issue 49 finding 3 on /k: A enters deal 2, B disputes it, the referee takes it off;
    A's old deal-2 form sent again is refused; a deal entered after B confirmed an earlier
    one is taken (issue 51)."""
    from pipeline.day import tractorstore

    client, sheet, row = match

    def form(page: str) -> dict:
        drawn = re.search(r'data-testid="enter".*?</form>', page, re.S).group(0)
        return dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', drawn))

    first = sheet_post(client, sheet["a"], action="enter", number="1", declarer="a", points="20")
    deal_two = {**form(first.text), "points": "40"}  # drawn before B's answer to deal 1
    assert "已记录" in sheet_outcome(sheet_post(client, sheet["b"], action="confirm", number="1"))
    assert sheet_outcome(client.post(sheet["a"][0], data=deal_two)) == "已记录"
    sheet_post(client, sheet["b"], action="dispute", number="2")
    tractorstore.decide(db_file, "tr", row["stage"], row["match"], 2, keep=False)
    again = client.post(sheet["a"][0], data=deal_two)
    assert "记分表在这一盘之前已有变化" in sheet_outcome(again)  # 盘, Tractor's word
    with db.reading(db_file) as con:
        assert db.scalar(con, "select count(*) from tractor_sheet_deals") == 1
    bad = sheet_post(client, sheet["a"], **{**form(again.text), "points": "abc"})
    assert sheet_outcome(bad) == "防家得分：收到的“abc”不是整数" and "链接无效" not in bad.text
