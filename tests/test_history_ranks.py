"""Issue 52: the history's cache of finishes is ranked set-based (one pass of the ranking's
SQL over every event of one ruleset and round), and gives every event exactly the ranks the
live ranking (`scoring.standings`, one event at a time) gives it: every preset, rulesets of
our own (FIDE tie-breaks, head-to-head, a chain without team_no so that ties share a rank),
byes asked for and allocated, forfeits, penalties, fouls and ruled losses, withdrawals,
absent teams, quiz, carried totals, lots, team matches of several tables, interim keys."""

from __future__ import annotations

import random
from collections import Counter

import polars as pl

from pipeline.base import db, events
from pipeline.base.ruleset import load_preset, preset_names
from pipeline.history import stats
from pipeline.ranking import finishes, scoring

OWN = {  # rulesets of our own: the keys no preset uses
    "own-fide": """name = "own-fide"
rounds = 5
[ranking]
keys = ["match_points", "buchholz_cut1", "median_buchholz", "sonneborn_berger", "lot"]
unplayed = "fide"
""",
    "own-plain": """name = "own-plain"
rounds = 4
[ranking]
keys = ["match_points", "buchholz", "opponents_level_diff", "progressive", "team_no"]
unplayed = "nothing"
""",
    "own-ties": """name = "own-ties"
rounds = 3
[ranking]
keys = ["match_points"]
""",
    "own-h2h": """name = "own-h2h"
rounds = 4
[scoring]
equal_levels = "last_deal"
[ranking]
keys = ["wins", "head_to_head", "games_won", "levels_gained", "vp", "quiz_score",
        "quiz_seconds"]
[ranking.head_to_head]
applies = "all_met"
counts = "wins"
reapply = true
""",
    "own-two": """name = "own-two"
rounds = 3
[ranking]
keys = ["match_points", "head_to_head", "team_no"]
[ranking.head_to_head]
applies = "two_teams"
counts = "level_points"
""",
}


def _rulesets() -> list[tuple[str, str]]:
    return [(n, load_preset(n).source) for n in preset_names()] + list(OWN.items())


def _archive(path, events_per_ruleset: int = 4, seed: int = 3) -> list[str]:
    """An archive written straight to the file, as other tools would: random Swiss events
    of every ruleset, with everything the ranking reads. Returns the event ids."""
    rng = random.Random(seed)
    rows: dict[str, list[tuple]] = {
        t: []
        for t in (
            "events",
            "teams",
            "results",
            "pairings",
            "penalties",
            "fouls",
            "official_rulings",
            "quiz",
            "carried_totals",
            "event_lots",
        )
    }
    made = []
    for name, toml in _rulesets():
        tables = 2 if name == "jinling-2023-team" else 1
        for n in range(events_per_ruleset):
            event_id = f"{name}-{n}"
            made.append(event_id)
            rows["events"].append((event_id, event_id, name, toml, f"2024-{1 + n % 12:02d}-01"))
            size = rng.choice([0, 3, 4, 5, 7, 9]) if n == 0 else rng.choice([4, 5, 6, 8, 11])
            planned = load_preset(name).rounds if name in preset_names() else 4
            played = min(planned, rng.choice([0, 1, 2, planned, planned]) if n else planned)
            checked = n == 2  # one event checks teams in: the others are absent
            teams = [f"{'AB'[i % 2] if n == 3 else 'A'}{i + 1}" for i in range(size)]
            withdrawn = {t: rng.randint(1, 2) for t in rng.sample(teams, min(1, size)) if n == 1}
            for t in teams:
                rows["teams"].append(
                    (
                        event_id,
                        t,
                        f"队{t}",
                        f"{event_id}{t}甲",
                        f"{event_id}{t}乙",
                        "单位",
                        checked and rng.random() < 0.8,
                        withdrawn.get(t),
                    )
                )
            for r in range(1, played + 1):
                active = [t for t in teams if withdrawn.get(t, 99) >= r]
                rng.shuffle(active)
                if len(active) % 2:
                    bye = active.pop()
                    kind = rng.choice([None, None, "requested"])
                    rows["pairings"].append(
                        (
                            event_id,
                            r,
                            None,
                            bye,
                            None,
                            kind,
                            rng.choice([None, 0.0, 1.0]) if kind else None,
                        )
                    )
                for k in range(0, len(active), 2):
                    ew, ns = active[k], active[k + 1]
                    for table in range(tables):
                        table_no = k + table + 1
                        a, b = (ew, ns) if table == 0 else (ns, ew)
                        forfeit = rng.choice([None] * 12 + ["ew", "ns", "both"])
                        levels = (None, None) if forfeit else (rng.randint(2, 6), rng.randint(2, 6))
                        rows["results"].append(
                            (
                                event_id,
                                r,
                                table_no,
                                a,
                                b,
                                *levels,
                                forfeit,
                                rng.choice([None, "ew", "ns"]),
                                rng.choice([None, "ew", "ns"]),
                            )
                        )
                        if rng.random() < 0.15:
                            rows["fouls"].append(
                                (
                                    event_id,
                                    r,
                                    rng.choice([a, b]),
                                    rng.randint(1, 3),
                                    rng.randint(0, 2),
                                    rng.randint(0, 3),
                                    rng.choice([0, table_no]),
                                )
                            )
                    if rng.random() < 0.1:
                        rows["official_rulings"].append(
                            (event_id, r, ew, "ruled_loss", rng.choice(["confirmed", "proposed"]))
                        )
                for t in teams:
                    if rng.random() < 0.08:
                        rows["penalties"].append(
                            (
                                event_id,
                                r,
                                t,
                                rng.choice(["match_points", "level_diff_score", "levels"]),
                                rng.randint(1, 2),
                                f"罚{r}",
                            )
                        )
            for t in teams:
                if n == 3 or rng.random() < 0.2:
                    rows["quiz"].append(
                        (event_id, t, float(rng.randint(0, 2)), float(rng.randint(50, 52)))
                    )
                if n == 1 and rng.random() < 0.5:
                    rows["carried_totals"].append(
                        (
                            event_id,
                            t,
                            float(rng.randint(0, 3)),
                            rng.randint(0, 5),
                            rng.randint(0, 5),
                            rng.randint(-2, 2),
                            rng.randint(0, 3),
                        )
                    )
            if n % 2:
                rows["event_lots"].append((event_id, rng.randint(0, 10**6)))
    columns = {
        "events": "event_id, name, ruleset_name, ruleset_toml, event_date",
        "teams": "event_id, team_no, team_name, player1, player2, affiliation, checked_in, "
        "withdrawn_after",
        "results": "event_id, round, table_no, ew_team, ns_team, ew_level, ns_level, forfeit, "
        "first_to_level, last_deal_side",
        "pairings": "event_id, round, table_no, ew_team, ns_team, bye_kind, bye_points",
        "penalties": "event_id, round, team_no, target, amount, reason",
        "fouls": "event_id, round, team_no, fouls, warnings, violations, table_no",
        "official_rulings": "event_id, round, team_no, kind, status",
        "quiz": "event_id, team_no, quiz_score, quiz_seconds",
        "carried_totals": "event_id, team_no, match_points, level_diff_score, levels, "
        "net_levels, levels_gained",
        "event_lots": "event_id, seed",
    }
    with db.writing(path) as con:
        con.execute("delete from event_lots")  # a migration draws lots for events: none yet
        for table, found in rows.items():
            if not found:
                continue
            names = [c.strip() for c in columns[table].split(",")]
            if table == "fouls":  # one record per team, round and table
                found = list({f[:3] + f[-1:]: f for f in found}.values())
            con.executemany(
                f"insert into {table} ({columns[table]}) values ({', '.join('?' * len(names))})",
                found,
            )
    return made


def _live_ranks(con, event_ids: list[str]) -> pl.DataFrame:
    """Every Swiss event ranked one at a time, as a live event is."""
    frames = []
    for event_id in event_ids:
        event = events.load(con, event_id)
        if event.ruleset.is_swiss:
            ranking = scoring.standings(con, event).select("team_no", "rank")
            frames.append(
                ranking.with_columns(
                    pl.lit(event_id).alias("event_id"), pl.len().alias("field_size")
                )
            )
    return pl.concat(frames).select(
        "event_id", "team_no", pl.col("rank").cast(pl.Int64), pl.col("field_size").cast(pl.Int64)
    )


def test_set_based_ranks_equal_the_live_ranking_of_every_event(db_file):
    made = _archive(db_file)
    with db.reading(db_file) as con:
        live = _live_ranks(con, made).sort("event_id", "team_no")
        swiss = [events.load(con, e) for e in made]
        swiss = [(e, scoring.latest_round(con, e.event_id)) for e in swiss if e.ruleset.is_swiss]
        shared = pl.DataFrame(
            finishes.final_ranks(con, swiss),
            orient="row",
            schema={"event_id": pl.String, "team_no": pl.String, "rank": pl.Int64},
        ).sort("event_id", "team_no")
    assert shared.equals(live.drop("field_size"))
    # the archive has what the test says: ties that share a rank, several rulesets and
    # rounds (so several passes), byes, forfeits, withdrawals, absent teams
    assert live.group_by("event_id", "rank").len()["len"].max() > 1
    passes = Counter((e.ruleset.name, r) for e, r in swiss)
    assert len(passes) > 10 and max(passes.values()) >= 3  # passes of several events
    # both ways of ranking a pass: final_ranks.sql (a column a key) and standings.sql's
    # (a chain with head-to-head)
    assert {finishes.by_key_columns(scoring.published_keys(e, r)) for e, r in swiss} == {
        True, False}
    with db.reading(db_file) as con:
        kinds = db.rows(
            con,
            """select (select count(*) from pairings where ns_team is null),
            (select count(*) from results where forfeit is not null),
            (select count(*) from teams where withdrawn_after is not null),
            (select count(*) from official_rulings), (select count(*) from penalties)""",
        )[0]
    assert all(kinds), kinds


def test_the_history_cache_holds_the_live_ranks_after_a_first_read(db_file, paisai):
    """An archive written by other tools: the first `paisai units` ranks every event once
    (set-based), and each finish and field size is the live ranking's."""
    made = _archive(db_file, events_per_ruleset=2, seed=11)
    assert stats.stale_rank_count(db_file) == len(made)
    done = paisai("units", "--totals")
    assert done.code == 0, done.err
    assert stats.stale_rank_count(db_file) == 0
    with db.reading(db_file) as con:
        live = _live_ranks(con, made).sort("event_id", "team_no")
        cached = db.frame(
            con,
            "select event_id, team_no, rank::bigint as rank, "
            "field_size::bigint as field_size from event_ranks "
            "order by event_id, team_no",
        )
        tractor = db.scalar(
            con, "select count(*) from event_ranks where event_id like 'hengquan-2025-tractor%'"
        )
    assert cached.equals(live)
    assert tractor == 0  # a knockout has no overall ranking: nothing cached, as before
