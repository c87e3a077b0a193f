"""Every notice as written, fifth pass (issue 50): each expected value worked by hand from the
notice's words (quoted where they decide) and from the rules as docs/rules/ states them."""

from __future__ import annotations

import json

import pytest

from tests.conftest import (
    MATCH_SHEET,
    bracket_json,
    read_csv_output,
    sheet_outcome,
    sheet_post,
    two_tractor_teams,
    write_csv,
)

DEAL_SHEET = ["阶段", "场次", "局", "盘", "庄家", "得分"]






# 1. a match decided by the clock, in the bracket's text views -------------------------------

def test_a_clock_decided_match_shows_in_the_bracket_s_text_views(cli, paisai, tmp_path):
    """Seed 000: "1.5小時結束時領先隊獲勝". T1 won game 1 (过A against 9) and leads when the
    clock ends game 2: T1 wins the group match, T2 is behind at time-up. `paisai bracket`
    and `paisai bracket next` (the organizer's text views, run as the installed command)
    say so, and go on to the final, instead of failing for the rest of the event."""
    stage, a, b = two_tractor_teams(cli, tmp_path, "tr", "hengquan-2025-tractor")
    game1 = [stage, 1, 1, a, b, *(("过A", "9") if a == "T1" else ("9", "过A")), ""]
    sheet = write_csv(tmp_path / "m.csv", [MATCH_SHEET, game1,
                                           [stage, 1, "", a, b, "", "", "T1"]])
    assert cli("ingest", "--event", "tr", sheet).code == 0
    shown = paisai("bracket", "--event", "tr")
    assert shown.code == 0, shown.err
    assert "→ T1（T2 到时落后 behind at time-up）" in shown.out
    drawn = paisai("bracket", "next", "--event", "tr")
    assert drawn.code == 0, drawn.err
    assert "决赛" in drawn.out and "到时落后" in drawn.out and "KeyError" not in drawn.err
    final = bracket_json(cli, "tr")["stages"][-1]
    assert {final["matches"][0]["team_a"], final["matches"][0]["team_b"]} == {"T1", "T2"}


def test_the_bracket_picture_keeps_a_clock_decided_match_s_games():
    """The projector's and the console's bracket (dashboard.common.bracket_html): the team
    behind at time-up shows its levels and 到时落后 (a forfeit shows only 弃权)."""
    from dashboard.common import bracket_html

    final = {"name": "决赛", "kind": "knockout", "matches": [
        {"match": 1, "team_a": "T1", "team_b": "T2", "games": [[15, 9], [8, 6]],
         "winner": "T1", "decision": "time", "decided_against": "T2"}]}
    shown = bracket_html([final])
    assert "9 6 到时落后" in shown and "过A 8" in shown
    final["matches"][0] |= {"decision": "forfeit", "games": []}
    assert "弃权" in bracket_html([final])


# 2. a multiplied bottom past the deck's total ------------------------------------------------

def _union_levels(cli, tmp_path, name: str, third_deal: int) -> list:
    """Seed 002 (3 decks, 120 to take over, a level per 40, from 2): T1 declares deal 1 and
    the defenders take 0 (+4: 2 → 6), T1 declares deal 2, 0 again (+4: 6 → 10), T1 declares
    deal 3 and the defenders take `third_deal`."""
    stage, a, b = two_tractor_teams(cli, tmp_path, name, "union-tractor")
    rows = [[stage, 1, 1, 1, "T1", 0], [stage, 1, 1, 2, "T1", 0],
            [stage, 1, 1, 3, "T1", third_deal]]
    run = cli("ingest", "--event", name, write_csv(tmp_path / f"{name}.csv",
                                                   [DEAL_SHEET, *rows]))
    assert run.code == 0, run.err
    (match,) = bracket_json(cli, name)["stages"][0]["matches"]
    return [tuple(g) if a == "T1" else tuple(reversed(g)) for g in match["games"]]


@pytest.mark.parametrize("third_deal,levels", [
    # 抠底 ("在最后一圈牌中，防守方一家牌最大"): 250 in play and the bottom's 30 doubled by a
    # pair: 250 + 60 = 310 (250 + 30 = 280 points in play, no more than the decks' 300).
    # 310 ≥ 120: T2 takes over with floor((310 − 120) / 40) = floor(4.75) = 4: 2 → 6
    (310, (10, 6)),
    # 250 + the bottom's 50 doubled = 350: floor(230 / 40) = 5: T2 2 → 7
    (350, (10, 7)),
    # what was entered where 350 was refused: 300, floor(180 / 40) = 4: 2 → 6, a level short
    (300, (10, 6)),
])
def test_a_multiplied_bottom_past_the_decks_total_on_the_paper_sheet(cli, tmp_path,
                                                                      third_deal, levels):
    assert _union_levels(cli, tmp_path, f"u{third_deal}", third_deal) == [levels]


def test_the_paper_sheet_refuses_what_no_bottom_can_make(cli, tmp_path):
    """The most a deal can score in seed 002: the decks' 300, with the bottom's 6 cards
    ("留底6张": at most 60 points) counted again up to the preset's multiplier 8: 300 + 60 ×
    7 = 720. 725 is refused with the limit and why, 303 as no multiple of 5; nothing kept."""
    stage, a, b = two_tractor_teams(cli, tmp_path, "u", "union-tractor")
    for points, said in ((725, "不超过 720"), (303, "5 的倍数")):
        run = cli("ingest", "--event", "u", write_csv(tmp_path / f"x{points}.csv", [
            DEAL_SHEET, [stage, 1, 1, 1, "T1", points]]))
        assert run.code == 2 and said in run.err, run.err
    assert bracket_json(cli, "u")["stages"][0]["matches"][0]["games"] == []


@pytest.fixture
def union_match(cli, tmp_path, db_file, monkeypatch):
    """A drawn union-tractor match's side links and codes, served by the hall's routes."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dashboard.hall import cache, limits, routes, sheetdoor

    cache.forget_versions()
    monkeypatch.setattr(sheetdoor, "LIMITS", limits.Limits())
    two_tractor_teams(cli, tmp_path, "u", "union-tractor")
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    run = cli("bracket", "links", "--event", "u", "--base-url", "http://testserver",
              "--format", "json")
    row = json.loads(run.out)[0]
    with TestClient(Starlette(routes=routes())) as client:
        yield client, {s: (row[f"{s}_url"], row[f"{s}_code"]) for s in "ab"}, row






def test_a_multiplied_bottom_on_the_phone_match_sheet(union_match):
    """The phone sheet (/k) asks for the points in play, the bottom's points and their
    multiplier. Side A records (the union preset's recorder), B confirms. Deals 1 and 2:
    A declares, the defenders take 0: +4 each, A 2 → 10. Deal 3: the defenders take 250 in
    play and the bottom's 30 × 2: 310, B takes over +4: B 2 → 6. Refused: 280 in play with
    a bottom of 30 (310 points in play: more than 3 decks hold) and a bottom of 65 (6 cards
    hold at most 60)."""
    client, sheet, row = union_match
    a_side = "a"
    sheet_post(client, sheet[a_side], action="unlock")
    sheet_post(client, sheet["b"], action="unlock")
    for n in (1, 2):
        done = sheet_post(client, sheet["a"], action="enter", number=str(n), declarer="a",
                     points="0", bottom="0", multiplier="1")
        assert sheet_outcome(done) == "已记录", done.text
        assert sheet_outcome(sheet_post(client, sheet["b"], action="confirm", number=str(n))) != ""
    too_many = sheet_post(client, sheet["a"], action="enter", number="3", declarer="a",
                     points="280", bottom="30", multiplier="2")
    assert "不超过 300" in sheet_outcome(too_many)
    too_big = sheet_post(client, sheet["a"], action="enter", number="3", declarer="a",
                    points="235", bottom="65", multiplier="2")
    assert "不超过 60" in sheet_outcome(too_big)
    done = sheet_post(client, sheet["a"], action="enter", number="3", declarer="a", points="250",
                 bottom="30", multiplier="2")
    assert sheet_outcome(done) == "已记录", done.text
    assert "310" in done.text
    levels = done.text.split('data-testid="levels">')[1].split("</div>")[0]
    assert "<strong>10</strong>" in levels and "<strong>6</strong>" in levels


# 3. one third prize for two equal semi-final losers ----------------------------------------

GAMES = ["阶段", "场次", "局", "甲方", "乙方", "甲方级数", "乙方级数"]


def _play(cli, tmp_path, name: str, winner_of) -> None:
    """Every match of stage `name` won 2–0 (过A against 5) by `winner_of(team_a, team_b)`."""
    view = bracket_json(cli, "tr")
    rows = []
    for stage in view["stages"]:
        if stage["name"] != name:
            continue
        for m in stage["matches"]:
            a, b = m["team_a"], m["team_b"]
            won = winner_of(a, b)
            rows += [[name, m["match"], game, a, b, *(("过A", "5") if won == a else ("5", "过A"))]
                     for game in (1, 2)]
    run = cli("ingest", "--event", "tr", write_csv(tmp_path / f"{name}.csv", [GAMES, *rows]))
    assert run.code == 0, run.err


def _equal_semi_losers(cli, tmp_path, ruleset: str) -> tuple[list[str], list[dict]]:
    """Seed 000, six teams (under 20: "一、二、三等奖各1名"), two groups of three, two through.
    In each group the three beat one another in a circle (the lower number beats the middle
    one, the middle one the higher, the higher the lower), each 2–0 by 过A against 5: every
    team 1 point, 2 − 2 = 0 games, (15 − 5) × 2 − (15 − 5) × 2 = 0 levels. The semi-finals and
    the final go to the lower number. Both semi-final losers: 1 point, 0, 0 — equal."""
    assert cli("event", "create", "--id", "tr", "--name", "拖拉机", "--ruleset",
               ruleset).code == 0
    teams = [["队号", "队名", "单位"]] + [[f"T{i}", f"队{i}", f"会{i}"] for i in range(1, 7)]
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("bracket", "draw", "--event", "tr", "--groups", "2", "--advance", "2",
               "--seed", "7").code == 0
    groups = bracket_json(cli, "tr")["stages"]
    for group in groups:
        members = sorted({t for m in group["matches"] for t in (m["team_a"], m["team_b"])},
                         key=lambda t: int(t[1:]))
        low, mid, high = members
        beats = {(low, mid), (mid, high), (high, low)}
        _play(cli, tmp_path, group["name"],
              lambda a, b, beats=beats: a if (a, b) in beats else b)
    records = {r["team_no"]: r for r in bracket_json(cli, "tr")["groups"]}
    assert {(r["points"], r["game_diff"], r["level_diff"]) for r in records.values()} == \
        {(1, 0, 0)}
    lower = lambda a, b: min(a, b, key=lambda t: int(t[1:]))  # noqa: E731
    assert cli("bracket", "next", "--event", "tr", "--seed", "3").code == 0
    _play(cli, tmp_path, "半决赛", lower)
    semis = [m for s in bracket_json(cli, "tr")["stages"] if s["name"] == "半决赛"
             for m in s["matches"]]
    losers = sorted((m["team_b"] if m["winner"] == m["team_a"] else m["team_a"]
                     for m in semis), key=lambda t: int(t[1:]))
    assert cli("bracket", "next", "--event", "tr").code == 0
    _play(cli, tmp_path, "决赛", lower)
    run = cli("awards", "--event", "tr", "--format", "csv")
    assert run.code == 0, run.err
    return losers, read_csv_output(run.out)


def test_one_third_prize_for_two_equal_semi_final_losers_waits_for_the_organizer(cli, tmp_path):
    """Nothing the notice or its reading reads separates the two: the prize list names both
    with 三等奖 待定 and says how it is decided (a play-off or a lot), never the lower number
    silently; certificates wait. Entered (`awards decide --by lot`) the prize goes to the
    team the lot gave it — here the higher number, which team number would never pick."""
    losers, prizes = _equal_semi_losers(cli, tmp_path, "hengquan-2025-tractor")
    assert [p["award"] for p in prizes] == ["一等奖", "二等奖", "三等奖（待定 undecided）",
                                            "三等奖（待定 undecided）"]
    assert sorted((p["team_no"] for p in prizes[2:]), key=lambda t: int(t[1:])) == losers
    assert all("加赛或抽签" in p["note"] for p in prizes[2:])
    refused = cli("awards", "--event", "tr", "--certificates", tmp_path / "c.pdf")
    assert refused.code == 2 and "待" in refused.err
    wrong = cli("awards", "decide", "--event", "tr", "--rank", "3", "--team", prizes[0][
        "team_no"], "--by", "lot")
    assert wrong.code == 2 and "不在第 3 名的待定队伍中" in wrong.err
    done = cli("awards", "decide", "--event", "tr", "--rank", "3", "--team", losers[1],
               "--by", "lot")
    assert done.code == 0, done.err
    prizes = read_csv_output(cli("awards", "--event", "tr", "--format", "csv").out)
    assert [(p["award"], p["team_no"]) for p in prizes][2:] == [("三等奖", losers[1])]
    assert "抽签决定" in prizes[2]["note"]
    # a meet's placement points follow the lot: 12 to its winner's unit, 10 to the other's
    assert cli("meet", "create", "--id", "m", "--name", "运动会").code == 0
    assert cli("meet", "add", "m", "tr", "--placement-points", "18,14,12,10").code == 0
    units = {r["affiliation"]: int(r["placement_points"]) for r in read_csv_output(
        cli("meet", "standings", "m", "--format", "csv").out)}
    assert units[f"会{losers[1][1:]}"] == 12 and units[f"会{losers[0][1:]}"] == 10


def test_two_equal_semi_final_losers_share_the_third_prize_where_the_preset_says(cli,
                                                                                 tmp_path):
    """`awards.equal_split = "shared"`: each of the two takes the third prize."""
    from pipeline.base.ruleset import load_preset

    text = load_preset("hengquan-2025-tractor").source.replace(
        'equal_split = "organizer"', 'equal_split = "shared"')
    assert 'equal_split = "shared"' in text
    custom = tmp_path / "shared.toml"
    custom.write_text(text, encoding="utf-8")
    losers, prizes = _equal_semi_losers(cli, tmp_path, str(custom))
    assert [p["award"] for p in prizes] == ["一等奖", "二等奖", "三等奖", "三等奖"]
    assert sorted((p["team_no"] for p in prizes[2:]), key=lambda t: int(t[1:])) == losers


# 4. a bye or a forfeit win in seed 000's level points ---------------------------------------

def test_a_bye_and_a_forfeit_win_score_the_round_s_winners_average(cli, tmp_path):
    """Seed 000: "打到几则积多少分"; a round not played is our reading (scoring.unplayed_win =
    "round_winners_average", as bridge gives a bye the field's average). Seven teams, round 1
    by team number: H1–H2, H3–H4, H5–H6, H7 the bye. H1 beats H2 K (13) to 8, H3 beats H4
    10 to 5, H6 does not come. The played winners reached 13 and 10: (13 + 10) / 2 = 11.5,
    rounded down (acceptance finding F) to 11. H5 (forfeit win) 11 and H7 (bye) 11: below
    the K win, above the 10 win and every loss; H6 (absent) 2. Before: 15, more than every
    game won."""
    assert cli("event", "create", "--id", "h", "--name", "恒全", "--ruleset",
               "hengquan-2025-guandan").code == 0
    teams = [["队号", "队名"]] + [[f"H{i}", f"队{i}"] for i in range(1, 8)]
    assert cli("ingest", "--event", "h", write_csv(tmp_path / "e.csv", teams)).code == 0
    assert cli("pair", "--event", "h").code == 0
    paired = tmp_path / "p.csv"
    assert cli("export", "pairings", "--event", "h", "--round", "1", "--out", paired).code == 0
    tables = {(r["ew_team"], r["ns_team"]) for r in read_csv_output(
        paired.read_text(encoding="utf-8-sig"))}
    assert tables == {("H1", "H2"), ("H3", "H4"), ("H5", "H6"), ("H7", "")}
    header = ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数", "弃权"]
    rows = [header, [1, 1, "H1", "H2", "K", "8", ""], [1, 2, "H3", "H4", "10", "5", ""],
            [1, 3, "H5", "H6", "", "", "南北"]]
    run = cli("ingest", "--event", "h", write_csv(tmp_path / "r.csv", rows))
    assert run.code == 0, run.err
    ranking = {r["team_no"]: r["level_points"] for r in read_csv_output(
        cli("standings", "--event", "h", "--format", "csv").out)}
    assert ranking == {"H1": "13", "H5": "11", "H7": "11", "H3": "10", "H2": "8", "H4": "5",
                       "H6": "2"}


# 6. a team event's foul sheet must name the table --------------------------------------------

def test_a_team_event_s_foul_sheet_without_the_table_is_refused(cli, tmp_path):
    """Seed 001 in a team match (jinling-2023-team: "the two pairs' violations never add
    up"). T2's pairs have 1, 1 and 1 violations on a sheet without 桌号: read as one team
    record they would make 3 and lose the whole team match. Refused, naming 桌号, nothing
    kept: the standings stay as played (T2 2 points). A sheet with 桌号 is taken."""
    assert cli("event", "create", "--id", "t", "--name", "t", "--ruleset",
               "jinling-2023-team").code == 0
    entries = [["队号", "队名"], ["T1", "一队"], ["T2", "二队"]]
    assert cli("ingest", "--event", "t", write_csv(tmp_path / "e.csv", entries)).code == 0
    results = [["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"],
               [1, 1, "T1", "T2", "10", "8"], [1, 2, "T2", "T1", "Q", "7"]]
    assert cli("ingest", "--event", "t", "--force", write_csv(tmp_path / "r.csv",
                                                              results)).code == 0
    refused = cli("ingest", "--event", "t", write_csv(tmp_path / "f.csv", [
        ["轮次", "队号", "违例"], [1, "T2", 1], [1, "T2", 1], [1, "T2", 1]]))
    assert refused.code == 2 and "桌号" in refused.err and "未保存" in refused.err
    ranking = {r["team_no"]: r["match_points"] for r in read_csv_output(
        cli("standings", "--event", "t", "--format", "csv").out)}
    assert ranking == {"T2": "2", "T1": "0"}
    taken = cli("ingest", "--event", "t", write_csv(tmp_path / "g.csv", [
        ["轮次", "队号", "桌号", "违例"], [1, "T2", 1, 1], [1, "T2", 2, 1]]))
    assert taken.code == 0, taken.err


# 8, 9, 10, 5. each reading stated where the organizer reads it ------------------------------

def test_leave_within_its_grace_asks_for_nothing_to_be_entered(cli, tmp_path):
    """Seed 001: "比賽開始後15分鐘內不作判罰". 10 minutes late (under 15): no sanction, and
    nothing to enter on a penalty sheet."""
    assert cli("event", "create", "--id", "j", "--name", "j", "--ruleset",
               "jinling-2023-pairs").code == 0
    entries = [["队号", "队名"], ["P1", "一"], ["P2", "二"]]
    assert cli("ingest", "--event", "j", write_csv(tmp_path / "e.csv", entries)).code == 0
    assert cli("pair", "--event", "j", "--seed", "1").code == 0
    run = cli("late", "--event", "j", "--round", "1", "P1", "--minutes", "10")
    assert run.code == 0, run.err
    assert "不处罚" in run.out and "罚分表" not in run.out


@pytest.mark.parametrize(("command", "words"), [
    (["rulesets", "show", "union-tractor"], "不是通知的内容"),
    (["rulesets", "show", "suzhou-2025"], "零分轮空"),
    (["rulesets", "show", "suzhou-2025"], "第一轮按带入的排名"),
    (["rulesets", "show", "jinling-2023-pairs"], "答复期过后"),
    (["rulesets", "show", "jinling-2023-team"], "按一轮计算"),
    (["rulesets", "show", "jinling-2023-pairs-b"], "按一轮计算"),
    (["rulesets", "show", "hengquan-2025-tractor"], "运动会名次分"),
    (["rulesets", "show", "hengquan-2025-tractor"], "equal_split"),
    (["pair", "--help"], "带入成绩"),
    (["meet", "add", "--help"], "半决赛负者"),
])
def test_each_reading_is_stated_where_the_organizer_reads_it(cli, command, words):
    run = cli(*command)
    assert run.code == 0 and words in run.out


# 14, issue 51 item 13. rulesets: one line a preset; show prints every setting ---------------

PRESETS = ["hengquan-2025-guandan", "hengquan-2025-tractor", "jinling-2023-pairs",
           "jinling-2023-pairs-b", "jinling-2023-team", "suzhou-2025", "taihu-elite",
           "union-tractor"]


def test_the_preset_list_is_one_short_line_a_preset(paisai):
    """`paisai rulesets` piped (the installed command): a header, a rule and one line a
    preset — name, discipline, the description's title — none of them a wall of text."""
    run = paisai("rulesets")
    assert run.code == 0, run.err
    lines = run.out.strip().splitlines()
    assert len(lines) == 2 + len(PRESETS)
    assert max(len(line) for line in lines) < 120
    rows = {line.split()[0]: line for line in lines[2:]}
    assert sorted(rows) == PRESETS
    assert "tractor" in rows["union-tractor"] and "工会拖拉机大赛（种子 002）" in rows["union-tractor"]
    assert "本软件的读法" not in run.out  # the readings are in `show`


@pytest.mark.parametrize("preset", PRESETS)
def test_show_prints_every_setting_defaults_marked_as_valid_toml(cli, preset):
    """Every setting of `settings.DEFAULTS` appears with its value (two without a value say
    what they default to in a comment), each one the preset leaves at its default is marked
    `# 默认 default`, and the text read back is the same ruleset as the preset."""
    import dataclasses
    import tomllib

    from pipeline.base.ruleset import load_preset, parse_ruleset
    from pipeline.base.settings import DEFAULTS

    shown = cli("rulesets", "show", preset).out
    written = tomllib.loads(load_preset(preset).source)
    read = tomllib.loads(shown)

    blocks, current = {"": []}, ""
    for line in shown.splitlines():
        if line.startswith("["):
            current = line.strip("[]")
            blocks[current] = []
        else:
            blocks[current].append(line)

    def walk(defaults, path, section, given):
        for key, default in defaults.items():
            if isinstance(default, dict):
                walk(default, f"{path}.{key}".strip("."), section.get(key, {}),
                     given.get(key, {}))
                continue
            if (default is None or default == [0]) and given.get(key, default) == default:
                start = f"# {key} = (未设 unset"  # vp_table = [0]: no table (issue 50 G)
            else:
                assert key in section, key
                start = f"{key} = "
            (line,) = [line for line in blocks[path] if line.startswith(start)]
            assert line.endswith("# 默认 default") == (key not in given), line

    walk(DEFAULTS, "", read, written)
    again = parse_ruleset(shown, preset)
    assert {k: v for k, v in dataclasses.asdict(again).items() if k != "source"} == \
        {k: v for k, v in dataclasses.asdict(load_preset(preset)).items() if k != "source"}
    assert 'name = "' + preset + '"\n' in shown and "# 默认 default" not in shown.split(
        "\n")[0]
