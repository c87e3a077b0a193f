"""The shared base of every stage: the DuckDB file and its locking (db), storing rows with
their audit (store), errors as organizers read them (errors), output tables (output), the
operations log (oplog), rulesets and their presets (ruleset), the event record (events),
levels as organizers write them (levels), Chinese text folding (chinese), progress bars
(progress) and scratch files (scratch).

It may use nothing else of paisai: every stage imports it, it imports no stage."""
