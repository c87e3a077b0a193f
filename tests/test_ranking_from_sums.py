"""The ranking at an ingest computed from the sums kept after the round before and the new
round's results alone (issue 53: 100,000 teams' ingest) is the ranking computed from every
round, after every round of random events on several presets — with penalties and
corrections between the rounds (which rank every round again) and byes (odd fields). A
chain with head-to-head or an opponent's key always reads every round."""

from __future__ import annotations

import io
import random
import tempfile
from pathlib import Path

import polars as pl
import pytest
from conftest import RESULT_HEADER, entries, write_csv
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pipeline.base import db, events
from pipeline.cli import main
from pipeline.ranking import scoring, sums

LEVELS = ["2", "4", "6", "8", "9", "10", "J", "Q", "K", "A", "过A"]
PENALTY_HEADER = ["轮次", "队号", "扣分项目", "扣分", "原因"]
# every key a team's own total, the running total (累进分) among them
OWN_TOTALS = (
    'name = "own-totals"\n[ranking]\nkeys = ["match_points", "progressive", '
    '"levels_gained", "games_won", "wins", "net_levels", "team_no"]\n'
)
PRESETS = ["suzhou-2025", "jinling-2023-pairs", "taihu-elite", "hengquan-2025-guandan", OWN_TOTALS]


def _run(database: Path, *args: object) -> None:
    assert main([*map(str, args), "--db", str(database)]) == 0, args


def _kept_and_full(database: Path) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """The ranking the last ingest kept, and the ranking computed now from every round."""
    with db.reading(database) as con:
        event = events.load(con, "e")
        after = scoring.latest_round(con, "e")
        keys = scoring.published_keys(event, after)
        blob = db.scalar(
            con,
            "select ranking from standings_cache where event_id = 'e' and "
            "max_round = ? and keys = ?",
            [after, ",".join(keys)],
        )
        return pl.read_ipc(io.BytesIO(blob)), scoring._rank(con, event, after, keys), keys


def _results(database: Path, round_no: int, rng: random.Random) -> list[list[object]]:
    with db.reading(database) as con:
        tables = db.rows(
            con,
            "select table_no, ew_team, ns_team from pairings where "
            "event_id = 'e' and round = ? and ns_team is not null "
            "order by table_no",
            [round_no],
        )
    rows = []
    for table, ew, ns in tables:
        a, b = rng.sample(LEVELS, 2)  # never equal: no mark of who reached it first needed
        rows.append([round_no, table, ew, ns, a, b])
    return rows


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)  # a shrink reruns whole events
@given(
    preset=st.sampled_from(PRESETS),
    teams=st.integers(5, 10),
    rounds=st.integers(2, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_ranking_from_kept_sums_is_the_ranking_from_every_round(preset, teams, rounds, seed):
    rng = random.Random(seed)
    used: list[int] = []
    real = sums.rank

    def counted(con, event, max_round, keys, kept):
        if kept is not None:
            used.append(max_round)
        return real(con, event, max_round, keys, kept)

    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(sums, "rank", counted)
        here = Path(folder)
        database = here / "t.duckdb"
        ruleset = preset
        if preset == OWN_TOTALS:
            ruleset = here / "own.toml"
            ruleset.write_text(OWN_TOTALS, encoding="utf-8")
        _run(database, "event", "create", "--id", "e", "--name", "赛", "--ruleset", ruleset)
        _run(database, "ingest", "--event", "e", write_csv(here / "t.csv", entries(teams)))
        sheets = {}
        target = "升级数" if preset == "hengquan-2025-guandan" else "积分"  # a key it ranks by
        for round_no in range(1, rounds + 1):
            disturbed = False
            if round_no >= 3 and rng.random() < 0.4:  # a penalty, this round's or an earlier
                disturbed = True
                team = f"A{rng.randint(1, teams)}"
                _run(
                    database,
                    "ingest",
                    "--event",
                    "e",
                    write_csv(
                        here / f"p{round_no}.csv",
                        [PENALTY_HEADER, [rng.randint(1, round_no), team, target, 1, "迟到"]],
                    ),
                )
            if round_no >= 3 and rng.random() < 0.4:  # the round before corrected
                disturbed = True
                rows = [list(r) for r in sheets[round_no - 1]]
                fixed = rng.randrange(len(rows))
                rows[fixed][4:6] = rows[fixed][5], rows[fixed][4]
                _run(
                    database,
                    "ingest",
                    "--event",
                    "e",
                    write_csv(here / f"fix{round_no}.csv", [RESULT_HEADER, *rows]),
                )
                sheets[round_no - 1] = rows
                kept, full, _ = _kept_and_full(database)
                assert kept.equals(full)
            _run(database, "pair", "--event", "e")
            sheets[round_no] = _results(database, round_no, rng)
            before = len(used)
            _run(
                database,
                "ingest",
                "--event",
                "e",
                write_csv(here / f"r{round_no}.csv", [RESULT_HEADER, *sheets[round_no]]),
            )
            kept, full, keys = _kept_and_full(database)
            assert kept.equals(full) and kept.schema == full.schema, (preset, round_no)
            if round_no == 2 and not disturbed:  # nothing changed since round 1's ingest
                assert (len(used) > before) == sums.from_sums(keys), (preset, keys)
        if preset == "hengquan-2025-guandan":  # head-to-head: every round read
            assert used == []


def test_a_penalty_without_a_game_is_kept_with_the_sums(tmp_path, monkeypatch):
    """A penalty of a round in which the team has no game (a withdrawn team's) stays in the
    sums kept after its round (team_sums_kept.sql's orphan_* columns) and counts in the
    ranking from them after the next round (kept_orphans.sql), as it does from every round."""
    used: list[int] = []
    real = sums.rank

    def counted(con, event, max_round, keys, kept):
        if kept is not None:
            used.append(max_round)
        return real(con, event, max_round, keys, kept)

    monkeypatch.setattr(sums, "rank", counted)
    rng = random.Random(7)
    database = tmp_path / "t.duckdb"
    _run(database, "event", "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025")
    _run(database, "ingest", "--event", "e", write_csv(tmp_path / "t.csv", entries(6)))
    for round_no in (1, 2, 3):
        if round_no == 2:
            _run(database, "withdraw", "A6", "--event", "e", "--after-round", 1)
        _run(database, "pair", "--event", "e")
        if round_no == 2:  # A6 has no game in round 2: its penalty counts all the same
            penalty = [PENALTY_HEADER, [2, "A6", "积分", 1, "迟到"]]
            _run(database, "ingest", "--event", "e", write_csv(tmp_path / "p.csv", penalty))
        rows = _results(database, round_no, rng)
        sheet = write_csv(tmp_path / f"r{round_no}.csv", [RESULT_HEADER, *rows])
        _run(database, "ingest", "--event", "e", sheet)
        kept, full, _ = _kept_and_full(database)
        assert kept.equals(full) and kept.schema == full.schema, round_no
    assert used == [3]  # the withdrawal changed the teams: round 2 ranked from every round
    a6 = full.filter(pl.col("team_no") == "A6").row(0, named=True)
    with db.reading(database) as con:
        event = events.load(con, "e")
        games = scoring.team_rounds(con, event, 3).filter(pl.col("team_no") == "A6")
        kept_sums = sums.kept(con, event, 2, _print(con, 2))
    assert games["round"].to_list() == [1] and a6["played"] == 1
    assert a6["match_points"] == games["match_points"].sum() - 1
    assert kept_sums is not None
    assert kept_sums.filter(pl.col("team_no") == "A6")["orphan_match_points"].to_list() == [1]


def _print(con, round_no: int) -> str | None:
    found = dict(
        db.rows(
            con, scoring.fingerprint_query("standings_fingerprints_by_round"), {"event_id": "e"}
        )
    )
    return found.get(round_no)
