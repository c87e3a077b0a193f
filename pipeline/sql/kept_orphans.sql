-- intermediate: orphan_penalties.sql's rows read from the sums team_sums_kept.sql made (the
-- ranking at an ingest registers them as `team_sums`): one row per team with a penalty in a
-- round without its game.
with

final as (
    select event_id, team_no, orphan_match_points as match_points,
           orphan_level_diff_score as level_diff_score, orphan_levels as levels
    from team_sums
    where orphan_match_points <> 0 or orphan_level_diff_score <> 0 or orphan_levels <> 0
)

select * from final
