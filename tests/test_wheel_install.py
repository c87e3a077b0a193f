"""Installable as users install tools (issue 39): the wheel is built and installed into a
fresh virtual environment — no make, no editable checkout — and `paisai demo` and `paisai
dashboard` run from it. (An editable install hides package data left out of the wheel.)"""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

from pipeline.operations.serve import free_port, stop, wait_until_up

ROOT = Path(__file__).resolve().parent.parent
UV = Path(sys.executable).parent / "uv"


def test_the_wheel_installs_and_runs_the_demo_and_the_dashboard(tmp_path):
    import shutil

    # built from a copy of what a release holds: the checkout keeps no build/ of it
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "tests", "bench", "docs", "data", "build", "*.egg-info",
        "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis"))
    wheels = tmp_path / "dist"
    build = [str(UV), "build", "--wheel", "--out-dir", str(wheels), str(source)] \
        if UV.exists() else [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w",
                             str(wheels), str(source)]
    subprocess.run(build, check=True, capture_output=True, timeout=600)
    (wheel,) = wheels.glob("paisai-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    install = [str(UV), "pip", "install", "-q", "--python", str(venv / "bin" / "python"),
               str(wheel)] if UV.exists() else \
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)]
    subprocess.run(install, check=True, capture_output=True, timeout=900)
    paisai = venv / "bin" / "paisai"
    work = tmp_path / "hall"
    work.mkdir()
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    demo = subprocess.run([str(paisai), "demo"], cwd=work, env=env, capture_output=True,
                          text=True, timeout=300)
    assert demo.returncode == 0, demo.stderr
    assert (work / "data" / "demo.duckdb").is_file()
    assert not (work / "data" / "paisai.duckdb").exists()  # never the real database
    port = free_port()
    server = subprocess.Popen([str(paisai), "dashboard", "--db", "data/demo.duckdb", "--port",
                               str(port)], cwd=work, env={**env, "PAISAI_ADMIN_PASSWORD": "x1"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        assert wait_until_up(port, 90)
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/m/demo/", timeout=30)
        assert page.status == 200 and "演示赛" in page.read().decode("utf-8")
    finally:
        stop(server)
