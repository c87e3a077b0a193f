"""Every page through Streamlit's AppTest: no exception, the right elements."""

from __future__ import annotations

import pytest
from conftest import run_page


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory, demo_day):
    database = tmp_path_factory.mktemp("apptest") / "demo.duckdb"
    demo_day(database)
    return database


def _console(monkeypatch, database, event: str):
    """The console signed in (password "right") on `event`, drawn once."""
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "right")
    from dashboard import auth

    auth._failures().clear()
    at = run_page(monkeypatch, database, "admin", event=event)
    at.text_input[0].input("right")
    at.button[0].click().run()
    return at


def _html(at) -> str:
    """Everything the page drew with st.html (tables, the progress line)."""
    return " ".join(element.proto.body for element in at.get("html"))


def test_live_page(monkeypatch, demo_db):
    at = run_page(monkeypatch, demo_db, "live", event="demo")
    assert not at.exception
    assert at.title[0].value == "演示赛：关务掼蛋春茗会"
    assert "已报 8/8 桌" in _html(at)
    assert "演示数据" in " ".join(c.value for c in at.caption)


def test_live_page_in_english(monkeypatch, demo_db):
    at = run_page(monkeypatch, demo_db, "live", event="demo", lang="en")
    assert not at.exception
    assert "8/8 tables reported" in _html(at)


def test_pairings_page(monkeypatch, demo_db):
    at = run_page(monkeypatch, demo_db, "pairings", event="demo")
    assert not at.exception
    assert "第 2 轮" in at.title[0].value  # the demo's round 2 is paired, not yet played
    at.text_input[0].input("A1").run()
    assert not at.exception


def test_empty_database(monkeypatch, tmp_path):
    at = run_page(monkeypatch, tmp_path / "empty.duckdb", "live")
    assert not at.exception
    assert "还没有赛事" in at.info[0].value


def test_admin_without_password_says_how(monkeypatch, demo_db):
    monkeypatch.delenv("PAISAI_ADMIN_PASSWORD", raising=False)
    at = run_page(monkeypatch, demo_db, "admin")
    assert not at.exception
    assert "PAISAI_ADMIN_PASSWORD" in at.warning[0].value
    assert not at.text_input


def _lock_passes(monkeypatch):
    """The console's waits and the organizer's lock (issue 49: the first organizer locks as
    every official does) over: the lock's 15 minutes passed."""
    import datetime as dt

    from dashboard import auth
    from pipeline.officials import people

    auth._failures().clear()
    later = people._now() + dt.timedelta(minutes=people.LOCK_MINUTES + 1)
    monkeypatch.setattr(people, "_now", lambda: later)


def test_admin_login_rate_limited(monkeypatch, demo_db):
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "right")
    from dashboard import auth

    auth._failures().clear()
    at = run_page(monkeypatch, demo_db, "admin", event="demo")
    for _ in range(5):
        at.text_input[0].input("wrong")
        at.button[0].click().run()
        assert "密码不对" in at.error[0].value
    at.text_input[0].input("right")
    at.button[0].click().run()
    assert "尝试次数过多" in at.error[0].value  # even the right password waits now
    _lock_passes(monkeypatch)
    at.text_input[0].input("right")
    at.button[0].click().run()
    assert not at.exception
    assert any("上传" in h.value for h in at.subheader)


def test_bracket_page_for_a_guandan_event(monkeypatch, demo_db):
    at = run_page(monkeypatch, demo_db, "bracket", event="demo")
    assert not at.exception
    assert "不是拖拉机赛事" in at.info[0].value


def test_bracket_page_for_a_tractor_event(monkeypatch, tmp_path):
    from conftest import write_csv

    from pipeline.cli import main

    database = tmp_path / "tractor.duckdb"
    assert main(["event", "create", "--id", "tr", "--name", "拖拉机", "--ruleset",
                 "hengquan-2025-tractor", "--db", str(database)]) == 0
    rows = [["队号", "队名"]] + [[f"T{i}", f"<b>拖{i}</b>"] for i in range(1, 9)]
    assert main(["ingest", "--event", "tr", str(write_csv(tmp_path / "e.csv", rows)),
                 "--db", str(database)]) == 0
    assert main(["bracket", "draw", "--event", "tr", "--groups", "2", "--advance", "2",
                 "--seed", "1", "--db", str(database)]) == 0
    at = run_page(monkeypatch, database, "bracket", event="tr")
    assert not at.exception
    assert "赛程" in at.title[0].value


def test_history_page(monkeypatch, demo_db):
    at = run_page(monkeypatch, demo_db, "history")
    assert not at.exception
    assert at.title[0].value == "历史与评分"
    # it opens with content: the latest events and the best players, above no search yet
    assert "最近的赛事" in [h.value for h in at.subheader]
    assert any("demo" in block.proto.body for block in at.get("html"))
    from pipeline.base import db
    with db.reading(demo_db) as con:  # a player of the demo day who played in several events
        name, played_in = con.execute(
            "select name, count(distinct event_id) from player_map group by player_id, name "
            "order by 2 desc, 1 limit 1").fetchall()[0]
    assert played_in >= 2  # the past events share players
    at.text_input[0].input(name).run()
    assert not at.exception
    assert at.metric[0].value == str(played_in)


def test_clock_page(monkeypatch, demo_db):
    at = run_page(monkeypatch, demo_db, "clock", event="demo")
    assert not at.exception


def test_console_draw_and_checkin(monkeypatch, tmp_path):
    from conftest import SHEETS

    from pipeline.base import db
    from pipeline.cli import main

    database = tmp_path / "reg.duckdb"
    assert main(["event", "create", "--id", "r", "--name", "报名", "--ruleset", "suzhou-2025",
                 "--db", str(database)]) == 0
    assert main(["ingest", "--event", "r", str(SHEETS / "registration" / "unnumbered.csv"),
                 "--db", str(database)]) == 0
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "pw")
    from dashboard import auth

    auth._failures().clear()
    at = run_page(monkeypatch, database, "admin", event="r")
    at.text_input[0].input("pw")
    at.button[0].click().run()
    assert not at.exception
    draw = next(b for b in at.button if b.label == "抽签编号")
    draw.click().run()
    assert not at.exception
    assert any("抽签种子" in c.value for c in at.caption)  # a caption, not a heading
    search = next(x for x in at.text_input if "报到" in x.label)
    search.input("A1").run()
    next(b for b in at.button if b.label == "报到").click().run()
    assert not at.exception
    with db.reading(database) as con:
        assert con.execute("select count(*) from teams where checked_in").fetchall()[0][0] == 1


def test_bracket_champion_heading_shows_a_team_number_as_text(monkeypatch, tmp_path):
    """A team number that is markup is printed, never rendered (issue 15, item 11)."""
    from conftest import write_csv

    from pipeline.cli import main

    database = tmp_path / "tractor.duckdb"
    db = ["--db", str(database)]
    assert main(["event", "create", "--id", "tr", "--name", "拖拉机", "--ruleset",
                 "union-tractor", *db]) == 0
    rows = [["队号", "队名"], ["<img src=x>", "甲"], ["T2", "乙"]]
    assert main(["ingest", "--event", "tr", str(write_csv(tmp_path / "e.csv", rows)), *db]) == 0
    assert main(["bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
                 "--seed", "1", *db]) == 0
    header = ["阶段", "场次", "局", "甲方", "乙方", "甲方级数", "乙方级数"]
    games = [["A组", 1, 1, "T2", "<IMGSRC=X>", "10", "过A"]]  # one game a match (seed 002)
    assert main(["ingest", "--event", "tr", str(write_csv(tmp_path / "g.csv", [header, *games])),
                 *db]) == 0
    assert main(["bracket", "next", "--event", "tr", *db]) == 0
    final = [["决赛", 1, 1, "<IMGSRC=X>", "T2", "过A", "9"]]
    assert main(["ingest", "--event", "tr", str(write_csv(tmp_path / "f.csv", [header, *final])),
                 *db]) == 0
    at = run_page(monkeypatch, database, "bracket", event="tr")
    assert not at.exception
    heading = next(m.value for m in at.markdown if "champion" in m.value)
    assert "&lt;IMGSRC=X&gt;" in heading and "<IMGSRC" not in heading


def test_table_entry_starts_empty_and_pairings_show_missing_tables(monkeypatch, tmp_path):
    """A careless save never records a 10–10 draw; the pairings page lists the tables that
    have not reported (issue 22's first steps)."""
    from conftest import entries, write_csv

    from pipeline.cli import main

    database = tmp_path / "e.duckdb"
    db = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025",
                 *db]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(tmp_path / "e.csv", entries(8))),
                 *db]) == 0
    assert main(["pair", "--event", "e", *db]) == 0
    at = _console(monkeypatch, database, "e")
    levels = [s for s in at.selectbox if "级数" in s.label]
    assert len(levels) == 2 and all(s.value is None for s in levels)
    # the console opens on the round: the four tables not reported, with their teams
    assert any("未报：第 1、2、3、4 桌" in w.value and "1 号桌 A1–A2" in w.value
               for w in at.warning)
    assert any("下一步：录入成绩" in s.value for s in at.info)
    pairings = run_page(monkeypatch, database, "pairings", event="e")
    assert any("未报：第 1、2、3、4 桌" in m.value for m in pairings.markdown)


def test_many_tables_not_reported_read_as_ranges(monkeypatch, tmp_path):
    """A large round's first minutes: the tables not reported read as ranges with their
    count (not thirty numbers in a row), who sits at each one click away; a dozen or fewer
    are spelled out with their teams, as above."""
    from conftest import entries, write_csv

    from pipeline.cli import main

    database = tmp_path / "big.duckdb"
    db = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025",
                 *db]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(tmp_path / "e.csv", entries(60))),
                 *db]) == 0
    assert main(["pair", "--event", "e", *db]) == 0  # 30 tables
    from pipeline.base import db as store

    with store.reading(database) as con:
        ew, ns = con.execute("select ew_team, ns_team from pairings where event_id = 'e' "
                             "and round = 1 and table_no = 5").fetchone()
    sheet = write_csv(tmp_path / "r1.csv", [["轮次", "桌号", "东西队号", "南北队号",
                                            "东西级数", "南北级数"], [1, 5, ew, ns, "A", "9"]])
    assert main(["ingest", "--event", "e", str(sheet), *db]) == 0
    at = _console(monkeypatch, database, "e")
    assert not at.exception
    said = next(w.value for w in at.warning if "未报" in w.value)
    assert said == "未报：第 1–4、6–30 桌（共 29 桌）"
    who = next(e for e in at.expander if "29" in e.label)
    seats = who.markdown[0].value.split("；")
    assert len(seats) == 29 and seats[0] == "1 号桌 A1–A2" and seats[-1] == "30 号桌 A59–A60"
    assert not any(seat.startswith("5 号桌") for seat in seats)
    # pairing the next round now is refused in the console's own words: the ranges, and its
    # checkbox as the remedy (not the command line's --force)
    at.session_state["phase"] = "pairing"
    at.run()
    next(b for b in at.button if b.label == "先看编排").click().run()
    assert [e.value for e in at.error] == [
        "第 1 轮只报了 1/30 桌（未报：第 1–4、6–30 桌）；仍要编排请勾选“上一轮未报完也编排”"]
    pairings = run_page(monkeypatch, database, "pairings", event="e")
    assert any("未报：第 1–4、6–30 桌" in m.value for m in pairings.markdown)
    # the projector turns pages of 20 tables (30 tables were one page past the screen's foot)
    import re

    wall = run_page(monkeypatch, database, "pairings", event="e", projector="1")
    first, last, number = map(int, re.search(r"第 (\d+)–(\d+) 桌 · 第 (\d)/2 页",
                                              _html(wall)).groups())
    assert (first, last) == ((1, 20) if number == 1 else (21, 30))
    rows = re.findall(r"<tr><td[^>]*>(\d+)</td>", _html(wall))
    assert [int(r) for r in rows] == list(range(first, last + 1))


def test_a_big_pairing_preview_says_its_summary_first(monkeypatch, tmp_path):
    """A 30-table preview where every table seats one unit's two teams: one line of counts,
    the button to store it above the tables, the thirty tables of one unit as one warning with
    their list one click away (a 1,000-team event of twelve units drew hundreds of warnings
    and put the button 20,000 pixels down)."""
    from conftest import ENTRY_HEADER, write_csv

    from pipeline.cli import main

    database = tmp_path / "one-unit.duckdb"
    db = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025",
                 *db]) == 0
    teams = [[f"A{i}", f"队伍{i}", f"张{i}", f"李{i}", "同一公司"] for i in range(1, 61)]
    assert main(["ingest", "--event", "e", str(write_csv(tmp_path / "e.csv",
                                                         [ENTRY_HEADER, *teams])), *db]) == 0
    at = _console(monkeypatch, database, "e")
    at.session_state["phase"] = "pairing"
    at.run()
    next(b for b in at.button if b.label == "先看编排").click().run()
    assert not at.exception and not at.error
    summary = next(m.value for m in at.markdown if "同单位相遇" in m.value)
    assert summary == "**第 1 轮 · 30 桌 · 重复相遇 0 对 · 同单位相遇 30 桌**"
    assert [w.value for w in at.warning] == ["30 桌的两队同属一个单位"]
    listed = next(e for e in at.expander if "同单位相遇的 30 桌" in e.label)
    assert listed.markdown[0].value.count("同属 同一公司") == 30
    assert any(b.label == "确认编排" for b in at.button)


def test_the_latest_results_line_keeps_to_the_newest_round(monkeypatch, cli,
                                                            round_two_paired, db_file, tmp_path):
    """One table of round 2 reported after round 1's eight: the projector's line shows round
    2's table alone, named as round 2's (round 1's tables beside it read as one team seated
    at two tables)."""
    from conftest import RESULT_HEADER, write_csv

    from pipeline.base import db as store

    with store.reading(db_file) as con:
        ew, ns = con.execute("select ew_team, ns_team from pairings where event_id = 'e' and "
                             "round = 2 and table_no = 3").fetchone()
    sheet = write_csv(tmp_path / "r2.csv", [RESULT_HEADER, [2, 3, ew, ns, "Q", "7"]])
    assert cli("ingest", "--event", round_two_paired, sheet).code == 0
    at = run_page(monkeypatch, db_file, "live", event=round_two_paired, projector="1")
    assert not at.exception
    import re

    feed = re.search(r"data-testid='feed'>(.*?)</div>", _html(at)).group(1)
    assert feed == f"第 2 轮最新成绩：3 号桌 {ew} Q – {ns} 7"


def test_a_round_paired_and_not_played_is_paired_again_from_the_console(monkeypatch, cli,
                                                                        event16, db_file):
    """Round 1 confirmed, no table reported yet, then drawn again with a seed of the hall's
    choosing: the console offers round 1 made again (the default) beside round 2, and stores
    it in round 1's place — the console had no way back from a confirmed pairing, and
    offered only the round after."""
    from pipeline.base import db as store

    assert cli("pair", "--event", event16).code == 0
    at = _console(monkeypatch, db_file, event16)
    at.session_state["phase"] = "pairing"
    at.run()
    which = next(r for r in at.radio if r.label == "编排哪一轮")
    assert which.value == 1 and which.options == ["重新编排第 1 轮（还没有成绩）", "编排第 2 轮"]
    next(n for n in at.number_input if n.label == "抽签种子").set_value(5)
    next(b for b in at.button if b.label == "先看编排").click().run()
    assert not at.error
    assert any(m.value == "**第 1 轮 · 8 桌 · 抽签种子 5 · 重复相遇 0 对 · 同单位相遇 0 桌**"
               for m in at.markdown)
    next(b for b in at.button if b.label == "确认编排").click().run()
    assert any("第 1 轮已编排" in m.value for m in at.success)
    with store.reading(db_file) as con:
        assert con.execute("select max(round), count(*) from pairings where event_id = 'e'"
                           ).fetchone() == (1, 8)
        assert con.execute("select seed from pairing_rounds where event_id = 'e' and round = 1"
                           ).fetchone() == (5,)


def test_a_late_team_is_late_for_the_round_in_play(monkeypatch, round_two_paired, db_file):
    """The console's late form asks for the round in play (round 2 paired: 2), not round 1:
    an organizer deciding a late arrival in round 7 typed the round every time."""
    at = _console(monkeypatch, db_file, round_two_paired)
    assert not at.exception
    rounds = [n for n in at.number_input if n.label == "轮次"]
    assert len(rounds) == 2 and all(n.value == 2 for n in rounds)  # the hand entry's too


def test_a_round_through_the_console(monkeypatch, tmp_path):
    """Issue 22: from pairing to every table reported: the missing list shrinks as results
    arrive, both sides agreeing store a table, a disagreement is decided, a table entered by
    hand completes the round (the next step turns to pairing) and is undone."""
    from conftest import entries, write_csv

    from pipeline.cli import main
    from pipeline.day import selfreport

    database = tmp_path / "c.duckdb"
    db_args = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025",
                 *db_args]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(tmp_path / "e.csv", entries(6))),
                 *db_args]) == 0
    assert main(["pair", "--event", "e", *db_args]) == 0  # A1–A2, A3–A4, A5–A6
    links = selfreport.links(database, "e", 1, "http://x")
    sig = {(r["table"], side): r[f"{side}_url"].rsplit("sig=", 1)[1]
           for r in links.iter_rows(named=True) for side in ("ew", "ns")}
    code = {(r["table"], side): r[f"{side}_code"]
            for r in links.iter_rows(named=True) for side in ("ew", "ns")}
    def console():
        at = _console(monkeypatch, database, "e")
        assert not at.exception
        return at

    def missing(at) -> str:
        return next((w.value for w in at.warning if "未报" in w.value), "")

    assert "未报：第 1、2、3 桌" in missing(console())
    # table 1: both sides send K–9: stored at once
    assert selfreport.submit(database, "e", 1, 1, sig[(1, "ew")], "K", "9", "ew", code[(1, "ew")]) == "waiting"
    assert selfreport.submit(database, "e", 1, 1, sig[(1, "ns")], "K", "9", "ns", code[(1, "ns")]) == "stored"
    # table 2: the sides disagree; the organizer accepts North-South's report
    selfreport.submit(database, "e", 1, 2, sig[(2, "ew")], "10", "8", "ew", code[(2, "ew")])
    assert selfreport.submit(database, "e", 1, 2, sig[(2, "ns")], "10", "9", "ns", code[(2, "ns")]) == "disagree"
    at = console()
    assert "未报：第 2、3 桌" in missing(at)
    assert any("双方所报不一致" in m.value for m in at.markdown)
    accept = [b for b in at.button if b.label == "接受"]
    accept[1].click().run()  # the second row: 南北报 10–9
    at = console()
    assert "未报：第 3 桌" in missing(at)
    # table 3 entered by hand (its teams shown, no reason asked: a first entry), undone
    next(n for n in at.number_input if n.label == "桌号").set_value(3).run()
    assert any("本桌：东西 A5 · 南北 A6" in i.value for i in at.info)
    form = {s.label: s for s in at.selectbox}
    form["东西级数 A5"].select("Q")
    form["南北级数 A6"].select("9")
    next(b for b in at.button if b.label == "保存").click().run()
    assert not at.error, [e.value for e in at.error]
    assert any("已保存第 1 轮第 3 桌：A5 Q – A6 9" in s.value for s in at.success)
    at = console()
    assert missing(at) == ""
    assert any("下一步：编排下一轮" in s.value for s in at.info)
    undo_button = next(b for b in at.button if b.label.startswith("撤销上一步"))
    undo_button.click().run()
    at = console()
    assert "未报：第 3 桌" in missing(at)
    from pipeline.base import db as store
    with store.reading(database) as con:
        assert con.execute("select table_no, ew_level, ns_level from results order by "
                           "table_no").fetchall() == [(1, 13, 9), (2, 10, 9)]
    # issue 51: the accepted report's table deleted since through the CLI: the undo of that
    # decision is offered no more — its button is off and says why
    assert main(["results", "delete", "--event", "e", "--round", "1", "--table", "2",
                 *db_args]) == 0
    at = console()
    undo_button = next(b for b in at.button if b.label.startswith("撤销上一步"))
    assert undo_button.label.endswith("已接受") and undo_button.disabled
    assert any("第 1 轮 2 号桌此后已被删除" in c.value for c in at.caption), \
        [c.value for c in at.caption]


def test_two_events_in_one_hall_rotate_across_both(monkeypatch, tmp_path):
    """`?event=ID1,ID2&rotate=1`: a Guandan event's ranking and pairings, then a Tractor
    event's bracket, in turn, each page naming its own event."""
    from conftest import entries, write_csv

    from dashboard import common
    from pipeline.cli import main

    database = tmp_path / "hall.duckdb"
    db_args = ["--db", str(database)]
    assert main(["event", "create", "--id", "gd", "--name", "掼蛋赛", "--ruleset",
                 "suzhou-2025", *db_args]) == 0
    assert main(["ingest", "--event", "gd", str(write_csv(tmp_path / "g.csv", entries(4))),
                 *db_args]) == 0
    assert main(["pair", "--event", "gd", *db_args]) == 0
    assert main(["event", "create", "--id", "tr", "--name", "拖拉机赛", "--ruleset",
                 "union-tractor", *db_args]) == 0
    assert main(["ingest", "--event", "tr", str(write_csv(tmp_path / "t.csv", entries(4))),
                 *db_args]) == 0
    assert main(["bracket", "draw", "--event", "tr", "--groups", "1", "--advance", "2",
                 "--seed", "1", *db_args]) == 0
    shown = {}
    for slot, page in enumerate(("live", "pairings", "bracket")):
        monkeypatch.setattr(common, "now", lambda s=slot: s * common.ROTATE_SECONDS + 1)
        at = run_page(monkeypatch, database, page, event="gd,tr", rotate="1")
        assert not at.exception
        shown[page] = " ".join(x.value for x in at.title)
    assert "掼蛋赛" in shown["live"] and "第 1 轮对阵" in shown["pairings"]
    assert "拖拉机赛" in shown["bracket"]


def test_history_flags_namesakes_for_review(monkeypatch, tmp_path):
    """Two 王伟 of different units in one event are two people, flagged for review: the
    identities tab lists both, and the search names each with its id and the flag."""
    from conftest import RESULT_HEADER, write_csv

    from pipeline.cli import main

    database = tmp_path / "names.duckdb"
    assert main(["event", "create", "--id", "n", "--name", "同名", "--ruleset", "suzhou-2025",
                 "--db", str(database)]) == 0
    assert main(["ingest", "--event", "n", str(write_csv(tmp_path / "n.csv", [
        ["队号", "队名", "队员1", "队员2", "单位"], ["A1", "一", "王伟", "李明", "恒通"],
        ["A2", "二", "王伟", "赵强", "华信"]])), "--db", str(database)]) == 0
    assert main(["ingest", "--event", "n", str(write_csv(tmp_path / "r.csv", [
        RESULT_HEADER, [1, 1, "A1", "A2", "A", "5"]])), "--db", str(database)]) == 0
    at = run_page(monkeypatch, database, "history")
    assert not at.exception
    shown = "".join(block.proto.body for block in at.get("html"))
    assert 'data-testid="identities-to-review"' in shown and "同名两人？" in shown
    assert shown.count("王伟") >= 2
    at.text_input[0].input("王伟").run()
    assert not at.exception
    options = at.selectbox[0].options
    assert len(options) == 2 and all("⚠" in o for o in options)


def test_the_after_phase_makes_a_backup(monkeypatch, demo_db):
    """Issue 39: the next step says 备份 — the 赛后 phase has the button: a whole copy of
    the database, offered for download, that opens as a DuckDB file with the events."""
    import duckdb

    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "pw")
    from dashboard import auth

    auth._failures().clear()
    at = run_page(monkeypatch, demo_db, "admin", event="demo")
    at.text_input[0].input("pw")
    at.button[0].click().run()
    at.session_state["phase"] = "after"
    at.run()
    assert not at.exception
    next(b for b in at.button if b.label == "备份整个数据库").click().run()
    assert not at.exception
    name, data = at.session_state["backup"]
    copy = demo_db.parent / name
    copy.write_bytes(data)
    with duckdb.connect(str(copy), read_only=True) as con:
        assert con.execute("select count(*) from events where event_id = 'demo'").fetchone()[0]


def test_a_disputed_deal_waits_on_the_console_and_is_decided_there(monkeypatch, tmp_path):
    """Issue 42: East-West disputes a deal South entered on the table's sheet; the console
    says so under its status and decides it (taken off: South enters it again)."""
    from conftest import entries, write_csv

    from pipeline.cli import main
    from pipeline.day import selfreport, tablestore

    database = tmp_path / "d.duckdb"
    db_args = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025",
                 *db_args]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(tmp_path / "e.csv", entries(4))),
                 *db_args]) == 0
    assert main(["pair", "--event", "e", *db_args]) == 0
    row = selfreport.links(database, "e", 1, "http://x").row(0, named=True)
    sig = {side: row[f"{side}_url"].rsplit("sig=", 1)[1] for side in ("ew", "ns")}
    from pipeline.base import db

    with db.writing(database) as con:
        tablestore.enter(con, "e", 1, 1, sig["ns"], "ns", row["ns_code"], 1, "ew", 2)
        tablestore.answer(con, "e", 1, 1, sig["ew"], "ew", row["ew_code"], 1, False)
    at = _console(monkeypatch, database, "e")
    assert any("桌上记分有异议：第 1 轮 1 号桌第 1 副" in e.value for e in at.error)
    next(b for b in at.button if b.label == "删除此副（重新记录）").click().run()
    assert not any("桌上记分有异议" in e.value for e in at.error)
    with db.reading(database) as con:
        assert tablestore.entries(con, "e", 1, 1) == []


def test_live_page_kept_per_version_follows_a_new_round(monkeypatch, tmp_path, demo_day):
    """The reader's part of /live (why a team sits where it does, the bump chart, the level
    differences) is made once per version of the results and kept for every session (issue
    53: every rerun of every session ranked the event after every round again) — and a round
    stored shows at the next run: the demo's round 2 played, the bump chart appears (two
    rounds) and the histogram counts round 2's tables."""
    from conftest import RESULT_HEADER, write_csv

    from pipeline.cli import main
    from pipeline.day import queries

    database = tmp_path / "demo.duckdb"
    demo_day(database)
    at = run_page(monkeypatch, database, "live", event="demo")
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1  # round 1 alone: the histogram, no bump chart
    assert len(run_page(monkeypatch, database, "live", event="demo").get("plotly_chart")) == 1
    round_no, pairs = queries.current_pairings(database, "demo")
    assert round_no == 2
    rows = [[2, r["table"], r["ew_team"], r["ns_team"], "10", "8"]
            for r in pairs.iter_rows(named=True) if r["ns_team"] is not None]
    assert main(["ingest", "--event", "demo", str(write_csv(tmp_path / "r2.csv", [
        RESULT_HEADER, *rows])), "--db", str(database)]) == 0
    at.run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2  # the bump chart of rounds 1 and 2, at once
