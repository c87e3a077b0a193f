-- intermediate: no sums kept (the ranking reads every round): team_sums.sql's columns without
-- a row. Ranked from the rounds since a kept ranking, `kept_sums` is the sums an ingest kept.
select '' as event_id, '' as team_no, 0::bigint as played, 0::bigint as wins,
       0::bigint as draws, 0::bigint as losses, 0.0::double as match_points,
       0::bigint as level_diff_score, 0::bigint as vp, 0::bigint as levels,
       0::bigint as net_levels, 0::bigint as levels_gained, 0::bigint as games_won,
       0.0::double as progressive, 0::bigint as orphan_match_points,
       0::bigint as orphan_level_diff_score, 0::bigint as orphan_levels
where false
