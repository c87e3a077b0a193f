-- expression: one ranking key's value for a team, the key named '{key}' (ascending order
-- wins: descending keys are negated; a name not listed is null). key_values.sql's key_list
-- holds it once per key of $ranking_keys, in their order: `scoring.compose` writes each in
-- with its key's name, and DuckDB keeps the one branch that names it (no lambda per team
-- per key: 100,000 teams, about 0.03 s CPU less a ranking). Reads team_totals as j,
-- opponent_keys as b, lots as x.
case '{key}'
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
end::double
