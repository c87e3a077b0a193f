-- intermediate: head-to-head among exactly the tied teams (docs/rules/general.md §5): one
-- row per team with the mini-league's value at each of three levels (reapplied within the
-- sub-groups still tied where [ranking.head_to_head] says so). Needs key_values and
-- h2h_games. Composed only when the ranking's keys have head_to_head (else
-- head_to_head_none.sql: the same columns, no rows).
with

h2h_position as (
    select list_position($ranking_keys, 'head_to_head') as position
),

games as (
    -- every game between two registered teams, counted as the ruleset says (h2h_games)
    select event_id, team_no, opponent, credit
    from h2h_games
    where 'head_to_head' in $ranking_keys
),

group_0 as (
    -- teams equal on every key before head_to_head form one group (only when the keys
    -- have head_to_head: else every team's head_to_head is 0 and nothing is grouped); with
    -- head_to_head first, no key comes before it: no group (null), as ever
    select v.event_id, v.team_no,
           case when h.position > 1 then v.key_list[1:h.position - 1] end as tie_key
    from key_values as v
    cross join h2h_position as h
    where 'head_to_head' in $ranking_keys
),

credit_1 as (
    select g.event_id, g.team_no, g.tie_key, coalesce(sum(x.credit), 0) as credit,
           count(distinct x.opponent) as met
    from group_0 as g
    left join games as x on x.event_id = g.event_id and x.team_no = g.team_no
        and x.opponent in (select o.team_no from group_0 as o
                           where o.event_id = g.event_id and o.tie_key = g.tie_key)
    group by g.event_id, g.team_no, g.tie_key
),

h2h_1 as (
    -- all_met: every tied team met every other; two_teams: two tied teams that met
    select event_id, team_no, tie_key,
           case
               when count(*) over w < 2 then 0
               when $h2h_applies = 'all_met' and min(met) over w < count(*) over w - 1 then 0
               when $h2h_applies = 'two_teams' and (count(*) over w <> 2 or min(met) over w = 0)
                   then 0
               else credit
           end as value
    from credit_1
    window w as (partition by event_id, tie_key)
),

group_1 as (
    select event_id, team_no, list_append(tie_key, value) as tie_key from h2h_1
),

credit_2 as (
    select g.event_id, g.team_no, g.tie_key, coalesce(sum(x.credit), 0) as credit,
           count(distinct x.opponent) as met
    from group_1 as g
    left join games as x on x.event_id = g.event_id and x.team_no = g.team_no
        and x.opponent in (select o.team_no from group_1 as o
                           where o.event_id = g.event_id and o.tie_key = g.tie_key)
    group by g.event_id, g.team_no, g.tie_key
),

h2h_2 as (
    -- reapply: head-to-head again within each sub-group still tied, and only there
    select event_id, team_no, tie_key,
           case
               when not $h2h_reapply or count(*) over w < 2 then 0
               when $h2h_applies = 'all_met' and min(met) over w < count(*) over w - 1 then 0
               when $h2h_applies = 'two_teams' and (count(*) over w <> 2 or min(met) over w = 0)
                   then 0
               else credit
           end as value
    from credit_2
    window w as (partition by event_id, tie_key)
),

group_2 as (
    select event_id, team_no, list_append(tie_key, value) as tie_key from h2h_2
),

credit_3 as (
    select g.event_id, g.team_no, g.tie_key, coalesce(sum(x.credit), 0) as credit,
           count(distinct x.opponent) as met
    from group_2 as g
    left join games as x on x.event_id = g.event_id and x.team_no = g.team_no
        and x.opponent in (select o.team_no from group_2 as o
                           where o.event_id = g.event_id and o.tie_key = g.tie_key)
    group by g.event_id, g.team_no, g.tie_key
),

h2h_3 as (
    select event_id, team_no,
           case
               when not $h2h_reapply or count(*) over w < 2 then 0
               when $h2h_applies = 'all_met' and min(met) over w < count(*) over w - 1 then 0
               when $h2h_applies = 'two_teams' and (count(*) over w <> 2 or min(met) over w = 0)
                   then 0
               else credit
           end as value
    from credit_3
    window w as (partition by event_id, tie_key)
),

head_to_head as (
    select h1.event_id, h1.team_no, h1.value as h2h_1, h2.value as h2h_2, h3.value as h2h_3
    from h2h_1 as h1
    join h2h_2 as h2 using (event_id, team_no)
    join h2h_3 as h3 using (event_id, team_no)
)

select * from head_to_head
