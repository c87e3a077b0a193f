"""The pairing the console previews is the pairing it stores, made once (issue 53): in a
server, the preview (a transaction rolled back) and the store of the same round with the
same choices from the same stored event make the pairing once; anything the pairing reads
changed between them, or another choice, and it is made again. On a real DuckDB file."""

from __future__ import annotations

import pytest
from conftest import entries, write_csv

from pipeline.base import db, events, oplog
from pipeline.pairing import event_round


@pytest.fixture
def server(monkeypatch):
    """This process shares its connections (as `paisai dashboard` does), nothing made yet;
    every making of a pairing counted."""
    monkeypatch.setattr(db, "_SHARING", True)
    monkeypatch.setattr(db, "_SHARED", {})
    monkeypatch.setattr(event_round, "_MADE", {})
    made: list[int] = []
    original = event_round._make

    def counting(*args, **kwargs):
        made.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(event_round, "_make", counting)
    return made


def _preview(db_file, **choices):
    with db.trial(db_file) as con:
        event = events.load(con, "e")
        round_no, pairing, seed = event_round.pair(con, event, **choices)
    return round_no, [(t.table, t.ew_team, t.ns_team) for t in pairing.tables], seed


def _store(db_file, **choices):
    with db.writing(db_file) as con:
        event = events.load(con, "e")
        round_no, pairing, seed = event_round.pair(con, event, **choices)
    with db.reading(db_file) as con:
        stored = db.rows(
            con,
            "select table_no, ew_team, ns_team from pairings where "
            "event_id = 'e' and round = ? order by table_no",
            [round_no],
        )
    return round_no, [(t.table, t.ew_team, t.ns_team) for t in pairing.tables], seed, stored


def test_the_stored_pairing_is_the_previewed_one_made_once(server, event_with_results, db_file):
    round_no, previewed, _ = _preview(db_file)
    assert round_no == 2 and len(previewed) == 8 and server == [1]
    again, tables, _, stored = _store(db_file)
    assert (again, tables) == (2, previewed)
    assert stored == previewed  # what the preview showed is in the database
    assert server == [1]  # made once
    logged = oplog.log_path(db_file).read_text(encoding="utf-8")
    assert logged.count("paired") == 1  # the store's line; the preview was rolled back


def test_made_again_when_what_it_reads_changed_or_another_choice(
    server, event_with_results, db_file
):
    _preview(db_file)
    with db.writing(db_file) as con:  # a result corrected between the preview and the store
        con.execute(
            "update results set ew_level = 2, ns_level = 14 where event_id = 'e' and "
            "round = 1 and table_no = 1"
        )
    _, tables, _, stored = _store(db_file)
    assert server == [1, 1] and stored == tables
    event_round._MADE.clear()  # as a fresh process pairs the changed event: the same tables
    assert _preview(db_file, round_no=2)[1] == tables

    with db.writing(db_file) as con:
        con.execute("delete from pairings where event_id = 'e' and round = 2")
    made = len(server)
    _preview(db_file, separate_affiliations=True)
    _store(db_file)  # another choice than the preview's: made again
    assert len(server) == made + 2


def test_a_random_draw_stored_with_its_seed_is_the_one_previewed(server, cli, tmp_path, db_file):
    """Round 1 drawn at random (no seed given): the preview draws a seed, the store with it
    is the same draw, made once; another preview without a seed draws anew."""
    assert (
        cli(
            "event", "create", "--id", "e", "--name", "金陵", "--ruleset", "jinling-2023-pairs"
        ).code
        == 0
    )
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "entries.csv", entries(16))).code == 0
    round_no, previewed, seed = _preview(db_file)
    assert round_no == 1 and seed is not None and server == [1]
    _preview(db_file)
    assert server == [1, 1]  # a fresh draw each time no seed is given
    _, tables, used, stored = _store(db_file, seed=seed)
    assert (tables, used, stored) == (previewed, seed, previewed)
    assert server == [1, 1]


def test_a_command_keeps_nothing(monkeypatch, event_with_results, db_file):
    """Outside a server (a command pairs once per process) nothing is kept."""
    monkeypatch.setattr(event_round, "_MADE", {})
    _preview(db_file)
    _store(db_file)
    assert event_round._MADE == {}
