-- marts: one row per registered team of each event of $event_ids, ranked within its event
-- by the ruleset's keys in order, with every key's value in a column named as the key
-- (docs/rules/general.md §5). Needs team_rounds.
-- $ranking_keys is the ruleset's list of key names; head-to-head follows
-- [ranking.head_to_head] ($h2h_applies, $h2h_counts, $h2h_reapply).
with

unplayed_rule as (
    -- FIDE C.07 article 16 for unplayed rounds, or "nothing"; "auto": nothing in a round
    -- robin (every team meets every other: the planned rounds reach teams − 1)
    select event_id, $unplayed = 'fide' or ($unplayed = 'auto' and not (
               $planned_rounds > 0 and count(*) <= $planned_rounds + 1)) as fide
    from teams
    where event_id in (select unnest($event_ids))
    group by event_id
),

registered as (
    select event_id, team_no, team_name, player1, player2, affiliation,
           case
               when withdrawn_after is not null then 'withdrawn'
               -- absent: not checked in where the event has checked any team in
               when not coalesce(checked_in, false)
                    and coalesce(bool_or(checked_in) over (partition by event_id), false)
                   then 'absent'
               else 'active'
           end as status,
           row_number() over (
               partition by event_id
               order by regexp_extract(team_no, '^[^0-9]*'),
                        try_cast(regexp_extract(team_no, '[0-9]+') as bigint) nulls first,
                        team_no
           ) as team_order
    from teams
    where event_id in (select unnest($event_ids))
),

totals as (
    select
        event_id, team_no,
        count(*)::bigint as played,
        count(*) filter (where outcome = 'win') as wins,
        count(*) filter (where outcome = 'draw') as draws,
        count(*) filter (where outcome = 'loss') as losses,
        sum(match_points)::double as match_points,
        sum(level_diff_score)::bigint as level_diff_score,
        sum(vp)::bigint as vp,
        sum(levels)::bigint as levels,
        sum(net_levels)::bigint as net_levels,
        sum(levels - $start_level) filter (where not is_bye)::bigint as levels_gained,
        sum(games_won)::bigint as games_won,
        -- 累进分: the running total after each round, summed
        sum(match_points * ($max_round - round + 1))::double as progressive
    from team_rounds
    group by event_id, team_no
),

orphan_penalties as (
    -- penalties of a round in which the team has no game (yet): they count all the same
    select p.event_id, p.team_no,
           sum(p.amount) filter (where p.target = 'match_points')::bigint as match_points,
           sum(p.amount) filter (where p.target = 'level_diff_score')::bigint as level_diff_score,
           sum(p.amount) filter (where p.target = 'levels')::bigint as levels
    from penalties as p
    where p.event_id in (select unnest($event_ids)) and p.round <= $max_round
      and not exists (select 1 from team_rounds as tr
                      where tr.event_id = p.event_id and tr.round = p.round
                        and tr.team_no = p.team_no)
    group by p.event_id, p.team_no
),

carried as (
    -- totals carried over from an earlier event or a carry-over sheet
    select event_id, team_no, match_points, level_diff_score, levels, net_levels,
           levels_gained
    from carried_totals where event_id in (select unnest($event_ids))
),

quiz_scores as (
    select event_id, team_no, quiz_score, quiz_seconds from quiz
    where event_id in (select unnest($event_ids))
),

lots as (
    -- the event's drawn lot (its seed), 0 before any
    select event_id, max(seed) as seed from event_lots
    where event_id in (select unnest($event_ids))
    group by event_id
),

joined as (
    select
        r.event_id, r.team_no, r.team_name, r.player1, r.player2, r.affiliation, r.team_order,
        r.status,
        coalesce(t.played, 0) as played,
        coalesce(t.wins, 0) as wins,
        coalesce(t.draws, 0) as draws,
        coalesce(t.losses, 0) as losses,
        round(coalesce(t.match_points, 0) - coalesce(o.match_points, 0)
              + coalesce(c.match_points, 0), 6) as match_points,
        coalesce(t.level_diff_score, 0) - coalesce(o.level_diff_score, 0)
            + coalesce(c.level_diff_score, 0) as level_diff_score,
        coalesce(t.vp, 0) as vp,
        coalesce(t.levels, 0) - coalesce(o.levels, 0) + coalesce(c.levels, 0) as levels,
        coalesce(t.net_levels, 0) + coalesce(c.net_levels, 0) as net_levels,
        coalesce(t.levels_gained, 0) + coalesce(c.levels_gained, 0) as levels_gained,
        coalesce(t.games_won, 0) as games_won,
        round(coalesce(t.progressive, 0), 6) as progressive,
        c.match_points as carried_points,
        q.quiz_score,
        q.quiz_seconds
    from registered as r
    left join totals as t using (event_id, team_no)
    left join orphan_penalties as o using (event_id, team_no)
    left join carried as c using (event_id, team_no)
    left join quiz_scores as q using (event_id, team_no)
),

opponents as (
    -- 对手分 as read before FIDE C.07 (unplayed = "nothing"): each game's real opponent with
    -- the opponent's totals; a bye counts nothing
    select tr.event_id, tr.team_no, o.match_points as points, o.level_diff_score,
           case tr.outcome when 'win' then 1.0 when 'draw' then 0.5 else 0.0 end as scored
    from team_rounds as tr
    join joined as o on o.event_id = tr.event_id and o.team_no = tr.opponent
),

plain_keys as (
    select
        event_id, team_no,
        round(sum(points), 6) as buchholz,
        round(sum(points) - min(points), 6) as buchholz_cut1,
        round(case when count(*) >= 3 then sum(points) - min(points) - max(points)
                   else 0 end, 6) as median_buchholz,
        round(sum(points * scored), 6) as sonneborn_berger
    from opponents
    group by event_id, team_no
),

grid as (
    -- FIDE C.07 article 16: every team in every round 1..$max_round, played or not
    select j.event_id, j.team_no, j.match_points as own_score, a.round, tr.opponent,
           case
               when tr.round is null then 'requested'  -- not paired: absent or withdrawn
               when tr.requested_bye then 'requested'  -- a half- or zero-point bye asked for
               when tr.is_bye then 'bye'
               when tr.forfeited then 'forfeit_loss'
               when tr.opponent_forfeited then 'forfeit_win'
               else 'played'
           end as kind,
           case coalesce(tr.outcome, 'loss') when 'win' then 1.0 when 'draw' then 0.5
                                              else 0.0 end as scored,
           coalesce(tr.match_points, 0) as round_points
    from joined as j
    join unplayed_rule as u on u.event_id = j.event_id and u.fide
    cross join (select unnest(range(1, $max_round + 1)) as round) as a
    left join team_rounds as tr
        on tr.event_id = j.event_id and tr.team_no = j.team_no and tr.round = a.round
    where list_has_any($ranking_keys, ['buchholz', 'buchholz_cut1', 'median_buchholz',
                                       'sonneborn_berger'])
),

vur as (
    -- a voluntary unplayed round (16.1.2): a requested bye or a forfeit loss; a requested
    -- bye followed only by such rounds, or in the last round, counts as a draw (16.3.2)
    select *,
           kind in ('requested', 'forfeit_loss') as is_vur,
           kind = 'requested' and not coalesce(bool_or(kind not in ('requested', 'forfeit_loss'))
               over (partition by event_id, team_no order by round
                     rows between 1 following and unbounded following), false) as as_draw
    from grid
),

adjusted as (
    -- a team's score as its opponents' tie-breaks read it (16.3)
    -- (a requested bye counted as a draw replaces what it scored: none, or half a point)
    select event_id, team_no, any_value(own_score)
               + coalesce(sum($draw_points - round_points) filter (where as_draw), 0)
               as adjusted_score
    from vur
    group by event_id, team_no
),

contributions as (
    -- each round's value: the opponent's adjusted score; an unplayed round a dummy at the
    -- team's own score, at most the scheduled opponent's (forfeits) or a draw in every
    -- round (byes) (16.4)
    select v.event_id, v.team_no, v.round, v.is_vur, v.scored,
           bool_or(v.is_vur) over (partition by v.event_id, v.team_no) as has_vur,
           case
               when v.kind = 'played' then o.adjusted_score
               when v.kind in ('forfeit_win', 'forfeit_loss')
                   then least(v.own_score, o.adjusted_score)
               else least(v.own_score, $draw_points
                          * greatest($planned_rounds, $max_round))
           end as value
    from vur as v
    left join adjusted as o on o.event_id = v.event_id and o.team_no = v.opponent
),

cuts as (
    -- Cut-1 takes an unplayed round's value first when the team has one (16.5), else the
    -- lowest; Median-1 then also the highest of the rest (14.3)
    select *,
           row_number() over (partition by event_id, team_no
                              order by not (is_vur and has_vur), value, round) as low_order
    from contributions
),

fide_keys as (
    select
        event_id, team_no,
        round(sum(value), 6) as buchholz,
        round(sum(value) filter (where low_order > 1), 6) as buchholz_cut1,
        round(coalesce(sum(value) filter (where low_order > 1), 0)
              - coalesce(max(value) filter (where low_order > 1), 0), 6) as median_buchholz,
        round(sum(value * scored), 6) as sonneborn_berger
    from cuts
    group by event_id, team_no
),

opponent_keys as (
    select k.*, l.opponents_level_diff
    from (select f.* from fide_keys as f
          where f.event_id in (select event_id from unplayed_rule where fide)
          union all
          select p.* from plain_keys as p
          where p.event_id in (select event_id from unplayed_rule where not fide)) as k
    left join (select event_id, team_no, sum(level_diff_score)::bigint as opponents_level_diff
               from opponents group by event_id, team_no) as l using (event_id, team_no)
),

ranking_keys as (
    select unnest($ranking_keys) as key_name,
           generate_subscripts($ranking_keys, 1) as position
),

key_values as (
    -- one row per team per key; ascending order wins, so descending keys are negated
    select
        j.event_id, j.team_no, k.position, k.key_name,
        case k.key_name
            when 'match_points' then -j.match_points
            when 'level_diff_score' then -j.level_diff_score
            when 'vp' then -j.vp
            when 'levels' then -j.levels
            when 'level_points' then -j.levels
            when 'net_levels' then -j.net_levels
            when 'wins' then -j.wins
            when 'levels_gained' then -j.levels_gained
            when 'games_won' then -j.games_won
            when 'progressive' then -j.progressive
            when 'buchholz' then -coalesce(b.buchholz, 0)
            when 'buchholz_cut1' then -coalesce(b.buchholz_cut1, 0)
            when 'median_buchholz' then -coalesce(b.median_buchholz, 0)
            when 'sonneborn_berger' then -coalesce(b.sonneborn_berger, 0)
            when 'opponents_level_diff' then -coalesce(b.opponents_level_diff, 0)
            when 'quiz_score' then -coalesce(j.quiz_score, 0)
            when 'quiz_seconds' then coalesce(j.quiz_seconds, 1e12)
            when 'lot' then (hash(j.team_no || ':' || coalesce(x.seed, 0)::varchar) % 1000000007)
            when 'team_no' then j.team_order
        end::double as value
    from joined as j
    cross join ranking_keys as k
    left join opponent_keys as b using (event_id, team_no)
    left join lots as x using (event_id)
),

h2h_position as (
    select min(position) as position from ranking_keys where key_name = 'head_to_head'
),

games as (
    -- every game between two registered teams, counted as the ruleset says (h2h_games)
    select event_id, team_no, opponent, credit
    from h2h_games
    where 'head_to_head' in $ranking_keys
),

group_0 as (
    -- teams equal on every key before head_to_head form one group (only when the keys
    -- have head_to_head: else every team's head_to_head is 0 and nothing is grouped)
    select v.event_id, v.team_no,
           list(v.value order by v.position) filter (where v.position < h.position) as tie_key
    from key_values as v
    cross join h2h_position as h
    where 'head_to_head' in $ranking_keys
    group by v.event_id, v.team_no
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
),

sort_keys as (
    select
        v.event_id, v.team_no,
        flatten(list(
            case when v.key_name = 'head_to_head' then [-h.h2h_1, -h.h2h_2, -h.h2h_3]
                 else [v.value] end
            order by v.position
        )) as sort_key
    from key_values as v
    left join head_to_head as h using (event_id, team_no)
    group by v.event_id, v.team_no
),

final as (
    select
        rank() over (partition by j.event_id order by s.sort_key) as rank,
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
    from joined as j
    join sort_keys as s using (event_id, team_no)
    left join opponent_keys as b using (event_id, team_no)
    left join head_to_head as h using (event_id, team_no)
    left join lots as x using (event_id)
)

select * from final
