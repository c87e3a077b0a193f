"""Links and cards printed without --base-url follow the hall's own port (issue 51 item 8:
they pointed at 8501 while the hall ran on another port, said only in a warning): the
real dashboard started on a free port, `paisai links` run beside it through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import entries, write_csv

from pipeline.operations.serve import lan_addresses

PAISAI = str(Path(sys.executable).parent / "paisai")


def _links(database: Path) -> subprocess.CompletedProcess:
    return subprocess.run([PAISAI, "links", "--event", "e", "--round", "1", "--format", "json",
                           "--db", str(database)], capture_output=True, text=True, timeout=120)


def test_links_follow_the_running_hall_s_port(tmp_path):
    from tests.ui.conftest import Server

    database = tmp_path / "t.duckdb"
    for args in (["event", "create", "--id", "e", "--name", "测试赛", "--ruleset",
                  "suzhou-2025"], ["ingest", "--event", "e",
                                   str(write_csv(tmp_path / "e.csv", entries(4)))],
                 ["pair", "--event", "e"]):
        assert subprocess.run([PAISAI, *args, "--db", str(database)], capture_output=True,
                              timeout=120).returncode == 0
    if not lan_addresses():  # the links need this machine's LAN address (--base-url else)
        assert "--base-url" in _links(database).stderr
        return
    alone = _links(database)
    assert alone.returncode == 0 and ":8501/r?" in json.loads(alone.stdout)[0]["ew_url"]
    assert "没有在本数据库上运行的看板" in alone.stderr
    server = Server(database)
    try:
        beside = _links(database)
        assert beside.returncode == 0, beside.stderr
        assert f":{server.port}/r?" in json.loads(beside.stdout)[0]["ew_url"]
        assert "正在运行的看板" in beside.stderr
        # it listens on 127.0.0.1 only: phones cannot reach the links, and it is said
        assert "只监听 127.0.0.1" in beside.stderr and "dashboard --hall" in beside.stderr
    finally:
        server.stop()
    assert not (tmp_path / "t.duckdb.hall.json").exists()  # removed when the hall stops
    assert ":8501/r?" in json.loads(_links(database).stdout)[0]["ew_url"]
