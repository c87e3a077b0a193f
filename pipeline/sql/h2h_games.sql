-- intermediate: one row per team per game against another registered team, with what the
-- game counts for head-to-head as the ruleset says ($h2h_counts: match points, a win, wins
-- − losses, or the level reached). The one definition of a game's credit: the ranking
-- (standings.sql) sums it among the tied teams and `paisai explain` lists it. Needs
-- team_rounds.
select
    event_id, round, team_no, opponent, outcome, match_points,
    case when $h2h_counts = 'wins' then (outcome = 'win')::int::double
         when $h2h_counts = 'net_wins' then
             case outcome when 'win' then 1.0 when 'loss' then -1.0 else 0.0 end
         when $h2h_counts = 'level_points' then levels::double
         else match_points::double end as credit
from team_rounds
where opponent is not null
