"""A level game reported on the phones (issue 51 item 2): where the preset decides equal
levels by the last deal's winner (seed 001, jinling-2023-pairs: "级数相同则末副上游方为胜方"),
the both-sides form asks 末副上游方, a level game without it is refused naming the field with
what was typed kept, both sides saying the same store it, and the ranking counts the winner.
Worked by hand from the notice: 胜 2 负 0, so A1 (East-West, first out in the last deal) has
2 points at K–K and A2 none."""

from __future__ import annotations

import re

import pytest
from conftest import entries, read_csv_output, write_csv
from starlette.applications import Starlette
from starlette.testclient import TestClient

from pipeline.base import db


@pytest.fixture
def hall(cli, tmp_path, db_file, monkeypatch):
    from dashboard.hall import cache, limits, report, routes
    from pipeline.day import selfreport

    cache.forget_versions()
    monkeypatch.setattr(report, "LIMITS", limits.Limits())
    assert cli("event", "create", "--id", "e", "--name", "金陵双人赛", "--ruleset",
               "jinling-2023-pairs").code == 0
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "e.csv", entries(4))).code == 0
    assert cli("pair", "--event", "e").code == 0
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    row = selfreport.links(db_file, "e", 1, "http://testserver").row(0, named=True)
    with TestClient(Starlette(routes=routes())) as client:
        yield client, row


def _send(client, row, side, **form):
    return client.post(row[f"{side}_url"], data={"code": row[f"{side}_code"], **form})


def _sent(page: str) -> str:
    found = re.search(r"data-testid='sent'>(.*?)</p>", page)
    return found.group(1) if found else ""


def _note(page: str) -> str:
    found = re.search(r'data-testid="note">(.*?)</p>', page)
    return found.group(1) if found else ""


def test_a_level_game_is_reported_from_both_phones(hall, cli, db_file):
    client, row = hall
    form = client.get(row["ew_url"])
    assert 'data-testid=\'decider\'' in form.text and "末副上游方" in form.text
    refused = _send(client, row, "ew", ew_level="K", ns_level="K")
    assert refused.status_code == 400
    assert "末副上游方" in _note(refused.text) and "级数相同" in _note(refused.text)
    assert "处错误" not in refused.text
    # the form as it was filled: both levels still chosen
    assert refused.text.count("<option selected>K</option>") == 2
    first = _send(client, row, "ew", ew_level="K", ns_level="K", decider="ew")
    assert first.status_code == 200
    # the confirmation repeats the side chosen as the level game's decider (#51 acceptance)
    assert "K – 南北" in _sent(first.text)
    assert re.search(r"；末副上游方[^；：]*：东西$", _sent(first.text)), _sent(first.text)
    stored = _send(client, row, "ns", ew_level="K", ns_level="K", decider="ew")
    assert "双方一致，成绩已保存" in stored.text
    assert re.search(r"；末副上游方[^；：]*：东西$", _sent(stored.text))
    with db.reading(db_file) as con:
        assert db.rows(con, "select ew_level, ns_level, last_deal_side from results where "
                            "event_id = 'e'") == [(13, 13, "ew")]
    ranked = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", "e", "--format", "csv").out)}
    assert ranked[row["ew_team"]]["match_points"] == "2"
    assert ranked[row["ns_team"]]["match_points"] == "0"


def test_sides_naming_different_deciders_wait_for_the_organizer(hall, db_file):
    from pipeline.day import selfreport

    client, row = hall
    _send(client, row, "ew", ew_level="9", ns_level="9", decider="ew")
    said = _send(client, row, "ns", ew_level="9", ns_level="9", decider="ns")
    assert "与对方所报不一致" in said.text
    waiting = selfreport.pending(db_file, "e")
    assert sorted(waiting["decider"].to_list()) == ["ew", "ns"]
    from dashboard.console.shared import disagreeing_tables

    assert disagreeing_tables(waiting) == [1]  # the console flags the disagreement
    ns_report = waiting.filter(waiting["side"] == "ns")["report_id"][0]
    selfreport.decide(db_file, "e", ns_report, accept=True)  # the organizer: NS was right
    with db.reading(db_file) as con:
        assert db.rows(con, "select last_deal_side from results where event_id = 'e'") == \
            [("ns",)]


def test_levels_that_differ_need_no_decider_and_a_draw_preset_asks_none(hall, cli, tmp_path,
                                                                       db_file):
    client, row = hall
    _send(client, row, "ew", ew_level="K", ns_level="9", decider="ew")
    agreed = _send(client, row, "ns", ew_level="K", ns_level="9")
    assert "双方一致" in agreed.text and "末副上游方" not in _sent(agreed.text)
    # suzhou-2025 scores equal levels as a draw: its form has no such field
    from pipeline.day import selfreport

    assert cli("event", "create", "--id", "d", "--name", "平局赛", "--ruleset",
               "suzhou-2025").code == 0
    assert cli("ingest", "--event", "d", write_csv(tmp_path / "d.csv", entries(4))).code == 0
    assert cli("pair", "--event", "d").code == 0
    other = selfreport.links(db_file, "d", 1, "http://testserver").row(0, named=True)
    assert "decider" not in client.get(other["ew_url"]).text


def test_the_console_s_one_table_entry_asks_the_decider_and_keeps_what_was_typed(
        cli, tmp_path, db_file, monkeypatch):
    """The organizer types a level game in: refused naming 末副上游方 with the levels kept,
    then stored with it."""
    from conftest import run_page

    from dashboard import auth

    assert cli("event", "create", "--id", "e", "--name", "金陵双人赛", "--ruleset",
               "jinling-2023-pairs").code == 0
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "e.csv", entries(4))).code == 0
    assert cli("pair", "--event", "e").code == 0
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "pw")
    auth._failures().clear()
    at = run_page(monkeypatch, db_file, "admin", event="e")
    at.text_input[0].input("pw")
    at.button[0].click().run()
    assert not at.exception
    if not any(s.key == "entry-ew" for s in at.selectbox):  # the round's page
        at.segmented_control(key="phase").set_value("round").run()
    at.selectbox(key="entry-ew").select("K")
    at.selectbox(key="entry-ns").select("K")
    assert "末副上游方" in at.selectbox(key="entry-decider").label
    # in the page's language, as every other box (Streamlit's own is "Choose an option")
    assert at.selectbox(key="entry-decider").proto.placeholder == "请选择"
    save = next(b for b in at.button if b.label == "保存")
    save.click().run()
    assert any("末副上游方" in e.value for e in at.error)
    assert at.selectbox(key="entry-ew").value == "K"  # kept as typed
    at.selectbox(key="entry-decider").select("南北")
    next(b for b in at.button if b.label == "保存").click().run()
    assert not at.exception and not at.error
    with db.reading(db_file) as con:
        assert db.rows(con, "select ew_level, ns_level, last_deal_side from results where "
                            "event_id = 'e'") == [(13, 13, "ns")]


def test_the_pre_filled_score_sheet_and_the_template_carry_the_decider(cli, tmp_path,
                                                                       db_file):
    """Seed 001's level game on paper: paisai's own score sheet has a 末副上游方 column (with
    its drop-down list) where the preset needs it, and the organizer's upload of it filled
    in is taken — before, it was refused until the column was added by hand."""
    from openpyxl import load_workbook
    from python_calamine import CalamineWorkbook

    assert cli("event", "create", "--id", "e", "--name", "金陵双人赛", "--ruleset",
               "jinling-2023-pairs").code == 0
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "e.csv", entries(4))).code == 0
    assert cli("pair", "--event", "e").code == 0
    out = tmp_path / "sheet.xlsx"
    assert cli("export", "scoresheet", "--event", "e", "--round", "1", "--out", out).code == 0
    header = CalamineWorkbook.from_path(str(out)).get_sheet_by_name("成绩登记").to_python()[1]
    assert header[:7] == ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数",
                          "末副上游方"]
    book = load_workbook(out)
    sheet = book["成绩登记"]
    assert any("G3" in str(v.sqref) for v in sheet.data_validations.dataValidation)
    for r, (ew, ns, side) in zip((3, 4), (("K", "K", "南北"), ("10", "8", None)), strict=True):
        sheet.cell(r, 5, ew)
        sheet.cell(r, 6, ns)
        sheet.cell(r, 7, side)
    book.save(out)
    run = cli("ingest", "--event", "e", out)
    assert run.code == 0, run.err
    with db.reading(db_file) as con:
        assert db.rows(con, "select table_no, ew_level, ns_level, last_deal_side from results "
                            "where event_id = 'e' order by table_no") == \
            [(1, 13, 13, "ns"), (2, 10, 8, None)]
    template = tmp_path / "t.xlsx"
    assert cli("template", "results", "--event", "e", "--out", template).code == 0
    first = CalamineWorkbook.from_path(str(template))
    assert "末副上游方" in first.get_sheet_by_index(0).to_python()[1]


def test_every_drop_down_of_the_dashboard_says_choose_in_the_page_s_language():
    """Issue 51 acceptance: a selectbox without `placeholder=` shows Streamlit's English
    "Choose an option" on a Chinese page (the decider's did); every one passes the page's."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "dashboard"
    bare = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("selectbox", "multiselect") and \
                    not any(k.arg == "placeholder" for k in node.keywords):
                bare.append(f"{path.relative_to(root)}:{node.lineno}")
    assert len(list(root.rglob("*.py"))) > 20 and not bare, bare
