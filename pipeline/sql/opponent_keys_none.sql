-- intermediate: no opponent-based key (the ranking's keys have none): opponent_keys.sql's
-- columns without a row, so that every team's value is 0 and nothing is computed.
select event_id, team_no, 0.0::double as buchholz, 0.0::double as buchholz_cut1,
       0.0::double as median_buchholz, 0.0::double as sonneborn_berger,
       0::bigint as opponents_level_diff
from team_totals
where false
