"""Shared fixtures: a throwaway database, the CLI run in-process and as a real subprocess."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from unittest.mock import patch

import pytest

from pipeline.cli import main

# boto3 (object storage, issue 54) never asks an instance metadata service for credentials
# in a test: nothing beyond loopback
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")

ROOT = Path(__file__).resolve().parent.parent
SHEETS = Path(__file__).resolve().parent / "sheets"


@pytest.fixture(scope="session", autouse=True)
def _migrated_template(tmp_path_factory):
    """A new database file opened for writing in this test process starts as a copy of one
    migrated once here: migrating an empty file costs ~0.2 s, and a thousand tests make
    one or more each. The migrations still run on every file a test makes some other way
    (an older file, a subprocess, a server's own process)."""
    from pipeline.base import db

    template = tmp_path_factory.mktemp("template") / "migrated.duckdb"
    with db.writing(template):
        pass
    real_open = db._open

    def _open(path: Path, read_only: bool, wait: float | None = None):
        if not read_only and not Path(path).exists() and Path(path).parent.is_dir():
            shutil.copyfile(template, path)
        return real_open(path, read_only, wait)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(db, "_open", _open)
        yield


@pytest.fixture(scope="session", autouse=True)
def _light_password_hashes():
    """Every sign-in hashes with argon2 once (a name that exists or not, the organizer's
    too: each takes the same time), ~0.22 s of CPU at paisai's parameters (argon2id, 64 MiB,
    3 passes, 4 lanes), and the tests sign in hundreds of times. In this test process the
    hashes are argon2id at the lightest parameters: what is tested is who may sign in, not
    the cost of a guess. A server a test starts (a process of its own) keeps paisai's."""
    from argon2 import PasswordHasher

    from pipeline.officials import people

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(people, "HASHER", PasswordHasher(time_cost=1, memory_cost=8,
                                                       parallelism=1))
        yield


@pytest.fixture(scope="session")
def demo_day(tmp_path_factory):
    """`demo_day(database)`: the demo day in a new file, as `build_demo(database)` makes it
    (or, with `command=True`, as `paisai demo --db database` run in this process does).
    Simulating the day costs ~11 s of CPU: it is simulated once per test process, on first
    use, and its file copied; `build_demo` then runs on the copy as on any file that holds
    the demo already (the round's clock started again at the copy's time, as a fresh build
    would have it). Each test gets a file of its own."""
    from pipeline.operations.demo import build_demo

    made: list[Path] = []

    def into(database: Path, command: bool = False) -> str | None:
        database = Path(database)
        assert not database.exists(), f"{database} exists: the demo day goes into a new file"
        if not made:
            template = tmp_path_factory.mktemp("demo-day") / "demo.duckdb"
            assert build_demo(template) is not None
            made.append(template)
        template = made[0]
        database.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, database)
        for beside in (".duckdb.wal", ".log"):  # a journal left open; the file's paisai log
            if template.with_suffix(beside).exists():
                shutil.copyfile(template.with_suffix(beside), database.with_suffix(beside))
        if (template.parent / "demo").is_dir():  # the day's sheets, beside the file
            shutil.copytree(template.parent / "demo", database.parent / "demo",
                            dirs_exist_ok=True)
        if not command:
            return build_demo(database)
        with redirect_stdout(io.StringIO()) as said, redirect_stderr(io.StringIO()):
            assert main(["demo", "--db", str(database)]) == 0
        return said.getvalue()

    return into


def copy_database(source: Path, target: Path) -> None:
    """`source` copied into the new file `target` with what lies beside it: a journal left
    open (.duckdb.wal) and the file's paisai log (t.duckdb → t.log)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    for beside in (".duckdb.wal", ".log"):
        if source.with_suffix(beside).exists():
            shutil.copyfile(source.with_suffix(beside), target.with_suffix(beside))


@pytest.fixture(scope="session")
def prepared(tmp_path_factory):
    """`prepared(build, database)`: the database `build(template, folder)` makes, built
    once per test process and copied into the new file `database` for each test that asks
    (build's return value is returned too). A set-up made through the real commands costs
    seconds, and a file's tests each made the same one: now each still gets a file of its
    own, made the same way, paid once. Only for set-ups that read nothing of the test
    (its time, its own files)."""
    made: dict[str, tuple[Path, object]] = {}

    def into(build, database: Path):
        database = Path(database)
        assert not database.exists(), f"{database} exists: a prepared file goes into a new one"
        key = f"{build.__module__}.{build.__qualname__}"
        if key not in made:
            folder = tmp_path_factory.mktemp(build.__name__.strip("_") or "prepared")
            template = folder / "t.duckdb"
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                said = build(template, folder)
            made[key] = (template, said)
        template, said = made[key]
        copy_database(template, database)
        return said

    return into


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "t.duckdb"


@pytest.fixture
def cli(db_file: Path, capsys):
    """Run `paisai ARGS --db <tmp>` in-process through the real `main`."""

    def run(*args: str) -> Run:
        capsys.readouterr()
        code = main([*map(str, args), "--db", str(db_file)])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def paisai(db_file: Path):
    """Run the installed console script in a subprocess, as an organizer does."""
    exe = Path(sys.executable).parent / "paisai"

    def run(*args: str, env: dict | None = None) -> Run:
        done = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                              env={**os.environ, "PAISAI_DB": str(db_file), **(env or {})},
                              timeout=300)
        return Run(done.returncode, done.stdout, done.stderr)

    return run


@pytest.fixture
def paisai_here(cli):
    """`paisai` called as the `paisai` fixture is (ARGS, env=…), through the real `main` in
    this process: for tests about what a command did or said, not about its process (a
    process costs ~1–1.5 s of CPU to start, with boto3 for a store)."""

    def run(*args: str, env: dict | None = None) -> Run:
        with patch.dict(os.environ, env or {}):
            return cli(*args)

    return run


def flat(text: str) -> str:
    """Text without any whitespace: a report on stderr wraps long cells at 100 columns, so
    a phrase is looked for in it whole however the lines fall."""
    return "".join(text.split())


def write_csv(path: Path, rows: list[list[object]], encoding: str = "utf-8") -> Path:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_bytes(out.getvalue().encode(encoding))
    return path


def read_csv_output(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


ENTRY_HEADER = ["队号", "队名", "队员1", "队员2", "单位"]
RESULT_HEADER = ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"]


def import_event(database: Path, folder: Path, event_id: str, day: str,
                 teams: list[tuple], expect: int = 0) -> int:
    """One hand-made event through the real `paisai import-event`: the registration (team,
    player1, player2, unit; or with a member id after each player when a team has six
    fields) and round 1, the first team of each table winning 10–8. Returns the exit code
    (asserted to be `expect`)."""
    there = folder / event_id
    there.mkdir(parents=True)
    header = ["队号", "队员1", "会员号1", "队员2", "会员号2", "单位"] if teams and \
        len(teams[0]) == 6 else ENTRY_HEADER
    write_csv(there / "报名.csv", [header, *[
        list(t) if len(t) == 6 else [t[0], f"{t[0]}队", *t[1:]] for t in teams]])
    write_csv(there / "第1轮.csv", [RESULT_HEADER, *[
        [1, n + 1, teams[2 * n][0], teams[2 * n + 1][0], "10", "8"]
        for n in range(len(teams) // 2)]])
    code = main(["import-event", "--id", event_id, "--name", event_id, "--ruleset",
                 "suzhou-2025", "--date", day, str(there), "--db", str(database)])
    assert code == expect
    return code


def entries(n: int, prefix: str = "A") -> list[list[object]]:
    return [ENTRY_HEADER] + [[f"{prefix}{i}", f"队伍{i}", f"张{i}", f"李{i}", f"单位{i % 4}"]
                             for i in range(1, n + 1)]


def _event16(database: Path, folder: Path) -> None:
    """event16's event, created and registered through the real `main`."""
    args = ["--db", str(database)]
    assert main(["event", "create", "--id", "e", "--name", "测试赛", "--ruleset",
                 "suzhou-2025", *args]) == 0
    assert main(["ingest", "--event", "e", str(write_csv(folder / "entries.csv", entries(16))),
                 *args]) == 0


@pytest.fixture
def event16(cli, prepared, db_file: Path, tmp_path: Path):
    """A suzhou-2025 event with 16 registered teams A1..A16 (its registration sheet
    entries.csv beside the file). A hundred tests start from it: it is made once per test
    process (`prepared`) and each test gets a copy of its own."""
    prepared(_event16, db_file)
    write_csv(tmp_path / "entries.csv", entries(16))
    return "e"


def _round_one_rows() -> list[list[object]]:
    return [RESULT_HEADER] + [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"]
                              for t in range(1, 9)]


def _round_two_paired(database: Path, folder: Path) -> None:
    """event16's event, round 1 paired and played, round 2 paired, through the real `main`."""
    _event16(database, folder)
    args = ["--event", "e", "--db", str(database)]
    assert main(["pair", *args]) == 0
    assert main(["ingest", str(write_csv(folder / "r1.csv", _round_one_rows())), *args]) == 0
    assert main(["pair", *args]) == 0


@pytest.fixture
def round_two_paired(cli, prepared, db_file: Path, tmp_path: Path):
    """event16's round 1 paired and played (every table 10 to 8) and round 2 paired: what
    the phones' pages show in the middle of a day. Made once per test process
    (`prepared`), each test getting a copy of its own (its sheets written beside it)."""
    prepared(_round_two_paired, db_file)
    write_csv(tmp_path / "entries.csv", entries(16))
    write_csv(tmp_path / "r1.csv", _round_one_rows())
    return "e"


def _event_with_results(database: Path, folder: Path) -> None:
    """event16's event with round 1 ingested through the real `main`."""
    _event16(database, folder)
    assert main(["ingest", "--event", "e", str(write_csv(folder / "r1.csv", _round_one_rows())),
                 "--db", str(database)]) == 0


@pytest.fixture
def event_with_results(cli, prepared, db_file: Path, tmp_path: Path):
    """event16 with round 1 reported: A1 beats A2 10–8, A3 beats A4 10–8, … (made once
    per test process, `prepared`; its sheets written beside each test's copy)."""
    prepared(_event_with_results, db_file)
    write_csv(tmp_path / "entries.csv", entries(16))
    write_csv(tmp_path / "r1.csv", _round_one_rows())
    return "e"


def descendants(pid: int) -> list[tuple[int, str]]:
    """Processes still running below `pid` (zombies are dead: they do not count)."""
    parents: dict[int, list[int]] = {}
    info: dict[int, tuple[str, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace").strip()
        except OSError:
            continue
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        parents.setdefault(int(parent), []).append(int(entry.name))
        info[int(entry.name)] = (state, command)
    found, stack = [], list(parents.get(pid, []))
    while stack:
        child = stack.pop()
        stack += parents.get(child, [])
        if info[child][0] != "Z":
            found.append((child, info[child][1]))
    return found


def pytest_sessionfinish(session, exitstatus):
    """The suite leaves nothing running: a server or browser a test started and did not
    stop fails the run (they used to accumulate, 100 MB each, on every `make test`)."""
    import time

    deadline = time.monotonic() + 10
    left = descendants(os.getpid())
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = descendants(os.getpid())
    if left:
        sys.stderr.write("\n进程未结束 processes the tests left running:\n" + "".join(
            f"  {pid} {command[:160]}\n" for pid, command in left))
        session.exitstatus = 1


def run_page(monkeypatch, database: Path, page: str, **params):
    """One dashboard page through Streamlit's AppTest, on `database`, with query params."""
    from streamlit.testing.v1 import AppTest

    from pipeline.operations.serve import app_path

    monkeypatch.setenv("PAISAI_DB", str(database))
    at = AppTest.from_file(str(app_path()), default_timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(str(app_path().parent / "views" / f"{page}.py"))
    return at.run()


MATCH_SHEET = ["阶段", "场次", "局", "甲方", "乙方", "甲方级数", "乙方级数", "到时领先方"]


def bracket_json(cli, event: str) -> dict:
    """`paisai bracket --format json` of a Tractor event, read."""
    import json

    return json.loads(cli("bracket", "--event", event, "--format", "json").out)


def two_tractor_teams(cli, tmp_path: Path, event: str, ruleset: str) -> tuple[str, str, str]:
    """T1 and T2 drawn into one group of a Tractor event, both through: (group, A, B)."""
    assert cli("event", "create", "--id", event, "--name", event, "--ruleset",
               ruleset).code == 0
    teams = [["队号", "队名"], ["T1", "一队"], ["T2", "二队"]]
    assert cli("ingest", "--event", event, write_csv(tmp_path / f"{event}-e.csv",
                                                     teams)).code == 0
    assert cli("bracket", "draw", "--event", event, "--groups", "1", "--advance", "2",
               "--seed", "1").code == 0
    (group,) = bracket_json(cli, event)["stages"]
    (match,) = group["matches"]
    return group["name"], match["team_a"], match["team_b"]


def sheet_post(client, link: tuple[str, str], **form):
    """A side's form sent to its sheet (`/t`, `/k`) with its code."""
    url, code = link
    return client.post(url, data={"code": code, **form})


def sheet_outcome(response) -> str:
    """What the sheet said after a form: every form is answered with a redirect (303) to the
    sheet read by GET (issue 49), which shows the outcome."""
    import re

    assert [r.status_code for r in response.history] == [303], response.text
    assert response.request.method == "GET" and response.status_code == 200
    found = re.search(r'data-testid="message">(.*?)</p>', response.text)
    return found.group(1) if found else ""


@pytest.fixture
def store():
    """A local S3-compatible store for one test (tests/s3local.py: moto on 127.0.0.1),
    imported here only when a test asks for it."""
    from s3local import Store

    server = Store()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def bucket(store):
    """The bucket `hall` on the test's store, with no request counted yet."""
    store.client().create_bucket(Bucket="hall")
    store.forget()
    return "hall"


# the files that take longest (the browser's, building a wheel, the long property tests)
SLOW_FILES = {"test_wheel_install.py", "test_appeal_invariant.py", "test_ranking_from_sums.py"}


def pytest_collection_modifyitems(config, items):
    """The slowest files first: `make test`'s two workers each take the next whole file when
    free (--dist loadfile), and long files left for the end kept one worker alone for the
    last minutes while the other had nothing to take (the suite is near its 15-minute
    budget on two cores). The order within a file is kept."""
    items.sort(key=lambda item: not (item.path.parent.name == "ui"
                                     or item.path.name in SLOW_FILES))
