"""The watch folder never ingests a half-written file; table links expire with their round."""

from __future__ import annotations

import pytest
from conftest import RESULT_HEADER, read_csv_output, write_csv

from pipeline.base import db
from pipeline.base.errors import UsageError
from pipeline.day.selfreport import check_link, links, submit
from pipeline.operations.watch import scan


def test_watch_ingests_stable_files_once(cli, event16, tmp_path, db_file):
    folder = tmp_path / "synced"
    folder.mkdir()
    write_csv(folder / "r1a.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"]])
    (folder / "~$lock.xlsx").write_bytes(b"office lock file")
    seen: dict = {}
    log: list[str] = []
    assert scan(db_file, event16, folder, seen, log.append) == 0  # first look: not yet stable
    partial = folder / "r1b.csv"
    partial.write_text("轮次,桌号,东西队号,南北队号,东西级数,南北级数\n1,2,A3,A4,9", encoding="utf-8")
    assert scan(db_file, event16, folder, seen, log.append) == 1  # r1a is stable now
    with partial.open("a", encoding="utf-8") as f:  # still being written
        f.write(",8\n")
    assert scan(db_file, event16, folder, seen, log.append) == 0  # changed since: wait
    assert scan(db_file, event16, folder, seen, log.append) == 1  # stable: ingested whole
    assert scan(db_file, event16, folder, seen, log.append) == 0  # nothing new
    assert any("r1a.csv" in line and "stored" in line for line in log)
    rounds = read_csv_output(cli("rounds", "--event", event16, "--format", "csv").out)
    assert rounds == [{"round": "1", "reported": "2", "expected": "8", "missing": ""}]
    uploads = read_csv_output(cli("uploads", "--event", event16, "--format", "csv").out)
    assert {u["source"] for u in uploads if u["file_name"].startswith("r1")} == {"watch"}


def test_watch_command_runs_and_stops(cli, event16, tmp_path):
    folder = tmp_path / "w"
    folder.mkdir()
    write_csv(folder / "r.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"]])
    run = cli("watch", "--event", event16, folder, "--once", "--interval", "0.2")
    assert run.code == 0 and "r.csv" in run.out


def test_table_links_are_signed_and_expire(cli, event16, db_file):
    cli("pair", "--event", event16)
    url = links(db_file, event16, 1, "http://hall")["url"][0]
    signature = url.rsplit("sig=", 1)[1]
    with db.reading(db_file) as con:
        assert check_link(con, event16, 1, 1, signature) == ("A1", "A2")
        with pytest.raises(UsageError):
            check_link(con, event16, 1, 2, signature)  # another table's link
    cli("pair", "--event", event16, "--force")  # round 2 paired: round 1 is closed
    with pytest.raises(UsageError, match="失效"):
        submit(db_file, event16, 1, 1, signature, "K", "9")
