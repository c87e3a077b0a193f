"""`paisai demo` (issue 21): the demo day loads once, its clock is set going again on each run,
and it never mixes its invented players into a database that holds real events."""

from __future__ import annotations

import json

from conftest import entries, read_csv_output, write_csv


def test_the_demo_day(paisai, db_file):
    run = paisai("demo")
    assert run.code == 0, run.err
    listed = read_csv_output(paisai("events", "--format", "csv").out)
    assert [e["event_id"] for e in listed] == [  # the most recent first
        "demo", "demo-tractor", "demo-2026-autumn", "demo-2026-summer", "demo-2026-spring"]
    rounds = read_csv_output(paisai("rounds", "--event", "demo", "--format", "csv").out)
    assert [(r["round"], r["reported"], r["expected"]) for r in rounds] == [
        ("1", "8", "8"), ("2", "0", "8")]
    clock = paisai("clock", "status", "--event", "demo", "--format", "json")
    status = json.loads(clock.out)
    assert status["round"] == 2 and status["state"] == "running"
    bracket = json.loads(paisai("bracket", "--event", "demo-tractor", "--format", "json").out)
    kinds = [(s["name"], s["kind"]) for s in bracket["stages"]]
    assert kinds == [("A组", "group"), ("B组", "group"), ("C组", "group"),
                     ("1/4决赛", "knockout"), ("半决赛", "knockout")]
    assert all(m["winner"] for s in bracket["stages"][:4] for m in s["matches"])
    assert not any(m["winner"] for m in bracket["stages"][4]["matches"])  # under way
    players = read_csv_output(paisai("players", "--format", "csv").out)
    assert max(int(p["events"]) for p in players) >= 3  # players meet again across events

    # run again: the clock set going again, nothing added
    assert paisai("clock", "pause", "--event", "demo").code == 0
    again = paisai("demo")
    assert again.code == 0, again.err
    status = json.loads(paisai("clock", "status", "--event", "demo", "--format", "json").out)
    assert status["state"] == "running" and status["elapsed_seconds"] < 13 * 60
    assert len(read_csv_output(paisai("events", "--format", "csv").out)) == 5


def test_never_into_a_database_with_real_events(paisai, tmp_path):
    assert paisai("event", "create", "--id", "spring", "--name", "春季联赛", "--ruleset",
                  "suzhou-2025").code == 0
    assert paisai("ingest", "--event", "spring",
                  write_csv(tmp_path / "e.csv", entries(4))).code == 0
    run = paisai("demo")
    assert run.code == 0  # make run still starts the dashboard
    assert "未载入演示" in run.err and "make run DB=" in run.err
    assert [e["event_id"] for e in read_csv_output(paisai("events", "--format", "csv").out)] \
        == ["spring"]
    names = {p["name"] for p in read_csv_output(paisai("players", "--format", "csv").out)}
    assert names == {f"{s}{i}" for s in "张李" for i in range(1, 5)}  # no invented player
