-- intermediate: one row per team with its values of the ranking keys ($ranking_keys), in
-- the keys' order as one list (`key_list`; ascending order wins: descending keys are
-- negated). Needs team_totals, opponent_keys and lots; the ranking sorts by it and
-- head-to-head groups the teams equal before it. A list per team, not a row per team per
-- key: the ranking then neither multiplies the teams by the keys nor groups them back
-- (100,000 teams: CPU 2.1 → 1.4 s for the whole ranking). `{key_list}`: a list of
-- key_value.sql, once per key, that `scoring.compose` writes in.
with

key_values as (
    select
        j.event_id, j.team_no,
        {key_list} as key_list
    from team_totals as j
    left join opponent_keys as b using (event_id, team_no)
    left join lots as x using (event_id)
)

select * from key_values
