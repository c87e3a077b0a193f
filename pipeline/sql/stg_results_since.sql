-- staging: stg_results.sql's rows (read as `stg_results_all`) of rounds $first_round onward:
-- the ranking at an ingest reads the latest round's alone beside the sums kept after the
-- round before (pipeline/ranking/sums.py).
with

final as (
    select * from stg_results_all where round >= $first_round
)

select * from final
