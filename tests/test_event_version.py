"""The event's version — what every public page's cache, the phones' process and the
console's state are keyed by — changes whenever something those pages show changes, also
when the change keeps every count: a round paired again in place, a registration corrected,
a penalty's points corrected (before, `event_version` counted the rows of pairings, teams and
penalties: the phones kept showing the old tables and names)."""

from __future__ import annotations

from conftest import ENTRY_HEADER, write_csv

from pipeline.base import db
from pipeline.day import queries


def _version(db_file) -> str:
    with db.reading(db_file) as con:
        return queries.event_version(con, "e")


def _tables(db_file) -> list[tuple]:
    with db.reading(db_file) as con:
        return db.rows(con, "select table_no, ew_team, ns_team from pairings "
                            "where event_id = 'e' and round = 1 order by table_no")


def test_a_round_paired_again_with_as_many_tables_is_a_new_version(cli, db_file, tmp_path):
    assert cli("event", "create", "--id", "e", "--name", "测试赛", "--ruleset",
               "suzhou-2025").code == 0
    rows = [[f"A{i}", f"队{i}", f"甲{i}", f"乙{i}", f"单位{(i + 1) // 2}"] for i in range(1, 9)]
    assert cli("ingest", "--event", "e",
               write_csv(tmp_path / "entries.csv", [ENTRY_HEADER, *rows])).code == 0
    assert cli("pair", "--event", "e").code == 0
    by_number, first = _tables(db_file), _version(db_file)
    assert by_number[0][1:] == ("A1", "A2")  # 1 v 2: one unit
    assert cli("pair", "--event", "e", "--round", "1", "--separate-affiliations").code == 0
    apart = _tables(db_file)
    assert len(apart) == len(by_number) and apart != by_number  # as many tables, others
    assert _version(db_file) != first


def test_a_corrected_name_or_penalty_is_a_new_version(cli, db_file, tmp_path):
    assert cli("event", "create", "--id", "e", "--name", "测试赛", "--ruleset",
               "suzhou-2025").code == 0
    rows = [[f"A{i}", f"队{i}", f"甲{i}", f"乙{i}", f"单位{i}"] for i in range(1, 5)]
    entries = tmp_path / "entries.csv"
    assert cli("ingest", "--event", "e", write_csv(entries, [ENTRY_HEADER, *rows])).code == 0
    before = _version(db_file)
    rows[0][2] = "张三"  # the same four teams, one player's name corrected
    assert cli("ingest", "--event", "e", write_csv(entries, [ENTRY_HEADER, *rows])).code == 0
    named = _version(db_file)
    assert named != before
    header = ["轮次", "队号", "扣分项目", "扣分", "原因"]
    assert cli("ingest", "--event", "e", write_csv(
        tmp_path / "pen.csv", [header, [1, "A4", "积分", 1, "迟到"]])).code == 0
    penalised = _version(db_file)
    with db.writing(db_file) as con:  # the same one penalty, its points corrected
        con.execute("update penalties set amount = 2 where event_id = 'e'")
    assert _version(db_file) not in (penalised, named)
