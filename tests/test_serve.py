"""`paisai dashboard` stops cleanly: SIGTERM to the paisai process stops its Streamlit server
too and frees the port within seconds (issue 23)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from conftest import descendants

from pipeline.operations.serve import free_port, wait_until_up

EXE = Path(sys.executable).parent / "paisai"


def _port_free(port: int) -> bool:
    """A server could listen on the port again (as servers bind: connections the old one
    closed may linger in TIME_WAIT, which does not keep a new server out)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _end(process: subprocess.Popen) -> None:
    """Whatever the test left of the server's process group is ended."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(10)


def test_sigterm_stops_the_server_and_frees_the_port(tmp_path):
    port = free_port()
    process = subprocess.Popen([str(EXE), "dashboard", "--db", str(tmp_path / "d.duckdb"),
                                "--port", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert wait_until_up(port)
        children = descendants(process.pid)
        assert any("dashboard.server" in command for _, command in children), children
        stopped = time.monotonic()
        process.send_signal(signal.SIGTERM)  # as systemd stops a service
        process.wait(10)
        while time.monotonic() - stopped < 5 and not _port_free(port):
            time.sleep(0.1)
        assert _port_free(port), "the port is still taken after 5 s"
        alive = [pid for pid, _ in children if Path(f"/proc/{pid}").exists()
                 and "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]]
        assert not alive, alive
    finally:
        _end(process)


def test_ctrl_c_in_a_terminal_stops_it_cleanly(tmp_path):
    """Ctrl-C reaches the terminal's whole process group (make, paisai): the server is asked
    to stop once, and stops without "Fatal Python error" or a thread dump (issue 29)."""
    port = free_port()
    log = tmp_path / "out.txt"
    with open(log, "wb") as out:
        process = subprocess.Popen([str(EXE), "dashboard", "--db", str(tmp_path / "d.duckdb"),
                                    "--port", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        assert wait_until_up(port)
        os.killpg(process.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
        assert process.wait(15) == 0
        deadline = time.monotonic() + 10
        while descendants(process.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        said = log.read_text(errors="replace")
        assert "Fatal Python error" not in said and "Traceback" not in said, said[-2000:]
        assert _port_free(port)
    finally:
        _end(process)
