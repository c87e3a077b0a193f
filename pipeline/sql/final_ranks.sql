-- marts: one row per registered team of each event of $event_ids: its rank within its event
-- as standings.sql ranks it (the ruleset's keys in order, the ascending value winning;
-- teams equal on every key share a rank), and nothing else: the history's cache of
-- finishes (scoring.final_rank_frame). It sorts by each key's value in turn, where
-- standings.sql sorts by one list per team: a quarter less CPU over 1,000 events (issue
-- 52). For chains of at most 8 keys without head-to-head: scoring.by_key_columns says
-- which; the others are ranked by standings.sql. A key past the chain's end is null for
-- every team: it never parts two teams.
with

final as (
    select
        event_id,
        team_no,
        rank() over (
            partition by event_id
            order by key_list[1], key_list[2], key_list[3], key_list[4], key_list[5],
                     key_list[6], key_list[7], key_list[8]
        ) as rank
    from key_values
)

select * from final
