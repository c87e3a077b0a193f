"""An appeal's invariant (issue 49, finding 1) against a real DuckDB file: one open appeal per
ruling (a second refused, also when two arrive at once); a ruling reversed at most once; a
reversal takes back exactly what the ruling stored (a forfeit's result, a penalty, a
suspension) and nothing stored after it — a real result the organizer entered later
survives. A property test drives random sequences of rulings, appeals, votes and later
results and compares the file with a model written here from docs/rules/general.md §12, not from the code."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from conftest import entries, write_csv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.base import db
from pipeline.base.errors import UsageError

LEVELS = {"K": 13, "5": 5, "9": 9, "Q": 12, "3": 3, "10": 10}


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> tuple[Path, dict]:
    """seed 001's preset (jinling-2023-pairs), 8 teams paired for round 1, a chief and a
    committee of three: made once, copied for each run."""
    from pipeline.cli import main
    from pipeline.officials import people

    folder = tmp_path_factory.mktemp("appeals")
    path = folder / "t.duckdb"
    for args in (("event", "create", "--id", "j", "--name", "金陵", "--ruleset",
                  "jinling-2023-pairs"),
                 ("ingest", "--event", "j", write_csv(folder / "e.csv", entries(8))),
                 ("pair", "--event", "j")):
        assert main([*map(str, args), "--db", str(path)]) == 0
    made = {name: people.add(path, name, role, None, "pass-" + name)[0]
            for name, role in (("裁判长", "chief"), ("委员一", "committee"),
                               ("委员二", "committee"), ("委员三", "committee"))}
    return path, made


def _copy(template, tmp_path: Path, name: str = "run.duckdb") -> Path:
    path = tmp_path / name
    path.unlink(missing_ok=True)
    shutil.copy(template[0], path)
    return path


def _tables(path: Path) -> dict[int, tuple[str, str]]:
    with db.reading(path) as con:
        return {t: (ew, ns) for t, ew, ns in db.rows(
            con, "select table_no, ew_team, ns_team from pairings where event_id = 'j' and "
                 "round = 1 order by table_no")}


def _results(path: Path) -> dict[int, tuple]:
    with db.reading(path) as con:
        return _results_on(con)


def _results_on(con) -> dict[int, tuple]:
    return {t: (f, ew, ns) for t, f, ew, ns in db.rows(
        con, "select table_no, forfeit, ew_level, ns_level from results where "
             "event_id = 'j' and round = 1")}


def _confirmed_forfeit(path: Path, made: dict, team: str) -> int:
    from pipeline.officials import rulings

    chief = made["裁判长"]
    ruling = rulings.propose(path, "j", chief, 1, team, "forfeit", 0, "迟到 16 分钟")
    assert rulings.decide(path, "j", chief, ruling, True) == "confirmed"
    return ruling


def _enter(path: Path, table: int, ew_level: str, ns_level: str,
           tables: dict[int, tuple[str, str]] | None = None) -> None:
    """A result entered on the console; `tables` the round's pairings when the caller knows
    them already (the property's model: the file is not opened again to read them)."""
    from pipeline.intake.ingest import ingest_rows

    ew, ns = (tables or _tables(path))[table]
    ingest_rows(path, "j", "results", [{"round": 1, "table": table, "ew_team": ew,
                                        "ns_team": ns, "ew_level": ew_level,
                                        "ns_level": ns_level}], "组织者 console", "录入")


def test_the_finding_a_second_appeal_never_deletes_a_later_result(template, tmp_path, cli):
    """The tester's sequence: a forfeit appealed twice; the first upheld (no result); the
    organizer enters K–5; the second may not reverse the ruling again."""
    from pipeline.officials import appeals, votes

    path = _copy(template, tmp_path)
    made = template[1]
    ew, ns = _tables(path)[1]
    ruling = _confirmed_forfeit(path, made, ew)
    assert _results(path) == {1: ("ew", None, None)}
    first = appeals.appeal(path, "j", ruling, ew, "link", statement="并未迟到")
    with pytest.raises(UsageError, match=f"已有待仲裁的申诉 #{first}"):
        appeals.appeal(path, "j", ruling, ew, "link", statement="并未迟到")  # the form again
    with pytest.raises(UsageError, match="已有待仲裁的申诉"):
        appeals.appeal(path, "j", ruling, ns, "desk", made["裁判长"])  # the other side too
    assert votes.vote(path, "j", made["委员一"], first, True) == "open"
    assert votes.vote(path, "j", made["委员二"], first, True) == "upheld"
    assert _results(path) == {}  # the table back to no result
    _enter(path, 1, "K", "5")
    assert _results(path) == {1: (None, 13, 5)}
    with pytest.raises(UsageError, match="已因申诉撤销"):
        appeals.appeal(path, "j", ruling, ew, "link")
    # a file from before the fix: a second appeal left open beside the first
    with db.writing(path) as con:
        second = db.scalar(con, "insert into official_appeals (event_id, ruling_id, team_no, "
                                "filed_via, status) values ('j', ?, ?, 'link', 'open') "
                                "returning appeal_id", [ruling, ew])
    for member in ("委员一", "委员二"):
        with pytest.raises(UsageError, match="已撤销"):
            votes.vote(path, "j", made[member], second, True)
    assert _results(path) == {1: (None, 13, 5)}  # the real result stays


def test_a_reversal_leaves_a_result_entered_after_the_ruling(template, tmp_path):
    from pipeline.officials import appeals, votes

    path = _copy(template, tmp_path)
    made = template[1]
    _enter(path, 2, "9", "Q")  # the table had a result; then a forfeit was ruled on it
    ew, _ = _tables(path)[2]
    ruling = _confirmed_forfeit(path, made, ew)
    assert _results(path) == {2: ("ew", None, None)}
    _enter(path, 2, "K", "5")  # the organizer corrects the table: its real result
    appeal = appeals.appeal(path, "j", ruling, ew, "link")
    votes.vote(path, "j", made["委员一"], appeal, True)
    assert votes.vote(path, "j", made["委员三"], appeal, True) == "upheld"
    assert _results(path) == {2: (None, 13, 5)}  # neither deleted nor put back to 9–Q


def test_two_appeals_at_once_file_one(template, tmp_path):
    from pipeline.officials import appeals

    path = _copy(template, tmp_path)
    made = template[1]
    ew, _ = _tables(path)[3]
    ruling = _confirmed_forfeit(path, made, ew)
    filed, refused, start = [], [], threading.Barrier(5)

    def send():
        start.wait()
        try:
            filed.append(appeals.appeal(path, "j", ruling, ew, "link"))
        except UsageError as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=send) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(filed) == 1 and len(refused) == 4
    assert all("已有待仲裁的申诉" in r for r in refused)
    with db.reading(path) as con:
        assert db.scalar(con, "select count(*) from official_appeals where ruling_id = ?",
                         [ruling]) == 1


# -- the property: random sequences against a model ------------------------------------------

STEP = st.one_of(
    st.tuples(st.just("rule"), st.integers(1, 3), st.sampled_from(
        ["forfeit", "levels_down", "opponent_up", "ruled_loss", "suspension"]), st.booleans(),
        st.integers(1, 3)),
    st.tuples(st.just("appeal"), st.integers(0, 5), st.booleans()),
    st.tuples(st.just("vote"), st.integers(0, 5), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("result"), st.integers(1, 3), st.sampled_from(
        [("K", "5"), ("9", "Q"), ("3", "10")])),
    st.tuples(st.just("queue"),),  # the chief confirms what waits (a suspension refused once)
)


class Model:
    """What docs/rules/general.md §12 says the file holds, kept by hand: each table's result (a forfeit by
    its ruling, or a real result), each confirmed ruling's penalty and suspension, the
    rulings' and appeals' states."""

    def __init__(self, tables: dict[int, tuple[str, str]]):
        self.tables = tables
        self.results: dict[int, tuple] = {}
        self.rulings: dict[int, dict] = {}
        self.appeals: dict[int, dict] = {}

    def confirm(self, ruling_id: int, kind: str, table: int | None, team: str, amount: int):
        entry = {"kind": kind, "table": table, "team": team, "amount": amount,
                 "status": "confirmed"}
        if kind == "forfeit":
            side = "ew" if self.tables[table][0] == team else "ns"
            entry["before"] = self.results.get(table)
            entry["stored"] = ("forfeit", side, ruling_id)
            self.results[table] = entry["stored"]
        self.rulings[ruling_id] = entry

    def reverse(self, ruling_id: int):
        entry = self.rulings[ruling_id]
        entry["status"] = "reversed"
        if entry["kind"] == "forfeit" and self.results.get(entry["table"]) == entry["stored"]:
            if entry["before"] is None:
                self.results.pop(entry["table"])
            else:
                self.results[entry["table"]] = entry["before"]

    def stored_results(self) -> dict[int, tuple]:
        out = {}
        for table, value in self.results.items():
            out[table] = (value[1], None, None) if value[0] == "forfeit" else \
                (None, LEVELS[value[1]], LEVELS[value[2]])
        return out

    def penalties(self) -> set[tuple[str, int, str]]:
        out = set()
        for rid, r in self.rulings.items():
            if r["status"] == "confirmed" and r["kind"] in ("levels_down", "opponent_up"):
                ew, ns = self.tables[r["table"]]
                other = ns if r["team"] == ew else ew
                out.add((r["team"], r["amount"], f"裁定 ruling #{rid}")
                        if r["kind"] == "levels_down"
                        else (other, -r["amount"], f"裁定 ruling #{rid}"))
        return out

    def suspended(self) -> set[str]:
        return {r["team"] for r in self.rulings.values()
                if r["kind"] == "suspension" and r["status"] == "confirmed"}


def _run(path: Path, made: dict, steps: list) -> None:
    from pipeline.officials import appeals, rulings, votes

    chief = made["裁判长"]
    members = [made["委员一"], made["委员二"], made["委员三"]]
    model = Model(_tables(path))
    for step in steps:
        if step[0] == "rule":
            _, table, kind, ew_side, amount = step
            team = model.tables[table][0 if ew_side else 1]
            amount = amount if kind in ("levels_down", "opponent_up") else 0
            ruling = rulings.propose(path, "j", chief, 1, team, kind, amount, "")
            if kind == "suspension" and team in model.suspended():
                with pytest.raises(UsageError, match="已退赛"):  # suspended once is enough
                    rulings.decide(path, "j", chief, ruling, True)
                continue
            assert rulings.decide(path, "j", chief, ruling, True) == "confirmed"
            model.confirm(ruling, kind, None if kind == "suspension" else table, team, amount)
        elif step[0] == "queue":
            with db.reading(path) as con:
                waiting = rulings.queue(con, "j")
            for found in waiting:
                if found["kind"] == "suspension" and found["team_no"] in model.suspended():
                    with pytest.raises(UsageError, match="已退赛"):
                        rulings.decide(path, "j", chief, found["ruling_id"], True)
                    continue
                assert rulings.decide(path, "j", chief, found["ruling_id"], True) == "confirmed"
                model.confirm(found["ruling_id"], found["kind"], found["table_no"],
                              found["team_no"], found["amount"])
        elif step[0] == "appeal":
            _, pick, ew_side = step
            ids = sorted(model.rulings)
            if not ids:
                continue
            ruling = ids[pick % len(ids)]
            entry = model.rulings[ruling]
            team = entry["team"] if ew_side or entry["table"] is None \
                else next(t for t in model.tables[entry["table"]] if t != entry["team"])
            open_now = any(a["ruling"] == ruling and a["status"] == "open"
                           for a in model.appeals.values())
            if entry["status"] != "confirmed" or open_now:
                with pytest.raises(UsageError):
                    appeals.appeal(path, "j", ruling, team, "link")
                continue
            appeal = appeals.appeal(path, "j", ruling, team, "link")
            model.appeals[appeal] = {"ruling": ruling, "status": "open", "votes": {}}
        elif step[0] == "vote":
            _, pick, member, uphold = step
            ids = sorted(model.appeals)
            if not ids:
                continue
            appeal = ids[pick % len(ids)]
            entry = model.appeals[appeal]
            if entry["status"] != "open" or member in entry["votes"]:
                with pytest.raises(UsageError):
                    votes.vote(path, "j", members[member], appeal, uphold)
                continue
            status = votes.vote(path, "j", members[member], appeal, uphold)
            entry["votes"][member] = uphold
            ups = sum(entry["votes"].values())
            downs = len(entry["votes"]) - ups
            expected = "upheld" if ups >= 2 else "dismissed" if downs >= 2 else "open"
            assert status == expected
            entry["status"] = expected
            if expected == "upheld":
                model.reverse(entry["ruling"])
        elif step[0] == "result":
            _, table, (ew_level, ns_level) = step
            _enter(path, table, ew_level, ns_level, model.tables)
            model.results[table] = ("real", ew_level, ns_level)
        _check(path, model)


def _check(path: Path, model: Model) -> None:
    with db.reading(path) as con:  # one opening of the file for every check of a step
        assert _results_on(con) == model.stored_results()
        assert not db.rows(con, "select ruling_id from official_appeals where status = 'open' "
                                "group by ruling_id having count(*) > 1")
        assert not db.rows(con, "select ruling_id from official_appeals where status = "
                                "'upheld' group by ruling_id having count(*) > 1")
        stored = {(t, a, r) for t, a, r in db.rows(
            con, "select team_no, amount, reason from penalties where event_id = 'j'")}
        statuses = dict(db.rows(con, "select ruling_id, status from official_rulings"))
        withdrawn = {t for (t,) in db.rows(con, "select team_no from teams where event_id = "
                                                "'j' and withdrawn_after is not null")}
    assert stored == model.penalties()
    assert {k: v for k, v in statuses.items() if v != "proposed"} == \
        {rid: r["status"] for rid, r in model.rulings.items()}
    assert withdrawn == model.suspended()


@settings(max_examples=15, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=3, max_size=12))
def test_rulings_appeals_votes_and_later_results_keep_the_invariant(template, tmp_path, steps):
    _run(_copy(template, tmp_path), template[1], steps)


def test_the_model_sees_the_finding(template, tmp_path):
    """The property's runner on the finding's sequence itself (so the model is checked on a
    case worked out by hand above)."""
    _run(_copy(template, tmp_path), template[1], [
        ("rule", 1, "forfeit", True, 1), ("appeal", 0, True), ("appeal", 0, True),
        ("vote", 0, 0, True), ("vote", 0, 1, True), ("result", 1, ("K", "5")),
        ("appeal", 0, True), ("vote", 0, 2, True)])


def test_two_forfeits_on_one_table_reversed_in_turn(template, tmp_path):
    """A forfeit ruled over another: reversing the second puts the first back as it was
    stored (so that reversing the first then empties the table); a real result entered
    before both comes back last."""
    _run(_copy(template, tmp_path), template[1], [
        ("result", 2, ("9", "Q")), ("rule", 2, "forfeit", True, 1),
        ("rule", 2, "forfeit", False, 1), ("appeal", 1, True), ("vote", 0, 0, True),
        ("vote", 0, 1, True), ("appeal", 0, True), ("vote", 1, 0, True),
        ("vote", 1, 2, True)])
