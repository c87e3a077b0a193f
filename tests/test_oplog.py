"""The operations log beside the database, read back with `paisai log` (issue 23)."""

from __future__ import annotations

import datetime as dt

from conftest import RESULT_HEADER, import_event, write_csv

from pipeline.base import oplog


def test_every_action_leaves_a_line(cli, event16, tmp_path, db_file):
    good = write_csv(tmp_path / "r1.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "9", "8"]])
    bad = write_csv(tmp_path / "bad.csv", [RESULT_HEADER, [1, 2, "A3", "A4", "9", "16"]])
    assert cli("ingest", "--event", "e", good).code == 0
    assert cli("ingest", "--event", "e", bad).code == 2
    assert cli("results", "delete", "--event", "e", "--round", "1").code == 0
    assert cli("pair", "--event", "e").code == 0
    log = oplog.log_path(db_file).read_text(encoding="utf-8").splitlines()
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
               oplog.log_path(db_file).read_text(encoding="utf-8").splitlines()]
    assert actions[-3:] == ["checked in", "withdrawn", "clock start"]


def test_each_database_has_its_own_log_and_a_refused_import_is_logged(tmp_path, capsys):
    """Issue 52's acceptance: two databases in one folder — each one's `paisai log` lists
    its own imports only; an import refused (one member id twice in one event; an event id
    already there; exit 2) is logged with its reason. The folder's old shared `paisai.log` (before logs were per
    database) is still read for a database alone in its folder."""
    from pipeline.cli import main

    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    import_event(a, tmp_path / "sa", "evt-a", "2025-01-10",
                 [("A1", "王伟", "周一", "恒通"), ("A2", "赵敏", "钱六", "华信")])
    import_event(b, tmp_path / "sb", "evt-b", "2025-01-10",
                 [("A1", "李明", "吴二", "远航"), ("A2", "孙五", "郑七", "华信")])
    import_event(b, tmp_path / "sb", "bad", "2025-02-10",
                 [("A1", "王伟", "SZ-100", "李强", "", "恒通"),
                  ("A2", "张三", "SZ-100", "吴二", "", "远航")], expect=2)
    import_event(a, tmp_path / "again", "evt-a", "2025-03-10",
                 [("A1", "王伟", "周一", "恒通"), ("A2", "赵敏", "钱六", "华信")], expect=2)
    capsys.readouterr()
    shown = {}
    for database in (a, b):
        assert main(["log", "--db", str(database)]) == 0
        shown[database] = capsys.readouterr().out
    assert "evt-a" in shown[a] and "evt-b" not in shown[a] and "bad" not in shown[a]
    assert "evt-b" in shown[b] and "evt-a" not in shown[b]
    (refused,) = [line for line in shown[b].splitlines() if "import refused" in line]
    assert refused.split()[2] == "bad" and "SZ-100" in refused and "原因 reason" in refused
    (again,) = [line for line in shown[a].splitlines() if "import refused" in line]
    assert "evt-a" in again and "event already exists" in again

    alone = tmp_path / "old"
    alone.mkdir()
    (alone / "paisai.log").write_text("2026-01-01 10:00:00\tlegacy\tstored\tr1.csv\n",
                                      encoding="utf-8")
    import_event(alone / "c.duckdb", tmp_path / "sc", "evt-c", "2025-01-10",
                 [("A1", "王伟", "周一", "恒通"), ("A2", "赵敏", "钱六", "华信")])
    capsys.readouterr()
    assert main(["log", "--db", str(alone / "c.duckdb")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "legacy" in lines[0] and any("evt-c" in line for line in lines[1:])
    (alone / "d.duckdb").write_bytes(b"")  # another database beside it: whose? unread
    assert main(["log", "--db", str(alone / "c.duckdb")]) == 0
    assert "legacy" not in capsys.readouterr().out
