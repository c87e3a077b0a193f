"""What the projector reads (issue 51): the time of the event's last change — never before
the round began — and the results a confirmed ruling overturned."""

from __future__ import annotations

import time

from pipeline.base import db
from pipeline.day import queries


def test_the_last_change_is_the_round_s_pairing_and_start_not_the_last_result(
        cli, event_with_results, db_file):
    with db.reading(db_file) as con:
        stored = db.scalar(con, "select max(updated_at) from results where event_id = 'e'")
    assert queries.last_change(db_file, "e") == stored  # nothing since the last result
    time.sleep(1.1)
    assert cli("pair", "--event", "e").code == 0  # round 2: after the results
    paired = queries.last_change(db_file, "e")
    assert paired > stored
    time.sleep(1.1)
    assert cli("clock", "start", "--event", "e").code == 0
    started = queries.last_change(db_file, "e")
    assert started > paired and abs((started - paired).total_seconds()) < 30


def test_a_confirmed_ruling_marks_its_table(cli, event_with_results, db_file):
    from pipeline.officials import people, rulings

    for name, role in (("ref", "referee"), ("chief", "chief")):
        assert cli("officials", "add", name, "--role", role, "--password",
                   f"{name}-pass-1").code == 0
    referee = people.sign_in(db_file, "ref", "ref-pass-1")
    chief = people.sign_in(db_file, "chief", "chief-pass-1")
    assert cli("pair", "--event", "e").code == 0
    with db.reading(db_file) as con:
        table, team = db.rows(con, "select table_no, ew_team from pairings where event_id = "
                                   "'e' and round = 2 order by table_no limit 1")[0]
    ruling = rulings.propose(db_file, "e", referee, 2, team, "ruled_loss", reason="x")
    assert queries.live(db_file, "e").ruled == {}  # proposed only: nothing overturned yet
    rulings.decide(db_file, "e", chief, ruling, True)
    assert queries.live(db_file, "e").ruled == {(2, table): ("ruled_loss", team)}
