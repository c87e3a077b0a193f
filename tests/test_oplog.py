"""The operations log beside the database, read back with `paisai log` (issue 23)."""

from __future__ import annotations

import datetime as dt

from conftest import RESULT_HEADER, write_csv


def test_every_action_leaves_a_line(cli, event16, tmp_path, db_file):
    good = write_csv(tmp_path / "r1.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "9", "8"]])
    bad = write_csv(tmp_path / "bad.csv", [RESULT_HEADER, [1, 2, "A3", "A4", "9", "16"]])
    assert cli("ingest", "--event", "e", good).code == 0
    assert cli("ingest", "--event", "e", bad).code == 2
    assert cli("results", "delete", "--event", "e", "--round", "1").code == 0
    assert cli("pair", "--event", "e").code == 0
    log = (db_file.parent / "paisai.log").read_text(encoding="utf-8").splitlines()
    actions = [line.split("\t")[2] for line in log]
    assert actions == ["stored", "stored", "refused", "results deleted", "paired"]
    shown = cli("log", "--event", "e", "--since", "00:00").out
    assert "r1.csv" in shown and "bad.csv" in shown and "paired" in shown
    assert cli("log", "--event", "other").out == ""
    later = (dt.datetime.now() + dt.timedelta(minutes=2))
    if later.date() == dt.date.today():
        assert cli("log", "--event", "e", "--since", later.strftime("%H:%M")).out == ""
    assert cli("log", "--since", "25h").code == 2


def test_console_and_clock_actions_are_logged(cli, event16, db_file):
    assert cli("checkin", "--event", "e", "A1", "A2").code == 0
    assert cli("withdraw", "--event", "e", "A16", "--after-round", "0").code == 0
    assert cli("clock", "start", "--event", "e").code == 0
    actions = [line.split("\t")[2] for line in
               (db_file.parent / "paisai.log").read_text(encoding="utf-8").splitlines()]
    assert actions[-3:] == ["checked in", "withdrawn", "clock start"]
