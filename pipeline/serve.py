"""Starting the Streamlit dashboard on the given database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def app_path() -> Path:
    import dashboard

    return Path(dashboard.__file__).parent / "app.py"


def dashboard_command(host: str, port: int) -> list[str]:
    from pipeline.ingest import max_upload_bytes

    return [
        sys.executable, "-m", "streamlit", "run", str(app_path()),
        "--server.address", host, "--server.port", str(port), "--server.headless", "true",
        "--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal",
        "--theme.base", "light",
        # the uploader states and applies paisai's own size limit, before any reading
        "--server.maxUploadSize", str(max(1, max_upload_bytes() // 1024 // 1024)),
    ]


def run_dashboard(database: Path, host: str, port: int) -> int:
    env = {**os.environ, "PAISAI_DB": str(database.resolve())}
    print(f"看板 dashboard: http://{host}:{port}/live  (数据库 database {database})", flush=True)
    try:
        return subprocess.call(dashboard_command(host, port), env=env)
    except KeyboardInterrupt:
        return 0
