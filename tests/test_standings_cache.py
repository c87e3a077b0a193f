"""The ranking an ingest computes is kept for the readers that come next (issue 32): the
standings, the projector and the pairing rank a 100,000-team round once. It is served only
while nothing it reads has changed: every change made any other way ranks again."""

from __future__ import annotations

from conftest import RESULT_HEADER, read_csv_output, write_csv

from pipeline.base import db, events
from pipeline.ranking import scoring


def _cached_rounds(database) -> list[int]:
    with db.reading(database) as con:
        return [r[0] for r in db.rows(con, "select max_round from standings_cache where keys "
                                           "not in (?, ?)", [scoring.RANKS_ONLY, scoring.SUMS])]


def _fresh(database, event_id: str) -> list[dict]:
    """The ranking computed now, without the cache."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        after = scoring.latest_round(con, event_id)
        ranking = scoring._rank(con, event, after, scoring.published_keys(event, after))
    return ranking.select("rank", "team_no").to_dicts()


def _shown(cli, event_id: str) -> list[dict]:
    rows = read_csv_output(cli("standings", "--event", event_id, "--format", "csv").out)
    return [{"rank": int(r["rank"]), "team_no": r["team_no"]} for r in rows]


def test_an_ingest_ranks_once_and_every_other_change_ranks_again(cli, event_with_results,
                                                                 db_file, tmp_path):
    event_id = event_with_results
    assert _cached_rounds(db_file) == [1]  # the sheet's ingest ranked round 1
    assert _shown(cli, event_id) == _fresh(db_file, event_id)
    # pairing round 2 keeps it (the ranking after round 1 reads nothing of round 2)
    assert cli("pair", "--event", event_id).code == 0
    with db.reading(db_file) as con:
        event = events.load(con, event_id)
        assert scoring._cached(con, event, 1, scoring.published_keys(event, 1)) is not None
    # a penalty sheet (not a round's results): the cache is not served, ranked again
    before = _shown(cli, event_id)
    run = cli("ingest", "--event", event_id, write_csv(tmp_path / "pen.csv", [
        ["轮次", "队号", "扣分项目", "扣分", "原因"], [1, "A1", "积分", "3", "迟到"]]))
    assert run.code == 0, run.err
    with db.reading(db_file) as con:
        event = events.load(con, event_id)
        assert scoring._cached(con, event, 1, scoring.published_keys(event, 1)) is None
    after = _shown(cli, event_id)
    assert after == _fresh(db_file, event_id) and after != before
    # a corrected result by sheet: ranked again at that ingest
    assert cli("ingest", "--event", event_id, write_csv(
        tmp_path / "fix.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "8", "10"]])).code == 0
    assert _shown(cli, event_id) == _fresh(db_file, event_id)
    assert {"rank": 1, "team_no": "A1"} not in _shown(cli, event_id)[:1]


def test_a_cached_ranking_is_what_ranking_again_gives(cli, event_with_results, db_file):
    """Everything the standings show, not only the order, comes back the same from the
    cache (types and all)."""
    event_id = event_with_results
    with db.reading(db_file) as con:
        event = events.load(con, event_id)
        served = scoring.standings(con, event)
    with db.writing(db_file) as con:
        con.execute("delete from standings_cache")
    with db.reading(db_file) as con:
        assert served.equals(scoring.standings(con, events.load(con, event_id)))


def test_a_chain_without_head_to_head_or_opponent_keys_ranks_as_the_full_layers_do(
        event_with_results, db_file):
    """Issue 53: a ranking by points and levels composes the empty head-to-head and
    opponents' layers (nothing of theirs planned or run); the frame is the one the full
    layers give, to every rank, value and sort key — those keys' columns read 0 as they do
    when the chain does not use them."""
    full = ["stg_results", "team_rounds", "h2h_games", "team_sums", "orphan_penalties",
            "team_totals", "lots", "opponent_keys", "key_values", "head_to_head"]
    with db.reading(db_file) as con:
        event = events.load(con, event_with_results)
        for keys in (scoring.published_keys(event, 1), ["match_points", "net_levels", "lot"]):
            assert "head_to_head_none" in str(scoring.ranking_layers(keys))
            query = scoring.compose(full, "standings", "rank, team_order", keys)
            every = db.frame(con, query, scoring.bind(query, scoring.ranking_params(event, 1, keys)))
            pruned = scoring._rank(con, event, 1, keys)
            opponents = ["buchholz", "buchholz_cut1", "median_buchholz", "sonneborn_berger",
                         "opponents_level_diff"]
            every = every.drop("event_id").with_columns(
                every[c].clip(0, 0).alias(c) for c in opponents)  # not ranked by: 0
            assert pruned.equals(every) and pruned.schema == every.schema
        keys = ["match_points", "head_to_head", "buchholz", "team_no"]
        assert scoring.ranking_layers(keys)[2] == "h2h_games"
        assert "opponent_keys" in scoring.ranking_layers(keys)


EVENT = "e"  # event_with_results


def _round_two(cli, event_id: str, database, tmp_path) -> None:
    """Round 2 paired and stored by the CLI (EW 9 – NS J at every table)."""
    assert cli("pair", "--event", event_id).code == 0
    with db.reading(database) as con:
        pairs = db.rows(con, "select table_no, ew_team, ns_team from pairings where event_id = ? "
                             "and round = 2 order by table_no", [event_id])
    rows = [[2, t, ew, ns, "9", "J"] for t, ew, ns in pairs]
    assert cli("ingest", "--event", event_id,
               write_csv(tmp_path / "r2.csv", [RESULT_HEADER, *rows])).code == 0


def _by_round(database) -> dict[int, str]:
    with db.reading(database) as con:
        return dict(db.rows(con, scoring.fingerprint_query("standings_fingerprints_by_round"),
                            {"event_id": EVENT}))


def _after(database, max_round: int) -> str:
    with db.reading(database) as con:
        return db.scalar(con, scoring.fingerprint_query("standings_fingerprint"),
                         {"event_id": EVENT, "max_round": max_round})


def test_the_fingerprints_share_the_event_wide_parts(cli, event_with_results, db_file, tmp_path):
    """standings_fingerprint.sql and standings_fingerprints_by_round.sql read the event-wide
    parts from one place (standings_fingerprint_parts.sql): the latest round's value is one
    value, a penalty changes both, a later round changes an earlier round's own ranking's
    fingerprint only through what it reads (its results and pairings do not change)."""
    assert event_with_results == EVENT
    assert _by_round(db_file) == {1: _after(db_file, 1)}
    _round_two(cli, EVENT, db_file, tmp_path)
    by_round = _by_round(db_file)
    assert by_round[2] == _after(db_file, 2)
    assert by_round[1] != _after(db_file, 1)  # the latter reads every result (round 2's too)
    assert cli("ingest", "--event", EVENT, write_csv(tmp_path / "pen.csv", [
        ["轮次", "队号", "扣分项目", "扣分", "原因"], [1, "A1", "积分", "3", "迟到"]])).code == 0
    after = _by_round(db_file)
    assert after[1] != by_round[1] and after[2] != by_round[2]
    assert after[2] == _after(db_file, 2)


def test_the_ranks_after_each_round_are_kept_at_their_ingest(cli, event_with_results, db_file,
                                                            tmp_path, monkeypatch):
    """The bump chart of a server started at round 2 ranks nothing: each round's ranks were
    kept when its results were stored — and never served once what they read has changed."""
    from pipeline.day import queries

    _round_two(cli, EVENT, db_file, tmp_path)
    fresh = queries.rank_progression(db_file, EVENT)  # ranked now, round by round
    ranked: list[int] = []
    real = scoring._rank
    monkeypatch.setattr(scoring, "_rank", lambda con, event, r, keys: (
        ranked.append(r), real(con, event, r, keys))[1])
    known: dict = {}
    assert queries.rank_progression(db_file, EVENT, known).equals(fresh)
    assert ranked == [] and sorted(k[2] for k in known) == [1, 2]
    # a round-1 result changed outside an ingest: its kept ranks are not served, ranked again
    with db.writing(db_file) as con:
        con.execute("update results set ew_level = 8, ns_level = 10 where event_id = 'e' "
                    "and round = 1 and table_no = 1")
    changed = queries.rank_progression(db_file, EVENT, {})
    assert sorted(ranked) == [1, 2]
    monkeypatch.setattr(scoring, "_rank", real)
    assert changed.equals(queries.rank_progression(db_file, EVENT))
    assert not changed.equals(fresh)
