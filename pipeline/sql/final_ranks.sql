-- marts: one row per registered team of each event of $event_ids: its rank within its event
-- as standings.sql ranks it (the ruleset's keys in order, the ascending value winning;
-- teams equal on every key share a rank), and nothing else: the history's cache of
-- finishes (scoring.final_rank_frame). Each key's value is a column of its own, key1 …
-- key8, where standings.sql sorts by one list per team: a quarter less CPU over 1,000
-- events (issue 52). For chains of at most 8 keys without head-to-head (three values a
-- key): scoring.by_key_columns says which; the others are ranked by standings.sql.
with

by_key as (
    select
        event_id,
        team_no,
        max(value) filter (where position = 1) as key1,
        max(value) filter (where position = 2) as key2,
        max(value) filter (where position = 3) as key3,
        max(value) filter (where position = 4) as key4,
        max(value) filter (where position = 5) as key5,
        max(value) filter (where position = 6) as key6,
        max(value) filter (where position = 7) as key7,
        max(value) filter (where position = 8) as key8
    from key_values
    group by event_id, team_no
),

final as (
    select
        event_id,
        team_no,
        rank() over (
            partition by event_id
            order by key1, key2, key3, key4, key5, key6, key7, key8
        ) as rank
    from by_key
)

select * from final
