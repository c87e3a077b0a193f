"""`make bench`: run the benchmarks, print a table and write bench/results.md."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from importlib.metadata import version
from pathlib import Path

from bench import cli, hall, history, pairing, publish, turnaround

TARGETS = {
    "turnaround at round 7, 1,000 teams": 0.2,
    "turnaround at round 7, 10,000 teams": 1.0,
    "export pairings xlsx (tables + seat index), 10,000 teams": 0.25,
    "ingest of the round's sheet, 10,000 teams": 0.10,
    "CLI start-up (paisai rounds, small database)": 0.25,
    "ingest ÷ bare read_csv, 1,000 teams": 3.0,
    "ingest ÷ bare read_csv, 10,000 teams": 3.0,
    "peak memory after 10,000 teams (MB)": 1024,
    "publish the site of 10,000 teams": 5.0,
    "publish after the next round, 10,000 teams": 5.0,
    "pair round 7 of 16 teams": 0.05,
    "pair round 7 of 10,000 teams": 2.0,
    "history: full rating recomputation": 60.0,
    "history: player profile": 0.1,
    "history: rating leaderboard": 0.5,
}


for _channel, _levels in (("phones' pages", hall.PLAIN), ("Streamlit pages", hall.STREAMLIT)):
    for _phones in _levels:  # issue 30: the hall's targets, on either channel
        _level = f"hall: {_phones} phones on the {_channel}"
        TARGETS[f"{_level}, p95 of every request"] = 0.3
        TARGETS[f"{_level}, the organizer's ingest + pair"] = 2.0
        TARGETS[f"{_level}, the projector shows the complete round"] = 5.0


def main() -> int:
    rows = [*turnaround.run(16), *turnaround.run(1_000), *turnaround.run(10_000, repeats=3),
            *cli.run(1_000), pairing.run(16), pairing.run(10_000), *publish.run(10_000),
            *hall.run(), *history.run()]
    lines = [
        "# Benchmarks",
        "",
        f"- date: {dt.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        f"- python {platform.python_version()}, polars {version('polars')}, "
        f"duckdb {version('duckdb')}, networkx {version('networkx')}, numpy {version('numpy')}",
        "",
        "| case | seconds | target | met | note |",
        "|---|---:|---:|---|---|",
    ]
    for row in rows:
        target = TARGETS.get(row["case"])
        met = "" if target is None else ("yes" if row["seconds"] <= target else "NO")
        lines.append(f"| {row['case']} | {row['seconds']:.3f} | {target or ''} | {met} | "
                     f"{row['note']} |")
    findings = Path(__file__).with_name("findings.md").read_text(encoding="utf-8")
    text = "\n".join(lines) + "\n\n" + findings
    print(text)
    Path(__file__).with_name("results.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
