"""The hall for real (issue 39): a server the phones can reach. Every request here goes to
loopback; the server itself listens on all interfaces."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from pipeline.operations.serve import free_port, lan_addresses, stop, wait_until_up

PAISAI = str(Path(sys.executable).parent / "paisai")


def test_the_hall_needs_a_password_of_its_own(tmp_path):
    database = tmp_path / "h.duckdb"
    for password in ("", "demo"):
        env = {**os.environ, "PAISAI_ADMIN_PASSWORD": password}
        done = subprocess.run([PAISAI, "dashboard", "--hall", "--db", str(database), "--port",
                               str(free_port())], capture_output=True, text=True, env=env,
                              timeout=60)
        assert done.returncode == 2 and "控制台密码" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    done = subprocess.run([PAISAI, "dashboard", "--host", "0.0.0.0", "--db", str(database)],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PAISAI_ADMIN_PASSWORD": "demo"})
    assert done.returncode == 2  # any address beyond this machine, --hall or not


def test_the_hall_listens_on_every_interface_and_says_where_phones_go(tmp_path):
    database = tmp_path / "h.duckdb"
    port = free_port("0.0.0.0")
    log = tmp_path / "out.txt"
    with log.open("w") as out:
        server = subprocess.Popen([PAISAI, "dashboard", "--hall", "--db", str(database),
                                   "--port", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                  env={**os.environ, "PAISAI_ADMIN_PASSWORD": "hall-pw-9"},
                                  start_new_session=True)
        try:
            assert wait_until_up(port)  # asked on 127.0.0.1: the server listens everywhere
            # /proc/net/tcp: local address 00000000:PORT (every interface) in state 0A (LISTEN)
            table = Path("/proc/net/tcp").read_text().splitlines()[1:]
            assert any(line.split()[1] == f"00000000:{port:04X}" and line.split()[3] == "0A"
                       for line in table)
            for _ in range(100):  # the greeting is printed before the server starts
                if "手机请打开" in log.read_text(encoding="utf-8") or not lan_addresses():
                    break
                time.sleep(0.1)
        finally:
            stop(server)
    said = log.read_text(encoding="utf-8")
    if lan_addresses():
        first = lan_addresses()[0]
        assert f"手机请打开 phones open: http://{first}:{port}/m/" in said
        assert "▀" in said or "█" in said or "▄" in said  # the QR code, drawn in the terminal
    else:
        assert "没有局域网地址" in said


def test_printed_pairings_carry_the_phone_pages_qr_code(cli, event16, tmp_path):
    """Issue 39: the printed pairings point players to the hall's phone pages."""
    assert cli("pair", "--event", "e").code == 0
    out = tmp_path / "p.html"
    done = cli("export", "pairings", "--event", "e", "--round", "1", "--out", out,
               "--base-url", "http://192.168.1.5:8501")
    assert done.code == 0, done.err
    text = out.read_text(encoding="utf-8")
    assert "http://192.168.1.5:8501/m/e/" in text and "<svg" in text
