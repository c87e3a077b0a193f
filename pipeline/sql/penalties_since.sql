-- staging: the penalties table's rows of rounds $first_round onward. The ranking at an
-- ingest from kept sums reads them in the table's place (a layer named `penalties`): the
-- latest round's alone, as stg_results_since.sql its results.
with

final as (
    select * from main.penalties where round >= $first_round
)

select * from final
