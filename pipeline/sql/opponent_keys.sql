-- intermediate: the opponent-based keys of each team (Buchholz, its cuts, Sonneborn-Berger,
-- the opponents' level difference; docs/rules/general.md §11): FIDE C.07 article 16 for
-- unplayed rounds, or "nothing". Needs team_rounds and team_totals. Composed only when the
-- ranking's keys have one of them (else opponent_keys_none.sql: the same columns, no rows).
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

opponents as (
    -- 对手分 as read before FIDE C.07 (unplayed = "nothing"): each game's real opponent with
    -- the opponent's totals; a bye counts nothing
    select tr.event_id, tr.team_no, o.match_points as points, o.level_diff_score,
           case tr.outcome when 'win' then 1.0 when 'draw' then 0.5 else 0.0 end as scored
    from team_rounds as tr
    join team_totals as o on o.event_id = tr.event_id and o.team_no = tr.opponent
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
    from team_totals as j
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

final as (
    select k.*, l.opponents_level_diff
    from (select f.* from fide_keys as f
          where f.event_id in (select event_id from unplayed_rule where fide)
          union all
          select p.* from plain_keys as p
          where p.event_id in (select event_id from unplayed_rule where not fide)) as k
    left join (select event_id, team_no, sum(level_diff_score)::bigint as opponents_level_diff
               from opponents group by event_id, team_no) as l using (event_id, team_no)
)

select * from final
