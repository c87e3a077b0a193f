-- marts: one row per registered team of each event of $event_ids, ranked within its event
-- by the ruleset's keys in order, with every key's value in a column named as the key
-- (docs/rules/general.md §5). Needs the layers below it, as `scoring.ranking_layers` lists
-- them: team_totals, lots, opponent_keys (or opponent_keys_none), key_values, head_to_head
-- (or head_to_head_none): a key the ruleset does not rank by is not computed.
-- $ranking_keys is the ruleset's list of key names; head-to-head follows
-- [ranking.head_to_head] ($h2h_applies, $h2h_counts, $h2h_reapply).
with

sort_keys as (
    -- each key's value in the keys' order; head-to-head stands for its three levels
    -- (`{sort_key}`: key_list itself where the keys have no head-to-head, else a list
    -- of its values with h2h_1..3 in head-to-head's place, written in by `scoring.compose`)
    select
        v.event_id, v.team_no,
        {sort_key} as sort_key
    from key_values as v
    left join head_to_head as h using (event_id, team_no)
),

ranked as (
    -- the rank, windowed over the sort keys alone: the window carried every column of
    -- team_totals through its sort before (100,000 teams: about 0.05 s CPU more)
    select event_id, team_no, sort_key,
           rank() over (partition by event_id order by sort_key) as rank
    from sort_keys
),

final as (
    select
        s.rank,
        j.*,
        j.levels as level_points,
        coalesce(b.buchholz, 0) as buchholz,
        coalesce(b.buchholz_cut1, 0) as buchholz_cut1,
        coalesce(b.median_buchholz, 0) as median_buchholz,
        coalesce(b.sonneborn_berger, 0) as sonneborn_berger,
        coalesce(b.opponents_level_diff, 0) as opponents_level_diff,
        case when h.team_no is null then 0.0
             else round(h.h2h_1, 6) end as head_to_head,
        (hash(j.team_no || ':' || coalesce(x.seed, 0)::varchar) % 1000000007) as lot,
        s.sort_key
    from team_totals as j
    join ranked as s using (event_id, team_no)
    left join opponent_keys as b using (event_id, team_no)
    left join head_to_head as h using (event_id, team_no)
    left join lots as x using (event_id)
)

select * from final
